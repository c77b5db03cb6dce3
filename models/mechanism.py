"""A one-degree-of-freedom mechanism driven by a motor through a gearbox.

The common physics of the flywheel, the arm, the elevator and the FTC hub motor:
a coordinate ``q`` (rad for rotary mechanisms, m for linear ones) with velocity
``v``, an effective mass ``M`` (kg·m² or kg, including the motor rotors' inertia
reflected through the gearbox), a transmission ratio ``k`` (rotor radians per unit
of ``q``: the gear ratio, divided by the drum radius for a linear mechanism), and

    M dv/dt = F_drive + F_load(q) - b v - F_c * s

where ``F_drive = k / G * T_out`` is the drive force (see :mod:`simcore.models.drive`),
``F_load`` a position-dependent load (gravity, spring), ``b`` viscous friction,
``F_c`` Coulomb (kinetic) friction and ``s`` the direction of sliding.

**Modes** (``system.mode``), switched only by located events:

``"moving"``
    Free motion with no Coulomb friction (``F_c = F_s = 0``).
``"forward"``, ``"reverse"``
    Sliding with ``v > 0`` / ``v < 0``; the friction sign is the mode's, not
    ``sign(v)``, so the right-hand side is smooth inside the mode. When ``v``
    reaches zero an event decides: stuck, or sliding the other way.
``"stuck"``
    Held by static friction, ``v = 0`` exactly, while the applied force
    ``|F_drive + F_load| <= F_s``; breakaway is a located event.
``"lower_stop"``, ``"upper_stop"``
    Resting against a hard stop, ``v = 0`` exactly, while pushed into it; it
    leaves when the push away exceeds static friction (at the tick where a
    controller reverses the command, or at the located instant otherwise).

Impacts on a stop are perfectly plastic (the velocity becomes zero; the kinetic
energy lost is accounted in ``impact_loss`` when energy tracking is on).

With ``track_energy=True`` extra states integrate the energy flows, J:
``energy_in`` (drawn from the bus, ``∫ V_bus I_supply dt``), ``copper_loss``
(``∫ I² R dt``), ``gear_loss``, ``friction_loss``, ``impact_loss`` and
``conversion_loss``, so that

    energy_in = ΔKE + ΔPE + copper_loss + gear_loss + friction_loss + impact_loss + conversion_loss.

``conversion_loss = ∫ (E - Kt ω) I dt = ∫ I ω (1/Kv - Kt) dt`` is the electrical power
the back-EMF absorbs minus the shaft power the motor produces. It is zero for an
energy-consistent motor (``Kt · Kv = 1`` in SI units). Motor constants derived from a
datasheet the way WPILib does are not consistent: a NEO has ``Kt · Kv = 1.25``, so
this model (like WPILib's) makes 25 % more shaft power than it converts, and the term
is negative. It is kept so the ledger closes and the mismatch is visible.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from simcore import checks
from simcore.errors import ConfigError
from simcore.events import StateEvent, on_floats
from simcore.kernel import layout as _kl, loaded
from simcore.system import System, derivatives_on_floats

from .drive import MOTOR_DRIVE_KEYS, MotorDrive, drive_input_ranges, split_drive_options
from .motor_channels import free_current_friction

__all__ = ["GearedMechanism", "DriveSample", "DRIVE_OPTIONS", "MECHANISM_OPTIONS", "FRICTION_PARAMETERS",
           "ENERGY_STATES", "split_mechanism_options", "named_as"]

#: GearedMechanism's keyword options that every mechanism passes through from its ``**options``.
MECHANISM_OPTIONS = ("viscous_friction", "static_friction", "kinetic_friction", "rotor_inertia", "track_energy")
#: The friction parameters a batch can vary (see GearedMechanism.kernel_parameters).
FRICTION_PARAMETERS = ("viscous_friction", "static_friction", "kinetic_friction")
#: Keyword options every motor-driven mechanism accepts (see MotorDrive and GearedMechanism).
DRIVE_OPTIONS = MOTOR_DRIVE_KEYS + MECHANISM_OPTIONS


@contextmanager
def named_as(names: dict):
    """Re-raise a ConfigError about one of ``names``'s keys under the name the user wrote.

    For alternative constructors whose parameters have other names than the class's
    (``Arm.from_wpilib(starting_angle=...)`` builds ``Arm(start_angle=...)``).
    """
    try:
        yield
    except ConfigError as exc:
        if exc.parameter in names and type(exc).__init__ is ConfigError.__init__:
            raise type(exc)(names[exc.parameter], exc.value, exc.expected) from None
        raise


def split_mechanism_options(owner, options: dict, extra: tuple = ()) -> tuple[dict, dict]:
    """Split a mechanism constructor's ``**options`` into MotorDrive and GearedMechanism keywords.

    :func:`~simcore.models.drive.split_drive_options` with the mechanism keywords
    (:data:`MECHANISM_OPTIONS` and ``extra``) accepted; an unknown keyword raises
    ConfigTypeError naming ``owner`` (the class the user called) rather than
    Python's TypeError about ``GearedMechanism.__init__``.
    """
    return split_drive_options(owner, options, accepted=MECHANISM_OPTIONS + tuple(extra))


class DriveSample(NamedTuple):
    """The drive at one instant, as :meth:`GearedMechanism.drive_sample` returns it."""

    #: Drive force at the mechanism coordinate, N·m (rotary) or N (linear).
    force: float
    #: Voltage on the windings, V.
    applied_voltage: float
    #: Winding current of the motor group, A.
    stator_current: float
    #: Current drawn from the bus, A.
    supply_current: float
    #: Torque of the motor group at the rotor, N·m.
    motor_torque: float
    #: 1.0 when the request exceeded the bus voltage.
    saturated: float
    #: 1.0 when a current limit reduced the voltage.
    current_limited: float


_sample = tuple.__new__  # builds a DriveSample from a tuple, skipping the keyword-parsing __new__ (hot path)


ENERGY_STATES = ("energy_in", "copper_loss", "gear_loss", "friction_loss", "impact_loss", "conversion_loss")

#: Relative margin above static friction at which a body at rest breaks away. A drive that
#: converges on the breakaway force from above would otherwise make round-off flip the sign of
#: a ~1e-24 velocity and fire velocity-zero events forever; within this margin (far below any
#: integration tolerance) the body rests. The same threshold decides rest and release.
BREAKAWAY_MARGIN = 1e-8

#: Direction of motion of each moving mode (the gearbox efficiency's side).
_DIRECTION = {"forward": 1.0, "reverse": -1.0}

_ROTARY_UNITS = {"q": "rad", "v": "rad/s", "a": "rad/s**2", "force": "N*m", "mass": "kg*m**2",
                 "viscous": "N*m*s/rad"}
_LINEAR_UNITS = {"q": "m", "v": "m/s", "a": "m/s**2", "force": "N", "mass": "kg", "viscous": "N*s/m"}


def _kernel_guard(event: StateEvent, code: int) -> StateEvent:
    """``event`` marked with its guard's code in the compiled kernel (:mod:`simcore.kernel.geared`)."""
    event.kernel_guard = code
    return event


#: The events of each mode by their kernel id (simcore.kernel.layout's ``EV_*``), in the lists' order.
_KERNEL_EVENT_IDS = {"moving": (_kl.EV_LOWER_STOP, _kl.EV_UPPER_STOP),
                     "forward": (_kl.EV_LOWER_STOP, _kl.EV_UPPER_STOP, _kl.EV_VELOCITY_ZERO_FORWARD),
                     "reverse": (_kl.EV_LOWER_STOP, _kl.EV_UPPER_STOP, _kl.EV_VELOCITY_ZERO_REVERSE),
                     "stuck": (_kl.EV_BREAKAWAY_FORWARD, _kl.EV_BREAKAWAY_REVERSE),
                     "lower_stop": (_kl.EV_LEAVE_LOWER_STOP,), "upper_stop": (_kl.EV_LEAVE_UPPER_STOP,)}


#: Mode codes of the kernel (simcore.kernel.layout's MODE_*) by name, and those of a body at rest.
_MODE_CODES = {name: code for code, name in enumerate(_kl.MODE_NAMES)}
_RESTING_CODES = (_kl.MODE_STUCK, _kl.MODE_LOWER_STOP, _kl.MODE_UPPER_STOP)
#: Batch parameters that must be positive (the others, the frictions, non-negative).
_POSITIVE_PARAMETERS = ("moi", "gearing", "mass", "com_distance", "carriage_mass")


def _geared_kernel():
    """The compiled geared mechanism (imported at first use: building a model loads no numba)."""
    return loaded("geared")


def _defined_in(cls, name):
    """The class of ``cls``'s MRO that defines attribute ``name``."""
    for base in cls.__mro__:
        if name in base.__dict__:
            return base
    return None


#: GearedMechanism's methods whose physics the kernel form replaces: a subclass overriding one of them
#: runs on the Python path.
_KERNEL_REPLACES = ("derivatives", "derivatives_of_floats", "drive_force", "drive_sample", "applied_force",
                    "_friction", "_rest_mode", "_build_events", "events", "initial_mode", "outputs",
                    "extra_outputs")


class GearedMechanism(System):
    """Base class of motor-driven 1-DOF mechanisms (see the module docstring).

    Parameters
    ----------
    name : str
        System name.
    drive : MotorDrive
        Motor, controller and gearbox.
    mass : float
        Inertia of the load about its coordinate (kg·m² rotary, kg linear),
        without the rotors.
    linear : bool
        True when ``q`` is a length (then ``drum_radius`` is required).
    drum_radius : float, optional
        Radius converting output-shaft angle to travel, m.
    position_name : str
        Name of the position state (``"angle"`` or ``"position"``).
    min_position, max_position : float
        Hard stops (``-inf``/``inf`` for none).
    start_position : float
        Initial ``q``.
    viscous_friction : float or Quantity, optional
        ``b`` at the mechanism coordinate, N·m·s/rad (rotary) or N·s/m (linear).
        Default: the motors' own friction as their datasheet free current implies
        (:func:`~simcore.models.motor_channels.free_current_friction` reflected through
        ``k``), so a motor at its nominal voltage with no load turns at its free speed
        drawing its free current; 0 gives WPILib's ideal plant. The default acts at the
        rotors, before the gearbox efficiency (it is the motors' friction); a value given
        acts at the mechanism, after it.
    static_friction : float or Quantity
        Breakaway force ``F_s``, N·m or N at the mechanism; a Quantity in volts is
        read as a kS voltage and converted through the motor
        (``F = kS * Kt / R * k * eta``).
    kinetic_friction : float or Quantity, optional
        Coulomb force while sliding; defaults to ``static_friction``.
    rotor_inertia : float
        Inertia of one motor's rotor, kg·m² (default 0, as WPILib).
    track_energy : bool
        Add the energy-accounting states.

    Notes
    -----
    The constructor checks its arguments; every value derived from them (``k``, ``M``, the friction at
    the mechanism and at the rotors, the breakaway force, the load) comes from
    :meth:`kernel_parameters`, the one derivation a batch's variants use too. The outputs are computed
    by the compiled kernel (:func:`simcore.kernel.geared.outputs`).
    """

    def __init__(self, name: str, drive: MotorDrive, *, mass: float, linear: bool, position_name: str,
                 drum_radius: float | None = None, min_position=-math.inf, max_position=math.inf,
                 start_position=0.0, start_velocity=0.0, viscous_friction=None, static_friction=0.0,
                 kinetic_friction=None, rotor_inertia=0.0, track_energy: bool = False,
                 extra_outputs: tuple = (), parameter_names: dict | None = None):
        u = _LINEAR_UNITS if linear else _ROTARY_UNITS
        # The names the user wrote (min_angle, max_height, ...) for error messages.
        pn = {"min_position": "min_position", "max_position": "max_position", "start_position": "start_position",
              "mass": "mass"}
        pn.update(parameter_names or {})
        self.drive = drive
        self.linear = linear
        if linear:
            self.drum_radius = checks.positive("drum_radius", drum_radius, "m", what="radius")
        else:
            self.drum_radius = None
        self.load_mass = checks.nonnegative(pn["mass"], mass, u["mass"], what="inertia")
        self.rotor_inertia = checks.nonnegative("rotor_inertia", rotor_inertia, "kg*m**2", what="inertia")
        #: The arguments as the user wrote them, by the derivation's keys, for its errors (kernel_parameters).
        self._arguments = {"mass": (pn["mass"], mass), "gearing": (pn.get("gearing", "gearing"), drive.gearing),
                           "drum_radius": ("drum_radius", drum_radius),
                           "static_friction": ("static_friction", static_friction),
                           "kinetic_friction": ("kinetic_friction", kinetic_friction)}
        # None or an infinite value means "no stop".
        self.min_position = (-math.inf if min_position is None or min_position == -math.inf
                             else checks.finite(pn["min_position"], min_position, u["q"]))
        self.max_position = (math.inf if max_position is None or max_position == math.inf
                             else checks.finite(pn["max_position"], max_position, u["q"]))
        if not self.min_position < self.max_position:
            raise ConfigError(pn["min_position"], min_position,
                              f"a value below {pn['max_position']}={self.max_position}")
        self.start_position = checks.finite(pn["start_position"], start_position, u["q"])
        if not self.min_position <= self.start_position <= self.max_position:
            raise ConfigError(pn["start_position"], start_position,
                              f"a value within [{self.min_position}, {self.max_position}]")
        self.start_velocity = checks.finite("start_velocity", start_velocity, u["v"])
        #: True when ``viscous_friction`` is the motors' own (so it follows the gearing: ``b_rotor k^2``).
        self.viscous_friction_from_motors = viscous_friction is None
        #: The viscous friction given, at the mechanism (None: the motors' own, from their free current).
        self._viscous_friction_given = (None if viscous_friction is None else
                                        checks.nonnegative("viscous_friction", viscous_friction, u["viscous"],
                                                           what="coefficient"))
        #: The static and kinetic friction given: ``(amount, in volts)``: a force (N·m or N), or a kS voltage
        #: that the derivation converts through the motor and the transmission (kinetic: None, not given).
        self._friction_given = {"static_friction": self._friction_amount("static_friction", static_friction,
                                                                         u["force"]),
                                "kinetic_friction": (None if kinetic_friction is None else self._friction_amount(
                                    "kinetic_friction", kinetic_friction, u["force"]))}
        #: True when ``kinetic_friction`` was not given, so it is ``static_friction`` (a batch that varies
        #: the static friction then varies it too; one given, even equal to the static one, stays).
        self.kinetic_friction_from_static = kinetic_friction is None
        self.track_energy = checks.flag("track_energy", track_energy)
        # Every derived value (transmission ratio, inertia with the rotors, friction at the mechanism and
        # at the rotors, breakaway force, the load) from the one derivation a batch's variants use too.
        p, derived = self._variant_parameters(None, 1)
        self._kernel_p = p[0]
        self.k = float(p[0, _kl.P_K])
        self._k_per_gearing = float(p[0, _kl.P_K_PER_GEARING])  # drive force per gearbox output torque
        self.M = float(p[0, _kl.P_M])
        self.viscous_friction = float(derived["viscous_friction"][0])
        self.rotor_viscous_friction = float(derived["rotor_viscous_friction"][0])
        # The motors' own friction acts on the rotors, before the gearbox and its efficiency (so a
        # free-running motor draws its free current whatever the efficiency): rotor torque per unit
        # of mechanism speed. A viscous_friction the user gives acts at the mechanism.
        self._shaft_friction = float(p[0, _kl.P_SHAFT_FRICTION])
        self._load_viscous = float(p[0, _kl.P_LOAD_VISCOUS])
        self.static_friction = float(derived["static_friction"][0])
        self.kinetic_friction = float(p[0, _kl.P_KINETIC])
        #: Coulomb friction by sliding mode (its sign is the mode's, so the force is smooth within a mode).
        self._coulomb = {"forward": self.kinetic_friction, "reverse": -self.kinetic_friction}
        # The direction of motion is a mode when it changes the forces: Coulomb friction's sign, and
        # which way power flows through a lossy gearbox (G eta T or G T / eta).
        self._directional = bool(p[0, _kl.P_DIRECTIONAL] != 0.0)
        self._breakaway = float(p[0, _kl.P_BREAKAWAY])
        # A load written in Python (no kernel form): the outputs take its value at q from Python.
        cls = type(self)
        self._load_in_python = (_defined_in(cls, "load_force") is not _defined_in(cls, "kernel_load")
                                or self.kernel_load() is None)
        if self.start_velocity != 0.0 and (
                (self.start_position <= self.min_position and self.start_velocity < 0)
                or (self.start_position >= self.max_position and self.start_velocity > 0)):
            raise ConfigError("start_velocity", start_velocity, "no velocity into the hard stop the mechanism "
                                                                "starts on")
        self._cmd = drive.command
        states = [position_name, "velocity"] + (list(ENERGY_STATES) if self.track_energy else [])
        inputs = [drive.command, "brake", "bus_voltage"]
        outputs = ["acceleration", "rotor_position", "rotor_velocity", "rotor_acceleration", "stator_current",
                   "supply_current", "applied_voltage", "supply_voltage", "torque", "motor_torque", "saturated",
                   "current_limited"] + list(extra_outputs)
        units = {position_name: u["q"], "velocity": u["v"], "acceleration": u["a"], "rotor_position": "rad",
                 "rotor_velocity": "rad/s", "rotor_acceleration": "rad/s**2", "stator_current": "A",
                 "supply_current": "A", "applied_voltage": "V", "supply_voltage": "V", "bus_voltage": "V",
                 "torque": "N*m", "motor_torque": "N*m", "voltage": "V", "duty": "", "brake": "",
                 "saturated": "", "current_limited": ""}
        units.update({s: "J" for s in ENERGY_STATES})
        super().__init__(name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)
        if drive.n_motors > 1:  # for plot legends: these are the group's totals, not one motor's
            self.signal_notes = {n: f"total of {drive.n_motors} motors"
                                 for n in ("stator_current", "supply_current", "motor_torque")}
        self._events_by_mode = self._build_events()

    def _friction_amount(self, parameter, value, unit):
        """A friction argument checked: ``(amount, True)`` for a kS voltage (V), ``(amount, False)`` for a force
        (N·m or N); :meth:`kernel_parameters` makes the force of it."""
        from simcore.units import ureg
        if hasattr(value, "dimensionality") and value.dimensionality == ureg.volt.dimensionality:
            return checks.nonnegative(parameter, value, "V", what="friction voltage kS"), True
        return checks.nonnegative(parameter, value, unit, what="friction force/torque"), False

    # -- physics to override -------------------------------------------------------------------
    def load_force(self, q: float) -> float:
        """Position-dependent load on the coordinate (gravity, springs), N·m or N."""
        return 0.0

    def potential_energy(self, q: float) -> float:
        """Potential energy of :meth:`load_force` (``F = -dPE/dq``), J, zero at q = 0."""
        return 0.0

    # -- System interface -------------------------------------------------------------------------
    def initial_state(self):
        x = np.zeros(len(self.state_names))
        x[0] = self.start_position
        x[1] = self.start_velocity
        return x

    def initial_inputs(self):
        return np.array([0.0, 1.0 if self.drive.neutral_mode == "brake" else 0.0,
                         self.drive.nominal_bus_voltage])

    def drive_sample(self, q, v, u, direction=0.0) -> DriveSample:
        """The drive at position ``q``, velocity ``v`` and inputs ``u``: force, voltages, currents, flags.

        ``direction`` (+1, -1, or 0 at rest) chooses the gearbox efficiency's side.
        """
        d = self.drive
        e = d.electrical(self.k * v, u[0], u[1], u[2])
        tm = d.Kt * e.stator_current
        f = d.output_torque_directed(tm - self._shaft_friction * v, direction) * self._k_per_gearing
        return _sample(DriveSample, (f, e.applied_voltage, e.stator_current, e.supply_current, tm, e.saturated,
                                     e.current_limited))

    def drive_force(self, v, u, direction=0.0) -> float:
        """:attr:`DriveSample.force` alone (the right-hand side and the guards need nothing else)."""
        d = self.drive
        return d.output_torque_directed(d.Kt * d.electrical(self.k * v, u[0], u[1], u[2]).stator_current
                                        - self._shaft_friction * v, direction) * self._k_per_gearing

    def applied_force(self, q: float, u, direction: float = 1.0) -> float:
        """Drive plus load force at rest at ``q``, N·m or N, for motion starting in ``direction``.

        With a lossy gearbox the drive force depends on which way the body would move
        (``G eta T`` motoring, ``G T / eta`` back-driven); with ``efficiency=1`` both are
        the same.
        """
        return self.drive_force(0.0, u, direction) + self.load_force(q)

    def _friction(self, v, mode):
        """Friction force at the mechanism opposing the motion in ``mode`` at velocity ``v``, N·m or N:
        viscous (the user's; the motors' own acts at the rotors, in :meth:`drive_force`), plus
        Coulomb with the sign of the sliding mode."""
        return self._load_viscous * v + self._coulomb.get(mode, 0.0)

    def derivatives_of_floats(self, t, x, u) -> list:
        """:meth:`derivatives` with the state ``x`` and inputs ``u`` as lists of floats, as a list.

        The one implementation of the equations of motion (given arrays, it computes on numpy
        scalars); the engine calls this form on a simulation of one such mechanism (Python float
        arithmetic is several times cheaper than the same on numpy scalars).
        """
        mode = self.mode
        q, v = x[0], x[1]
        if mode in ("stuck", "lower_stop", "upper_stop"):
            if not self.track_energy:
                return [0.0, 0.0]
            f = self.drive_sample(q, 0.0, u)
            i = f.stator_current
            return [0.0, 0.0, u[2] * f.supply_current, i * i * self.drive.R, 0.0, 0.0, 0.0, 0.0]
        fric = self._load_viscous * v + self._coulomb.get(mode, 0.0)  # _friction, inlined: the hot path
        if not self.track_energy:
            return [v, (self.drive_force(v, u, _DIRECTION.get(mode, 0.0)) + self.load_force(q) - fric) / self.M]
        f = self.drive_sample(q, v, u, _DIRECTION.get(mode, 0.0))
        a = (f.force + self.load_force(q) - fric) / self.M
        i = f.stator_current
        tm, w = f.motor_torque, self.k * v
        d = self.drive
        tf = self._shaft_friction * v  # the rotors' own friction torque
        return [v, a, u[2] * f.supply_current, i * i * d.R, (tm - tf) * w - f.force * v, fric * v + tf * w, 0.0,
                i * w * (1.0 / d.Kv - d.Kt)]

    @derivatives_on_floats
    def derivatives(self, t, x, u):
        # The arrays as given: on numpy scalars a division by zero or an overflow gives inf or nan, which
        # the engine reports as a NonFiniteError naming the signal (the float form raises instead).
        return np.array(self.derivatives_of_floats(t, x, u), dtype=float)

    def _output_parameters(self, x):
        """``(parameters, mode code)`` the kernel's outputs are evaluated with at state ``x``: the kernel
        vector, with a load written in Python evaluated here at ``x`` and handed to it as a constant."""
        p = self._kernel_p
        mode = _MODE_CODES.get(self.mode, _kl.MODE_MOVING)  # (no mode yet: free, as the right-hand side)
        if self._load_in_python:
            p = p.copy()
            p[_kl.P_LOAD_KIND] = _kl.LOAD_CONSTANT
            # (at rest the acceleration is zero without it: the load is not evaluated, as the right-hand side)
            p[_kl.P_LOAD_A] = 0.0 if mode in _RESTING_CODES else self.load_force(x[0])
        return p, mode

    def outputs(self, t, x, u):
        """The outputs at time ``t`` (s), state ``x`` and inputs ``u`` (the law is
        :func:`simcore.kernel.geared.outputs`; a load written in Python is evaluated here and handed to it)."""
        p, mode = self._output_parameters(x)
        out = np.empty(_kl.N_OUTPUTS)
        _geared_kernel().outputs(p, 0, mode, np.asarray(x, dtype=float), 0, np.asarray(u, dtype=float), 0,
                                 math.nan if t is None else float(t), out, 0)
        return tuple(out.tolist()) + self.extra_outputs(t, x, u)

    def extra_outputs(self, t, x, u) -> tuple:
        """Values of the subclass's extra outputs."""
        return ()

    # -- modes and events -----------------------------------------------------------------------
    def _rest_mode(self, q, u):
        """The mode of the body at rest at ``q`` under input ``u``.

        It moves forward when the force for forward motion exceeds breakaway, back
        when the force for backward motion is below minus breakaway, and otherwise
        stays (stuck, or on a stop). The forward force never exceeds the backward
        one (a lossy gearbox only ever resists), so the two cannot both hold: the
        band between them is the gear's self-locking plus static friction.
        """
        fb = self._breakaway
        f_fwd = self.applied_force(q, u, +1.0)
        f_rev = self.applied_force(q, u, -1.0) if self.drive.efficiency < 1.0 else f_fwd
        if q <= self.min_position and f_fwd <= fb:
            return "lower_stop"
        if q >= self.max_position and f_rev >= -fb:
            return "upper_stop"
        if not self._directional:
            return "moving"
        if f_fwd > fb:
            return "forward"
        if f_rev < -fb:
            return "reverse"
        return "stuck"

    def initial_mode(self, t, x, u):
        q, v = x[0], x[1]
        if q < self.min_position or q > self.max_position:
            raise ConfigError(f"{self.name} position", q, f"a value within the stops [{self.min_position}, "
                                                          f"{self.max_position}]")
        if (q <= self.min_position and v < 0) or (q >= self.max_position and v > 0):
            raise ConfigError(f"{self.name} velocity", v, "no velocity into the hard stop it starts on")
        if v > 0:
            return "forward" if self._directional else "moving"
        if v < 0:
            return "reverse" if self._directional else "moving"
        return self._rest_mode(q, u)

    def _build_events(self):
        # Every guard only indexes x and u and does scalar arithmetic: it takes lists too (on_floats).
        ev = {}
        to_rest = lambda t, x, u: self._rest_mode(x[0], u)  # noqa: E731
        stop_lo = lambda t, x, u: self._impact(x, self.min_position)  # noqa: E731
        stop_hi = lambda t, x, u: self._impact(x, self.max_position)  # noqa: E731
        moving = []
        if self.min_position > -math.inf:
            moving.append(_kernel_guard(StateEvent(on_floats(lambda t, x, u: x[0] - self.min_position), direction=-1,
                                                   reset=stop_lo, mode=to_rest, name="lower_stop"), _kl.GUARD_LOWER_STOP))
        if self.max_position < math.inf:
            moving.append(_kernel_guard(StateEvent(on_floats(lambda t, x, u: x[0] - self.max_position), direction=+1,
                                                   reset=stop_hi, mode=to_rest, name="upper_stop"), _kl.GUARD_UPPER_STOP))
        zero_v = lambda t, x, u: self._halt(x)  # noqa: E731
        ev["moving"] = tuple(moving)
        ev["forward"] = tuple(moving) + (_kernel_guard(StateEvent(on_floats(lambda t, x, u: x[1]), direction=-1,
                                                                  reset=zero_v, mode=to_rest, name="velocity_zero"), _kl.GUARD_VELOCITY),)
        ev["reverse"] = tuple(moving) + (_kernel_guard(StateEvent(on_floats(lambda t, x, u: x[1]), direction=+1,
                                                                  reset=zero_v, mode=to_rest, name="velocity_zero"), _kl.GUARD_VELOCITY),)
        fb = self._breakaway
        forward_push = on_floats(lambda t, x, u: self.applied_force(x[0], u, +1.0) - fb)
        backward_push = on_floats(lambda t, x, u: -self.applied_force(x[0], u, -1.0) - fb)
        ev["stuck"] = (
            _kernel_guard(StateEvent(forward_push, direction=+1, mode="forward", name="breakaway_forward"),
                          _kl.GUARD_FORWARD_PUSH),
            _kernel_guard(StateEvent(backward_push, direction=+1, mode="reverse", name="breakaway_reverse"),
                          _kl.GUARD_BACKWARD_PUSH),
        )
        leave = "forward" if self._directional else "moving"
        leave_rev = "reverse" if self._directional else "moving"
        ev["lower_stop"] = (_kernel_guard(StateEvent(forward_push, direction=+1, mode=leave, name="leave_lower_stop"),
                                          _kl.GUARD_FORWARD_PUSH),)
        ev["upper_stop"] = (_kernel_guard(StateEvent(backward_push, direction=+1, mode=leave_rev,
                                                     name="leave_upper_stop"), _kl.GUARD_BACKWARD_PUSH),)
        # The same StateEvent objects by their kernel id (a stop's only when the stop exists).
        self.kernel_events = {}
        for mode, evs in ev.items():
            ids = [i for i in _KERNEL_EVENT_IDS[mode]
                   if not ((i == _kl.EV_LOWER_STOP and self.min_position == -math.inf)
                           or (i == _kl.EV_UPPER_STOP and self.max_position == math.inf))]
            for i, e in zip(ids, evs):
                self.kernel_events[i] = e
        return ev

    def _halt(self, x):
        x = x.copy()
        x[1] = 0.0
        return x

    def _impact(self, x, stop):
        x = x.copy()
        if self.track_energy:
            x[6] += 0.5 * self.M * x[1] ** 2
        x[0] = stop
        x[1] = 0.0
        return x

    def events(self):
        return self._events_by_mode.get(self.mode, ())

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Supply current, A, drawn at bus voltage ``bus_voltage`` V (the battery's coupling calls this)."""
        v = 0.0 if self.mode in ("stuck", "lower_stop", "upper_stop") else x[1]
        return self.drive.electrical(self.k * v, u[0], u[1], bus_voltage).supply_current

    # -- the parameter vector and the compiled kernel -----------------------------------------------
    #: The parameters a batch varies (``simcore.simulate_batch``'s ``params["<name>.<parameter>"]``): the keys
    #: :meth:`kernel_parameters` takes. A class whose physics has no batch form has none.
    BATCH_PARAMETERS: tuple = ()

    def _batch_parameter_unit(self, key: str) -> str:
        """The SI unit of batch parameter ``key`` (what the constructor converts that argument to)."""
        u = _LINEAR_UNITS if self.linear else _ROTARY_UNITS
        return {"gearing": "", "moi": "kg*m**2", "mass": "kg", "carriage_mass": "kg", "com_distance": "m",
                "viscous_friction": u["viscous"], "static_friction": u["force"], "kinetic_friction": u["force"]}[key]

    def _batch_base_value(self, key: str) -> float:
        """The model's own value of batch parameter ``key`` (a variant that does not vary it has this)."""
        if key == "gearing":
            return self.drive.gearing
        if key == "viscous_friction":
            return self._viscous_friction_given
        return getattr(self, key)

    def _variant_overrides(self, overrides, n: int) -> dict:
        """``overrides`` checked and converted: parameter -> float array of shape ``(n,)``, SI units."""
        from simcore.batch_params import variant_values

        if not overrides:
            return {}
        allowed = self.BATCH_PARAMETERS
        cls = type(self).__name__
        if not allowed:
            key = next(iter(overrides))
            raise ConfigError(f"params[{self.name + '.' + str(key)!r}]", key,
                              f"no parameter: {cls} {self.name!r} batches with its controllers' parameters only "
                              f"(the parameters a batch varies: Flywheel, Arm, Elevator and ServoMechanism's "
                              f"physical ones, a Battery's resistance and open_circuit_voltage)")
        varied = {}
        for key, value in overrides.items():
            label = f"params[{self.name + '.' + str(key)!r}]"
            if key not in allowed:
                raise ConfigError(label, key, f"a batch parameter of {cls} {self.name!r}: {', '.join(allowed)}")
            arr = variant_values(label, value, self._batch_parameter_unit(key), positive=key in _POSITIVE_PARAMETERS,
                                 nonnegative=key not in _POSITIVE_PARAMETERS)
            if arr.ndim == 0:
                arr = np.full(n, float(arr))
            if arr.shape != (n,):
                raise ConfigError(label, f"<array of shape {arr.shape}>", f"{n} values (one per variant)")
            varied[key] = arr
        return varied

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The parameter vector of this mechanism in the compiled kernel, for ``n`` variants at once.

        The one derivation of every value the physics uses: the constructor calls it with no overrides
        (its attributes ``k``, ``M``, ``kinetic_friction``... come from it), :meth:`kernel_form` returns its
        row, and a batch calls it with its variants' values. A parameter not overridden is the model's; what
        the constructor derives from an overridden one is derived again from each variant's value, with
        the constructor's rules: an :class:`~simcore.models.Arm` built without ``moi`` gets each variant's
        rod inertia ``m (2 d)² / 3``; a kinetic friction not given follows a varied static friction; the
        motors' own viscous friction (``viscous_friction`` not given) follows a varied gearing, as does a
        friction given as a kS voltage. So row ``j`` is :meth:`kernel_form`'s vector of the model built
        with variant ``j``'s values, to the bit.

        Parameters
        ----------
        overrides : mapping of str to array-like or Quantity, optional
            Batch parameter (one of :attr:`BATCH_PARAMETERS`, named as the constructor's argument) ->
            ``n`` values, in SI units or as a pint Quantity (as :func:`simcore.batch_params.variant_values`
            takes them; a single value serves every variant).
        n : int
            Number of variants.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, N_PARAMETERS)``, laid out by :mod:`simcore.kernel.layout`'s ``P_*``.

        Raises
        ------
        ConfigError
            A parameter this mechanism does not batch, or a value the constructor would refuse, naming
            ``params['<name>.<parameter>'][j]``, its value and the variant ``j`` (with no overrides, the
            constructor's argument).
        ConfigTypeError
            Overrides for a mechanism that cannot batch (:attr:`BATCH_PARAMETERS` empty).
        """
        return self._variant_parameters(overrides, n)[0]

    def _variant_parameters(self, overrides, n: int):
        """:meth:`kernel_parameters` and the derived values the vector does not hold, ``(p, derived)``."""
        n = checks.integer("n", n, minimum=1)
        varied = self._variant_overrides(overrides, n)

        def value(key):
            return varied[key] if key in varied else np.full(n, float(self._batch_base_value(key)))

        def refuse(bad, keys, expected, argument):
            """Raise for the first variant where ``bad``: naming the first of ``keys`` varied, or (none varied:
            the model's own values) the constructor's ``argument``; ``expected`` may depend on the variant."""
            bad = np.asarray(bad)
            if not bad.any():
                return
            j = int(np.flatnonzero(bad)[0])
            text = expected(j) if callable(expected) else expected
            key = next((k for k in keys if k in varied), next(iter(varied), None))
            if key is None:
                name, raw = self._arguments.get(argument, (argument, getattr(self, argument, None)))
                raise ConfigError(name, raw, text)
            raise ConfigError(f"params[{self.name + '.' + key!r}][{j}]", float(varied[key][j]), f"{text} (variant {j})")

        # (an overflow is refused below with the value that caused it, not warned about)
        with np.errstate(over="ignore", invalid="ignore"):
            d = self.drive
            masses = ("moi", "mass", "com_distance", "carriage_mass")
            gearing = value("gearing")
            k = gearing / self.drum_radius if self.linear else gearing
            load_mass, load_kind, load_a, load_b = self._variant_load(value, varied, refuse)
            cls = type(self)
            if _defined_in(cls, "kernel_load") is not _defined_in(cls, "_variant_load"):
                # a subclass's own load (its kernel_load), which no batch parameter changes
                load_kind, load_a, load_b = self.kernel_load() or (_kl.LOAD_NONE, math.nan, math.nan)
            M = load_mass + d.n_motors * self.rotor_inertia * k * k
            refuse(~(M > 0), masses, "a positive inertia (or a positive rotor_inertia)", "mass")
            refuse(~(np.isfinite(k) & np.isfinite(M)), ("gearing",) + masses,
                   lambda j: f"a value whose reflected rotor inertia is finite (k = {float(k[j])!r} rotor rad per "
                             f"unit)",
                   "drum_radius" if self.linear else "gearing")
            # Viscous friction: the motors' own (from their free current) acts on the rotors, through each
            # variant's k; one given acts at the mechanism.
            zero = np.zeros(n)
            at_rotor = False
            if "viscous_friction" in varied or not self.viscous_friction_from_motors:
                b = value("viscous_friction")
                b_rotor = b / k / k  # k * k could underflow to 0 for an extreme gearing
            else:
                b_rotor = np.full(n, free_current_friction(d))
                b = b_rotor * k * k
                # With efficiency 1 both places are the same physics; the mechanism's is the one kept.
                at_rotor = d.efficiency < 1.0
            shaft, load_viscous = (b_rotor * k, zero) if at_rotor else (zero, b)

            def friction(key):
                if key in varied:
                    return varied[key]
                amount, volts = self._friction_given[key]
                # a kS voltage is the force F = kS Kt / R k eta of each variant's transmission
                f = amount * d.Kt / d.R * k * d.efficiency if volts else np.full(n, amount)
                refuse(~np.isfinite(f), ("gearing",), "a finite non-negative friction force/torque", key)
                return f

            static = friction("static_friction")
            kinetic = (static if "kinetic_friction" not in varied and self.kinetic_friction_from_static
                       else friction("kinetic_friction"))
            directional = (static > 0) | (kinetic > 0) | (d.efficiency < 1.0)
            # Breakaway needs the larger of static and kinetic friction: were kinetic larger, a body that
            # just broke away would be pushed backwards by friction (energy from nowhere).
            breakaway = np.maximum(static, kinetic) * (1.0 + BREAKAWAY_MARGIN) + np.where(directional, 1e-12, 0.0)

            p = np.empty((n, _kl.N_PARAMETERS))
            p[:, _kl.P_R], p[:, _kl.P_KT], p[:, _kl.P_KV] = d.R, d.Kt, d.Kv
            p[:, _kl.P_STATOR_LIMIT], p[:, _kl.P_SUPPLY_LIMIT] = d.stator_current_limit, d.supply_current_limit
            p[:, _kl.P_DUTY_COMMAND] = 1.0 if d.command == "duty" else 0.0
            p[:, _kl.P_GEARING], p[:, _kl.P_EFFICIENCY] = gearing, d.efficiency
            p[:, _kl.P_K], p[:, _kl.P_K_PER_GEARING], p[:, _kl.P_M] = k, k / gearing, M
            p[:, _kl.P_LOAD_VISCOUS], p[:, _kl.P_SHAFT_FRICTION] = load_viscous, shaft
            p[:, _kl.P_KINETIC], p[:, _kl.P_BREAKAWAY] = kinetic, breakaway
            p[:, _kl.P_MIN], p[:, _kl.P_MAX] = self.min_position, self.max_position
            p[:, _kl.P_DIRECTIONAL] = directional
            p[:, _kl.P_TRACK_ENERGY] = 1.0 if self.track_energy else 0.0
            p[:, _kl.P_LOAD_KIND], p[:, _kl.P_LOAD_A], p[:, _kl.P_LOAD_B] = load_kind, load_a, load_b
            p[:, _kl.P_DRUM_RADIUS] = self.drum_radius if self.linear else 1.0
            return p, {"viscous_friction": b, "rotor_viscous_friction": b_rotor, "static_friction": static}

    def _variant_load(self, value, varied, refuse):
        """``(load inertia, load kind, a, b)`` per variant (arrays or floats): the inertia of the load about its
        coordinate without the rotors (kg·m² or kg) and :meth:`kernel_load`'s load. ``value(key)`` gives a
        batch parameter's values, ``varied`` the ones overridden, ``refuse(bad, keys, expected, argument)``
        raises for a bad variant. A class with batch parameters that change these overrides it."""
        kind, a, b = self.kernel_load() or (_kl.LOAD_NONE, math.nan, math.nan)
        return self.load_mass, kind, a, b

    def kernel_load(self):
        """``(kind, a, b)`` of :meth:`load_force` in the kernel (:mod:`simcore.kernel.layout`'s ``LOAD_*``),
        or None when it has no kernel form. A class that overrides ``load_force`` overrides this too (it is
        called by the constructor: the attributes it reads are set before ``GearedMechanism.__init__``)."""
        return (_kl.LOAD_NONE, 0.0, 0.0)

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this mechanism in the compiled kernel
        (:mod:`simcore.kernel.geared`; the parameters are :meth:`kernel_parameters`' row), or None when a
        subclass changes its physics in Python (then the simulation takes the Python path)."""
        cls = type(self)
        if self._load_in_python:
            return None
        if any(_defined_in(cls, name) is not GearedMechanism for name in _KERNEL_REPLACES):
            return None
        from simcore.kernel.parts import KIND_GEARED

        return KIND_GEARED, self.kernel_parameters()[0], _kl.MODE_NAMES

    # -- energy ------------------------------------------------------------------------------
    def kinetic_energy(self, v):
        """Kinetic energy at velocity ``v`` (load and rotors), J."""
        return 0.5 * self.M * np.asarray(v) ** 2

