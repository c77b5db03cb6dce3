"""The FTC hub motor: a motor type driving a load inertia, with a position-dependent external torque.

The stand-alone mechanism of the hub specification (:mod:`simcore.reference`, "The FTC
hub"): where the specification's FakeMotor asks robot code to set an
external torque fraction every tick,
here the torque is a function of the output-shaft angle evaluated continuously
inside the right-hand side::

    arm = HubMotor(GOBILDA_5203_312, load_inertia=0.02,
                   external_torque=lambda angle: -0.3 * math.cos(angle))

``external_torque(angle)`` returns a fraction of the motor type's stall torque at
the output shaft (``motor.stall_torque * gear_ratio``), positive in the direction
of increasing angle; ``angle`` is the output shaft's angle, rad (``start_angle`` at the
start, 0 by default). The encoder count starts at 0 whatever the start angle.

The command input is ``duty`` (what the hub writes; see :mod:`simcore.controllers.hub`)
and ``brake`` follows ZeroPowerBehavior. The encoder reads the motor shaft
(``rotor_position``); a hub channel can equally drive an ``Arm``, ``Elevator`` or
``Flywheel`` built with ``command="duty"``.

The motor types (``GOBILDA_5203_312``, ``REV_HD_HEX_20``, ...) are defined in
:mod:`simcore.models.ftc_motor_types` and re-exported here.
"""
from __future__ import annotations

import math

from simcore import checks
from simcore.errors import ConfigTypeError, NonFiniteError
from simcore.kernel.layout import LOAD_NONE

from .drive import MotorDrive
from .ftc_motor_types import *  # noqa: F401,F403 -- the contract names live in simcore.models.hub_motor
from .ftc_motor_types import __all__ as _TYPES_ALL
from .ftc_motor_types import MotorType
from .mechanism import GearedMechanism, split_mechanism_options

__all__ = ["HubMotor", "UNLOADED_ACCELERATION"] + list(_TYPES_ALL)

#: APPROXIMATION. Inertia of a gear motor's rotor and gearbox is not published for FTC
#: motors. It is set so that the unloaded motor at stall torque accelerates by this many
#: free speeds per second (a mechanical time constant of 1/12 s), the "maxAccel 12" the
#: hub specification's FakeMotor uses for its figures (simcore.reference). Override with ``rotor_inertia=``.
UNLOADED_ACCELERATION = 12.0  # 1/s


class HubMotor(GearedMechanism):
    """An FTC motor (by motor type) driving a load.

    Parameters
    ----------
    motor_type : simcore.models.ftc_motor_types.MotorType
        The motor type: SDK configuration and physics.
    load_inertia : float or Quantity
        Inertia of the load at the output shaft, kg·m² (default 0: the motor alone).
    external_torque : callable ``f(angle) -> float``, optional
        External torque as a fraction of the output stall torque (see module docstring).
    rotor_inertia : float or Quantity, optional
        Inertia of rotor and gearbox at the motor type's ``motor`` shaft, kg·m²;
        default from :data:`UNLOADED_ACCELERATION`.
    name : str
    **options
        Drive options (``neutral_mode``, current limits, ``viscous_friction``,
        ``static_friction``, ``track_energy``, ...; ``command`` defaults to "duty").

    Notes
    -----
    ``viscous_friction`` defaults to the motor's own friction as its datasheet
    gives it: the free current, ``Kt * I_free`` of torque at free speed, taken
    proportional to speed and reflected to the output (``Kt I_free G^2 / w_free``,
    N·m·s/rad). So the unloaded motor at 12 V turns at the datasheet's free speed
    drawing its free current (as a real one does; the ideal motor of WPILib's model
    would run 2-3 % faster drawing nothing), and a motor left in FLOAT coasts down
    (unloaded, with time constant ``I_stall / (UNLOADED_ACCELERATION * I_free)``,
    about 3 s for a goBILDA 5203) rather than spinning for ever.
    ``viscous_friction=0`` gives the ideal motor.
    """

    def __init__(self, motor_type: MotorType, *, load_inertia=0.0, external_torque=None, rotor_inertia=None,
                 name: str = "motor", start_angle=0.0, **options):
        if not isinstance(motor_type, MotorType):
            raise ConfigTypeError("motor_type", motor_type, "a simcore.models.hub_motor motor type, e.g. GOBILDA_5203_312")
        if external_torque is not None and not callable(external_torque):
            raise ConfigTypeError("external_torque", external_torque, "None or a callable f(angle) -> stall fraction")
        self.motor_type = motor_type
        self.external_torque = external_torque
        motor = motor_type.motor
        self.stall_torque_output = motor.stall_torque * motor_type.gear_ratio
        load = checks.nonnegative("load_inertia", load_inertia, "kg*m**2", what="inertia")
        if rotor_inertia is None:
            rotor_inertia = motor.stall_torque / (motor.free_speed * UNLOADED_ACCELERATION)
        options.setdefault("command", "duty")
        if "viscous_friction" not in options:
            # The datasheet's free current is the motor's own friction: as a torque
            # Kt * I_free at free speed, proportional to speed, reflected to the output.
            options["viscous_friction"] = (motor.Kt * motor.free_current / motor.free_speed
                                           * motor_type.gear_ratio ** 2)
        drive_opts, mech_opts = split_mechanism_options(type(self), options,
                                                        ("start_velocity", "min_position", "max_position"))
        super().__init__(name, MotorDrive(motor, motor_type.gear_ratio, **drive_opts), mass=load, linear=False,
                         position_name="angle", start_position=start_angle, rotor_inertia=rotor_inertia,
                         parameter_names={"mass": "load_inertia", "start_position": "start_angle"}, **mech_opts)

    def load_force(self, q):
        """External torque at output angle ``q`` (rad), N·m.

        A non-finite ``external_torque(q)`` raises NonFiniteError. This method does
        not know the time; inside a simulation the engine re-raises it with the
        simulation time at which it happened (called outside one, from
        ``potential_energy``, the time reads nan).
        """
        if self.external_torque is None:
            return 0.0
        f = float(self.external_torque(q))
        if not math.isfinite(f):
            raise NonFiniteError("external_torque of", self.name, f, math.nan)
        return f * self.stall_torque_output

    def kernel_load(self):
        """No load, or None: an ``external_torque`` is Python, so the run takes the Python path."""
        return (LOAD_NONE, 0.0, 0.0) if self.external_torque is None else None

    def potential_energy(self, q):
        """Potential energy of the external torque, J, zero at angle 0: ``-∫₀^q torque``.

        Computed by adaptive quadrature (for energy audits, not in the right-hand side);
        meaningful when the external torque depends on the angle only, as it does here.
        """
        if self.external_torque is None:
            return 0.0
        from scipy.integrate import quad

        q = float(q)
        # An oscillating torque over many turns (a motor spinning on) cancels itself: ask for an
        # absolute accuracy on the scale of the torque times the angle, and subdivide with the angle.
        scale = self.stall_torque_output * max(1.0, abs(q))
        value, _ = quad(self.load_force, 0.0, q, epsabs=1e-12 * scale, epsrel=1e-12,
                        limit=200 + int(20 * abs(q)))
        return -value
