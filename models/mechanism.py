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

import numpy as np

from simcore.errors import ConfigError, ConfigTypeError, check_bool
from simcore.events import StateEvent
from simcore.system import System
from simcore.units import to_si

from .drive import MOTOR_DRIVE_KEYS, MotorDrive, drive_input_ranges, split_drive_options
from .motor_channels import motor_friction

__all__ = ["GearedMechanism", "DRIVE_OPTIONS", "ENERGY_STATES", "split_mechanism_options"]

#: Keyword options every motor-driven mechanism accepts (see MotorDrive and GearedMechanism).
DRIVE_OPTIONS = MOTOR_DRIVE_KEYS + ("viscous_friction", "static_friction", "kinetic_friction", "rotor_inertia",
                                    "track_energy")

def split_mechanism_options(owner: str, options: dict, extra: tuple = ()) -> tuple[dict, dict]:
    """Split a mechanism constructor's ``**options`` into MotorDrive and GearedMechanism keywords.

    An unknown keyword raises ConfigTypeError naming ``owner`` (the class the user called)
    rather than Python's TypeError about ``GearedMechanism.__init__``.
    """
    allowed = DRIVE_OPTIONS + tuple(extra)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ConfigTypeError(f"{owner}() keyword", unknown[0], f"one of its parameters or {', '.join(allowed)}")
    return split_drive_options(options)


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
        drawing its free current; 0 gives WPILib's ideal plant.
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
            self.drum_radius = to_si("drum_radius", drum_radius, "m")
            if not self.drum_radius > 0:
                raise ConfigError("drum_radius", drum_radius, "a positive radius in m")
            self.k = drive.gearing / self.drum_radius
        else:
            self.drum_radius = None
            self.k = drive.gearing
        self.load_mass = mass
        if not self.load_mass >= 0:
            raise ConfigError(pn["mass"], mass, "a non-negative inertia")
        self.rotor_inertia = to_si("rotor_inertia", rotor_inertia, "kg*m**2")
        if not self.rotor_inertia >= 0:
            raise ConfigError("rotor_inertia", rotor_inertia, "a non-negative inertia in kg*m**2")
        self.M = self.load_mass + drive.n_motors * self.rotor_inertia * self.k ** 2
        if not self.M > 0:
            raise ConfigError(pn["mass"], mass, "a positive inertia (or a positive rotor_inertia)")
        # None or an infinite value means "no stop".
        self.min_position = (-math.inf if min_position is None or min_position == -math.inf
                             else to_si(pn["min_position"], min_position, u["q"]))
        self.max_position = (math.inf if max_position is None or max_position == math.inf
                             else to_si(pn["max_position"], max_position, u["q"]))
        if not self.min_position < self.max_position:
            raise ConfigError(pn["min_position"], min_position,
                              f"a value below {pn['max_position']}={self.max_position}")
        self.start_position = to_si(pn["start_position"], start_position, u["q"])
        if not self.min_position <= self.start_position <= self.max_position:
            raise ConfigError(pn["start_position"], start_position,
                              f"a value within [{self.min_position}, {self.max_position}]")
        self.start_velocity = to_si("start_velocity", start_velocity, u["v"])
        # Default: the motors' own friction, from their datasheet free current (issue 12).
        self.viscous_friction, self.rotor_viscous_friction = motor_friction("viscous_friction", viscous_friction,
                                                                            drive, self.k, u["viscous"])
        #: True when ``viscous_friction`` is the motors' own (so it follows the gearing: ``b_rotor k^2``).
        self.viscous_friction_from_motors = viscous_friction is None
        self.static_friction = self._friction_force("static_friction", static_friction, u["force"])
        self.kinetic_friction = (self.static_friction if kinetic_friction is None
                                 else self._friction_force("kinetic_friction", kinetic_friction, u["force"]))
        self.track_energy = check_bool("track_energy", track_energy)
        # The direction of motion is a mode when it changes the forces: Coulomb friction's sign, and
        # which way power flows through a lossy gearbox (G eta T or G T / eta).
        self._directional = (self.static_friction > 0 or self.kinetic_friction > 0 or drive.efficiency < 1.0)
        # Breakaway needs the larger of static and kinetic friction: were kinetic larger, a body that
        # just broke away would be pushed backwards by friction (energy from nowhere).
        self._breakaway = (max(self.static_friction, self.kinetic_friction) * (1.0 + BREAKAWAY_MARGIN)
                           + (1e-12 if self._directional else 0.0))
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
        self._events_by_mode = self._build_events()

    def _friction_force(self, parameter, value, unit):
        from simcore.units import ureg
        if hasattr(value, "dimensionality") and value.dimensionality == ureg.volt.dimensionality:
            volts = to_si(parameter, value, "V")
            f = volts * self.drive.Kt / self.drive.R * self.k * self.drive.efficiency
        else:
            f = to_si(parameter, value, unit)
        if not (f >= 0 and math.isfinite(f)):
            raise ConfigError(parameter, value, "a finite non-negative friction force/torque")
        return f

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

    def _drive(self, q, v, u, direction=0.0):
        """(F_drive at the mechanism, applied V, stator I, supply I, motor torque, saturated, limited).

        ``direction`` (+1, -1, or 0 at rest) chooses the gearbox efficiency's side.
        """
        d = self.drive
        w = self.k * v
        va, i, isup, sat, lim = d.electrical(w, u[0], u[1], u[2])
        tm = d.Kt * i
        f = d.output_torque_directed(tm, direction) * (self.k / d.gearing)
        return f, va, i, isup, tm, sat, lim

    def applied_force(self, q: float, u, direction: float = 1.0) -> float:
        """Drive plus load force at rest at ``q``, N·m or N, for motion starting in ``direction``.

        With a lossy gearbox the drive force depends on which way the body would move
        (``G eta T`` motoring, ``G T / eta`` back-driven); with ``efficiency=1`` both are
        the same.
        """
        return self._drive(q, 0.0, u, direction)[0] + self.load_force(q)

    def _accel(self, q, v, u, mode):
        f = self._drive(q, v, u, _DIRECTION.get(mode, 0.0))
        if mode == "forward":
            fric = self.viscous_friction * v + self.kinetic_friction
        elif mode == "reverse":
            fric = self.viscous_friction * v - self.kinetic_friction
        else:
            fric = self.viscous_friction * v
        return (f[0] + self.load_force(q) - fric) / self.M, f, fric

    def derivatives(self, t, x, u):
        mode = self.mode
        q, v = x[0], x[1]
        if mode in ("stuck", "lower_stop", "upper_stop"):
            if not self.track_energy:
                return np.zeros(2)
            f = self._drive(q, 0.0, u)
            i = f[2]
            return np.array([0.0, 0.0, u[2] * f[3], i * i * self.drive.R, 0.0, 0.0, 0.0, 0.0])
        a, f, fric = self._accel(q, v, u, mode)
        if not self.track_energy:
            return np.array([v, a])
        i = f[2]
        tm, w = f[4], self.k * v
        d = self.drive
        return np.array([v, a, u[2] * f[3], i * i * d.R, tm * w - f[0] * v, fric * v, 0.0,
                         i * w * (1.0 / d.Kv - d.Kt)])

    def outputs(self, t, x, u):
        q, v = x[0], x[1]
        mode = self.mode
        resting = mode in ("stuck", "lower_stop", "upper_stop")
        a, f, _ = self._accel(q, 0.0 if resting else v, u, mode)
        if resting:
            a = 0.0
        fd, va, i, isup, tm, sat, lim = f
        return (a, self.k * q, self.k * v, self.k * a, i, isup, va, u[2],
                fd * (self.drum_radius if self.linear else 1.0), tm, sat, lim) + self.extra_outputs(t, x, u)

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
        ev = {}
        to_rest = lambda t, x, u: self._rest_mode(x[0], u)  # noqa: E731
        stop_lo = lambda t, x, u: self._impact(x, self.min_position)  # noqa: E731
        stop_hi = lambda t, x, u: self._impact(x, self.max_position)  # noqa: E731
        moving = []
        if self.min_position > -math.inf:
            moving.append(StateEvent(lambda t, x, u: x[0] - self.min_position, direction=-1, reset=stop_lo,
                                     mode=to_rest, name="lower_stop"))
        if self.max_position < math.inf:
            moving.append(StateEvent(lambda t, x, u: x[0] - self.max_position, direction=+1, reset=stop_hi,
                                     mode=to_rest, name="upper_stop"))
        zero_v = lambda t, x, u: self._halt(x)  # noqa: E731
        ev["moving"] = tuple(moving)
        ev["forward"] = tuple(moving) + (StateEvent(lambda t, x, u: x[1], direction=-1, reset=zero_v,
                                                    mode=to_rest, name="velocity_zero"),)
        ev["reverse"] = tuple(moving) + (StateEvent(lambda t, x, u: x[1], direction=+1, reset=zero_v,
                                                    mode=to_rest, name="velocity_zero"),)
        fb = self._breakaway
        forward_push = lambda t, x, u: self.applied_force(x[0], u, +1.0) - fb  # noqa: E731
        backward_push = lambda t, x, u: -self.applied_force(x[0], u, -1.0) - fb  # noqa: E731
        ev["stuck"] = (
            StateEvent(forward_push, direction=+1, mode="forward", name="breakaway_forward"),
            StateEvent(backward_push, direction=+1, mode="reverse", name="breakaway_reverse"),
        )
        leave = "forward" if self._directional else "moving"
        leave_rev = "reverse" if self._directional else "moving"
        ev["lower_stop"] = (StateEvent(forward_push, direction=+1, mode=leave, name="leave_lower_stop"),)
        ev["upper_stop"] = (StateEvent(backward_push, direction=+1, mode=leave_rev, name="leave_upper_stop"),)
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
        return self.drive.electrical(self.k * v, u[0], u[1], bus_voltage)[2]

    # -- energy ------------------------------------------------------------------------------
    def kinetic_energy(self, v):
        """Kinetic energy at velocity ``v`` (load and rotors), J."""
        return 0.5 * self.M * np.asarray(v) ** 2

    # -- batch -------------------------------------------------------------------------------
    def batched(self, params, n, xp=np):
        """This mechanism's physics for ``n`` parameter variants at once (``simcore.simulate_batch``);
        see :mod:`simcore.models.batched`."""
        from .batched import batched_system

        return batched_system(self, params, n, xp)
