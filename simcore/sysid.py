"""WPILib SysId both ways: mechanisms from fitted gains, the identification routine on a mechanism, the fit.

The contract
------------
**Gains.** SysId's feedforward model of a motor-driven mechanism, with ``x`` its
coordinate (rad for rotary mechanisms, m for linear ones), is

    V = kS sgn(v) + kV v + kA a (+ kG for an elevator, + kG cos(x) for an arm)

with kS in V, kV in V/(unit/s), kA in V/(unit/s²), kG in V; the arm's angle is
measured from horizontal. A :class:`~simcore.models.mechanism.GearedMechanism`
driven at voltage ``V`` obeys, with ``k`` the rotor radians per unit of ``x``
(gearing, over the drum radius for an elevator), the motor group's ``R``, ``Kt``,
``Kv`` (a gearbox of efficiency 1), load inertia ``M``, viscous friction ``b``,
Coulomb friction ``F`` and gravity load ``W`` (``m g d`` for an arm, the weight
for an elevator),

    M a = (k Kt / R) (V - k v / Kv) - b v - F sgn(v) - W (cos x),

which is SysId's model with ``kA = R M / (k Kt)``, ``kV = k / Kv + R b / (k Kt)``,
``kS = R F / (k Kt)``, ``kG = R W / (k Kt)``. The ``from_sysid`` constructors
(:func:`flywheel`, :func:`arm`, :func:`elevator`, :func:`tank_drive`) invert these
relations, so the mechanism they return has exactly the given gains, a stiction
mode (static = kinetic friction ``F``) included. With a real ``motor=`` (and its
``gearing=``) the currents and torques are that motor's; ``kV`` must then be at
least the motor's back-EMF ``k / Kv`` (the rest is viscous friction). Without
one, a motor with ``Kt Kv = 1`` and 1 ohm stands in: the motion is exact, the
currents and torques are those of that fictitious 1 ohm motor.

**The routine** (:func:`run`), as WPILib's ``SysIdRoutine`` runs it: quasistatic
tests ramp the voltage from 0 at ``ramp_rate`` (V/s), dynamic tests hold
``step_voltage``, forward then reverse, in the order given; at each tick of a
``period`` loop the routine writes the voltage (through ``setVoltage``'s
``duty = V / bus`` for a ``command="duty"`` mechanism) and logs the test state,
the voltage written and the position and velocity it reads. A test ends after its
time or when the position leaves ``limits`` in the test's direction (soft limits,
as teams end a test before a hard stop), then one ``"none"`` sample and
``rest_time`` at 0 V. ``log=path`` writes the samples as a WPILOG in
``SysIdRoutineLog``'s layout, which WPILib's SysId tool loads: a string entry
``sysid-test-state-<mechanism>`` and double entries
``voltage-<motor>-<mechanism>`` ("Volt"), ``position-<motor>-<mechanism>`` and
``velocity-<motor>-<mechanism>`` ("Rotation"/"Rotation per Second" for rotary
mechanisms, positions logged in rotations as ``angularPosition`` does;
"Meter"/"Meter per Second" for linear ones).

**The fit** (:func:`fit`), as SysId's feedforward analysis: acceleration from the
logged velocity by central differences within each run of one test (its first and
last samples dropped), samples slower than ``velocity_threshold`` dropped (at rest
the model does not hold: stiction, a stop; the speed that decides, and the sign
of ``sgn(v)``, is the mean of the two neighbours' velocities, whose noise is
independent of the sample's own and of the acceleration's), then ordinary least
squares of
``a = alpha v + beta V + gamma sgn(v) (+ delta) (+ delta cos x + epsilon sin x)``,
``kS = -gamma/beta``, ``kV = -alpha/beta``, ``kA = 1/beta``, ``kG = -delta/beta``
(elevator) or ``hypot(delta, epsilon)/beta`` with offset ``atan2(epsilon, -delta)``
(arm). One departure from SysId: the central difference
``(v[k+1] - v[k-1]) / (t[k+1] - t[k-1])`` is the mean acceleration over its window,
during which ``V[k-1]`` and then ``V[k]`` were held, so the voltage regressor is
their time-weighted mean over that window, not ``V[k]``; with ``V[k]`` (SysId) a
ramp biases kS by ``ramp_rate * period / 2`` (0.01 V at 1 V/s and 20 ms).
``r_squared`` is SysId's adjusted R².

**Uncertainty.** The standard errors are those of white noise on the logged
velocity, the measurement the fit differentiates: its standard deviation is
estimated from the third differences of the velocity within each test (robustly:
a held voltage's steps are kinks), each sample's noise is carried to first order
through the two accelerations and the velocity regressor it enters into the
coefficients, and from them through the gain ratios. Differencing makes
neighbouring residuals correlated (one sample's noise enters two accelerations
with opposite signs), so the textbook OLS errors, which assume independent
residuals, overstate the scatter several times over. Noise on the position (the
arm's ``cos``/``sin`` regressors) and on the voltage, and the model's own
deterministic error (the fit of a noise-free run), are not in them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import checks
from .checks import STANDARD_GRAVITY
from .errors import ConfigError, ConfigTypeError
from .units import to_si

__all__ = ["SysIdFit", "run", "fit", "write_log", "TESTS", "MECHANISMS", "flywheel", "arm", "elevator",
           "tank_drive"]

#: The four tests, named as WPILib's SysIdRoutineLog records them.
TESTS = ("quasistatic-forward", "quasistatic-reverse", "dynamic-forward", "dynamic-reverse")
#: SysId's analysis types: "simple" (flywheel, drivetrain side), "elevator", "arm".
MECHANISMS = ("simple", "elevator", "arm")
_STATE_CODE = {"none": 0.0, **{name: float(i + 1) for i, name in enumerate(TESTS)}}
_CODE_STATE = {v: k for k, v in _STATE_CODE.items()}
#: Velocity below which a sample is left out, as a fraction of the largest |velocity| logged.
DEFAULT_VELOCITY_THRESHOLD = 0.02


# ---------------------------------------------------------------------------------------------
# mechanisms from gains
# ---------------------------------------------------------------------------------------------
def _gain(name, value, unit, *, positive=False):
    v = to_si(name, value, unit)
    if not (v > 0 if positive else v >= 0):
        raise ConfigError(name, value, f"a {'positive' if positive else 'non-negative'} gain in {unit}")
    return v


def _motor_group(motor, n_motors, k, kv):
    """(motor, R, Kt, Kv) of the motor group for transmission ``k``: a given one, or a 1 ohm stand-in."""
    from simcore.models.motors import DCMotor

    if motor is not None and not isinstance(motor, DCMotor):
        raise ConfigTypeError("motor", motor, "a simcore.models.motors.DCMotor (such as simcore.models.motors.NEO), "
                                              "or None for a stand-in")
    n_motors = checks.integer("n_motors", n_motors, minimum=1)
    if motor is None:
        Kv = k / kv  # all of kV is back-EMF
        stand_in = DCMotor(12.0, 12.0 / Kv, 12.0, 0.0, 12.0 * Kv, name="sysid")  # R = 1 ohm, Kt = 1/Kv
        motor = stand_in
    group = motor.gearbox(n_motors) if n_motors != 1 else motor
    return motor, group.R, group.Kt, group.Kv


#: Keywords each from_sysid passes on to its class besides the drive options (the rest it sets itself).
_PASSED_ON = {"Flywheel": ("start_velocity",), "Arm": ("start_angle", "start_velocity"),
              "Elevator": ("start_height", "start_velocity")}
#: from_sysid's own keywords, for the suggestion on a misspelt one.
_OWN = {"Flywheel": ("motor", "gearing", "n_motors", "name"),
        "Arm": ("min_angle", "max_angle", "motor", "gearing", "n_motors", "com_distance", "name"),
        "Elevator": ("min_height", "max_height", "motor", "gearing", "drum_radius", "n_motors", "name")}


def _drive_options(owner, options):
    if "efficiency" in options and to_si("efficiency", options["efficiency"], "") != 1.0:
        raise ConfigError("efficiency", options["efficiency"],
                          f"1 in {owner}.from_sysid (a fit's kV and kS already hold the gearbox's losses)")
    for key in ("static_friction", "kinetic_friction", "viscous_friction", "rotor_inertia"):
        if key in options:
            raise ConfigTypeError(f"{owner}.from_sysid() keyword", key, "no friction or inertia keyword "
                                  "(kS, kV and kA set them)")
    from simcore.models.drive import MOTOR_DRIVE_KEYS, _unknown_keyword

    accepted = _OWN[owner] + _PASSED_ON[owner] + tuple(k for k in MOTOR_DRIVE_KEYS if k != "n_motors")
    for key in options:
        if key not in accepted:
            raise _unknown_keyword(f"{owner}.from_sysid", key, accepted)
    return dict(options)


def _friction(owner, k, R, Kt, Kv, ks, kv, motor_given):
    """Viscous and Coulomb friction at the mechanism for gains kS, kV (see the module docstring)."""
    back_emf = k / Kv
    if kv < back_emf * (1.0 - 1e-12):
        raise ConfigError("kv", kv, f"at least the motor's back-EMF gain k/Kv = {back_emf!r} V/(unit/s) of the "
                                    f"{'given motor' if motor_given else 'stand-in motor'} ({owner}.from_sysid; "
                                    f"check gearing and motor)")
    scale = k * Kt / R  # force per volt
    return max(kv - back_emf, 0.0) * scale, ks * scale


def flywheel(ks, kv, ka, *, motor=None, gearing=1.0, n_motors=1, name="flywheel", **options):
    """A :class:`~simcore.models.Flywheel` whose SysId gains are ``ks`` V, ``kv`` V/(rad/s), ``ka`` V/(rad/s²).

    ``motor``, ``gearing`` and ``n_motors`` give real currents (see the module
    docstring); other keywords are the Flywheel's drive options (``command``,
    ``neutral_mode``, current limits, ``nominal_bus_voltage``, ...).
    """
    from simcore.models import Flywheel

    ks, kv, ka = _gain("ks", ks, "V"), _gain("kv", kv, "V*s/rad", positive=True), _gain("ka", ka, "V*s**2/rad",
                                                                                        positive=True)
    options = _drive_options("Flywheel", options)
    G = checks.positive("gearing", gearing, what="gear ratio")
    motor_given = motor is not None
    motor, R, Kt, Kv = _motor_group(motor, n_motors, G, kv)
    b, F = _friction("Flywheel", G, R, Kt, Kv, ks, kv, motor_given)
    return Flywheel(motor, G, ka * G * Kt / R, name=name, n_motors=n_motors, viscous_friction=b,
                    static_friction=F, **options)


def arm(ks, kg, kv, ka, *, min_angle, max_angle, motor=None, gearing=1.0, n_motors=1, com_distance=None,
        name="arm", **options):
    """An :class:`~simcore.models.Arm` with SysId gains ``ks``, ``kg`` V, ``kv`` V/(rad/s), ``ka`` V/(rad/s²).

    The angle is from horizontal (SysId's ``kG cos(angle)``). The gravity torque
    ``m g d = kG k Kt / R`` is put on a point mass at ``com_distance`` (m; default
    the radius of gyration, ``sqrt(J / m)``, where the inertia ``J`` is all at the
    mass); ``kg = 0`` gives an arm without gravity. Other keywords as
    :func:`flywheel` and the Arm's (``start_angle``, ...).
    """
    from simcore.models import Arm

    ks, kg = _gain("ks", ks, "V"), _gain("kg", kg, "V")
    kv, ka = _gain("kv", kv, "V*s/rad", positive=True), _gain("ka", ka, "V*s**2/rad", positive=True)
    options = _drive_options("Arm", options)
    G = checks.positive("gearing", gearing, what="gear ratio")
    motor_given = motor is not None
    motor, R, Kt, Kv = _motor_group(motor, n_motors, G, kv)
    b, F = _friction("Arm", G, R, Kt, Kv, ks, kv, motor_given)
    J = ka * G * Kt / R
    P = kg * G * Kt / R  # m g d, N*m
    if com_distance is None:
        d = J * STANDARD_GRAVITY / P if P > 0 else 1.0  # m d^2 = J and m g d = P: a point mass
    else:
        d = to_si("com_distance", com_distance, "m")
        if not d > 0:
            raise ConfigError("com_distance", com_distance, "a positive distance in m")
    mass = P / (STANDARD_GRAVITY * d) if P > 0 else J / (d * d)
    return Arm(motor, G, mass=mass, com_distance=d, moi=J, min_angle=min_angle, max_angle=max_angle,
               gravity=P > 0, g=STANDARD_GRAVITY, name=name, n_motors=n_motors, viscous_friction=b, static_friction=F, **options)


def elevator(ks, kg, kv, ka, *, min_height, max_height, motor=None, gearing=1.0, drum_radius=1.0, n_motors=1,
             name="elevator", **options):
    """An :class:`~simcore.models.Elevator` with SysId gains ``ks``, ``kg`` V, ``kv`` V/(m/s), ``ka`` V/(m/s²).

    The carriage weighs ``kG k Kt / R`` (N, over g for its mass); the rest of the
    inertia ``kA k Kt / R`` is the rotating parts' (``rotor_inertia``), so
    ``kG <= g kA`` (a gravity acceleration above g is no elevator). ``kg = 0``
    gives a carriage without gravity. ``drum_radius`` (m) with ``gearing`` and
    ``motor`` makes currents real. Other keywords as :func:`flywheel`.
    """
    from simcore.models import Elevator

    ks, kg = _gain("ks", ks, "V"), _gain("kg", kg, "V")
    kv, ka = _gain("kv", kv, "V*s/m", positive=True), _gain("ka", ka, "V*s**2/m", positive=True)
    options = _drive_options("Elevator", options)
    G = checks.positive("gearing", gearing, what="gear ratio")
    r = to_si("drum_radius", drum_radius, "m")
    if not r > 0:
        raise ConfigError("drum_radius", drum_radius, "a positive radius in m")
    k = G / r
    motor_given = motor is not None
    motor, R, Kt, Kv = _motor_group(motor, n_motors, k, kv)
    b, F = _friction("Elevator", k, R, Kt, Kv, ks, kv, motor_given)
    M = ka * k * Kt / R
    weight = kg * k * Kt / R
    if weight > STANDARD_GRAVITY * M * (1.0 + 1e-12):
        raise ConfigError("kg", kg, f"at most g * ka = {STANDARD_GRAVITY * ka!r} V (gravity cannot accelerate the carriage "
                                    f"faster than g)")
    carriage = weight / STANDARD_GRAVITY if weight > 0 else M
    rotor = max(M - carriage, 0.0) / (n_motors * k * k)
    return Elevator(motor, G, carriage_mass=carriage, drum_radius=r, min_height=min_height, max_height=max_height,
                    gravity=weight > 0, g=STANDARD_GRAVITY, name=name, n_motors=n_motors, viscous_friction=b, static_friction=F,
                    rotor_inertia=rotor, **options)


def tank_drive(ks, kv, ka, *, track_width, kv_angular=None, ka_angular=None, name="drive",
               start_pose=(0.0, 0.0, 0.0), command="voltage", nominal_bus_voltage=12.0):
    """A :class:`~simcore.models.sysid_tank.SysIdTankDrive` from SysId's drivetrain gains.

    ``ks`` V, ``kv`` V/(m/s), ``ka`` V/(m/s²) per side (a linear test);
    ``kv_angular`` V/(rad/s) and ``ka_angular`` V/(rad/s²) from an angular test.
    Without them each side is its own linear system (``kv_angular = kv * track_width
    / 2``, exact for the back-EMF; ``ka_angular = ka * track_width / 2``, the
    decoupled sides of a robot whose yaw inertia is ``m (track_width/2)²``). Each
    side obeys ``V = kS sgn(v) + kV v + kA a``, coasting and braking included.
    ``command="duty"`` gives the inputs ``left_duty``, ``right_duty``.
    """
    from simcore.models.sysid_tank import SysIdTankDrive

    tw = to_si("track_width", track_width, "m")
    if not tw > 0:
        raise ConfigError("track_width", track_width, "a positive distance in m")
    kv_si = _gain("kv", kv, "V*s/m", positive=True)
    ka_si = _gain("ka", ka, "V*s**2/m", positive=True)
    return SysIdTankDrive(kv_linear=kv_si, ka_linear=ka_si,
                          kv_angular=kv_si * tw / 2.0 if kv_angular is None else kv_angular,
                          ka_angular=ka_si * tw / 2.0 if ka_angular is None else ka_angular,
                          ks=_gain("ks", ks, "V"), track_width=tw, name=name, start_pose=start_pose,
                          command=command, nominal_bus_voltage=nominal_bus_voltage)


# ---------------------------------------------------------------------------------------------
# the routine
# ---------------------------------------------------------------------------------------------
@dataclass
class _Motor:
    """One logged motor: its name in the log and the signals the routine writes and reads."""
    name: str
    command: str  # the input written ("arm.voltage" or "arm.duty")
    bus: str  # the bus voltage signal, for a duty command
    position: str
    velocity: str
    rotary: bool


def _motors(system) -> list:
    s = system.name
    if hasattr(system, "drive") and hasattr(system, "linear") and hasattr(system, "state_names"):
        cmd = system.drive.command
        pos = system.state_names[0]
        return [_Motor(s, f"{s}.{cmd}", f"{s}.bus_voltage", f"{s}.{pos}", f"{s}.velocity", not system.linear)]
    inputs = set(system.input_names)
    for cmd in ("voltage", "duty"):
        if {f"left_{cmd}", f"right_{cmd}"} <= inputs:
            return [_Motor(side, f"{s}.{side}_{cmd}", f"{s}.bus_voltage", f"{s}.{side}_position",
                           f"{s}.{side}_velocity", False) for side in ("left", "right")]
    raise ConfigTypeError("system", system, "a motor-driven mechanism (Flywheel, Arm, Elevator, HubMotor, ...) or "
                                            "a tank drive (left_/right_ voltage or duty inputs)")


def _limits(system, limits, margin):
    if limits is not None:
        try:
            lo, hi = limits
        except (TypeError, ValueError):
            raise ConfigTypeError("limits", limits, "None or a (low, high) pair in the position's unit") from None
        lo, hi = checks.number("limits[0]", lo), checks.number("limits[1]", hi)
        if not lo < hi:
            raise ConfigError("limits", limits, "a (low, high) pair with low < high")
        return lo, hi
    lo, hi = getattr(system, "min_position", -math.inf), getattr(system, "max_position", math.inf)
    if math.isfinite(lo) and math.isfinite(hi):
        pad = margin * (hi - lo)
        return lo + pad, hi - pad
    return lo, hi


class _Routine:
    """The SysIdRoutine's loop: one state machine ticking at ``period``; the samples it logs."""

    def __init__(self, motors, tests, ramp_rate, step_voltage, quasistatic_time, dynamic_time, rest_time,
                 limits, period):
        self.motors, self.limits, self.period = motors, limits, period
        self.plan = []  # (state, voltage(elapsed), duration, direction)
        for test in tests:
            sign = 1.0 if test.endswith("forward") else -1.0
            if test.startswith("quasistatic"):
                self.plan.append((test, lambda e, s=sign: s * ramp_rate * e, quasistatic_time, sign))
            else:
                self.plan.append((test, lambda e, s=sign: s * step_voltage, dynamic_time, sign))
            self.plan.append(("none", lambda e: 0.0, rest_time, 0.0))
        self.samples = {"t": [], "state": []}
        for m in motors:
            for key in ("voltage", "position", "velocity"):
                self.samples[f"{m.name}.{key}"] = []
        self._i, self._start = 0, None
        self.end = None  # number of samples when the plan was through

    def done(self) -> bool:
        return self._i >= len(self.plan)

    def __call__(self, t, signals):
        while self._i < len(self.plan):
            state, volts, duration, sign = self.plan[self._i]
            if self._start is None:
                self._start = t
            elapsed = t - self._start
            outside = sign != 0.0 and any(
                (sign > 0 and signals[m.position] >= self.limits[1]) or (sign < 0 and signals[m.position] <= self.limits[0])
                for m in self.motors)
            if state == "none" and elapsed > 0 and elapsed >= duration - 1e-12:
                self._i, self._start = self._i + 1, None
                continue
            if state != "none" and (elapsed > duration + 1e-12 or (outside and elapsed > 0)):
                self._i, self._start = self._i + 1, None  # the test ends: one "none" sample follows
                continue
            v = 0.0 if state != "none" and outside else volts(elapsed)
            return self._write(t, signals, state, v)
        if self.end is None:
            self.end = len(self.samples["t"])
        return {m.command: 0.0 for m in self.motors}

    def _write(self, t, signals, state, v):
        self.samples["t"].append(t)
        self.samples["state"].append(state)
        out = {}
        for m in self.motors:
            # The motor can apply at most the bus voltage: log what it applies (as WPILib teams log
            # the controller's output voltage), not a request above the bus.
            bus = max(signals[m.bus], 0.0)
            applied = min(max(v, -bus), bus)
            self.samples[f"{m.name}.voltage"].append(applied)
            self.samples[f"{m.name}.position"].append(signals[m.position])
            self.samples[f"{m.name}.velocity"].append(signals[m.velocity])
            if m.command.endswith("duty"):
                out[m.command] = applied / bus if bus > 0 else 0.0
            else:
                out[m.command] = applied
        return out


def run(system, *, tests: Sequence[str] = TESTS, ramp_rate=1.0, step_voltage=7.0, quasistatic_time=10.0,
        dynamic_time=3.0, rest_time=0.0, period=0.005, limits=None, limit_margin=0.05, systems=(), log=None,
        method="RK45", rtol=1e-9, atol=1e-11):
    """Run WPILib's SysId routine on ``system`` and return its samples as a Result.

    Parameters
    ----------
    system : System
        A motor-driven mechanism (its ``voltage`` or ``duty`` command) or a tank
        drive (both sides, logged as motors ``left`` and ``right``).
    tests : sequence of str
        Tests in order, among :data:`TESTS`.
    ramp_rate : float or Quantity
        Quasistatic ramp, V/s (WPILib's default 1 V/s).
    step_voltage : float or Quantity
        Dynamic step, V (WPILib's default 7 V).
    quasistatic_time, dynamic_time : float
        Longest duration of each test, s.
    rest_time : float
        Time at 0 V after each test, s.
    period : float
        The routine's loop period, s (WPILib's robot loop is 0.02 s; SysId fits
        better with faster logging, such as a motor controller's status frames).
    limits : (low, high), optional
        Soft limits of the position (rad or m): a test ends when it leaves them in
        its direction. Default: the mechanism's hard stops moved in by
        ``limit_margin`` of their range (no limits without stops).
    systems : sequence of System
        Simulated along (a Battery).
    log : path, optional
        Also write the samples as a WPILOG in SysIdRoutineLog's layout (:func:`write_log`).
    method, rtol, atol
        Integration settings (:class:`~simcore.Simulator`).

    Returns
    -------
    Result
        One row per sample: ``sysid.state`` (0 none, 1-4 :data:`TESTS` in order),
        ``<motor>.voltage`` (V applied: the request, clipped to the bus voltage), ``<motor>.position`` and
        ``<motor>.velocity`` (SI: rad and rad/s, or m and m/s). ``stats["sysid"]``
        says the mechanism name, the motors and the analysis type :func:`fit` uses.
    """
    from .controller import PeriodicController
    from .engine import Simulator
    from .result import Result

    if isinstance(tests, str):
        tests = [tests]
    try:
        tests = list(tests)
    except TypeError:
        raise ConfigTypeError("tests", tests, f"a sequence of test names among {', '.join(TESTS)}") from None
    if not tests:
        raise ConfigError("tests", tests, f"at least one test among {', '.join(TESTS)}")
    for tname in tests:
        if tname not in TESTS:
            raise ConfigError("tests", tname, f"one of {', '.join(TESTS)}")
    ramp = checks.positive("ramp_rate", ramp_rate, "V/s", what="ramp rate")
    step = checks.positive("step_voltage", step_voltage, "V", what="voltage")
    for pname, v in (("quasistatic_time", quasistatic_time), ("dynamic_time", dynamic_time)):
        checks.positive(pname, v, "s", what="duration")
    rest = checks.nonnegative("rest_time", rest_time, "s", what="duration")
    checks.positive("period", period, "s", what="period")
    margin = checks.number("limit_margin", limit_margin)
    if not 0.0 <= margin < 0.5:
        raise ConfigError("limit_margin", limit_margin, "a fraction of the stops' range in [0, 0.5)")
    if log is not None:  # before the run, not after it
        from .extras import require

        require("wpiutil", "wpilog", "simcore.sysid.run(log=...)")
    motors = _motors(system)
    routine = _Routine(motors, tests, ramp, step, to_si("quasistatic_time", quasistatic_time, "s"),
                       to_si("dynamic_time", dynamic_time, "s"), rest, _limits(system, limits, margin),
                       to_si("period", period, "s"))
    pc = PeriodicController(period, routine, name="sysid")
    sim = Simulator([system, *systems], [pc], method=method, rtol=rtol, atol=atol)
    total = sum(p[2] for p in routine.plan) + 2 * len(routine.plan) * routine.period
    while routine.end is None and sim.t < total + 1.0:
        sim.advance(min(0.5, total + 1.0 - sim.t))
    end = routine.end if routine.end is not None else len(routine.samples["t"])
    samples = {k: v[:end] for k, v in routine.samples.items()}
    t = np.asarray(samples["t"], dtype=float)
    data = {"sysid.state": np.array([_STATE_CODE[s] for s in samples["state"]])}
    units = {}
    for m in motors:
        for key, unit in (("voltage", "V"), ("position", "rad" if m.rotary else "m"),
                          ("velocity", "rad/s" if m.rotary else "m/s")):
            data[f"{m.name}.{key}"] = np.asarray(samples[f"{m.name}.{key}"], dtype=float)
            units[f"{m.name}.{key}"] = unit
    kind = _analysis_of(system)
    result = Result(t, data, units=units, input_names=["sysid.state"] + [f"{m.name}.voltage" for m in motors],
                    stats={"sysid": {"mechanism": system.name, "motors": [m.name for m in motors],
                                     "analysis": kind, "rotary": motors[0].rotary}})
    if log is not None:
        write_log(result, log)
    return result


def _analysis_of(system) -> str:
    from simcore.models import Arm, Elevator

    if isinstance(system, Arm):
        return "arm"
    if isinstance(system, Elevator) and system.g > 0:
        return "elevator"
    return "simple"


# ---------------------------------------------------------------------------------------------
# the WPILOG layout SysId loads
# ---------------------------------------------------------------------------------------------
_UNIT_NAMES = {True: ("Rotation", "Rotation per Second"), False: ("Meter", "Meter per Second")}


def write_log(samples, path) -> None:
    """Write a :func:`run` Result as a WPILOG in WPILib SysIdRoutineLog's layout (see the module docstring)."""
    from .logs import _timestamps_us, _Writer

    info = _info(samples)
    mech, rotary = info["mechanism"], info["rotary"]
    stamps = _timestamps_us(samples.t)
    pos_unit, vel_unit = _UNIT_NAMES[rotary]
    scale = 1.0 / (2.0 * math.pi) if rotary else 1.0  # rotary positions are logged in rotations
    w = _Writer(path, "simcore.sysid.write_log")
    try:
        states = [_CODE_STATE[c] for c in samples["sysid.state"].tolist()]
        w.strings(w.start(f"sysid-test-state-{mech}", "string", ""), states, stamps)
        for m in info["motors"]:
            w.doubles(w.start(f"voltage-{m}-{mech}", "double", "Volt"), samples[f"{m}.voltage"], stamps)
            w.doubles(w.start(f"position-{m}-{mech}", "double", pos_unit), samples[f"{m}.position"] * scale, stamps)
            w.doubles(w.start(f"velocity-{m}-{mech}", "double", vel_unit), samples[f"{m}.velocity"] * scale, stamps)
    finally:
        w.close()


def _info(samples) -> dict:
    info = samples.stats.get("sysid") if hasattr(samples, "stats") else None
    if not info:
        raise ConfigError("result_or_log", samples, "a Result of simcore.sysid.run (or a SysId WPILOG path)")
    return info


def _choose(parameter: str, value, options: list):
    """``value`` if it is one of ``options``; with ``value`` None, the only option."""
    if value is None and len(options) == 1:
        return options[0]
    if value is None or value not in options:
        raise ConfigError(parameter, value, f"one of {', '.join(options) or '(none logged)'}")
    return value


def _read_log(path, mechanism_name, motor):
    """A SysId WPILOG as a run-like Result for one motor (positions converted to SI)."""
    from .logs import _read_entries, _union_grid
    from .result import Result

    entries = _read_entries(path, "simcore.sysid.fit (of a WPILOG file)")
    states = {name[len("sysid-test-state-"):]: e for name, e in entries.items()
              if name.startswith("sysid-test-state-") and e.type == "string"}
    if not states:
        raise ConfigError("result_or_log", str(path), "a WPILOG with a sysid-test-state-<mechanism> entry")
    mechanism_name = _choose("mechanism_name", mechanism_name, sorted(states))
    suffix = f"-{mechanism_name}"
    motor = _choose("motor", motor, sorted({n[len("voltage-"):-len(suffix)] for n in entries
                                            if n.startswith("voltage-") and n.endswith(suffix)}))
    state = states[mechanism_name]
    codes = _StateEntry(state)
    cols = [entries.get(f"{k}-{motor}{suffix}") for k in ("voltage", "position", "velocity")]
    if any(c is None for c in cols):
        raise ConfigError("result_or_log", str(path), f"position-, velocity- and voltage-{motor}{suffix} entries")
    t, (code, volts, pos, vel) = _union_grid([codes, *cols])
    unit = cols[1].metadata.strip().lower()
    rotary = unit.startswith("rotation") or unit.startswith("radian") or unit.startswith("degree")
    scale = {"rotation": 2.0 * math.pi, "degree": math.pi / 180.0}.get(unit.split(" ")[0], 1.0)
    data = {"sysid.state": code, f"{motor}.voltage": volts, f"{motor}.position": pos * scale,
            f"{motor}.velocity": vel * scale}
    return Result(t, data, stats={"sysid": {"mechanism": mechanism_name, "motors": [motor], "analysis": None,
                                            "rotary": rotary}}), motor


class _StateEntry:
    """A state string entry seen as a numeric one (codes), for the union grid."""

    def __init__(self, entry):
        self.stamps = entry.stamps
        self.values = [_STATE_CODE.get(s, -1.0) for s in entry.values]


# ---------------------------------------------------------------------------------------------
# the fit
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SysIdFit:
    """Gains fitted by :func:`fit`, in SI per unit of the mechanism's coordinate (rad or m).

    ``ks``, ``kg`` V; ``kv`` V/(unit/s); ``ka`` V/(unit/s²); ``offset`` rad (arm:
    the angle of the fitted gravity's maximum from the logged zero); their
    standard errors ``*_std`` (from the velocity noise, see the module docstring);
    ``r_squared`` (SysId's adjusted R²), ``rmse`` (unit/s² of acceleration),
    ``n_samples`` used, ``velocity_noise`` (the noise's standard deviation the
    errors assume, unit/s).
    """

    analysis: str
    ks: float
    kv: float
    ka: float
    kg: float
    offset: float
    ks_std: float
    kv_std: float
    ka_std: float
    kg_std: float
    offset_std: float
    r_squared: float
    rmse: float
    n_samples: int
    velocity_noise: float = 0.0
    unit: str = "rad"
    covariance: np.ndarray = field(default=None, repr=False, compare=False)

    def gains(self) -> dict:
        """``{"ks": ..., "kv": ..., "ka": ..., "kg": ...}``."""
        return {"ks": self.ks, "kv": self.kv, "ka": self.ka, "kg": self.kg}

    def __str__(self):
        u = self.unit
        lines = [f"SysId fit ({self.analysis}, {self.n_samples} samples, adjusted R² {self.r_squared:.6f})",
                 f"  kS = {self.ks:.6g} ± {self.ks_std:.2g} V",
                 f"  kV = {self.kv:.6g} ± {self.kv_std:.2g} V/({u}/s)",
                 f"  kA = {self.ka:.6g} ± {self.ka_std:.2g} V/({u}/s²)"]
        if self.analysis != "simple":
            lines.append(f"  kG = {self.kg:.6g} ± {self.kg_std:.2g} V")
        return "\n".join(lines)


def _velocity_noise(t, v, code) -> float:
    """Standard deviation of white noise on the logged velocity, estimated from its third differences.

    Within each test ``v[k+2] - 3 v[k+1] + 3 v[k] - v[k-1]`` is the noise's same
    combination (variance ``20 sigma^2``) plus ``h^3`` times the motion's third
    derivative, small but for the kinks where a held voltage steps; the median
    absolute deviation (over 0.6745, as for a normal law) ignores those.
    """
    d3 = []
    edges = np.flatnonzero(np.diff(code) != 0) + 1
    for seg in np.split(np.arange(t.size), edges):
        if seg.size >= 4 and code[seg[0]] > 0:
            vs = v[seg]
            d3.append(vs[3:] - 3.0 * vs[2:-1] + 3.0 * vs[1:-2] - vs[:-3])
    d3 = np.concatenate(d3) if d3 else np.zeros(1)
    mad = np.median(np.abs(d3 - np.median(d3)))
    return float(mad / 0.6744897501960817 / math.sqrt(20.0))


def _noise_covariance(X, XtX_inv, alpha, idx, window, n_rows, sigma):
    """Covariance of the coefficients due to white velocity noise of standard deviation ``sigma``.

    To first order a noise ``n[j]`` on sample ``j`` moves the normal equations'
    right-hand side by ``c[j] n[j]``: through the accelerations it enters
    (``+X[k] / window[k]`` for the row ``k`` that differences forward over ``j``,
    ``-X[k] / window[k]`` for the one differencing back) and through the velocity
    regressor of its own row (``-alpha X[k]``).
    """
    C = np.zeros((n_rows, X.shape[1]))
    np.add.at(C, idx + 1, X / window[:, None])
    np.add.at(C, idx - 1, -X / window[:, None])
    np.add.at(C, idx, -alpha * X)
    return sigma * sigma * (XtX_inv @ (C.T @ C) @ XtX_inv)


def fit(result_or_log, *, analysis: str | None = None, motor: str | None = None, mechanism_name: str | None = None,
        velocity_threshold=None, velocity_noise=None) -> SysIdFit:
    """Fit SysId's feedforward gains to a routine's samples (see the module docstring).

    Parameters
    ----------
    result_or_log : Result or path
        A :func:`run` Result, or a WPILOG in SysIdRoutineLog's layout (a robot's,
        or :func:`write_log`'s).
    analysis : {"simple", "elevator", "arm"}, optional
        SysId's analysis type; default the routine's mechanism (``"simple"`` for a log).
    motor : str, optional
        The motor to fit when several were logged (a tank drive's ``left``/``right``).
    mechanism_name : str, optional
        The mechanism, when a log holds several routines.
    velocity_threshold : float, optional
        Samples with ``|velocity|`` at or below it (unit/s) are left out; default
        2 % of the largest logged speed.
    velocity_noise : float, optional
        Standard deviation of the velocity measurement's noise, unit/s, for the
        standard errors; default estimated from the log (see the module docstring).

    Returns
    -------
    SysIdFit
    """
    from .result import Result

    if isinstance(result_or_log, Result):
        samples = result_or_log
        info = _info(samples)
        motor = _choose("motor", motor, list(info["motors"]))
    else:
        samples, motor = _read_log(result_or_log, mechanism_name, motor)
        info = _info(samples)
    if analysis is None:
        analysis = info.get("analysis") or "simple"
    if analysis not in MECHANISMS:
        raise ConfigError("analysis", analysis, f"one of {', '.join(MECHANISMS)}")
    t = np.asarray(samples.t, dtype=float)
    code = np.asarray(samples["sysid.state"], dtype=float)
    V = np.asarray(samples[f"{motor}.voltage"], dtype=float)
    x = np.asarray(samples[f"{motor}.position"], dtype=float)
    v = np.asarray(samples[f"{motor}.velocity"], dtype=float)
    vmax = float(np.max(np.abs(v[code > 0]))) if np.any(code > 0) else 0.0
    thr = DEFAULT_VELOCITY_THRESHOLD * vmax if velocity_threshold is None else float(velocity_threshold)
    rows = []
    # runs: maximal stretches of one test state (SysId's runs), each differentiated on its own
    edges = np.flatnonzero(np.diff(code) != 0) + 1
    for seg in np.split(np.arange(t.size), edges):
        if seg.size < 3 or code[seg[0]] <= 0:
            continue
        ts, vs, Vs = t[seg], v[seg], V[seg]
        h = np.diff(ts)
        if np.any(h <= 0):
            raise ConfigError("result_or_log", "repeated sample times", "strictly increasing times within a test")
        window = ts[2:] - ts[:-2]
        a = (vs[2:] - vs[:-2]) / window  # the mean acceleration over [t[k-1], t[k+1]]
        # ...and the mean voltage over the same window: V[k-1] was held until t[k], V[k] from then on
        v_mean = (Vs[:-2] * h[:-1] + Vs[1:-1] * h[1:]) / window
        # Which samples count, and the friction's direction, go by the neighbours' mean velocity: its noise
        # is independent of the sample's own (the velocity regressor) and of the neighbours' difference
        # (the acceleration), so choosing samples by it does not bias the fit the way choosing by v[k] does.
        around = 0.5 * (vs[:-2] + vs[2:])
        moving = np.abs(around) > thr
        rows.append((seg[1:-1][moving], a[moving], v_mean[moving], window[moving], np.sign(around[moving])))
    if not rows or sum(r[0].size for r in rows) == 0:
        raise ConfigError("result_or_log", "no sample", "samples of a test moving faster than velocity_threshold")
    idx, y, volts, window, direction = (np.concatenate(c) for c in zip(*rows))
    cols = [v[idx], volts, direction]
    if analysis == "elevator":
        cols.append(np.ones(idx.size))
    elif analysis == "arm":
        cols += [np.cos(x[idx]), np.sin(x[idx])]
    X = np.column_stack(cols)
    n, p = X.shape
    if n <= p + 1:
        raise ConfigError("result_or_log", f"{n} samples", f"more than {p + 1} samples in motion")
    sigma = _velocity_noise(t, v, code) if velocity_noise is None else float(velocity_noise)
    # The velocity regressor carries the measurement's noise, which the accelerations it is regressed
    # against do not (a sample's own noise is not in its central difference): X'X exceeds its noise-free
    # value by n sigma^2 in the velocity's diagonal term, and removing that undoes the attenuation.
    XtX = X.T @ X
    XtX[0, 0] -= n * sigma * sigma
    XtX_inv = np.linalg.inv(XtX)
    beta = XtX_inv @ (X.T @ y)
    e = y - X @ beta
    sse = float(e @ e)
    ssto = (n - 1.0) / n * float(y @ y)  # SysId's total sum of squares
    r2 = 1.0 - sse / ssto
    adj = 1.0 - (1.0 - r2) * ((n - 1.0) / (n - p - 1.0))
    cov = _noise_covariance(X, XtX_inv, beta[0], idx, window, t.size, sigma)
    alpha, b, gamma = beta[:3]
    g = [-gamma / b, -alpha / b, 1.0 / b]
    J = [[0.0, gamma / b ** 2, -1.0 / b], [-1.0 / b, alpha / b ** 2, 0.0], [0.0, -1.0 / b ** 2, 0.0]]
    J = [row + [0.0] * (p - 3) for row in J]
    kg = offset = 0.0
    if analysis == "elevator":
        d = beta[3]
        g.append(-d / b)
        J.append([0.0, d / b ** 2, 0.0, -1.0 / b])
    elif analysis == "arm":
        d, eps = beta[3], beta[4]
        h = math.hypot(d, eps)
        g.append(h / b)
        J.append([0.0, -h / b ** 2, 0.0, d / (h * b), eps / (h * b)])
        g.append(math.atan2(eps, -d))
        J.append([0.0, 0.0, 0.0, eps / h ** 2, -d / h ** 2])
    J = np.array(J)
    gcov = J @ cov @ J.T
    std = np.sqrt(np.maximum(np.diag(gcov), 0.0))
    if analysis != "simple":
        kg = g[3]
    if analysis == "arm":
        offset = g[4]
    return SysIdFit(analysis, float(g[0]), float(g[1]), float(g[2]), float(kg), float(offset), float(std[0]),
                    float(std[1]), float(std[2]), float(std[3]) if p > 3 else 0.0,
                    float(std[4]) if analysis == "arm" else 0.0, float(adj), math.sqrt(sse / n), int(n), sigma,
                    "rad" if info.get("rotary") else "m", gcov)
