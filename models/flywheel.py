"""A flywheel: a geared inertia driven by a motor, with no load but friction.

States ``angle`` (rad) and ``velocity`` (rad/s) of the output shaft. With no
friction and the default ideal bus, the velocity obeys WPILib's
``LinearSystemId.createFlywheelSystem`` plant exactly:
``dw/dt = -G² Kt / (Kv R J) w + G Kt / (R J) V``.
"""
from __future__ import annotations

from simcore import checks

from .drive import MotorDrive
from .mechanism import FRICTION_PARAMETERS, GearedMechanism, split_mechanism_options

__all__ = ["Flywheel"]


class Flywheel(GearedMechanism):
    """A motor-driven inertia.

    Parameters
    ----------
    motor : DCMotor
        The motor (use ``n_motors=`` for several on the gearbox).
    gearing : float
        Motor turns per flywheel turn.
    moi : float or Quantity
        Moment of inertia of the flywheel, kg·m².
    name : str
        System name (default ``"flywheel"``).
    **options
        Drive options: ``n_motors, efficiency, neutral_mode, stator_current_limit,
        supply_current_limit, command, nominal_bus_voltage, viscous_friction,
        static_friction, kinetic_friction, rotor_inertia, track_energy``.
    """

    def __init__(self, motor, gearing, moi, *, name: str = "flywheel", start_velocity=0.0, **options):
        drive_opts, mech_opts = split_mechanism_options(type(self), options)
        moi_si = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        self.moi = moi_si
        super().__init__(name, MotorDrive(motor, gearing, **drive_opts), mass=moi_si, linear=False,
                         position_name="angle", start_velocity=start_velocity,
                         parameter_names={"mass": "moi"}, **mech_opts)

    BATCH_PARAMETERS = ("moi", "gearing") + FRICTION_PARAMETERS

    def _variant_load(self, value, varied, refuse):
        _, kind, a, b = super()._variant_load(value, varied, refuse)
        return value("moi"), kind, a, b

    @classmethod
    def from_sysid(cls, ks, kv, ka, *, name: str = "flywheel", **options) -> "Flywheel":
        """The flywheel whose WPILib SysId gains are ``ks`` V, ``kv`` V/(rad/s), ``ka`` V/(rad/s²).

        Optional ``motor=``, ``gearing=``, ``n_motors=`` make its currents real;
        see :func:`simcore.sysid.flywheel`.
        """
        from simcore.sysid import flywheel

        return flywheel(ks, kv, ka, name=name, **options)
