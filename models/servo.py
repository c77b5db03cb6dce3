"""An FTC hobby servo: a small gearmotor with its own position loop, driven by a PWM pulse.

A servo is a DC motor, a gearbox and a potentiometer on the output shaft, with a
controller inside the case that closes a position loop on it. Its output is
physical: it has a finite no-load speed and a stall torque, so a claw closing on
a game piece stalls against it (drawing its stall current) and a wrist lifting a
load lags and droops. :class:`ServoMechanism` is that mechanism: a
:class:`~simcore.models.mechanism.GearedMechanism` (one rotary coordinate ``angle``
at the servo's output, rad) whose motor is the servo's own, derived as a
:class:`~simcore.models.motors.DCMotor` from the datasheet (stall torque, no-load
speed from the "seconds per 60 degrees" figure, stall and no-load current, at the
datasheet voltage), and whose command comes from the servo's electronics.

The servo's electronics (inside the right-hand side, :func:`servo_drive_command`)
--------------------------------------------------------------------------------
Inputs held by the hub: ``pulse_width`` (µs, the PWM pulse the hub sends),
``pwm_enabled`` (1 while the hub sends pulses, 0 when its PWM output is off) and
``rail_voltage`` (V, the hub's servo power rail). Per instant::

    pulse   = clamp(pulse_width, pulse_min, pulse_max)           # the servo's accepted range
    position mode:    target = (pulse - pulse_centre) * travel / (pulse_max - pulse_min)
                      duty   = clamp((target - angle) / proportional_band, -1, 1)
    continuous mode:  duty   = clamp((pulse - pulse_centre) / continuous_full_speed_pulse, -1, 1)
    no pulses (pwm_enabled = 0): duty 0, bridge open (the servo goes limp)

The duty is applied to the rail through :class:`~simcore.models.drive.MotorDrive`,
so the saturation at the supply, the stall current and the back-EMF are the
motor law every other mechanism uses. ``angle = 0`` is the centre of travel
(pulse 1500 µs); a longer pulse turns it positive. The law is written once, in
kernel form (:mod:`simcore.kernel.servo`): a simulation of servos whose load has
no Python ``load_torque`` runs it compiled, and batches.

APPROXIMATIONS (each a field of :class:`ServoType`)
    The position loop is proportional with saturation (``proportional_band``: the
    position error at which the servo applies its full supply); real servos add
    derivative action and a dead band of a few µs, not modelled. The rotor
    inertia follows from ``mechanical_time_constant``. Continuous rotation
    reaches full speed at ``continuous_full_speed_pulse`` µs from the centre. The
    servo rail is the hub's regulated 5 V (``DEFAULT_RAIL_VOLTAGE``), not
    coupled to the battery; its current limit is not modelled.

Datasheet values (public sources, each cited on its constant) are at the
datasheet's voltage; the motor derived from them scales with the rail voltage as
a DC motor does (no-load speed and stall torque proportional to it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError
from simcore.kernel import layout as _kl, loaded

from .drive import MotorDrive
from .mechanism import _KERNEL_REPLACES, FRICTION_PARAMETERS, GearedMechanism, _defined_in, split_mechanism_options
from .motors import DCMotor

__all__ = ["ServoType", "ServoMechanism", "servo_drive_command", "KG_CM", "DEFAULT_RAIL_VOLTAGE",
           "GOBILDA_TORQUE_SERVO", "GOBILDA_SPEED_SERVO", "GOBILDA_SUPER_SPEED_SERVO", "REV_SMART_ROBOT_SERVO",
           "SERVO_TYPES"]

#: One kilogram-force centimetre (the servo datasheets' torque unit), N·m.
KG_CM = 0.0980665
#: APPROXIMATION: the REV Control Hub / Expansion Hub servo ports' supply, V (REV's hub documentation gives
#: 5 V servo power; a REV Servo Power Module raises it to 6 V: pass ``rail_voltage=6.0``).
DEFAULT_RAIL_VOLTAGE = 5.0

_SIXTY_DEGREES = math.pi / 3.0


@dataclass(frozen=True)
class ServoType:
    """A servo model: datasheet values (cited) and the approximations of its electronics (labelled).

    Parameters
    ----------
    name : str
    nominal_voltage : float
        Voltage the datasheet values are given at, V.
    seconds_per_60deg : float
        Datasheet no-load speed: time to turn 60 degrees with no load, s. The model's
        no-load slew rate is ``(pi/3) / seconds_per_60deg`` rad/s at ``nominal_voltage``.
    stall_torque : float
        Datasheet stall torque at the output, N·m (``KG_CM`` converts kg·cm).
    stall_current : float
        Current at stall, A.
    free_current : float
        Current turning with no load, A.
    travel : float
        Output rotation over the pulse range ``[pulse_min, pulse_max]``, rad.
    pulse_min, pulse_max : float
        The pulse range the servo accepts, µs (its centre is the centre of travel).
    proportional_band : float
        APPROXIMATION: position error at which the position loop applies the full supply, rad.
    mechanical_time_constant : float
        APPROXIMATION: the unloaded servo reaches its no-load speed from rest with this time
        constant at stall torque, s (sets the rotor inertia reflected to the output).
    continuous_full_speed_pulse : float
        APPROXIMATION: in continuous-rotation mode, the pulse offset from the centre giving full
        speed, µs (900: ``CRServo.setPower(+-1)`` with the SDK's default 600-2400 µs range).
    source : str
        Where the datasheet values come from.
    approximate : tuple of str
        The datasheet fields whose value is itself an approximation (not read from the source).
    """

    name: str
    nominal_voltage: float
    seconds_per_60deg: float
    stall_torque: float
    stall_current: float
    free_current: float
    travel: float
    pulse_min: float = 500.0
    pulse_max: float = 2500.0
    proportional_band: float = math.radians(5.0)
    mechanical_time_constant: float = 0.005
    continuous_full_speed_pulse: float = 900.0
    source: str = ""
    approximate: tuple = field(default=())

    def __post_init__(self):
        for name, unit in (("nominal_voltage", "V"), ("seconds_per_60deg", "s"), ("stall_torque", "N*m"),
                           ("stall_current", "A"), ("travel", "rad"), ("pulse_min", "microsecond"),
                           ("pulse_max", "microsecond"), ("proportional_band", "rad"),
                           ("mechanical_time_constant", "s"), ("continuous_full_speed_pulse", "microsecond")):
            object.__setattr__(self, name, checks.positive(name, getattr(self, name), unit))
        object.__setattr__(self, "free_current", checks.nonnegative("free_current", self.free_current, "A"))
        if not self.pulse_min < self.pulse_max:
            raise ConfigError("pulse_min", self.pulse_min, f"a pulse below pulse_max={self.pulse_max} µs")
        if not self.free_current < self.stall_current:
            raise ConfigError("free_current", self.free_current, f"a current below stall_current={self.stall_current} A")
        if not isinstance(self.name, str):
            raise ConfigTypeError("name", self.name, "a string")

    @property
    def free_speed(self) -> float:
        """No-load speed at ``nominal_voltage``, rad/s: 60 degrees in ``seconds_per_60deg``."""
        return _SIXTY_DEGREES / self.seconds_per_60deg

    @property
    def motor(self) -> DCMotor:
        """The servo's motor and gearbox as one DCMotor at the output shaft (the datasheet's four values)."""
        return DCMotor(self.nominal_voltage, self.stall_torque, self.stall_current, self.free_current,
                       self.free_speed, self.name)

    @property
    def pulse_centre(self) -> float:
        """The pulse at the centre of travel (angle 0), µs."""
        return 0.5 * (self.pulse_min + self.pulse_max)

    @property
    def radians_per_microsecond(self) -> float:
        """Output rotation per µs of pulse, rad/µs."""
        return self.travel / (self.pulse_max - self.pulse_min)

    def angle_of_pulse(self, pulse_width: float) -> float:
        """The position-mode target of ``pulse_width`` µs, rad (clamped to the accepted pulse range; the law
        is :func:`simcore.kernel.servo.target_angle`)."""
        return _servo_kernel().target_angle(float(pulse_width), self.pulse_min, self.pulse_max,
                                            self.radians_per_microsecond)


# goBILDA 2000 Series Dual Mode Servos. goBILDA publishes, per SKU, a table at 4.8 / 6.0 / 7.4 V (the servo's
# operating range): stall torque, no-load speed and stall current, 300 degrees over 500-2500 µs (0.15 deg/µs)
# in the default position mode, 900-2100 µs in continuous mode. No no-load current is published: ``free_current``
# is an APPROXIMATION for all three. The values below are at 6 V (the hub's servo rail is 5 V: the motor derived
# from them scales with the rail voltage). Read from teams' transcriptions of those product pages and of the 5-turn
# variants' pages (the same motors and gears); each value below is one that independent transcriptions agree on.
#   https://www.gobilda.com/2000-series-dual-mode-servo-25-2-torque/  (2000-0025-0002)
#       stall torque 17.2 / 21.6 / 25.2 kg-cm (21.6 kg-cm = 300 oz-in at 6 V; 25.2 is the 7.4 V figure),
#       no-load speed 50 rpm at 6 V (0.20 s/60 deg), stall current 2.0 / 2.5 / 3.0 A
#   https://www.gobilda.com/2000-series-dual-mode-servo-25-3-speed/  (2000-0025-0003)
#       stall torque 7.9 / 9.3 / 10.8 kg-cm, no-load speed 90 / 115 / 145 rpm (0.09 s/60 deg at 6 V),
#       stall current 2.0 / 2.5 / 3.0 A
#   https://www.gobilda.com/2000-series-dual-mode-servo-25-4-super-speed/  (2000-0025-0004)
#       no-load speed 230 rpm at 6 V (0.043 s/60 deg); its stall torque and stall current were not found in any
#       transcription that names its source: APPROXIMATIONS (4.7 kg-cm, consistent with the Speed variant's
#       torque times speed at the same motor power, 9.3 * 0.043 / 0.09 = 4.4; the family's 2.5 A).
GOBILDA_TORQUE_SERVO = ServoType(
    "goBILDA 2000-0025-0002 Torque", nominal_voltage=6.0, seconds_per_60deg=0.20, stall_torque=21.6 * KG_CM,
    stall_current=2.5, free_current=0.19, travel=math.radians(300.0),
    source="https://www.gobilda.com/2000-series-dual-mode-servo-25-2-torque/ : at 6 V 0.20 s/60 deg (50 rpm), "
           "21.6 kg-cm (300 oz-in), 2.5 A stall; 300 deg over 500-2500 us",
    approximate=("free_current",))
GOBILDA_SPEED_SERVO = ServoType(
    "goBILDA 2000-0025-0003 Speed", nominal_voltage=6.0, seconds_per_60deg=0.09, stall_torque=9.3 * KG_CM,
    stall_current=2.5, free_current=0.19, travel=math.radians(300.0),
    source="https://www.gobilda.com/2000-series-dual-mode-servo-25-3-speed/ : at 6 V 0.09 s/60 deg (115 rpm), "
           "9.3 kg-cm, 2.5 A stall; 300 deg over 500-2500 us",
    approximate=("free_current",))
GOBILDA_SUPER_SPEED_SERVO = ServoType(
    "goBILDA 2000-0025-0004 Super Speed", nominal_voltage=6.0, seconds_per_60deg=0.043, stall_torque=4.7 * KG_CM,
    stall_current=2.5, free_current=0.19, travel=math.radians(300.0),
    source="https://www.gobilda.com/2000-series-dual-mode-servo-25-4-super-speed/ : at 6 V 0.043 s/60 deg "
           "(230 rpm); 300 deg over 500-2500 us",
    approximate=("stall_torque", "stall_current", "free_current"))
# REV Smart Robot Servo (REV-41-1097). Source: REV Robotics' documentation,
# https://docs.revrobotics.com/rev-crossover-products/servo/srs : at 6 V (nominal; rated 4.8-7.4 V) stall torque
# 13.5 kg-cm, speed 0.13 s/60 deg, stall current 2.0 A (maximum); 270 degrees over the 500-2500 µs input range
# (centre 1500 µs). (Teams quoting the product page, https://www.revrobotics.com/rev-41-1097/ , give 0.14 s/60 deg;
# the documentation's figure is used.) No no-load current is published: ``free_current`` is an APPROXIMATION.
REV_SMART_ROBOT_SERVO = ServoType(
    "REV Smart Robot Servo REV-41-1097", nominal_voltage=6.0, seconds_per_60deg=0.13, stall_torque=13.5 * KG_CM,
    stall_current=2.0, free_current=0.15, travel=math.radians(270.0),
    source="https://docs.revrobotics.com/rev-crossover-products/servo/srs : at 6 V 0.13 s/60 deg, 13.5 kg-cm, "
           "2.0 A stall; 270 deg over 500-2500 us",
    approximate=("free_current",))

#: Every catalogued servo type by its module-constant name.
SERVO_TYPES = {n: globals()[n] for n in __all__ if isinstance(globals().get(n), ServoType)}


def _gravity_of(mgd, direction):
    """``(kind, a, b)`` of gravity's torque ``mgd sin(direction - angle)`` in the kernel (per variant when ``mgd``
    is an array): none where ``mgd`` is 0, so a servo without a gravity load evaluates no sine."""
    kind = np.where(np.asarray(mgd) != 0.0, _kl.LOAD_ARM_GRAVITY, _kl.LOAD_NONE)
    return (int(kind) if kind.ndim == 0 else kind), mgd, direction


def _servo_kernel():
    """The servo's electronics in kernel form (imported at first use: building a model loads no numba)."""
    return loaded("servo")


def servo_drive_command(angle: float, pulse_width: float, pwm_enabled: float, pulse_min: float, pulse_max: float,
                        radians_per_microsecond: float, proportional_band: float, continuous: bool,
                        continuous_full_speed_pulse: float) -> tuple:
    """The servo electronics' ``(duty, brake)`` for the motor at output ``angle`` (rad), as the module docstring
    writes it (pulse widths in µs, ``radians_per_microsecond`` rad/µs, ``proportional_band`` rad). The law is
    :func:`simcore.kernel.servo.drive_command`, which the compiled kernel runs too."""
    duty, brake = _servo_kernel().drive_command(float(angle), float(pulse_width), float(pwm_enabled),
                                                float(pulse_min), float(pulse_max), float(radians_per_microsecond),
                                                float(proportional_band), bool(continuous),
                                                float(continuous_full_speed_pulse))
    return duty, brake


class ServoMechanism(GearedMechanism):
    """A servo driving a load (see the module docstring).

    Parameters
    ----------
    servo_type : ServoType
        The servo (``GOBILDA_TORQUE_SERVO``, ``REV_SMART_ROBOT_SERVO``, ...).
    load_inertia : float or Quantity, optional
        Inertia of the load about the output axis, kg·m² (default: ``load_mass`` as a point at
        ``load_com_distance``, ``m d²``, the least a body of that mass and centre can have; 0
        without a load mass: the servo alone).
    load_mass : float or Quantity
        Mass of the load that gravity pulls on, kg (default 0: no gravity torque).
    load_com_distance : float or Quantity
        Distance of that mass's centre from the output axis, m (default 0).
    gravity_direction : float
        Direction of gravity in the plane the load turns in, rad from ``angle = 0`` (default
        ``-pi/2``: the load is level at the centre of travel and ``angle`` turns it up). Gravity's
        torque on the output is ``m g d sin(gravity_direction - angle)``: ``-m g d cos(angle)``
        by default, as an :class:`~simcore.models.Arm`'s.
    g : float or Quantity
        Gravitational acceleration, m/s² (default standard gravity).
    load_torque : callable ``f(angle) -> N·m``, optional
        Any other torque of the load on the output at ``angle`` (rad), positive toward
        increasing angle, written in Python (a spring, a cable): the simulation then takes the
        Python path. Gravity is ``load_mass`` and ``load_com_distance``.
    continuous : bool
        True for a servo set to continuous rotation (a goBILDA dual-mode servo
        programmed to CR): the pulse sets its speed, not its position.
    min_angle, max_angle : float or Quantity, optional
        Hard stops at the output, rad: a claw closing on a game piece meets it at
        ``max_angle`` and stalls there.
    start_angle : float or Quantity
        Initial angle, rad.
    rail_voltage : float or Quantity
        The servo supply, V (default :data:`DEFAULT_RAIL_VOLTAGE`); the input
        ``rail_voltage`` starts there.
    name : str
    **options
        GearedMechanism options (``viscous_friction``, ``static_friction``, ``track_energy``, ...).

    Notes
    -----
    Inputs ``pulse_width`` (µs), ``pwm_enabled`` (0/1), ``rail_voltage`` (V); at the start
    the PWM is off (as the SDK leaves a servo port until its first ``setPosition``).
    Extra outputs ``target_angle`` (rad, the position-mode target of the held pulse)
    and ``loop_duty`` (what the servo's loop applies).

    A servo without a ``load_torque`` written in Python runs in the compiled kernel
    (:mod:`simcore.kernel.servo`) and batches (:attr:`BATCH_PARAMETERS`: the load's inertia, mass
    and centre distance, and the friction parameters); with one, the simulation takes the Python path.
    """

    #: The parameters a batch varies (``params["<name>.<parameter>"]``, :meth:`kernel_parameters`' keys).
    BATCH_PARAMETERS = ("load_inertia", "load_mass", "load_com_distance") + FRICTION_PARAMETERS
    #: Supplied by its own rail (the hub's servo power), not a load of a battery in the simulation.
    own_supply = True

    def __init__(self, servo_type: ServoType, *, load_inertia=None, load_torque=None, continuous: bool = False,
                 min_angle=None, max_angle=None, start_angle=0.0, rail_voltage=DEFAULT_RAIL_VOLTAGE,
                 load_mass=0.0, load_com_distance=0.0, gravity_direction=-math.pi / 2, g=STANDARD_GRAVITY,
                 name: str = "servo", **options):
        if not isinstance(servo_type, ServoType):
            raise ConfigTypeError("servo_type", servo_type, "a simcore.models.servo.ServoType, e.g. "
                                                            "GOBILDA_TORQUE_SERVO")
        if load_torque is not None and not callable(load_torque):
            raise ConfigTypeError("load_torque", load_torque, "None or a callable f(angle) -> torque in N*m")
        self.servo_type = servo_type
        self.continuous = checks.flag("continuous", continuous)
        self.load_torque = load_torque
        self.rail_voltage = checks.positive("rail_voltage", rail_voltage, "V", what="voltage")
        #: The mass gravity pulls on, kg, its centre's distance from the axis, m, and gravity (m/s², rad).
        self.gravity_load_mass = checks.nonnegative("load_mass", load_mass, "kg", what="mass")
        self.load_com_distance = checks.nonnegative("load_com_distance", load_com_distance, "m", what="distance")
        self.g = checks.nonnegative("g", g, "m/s**2", what="acceleration magnitude (gravity pulls down)")
        self.gravity_direction = checks.angle("gravity_direction", gravity_direction)
        #: True when ``load_inertia`` was not given (so it is the load mass as a point, ``m d²``, per variant too).
        self.load_inertia_from_mass = load_inertia is None
        if load_inertia is None:
            load = self.gravity_load_mass * self.load_com_distance ** 2
            if not math.isfinite(load):
                raise ConfigError("load_mass", load_mass,
                                  f"a mass whose point inertia m d² (d={self.load_com_distance!r} m) is finite")
        else:
            load = checks.nonnegative("load_inertia", load_inertia, "kg*m**2", what="inertia")
        motor = servo_type.motor
        for key in ("command", "nominal_bus_voltage", "n_motors"):
            if key in options:
                raise ConfigTypeError(f"{type(self).__name__}() keyword", key, "a keyword other than command, "
                                      "nominal_bus_voltage or n_motors (a servo is one motor on its own rail)")
        options["command"] = "duty"
        options["nominal_bus_voltage"] = self.rail_voltage
        # The rotor (motor and gears) reflected to the output: stall torque accelerates it to free speed in tau.
        rotor_inertia = motor.stall_torque * servo_type.mechanical_time_constant / motor.free_speed
        drive_opts, mech_opts = split_mechanism_options(type(self), options, ("start_velocity",))
        super().__init__(name, MotorDrive(motor, 1.0, **drive_opts), mass=load, linear=False, position_name="angle",
                         min_position=min_angle, max_position=max_angle, start_position=start_angle,
                         rotor_inertia=rotor_inertia,
                         parameter_names={"mass": "load_inertia", "start_position": "start_angle",
                                          "min_position": "min_angle", "max_position": "max_angle"},
                         extra_outputs=("target_angle", "loop_duty"), **mech_opts)
        p = self._kernel_p
        #: Gravity's torque ``a sin(b - angle)`` as the kernel vector holds it: ``(kind, a, b)`` (LOAD_*).
        self._gravity = (int(p[_kl.P_LOAD_KIND]), float(p[_kl.P_LOAD_A]), float(p[_kl.P_LOAD_B]))
        # (the electronics' values in the order of servo_drive_command's arguments, from the kernel vector)
        self._loop = (float(p[_kl.SP_PULSE_MIN]), float(p[_kl.SP_PULSE_MAX]), float(p[_kl.SP_RADIANS_PER_MICROSECOND]),
                      float(p[_kl.SP_PROPORTIONAL_BAND]), bool(p[_kl.SP_CONTINUOUS] != 0.0),
                      float(p[_kl.SP_FULL_SPEED_PULSE]))
        # The servo's own inputs replace the drive's duty and brake (its electronics make those).
        self.input_names = ("pulse_width", "pwm_enabled", "rail_voltage")
        self.input_ranges = {"pulse_width": (0.0, 65535.0), "pwm_enabled": (0.0, 1.0),
                             "rail_voltage": (0.0, math.inf)}
        self.units.update({"pulse_width": "microsecond", "pwm_enabled": "", "rail_voltage": "V",
                           "target_angle": "rad", "loop_duty": ""})

    # -- the servo's electronics ----------------------------------------------------------------------
    def _drive_inputs(self, angle, u) -> list:
        """The drive's inputs ``[duty, brake, bus voltage]`` the servo's loop makes of its own inputs ``u``."""
        # (servo_drive_command's law, called without its conversions: the Python path's hot loop)
        duty, brake = _servo_kernel().drive_command(float(angle), float(u[0]), float(u[1]), *self._loop)
        return [duty, brake, float(u[2])]

    def target_angle(self, pulse_width: float) -> float:
        """Position-mode target of ``pulse_width`` µs, rad."""
        return self.servo_type.angle_of_pulse(pulse_width)

    # -- System interface (the mechanism's physics on the drive inputs) -----------------------------------
    def initial_inputs(self):
        import numpy as np

        return np.array([self.servo_type.pulse_centre, 0.0, self.rail_voltage])

    def derivatives_of_floats(self, t, x, u) -> list:
        return super().derivatives_of_floats(t, x, self._drive_inputs(x[0], u))

    def outputs(self, t, x, u):
        """The outputs at time ``t`` (s), state ``x`` and inputs ``u`` (the law is
        :func:`simcore.kernel.servo.outputs`)."""
        p, mode = self._output_parameters(x)
        out = np.empty(_kl.N_SERVO_OUTPUTS)
        _servo_kernel().outputs(p, 0, mode, np.asarray(x, dtype=float), 0, np.asarray(u, dtype=float), 0,
                                math.nan if t is None else float(t), out, 0)
        return tuple(out.tolist())

    def applied_force(self, q, u, direction: float = 1.0) -> float:
        return super().applied_force(q, self._drive_inputs(q, u), direction)

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Current drawn from the servo rail at ``bus_voltage`` V, A."""
        return super().supply_current_at(x, self._drive_inputs(x[0], u), bus_voltage)

    def load_force(self, q):
        """The load torque at ``q`` (rad), N·m: gravity's (as the kernel's load, :meth:`kernel_load`), plus
        ``load_torque(q)`` (NonFiniteError for a non-finite value)."""
        kind, a, b = self._gravity
        f = a * math.sin(b - q) if kind == _kl.LOAD_ARM_GRAVITY else 0.0
        if self.load_torque is None:
            return f
        extra = float(self.load_torque(q))
        if not math.isfinite(extra):
            raise NonFiniteError("load_torque of", self.name, extra, math.nan)
        return f + extra

    def potential_energy(self, q):
        """Gravity's potential energy at ``q`` (rad), J, zero at ``angle = 0`` (a ``load_torque`` has none)."""
        kind, a, b = self._gravity
        return a * (math.cos(b) - math.cos(b - q)) if kind == _kl.LOAD_ARM_GRAVITY else 0.0

    # -- the parameter vector and the compiled kernel -------------------------------------------------
    def kernel_load(self):
        """Gravity on the load in kernel form (None: a ``load_torque`` written in Python, which keeps the Python
        path; the vector then holds gravity's torque alone, :meth:`load_force` adds the Python one)."""
        if self.load_torque is not None:
            return None
        return _gravity_of(self.gravity_load_mass * self.g * self.load_com_distance, self.gravity_direction)

    _BATCH_UNITS = {"load_inertia": "kg*m**2", "load_mass": "kg", "load_com_distance": "m"}

    def _batch_parameter_unit(self, key: str) -> str:
        return self._BATCH_UNITS.get(key) or super()._batch_parameter_unit(key)

    def _batch_base_value(self, key: str) -> float:
        base = {"load_inertia": self.load_mass, "load_mass": self.gravity_load_mass,
                "load_com_distance": self.load_com_distance}
        return base[key] if key in base else super()._batch_base_value(key)

    def _variant_load(self, value, varied, refuse):
        """The load's inertia (given, or each variant's point mass ``m d²``) and gravity's torque per variant."""
        mass, com = value("load_mass"), value("load_com_distance")
        if self.load_inertia_from_mass and "load_inertia" not in varied:
            inertia = mass * com * com
            refuse(~np.isfinite(inertia), ("load_mass", "load_com_distance"),
                   "a load mass and centre distance whose point inertia m d² is finite", "load_mass")
        else:
            inertia = value("load_inertia")
        mgd = mass * self.g * com
        refuse(~np.isfinite(mgd), ("load_mass", "load_com_distance"),
               f"a load mass and centre distance whose gravity torque m g d (g={self.g!r} m/s²) is finite",
               "load_mass")
        kind, a, b = _gravity_of(mgd, self.gravity_direction)
        return inertia, kind, a, b

    def _variant_parameters(self, overrides, n: int):
        """The geared mechanism's vector (:meth:`GearedMechanism.kernel_parameters`), then the electronics'
        values at ``SP_*`` (:mod:`simcore.kernel.layout`): shape ``(n, N_SERVO_PARAMETERS)``."""
        p, derived = super()._variant_parameters(overrides, n)
        st = self.servo_type
        full = np.empty((p.shape[0], _kl.N_SERVO_PARAMETERS))
        full[:, :_kl.N_PARAMETERS] = p
        full[:, _kl.SP_PULSE_MIN], full[:, _kl.SP_PULSE_MAX] = st.pulse_min, st.pulse_max
        full[:, _kl.SP_RADIANS_PER_MICROSECOND] = st.radians_per_microsecond
        full[:, _kl.SP_PROPORTIONAL_BAND] = st.proportional_band
        full[:, _kl.SP_CONTINUOUS] = 1.0 if self.continuous else 0.0
        full[:, _kl.SP_FULL_SPEED_PULSE] = st.continuous_full_speed_pulse
        return full, derived

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this servo in the compiled kernel (:mod:`simcore.kernel.servo`),
        or None when its load is written in Python or a subclass changes its physics in Python (then the
        simulation takes the Python path)."""
        cls = type(self)
        if self._load_in_python:
            return None
        if any(_defined_in(cls, name) not in (GearedMechanism, ServoMechanism)
               for name in _KERNEL_REPLACES + ("_drive_inputs", "target_angle", "_output_parameters")):
            return None
        from simcore.kernel.parts import KIND_SERVO

        return KIND_SERVO, self.kernel_parameters()[0], _kl.MODE_NAMES
