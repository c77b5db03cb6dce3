"""Road Runner's tuning of a drive-encoder mecanum (no dead wheels), on a simulated drive: what its tuners give.

Road Runner (``road-runner-ftc``'s tuning op modes and its tuning page) tunes a
mecanum whose drive motors' encoders are its odometry in these steps; each is
run here as a separate run from rest, through a hub exactly as robot code would
(powers by ``setPower``, encoders by a manual bulk read, the yaw rate by the IMU),
in the generator style at one loop every ``loop_period``:

``ForwardPushTest`` -> ``inPerTick``
    The motors float (power 0, ``ZeroPowerBehavior.FLOAT``) and the robot is
    pushed straight forward by hand (here: ``push_force`` N on the chassis for
    ``push_time`` s, through its external force input), then comes to rest:
    ``inPerTick`` is the distance the tape measure gives (the model's own ``x``)
    over the wheels' mean tick count.
``LateralPushTest`` -> ``lateralInPerTick``
    The same push to the robot's left: the sideways distance over the lateral
    tick sum ``(-fl + rl - rr + fr) / 4``.
``AngularRampLogger`` -> ``trackWidthTicks``, ``kS``, ``kV``
    Left wheels backward, right forward, the power growing by ``power_per_sec``
    (0.1/s, up to 0.9, the logger's defaults). ``trackWidthTicks``: the slope
    (through zero) of the turning ticks/s ``(-fl - rl + rr + fr) / 4`` against the
    IMU's yaw rate. Its feedforward regression: the applied voltage (power x the
    hub's voltage) against each wheel's velocity in its own sense, all four
    wheels pooled, a least-squares line: slope ``kV``, intercept ``kS``
    (``ramp_kv``, ``ramp_ks``). The ramp is quasi-static, not static: the
    intercept also carries the wheels' acceleration times the turning ``kA``.
``ManualFeedforwardTuner`` -> ``kA`` (and the final ``kS``, ``kV``)
    Road Runner leaves this step to a person: the robot drives forward and back
    along a motion profile (``profile_distance`` in, at Road Runner's default
    ``maxWheelVel`` 50 in/s and profile accelerations -30/+50 in/s²) with the
    feedforward alone, and kS, kV, kA are adjusted by hand until the measured
    velocity follows the profile's. EMULATION of that hand step: one pass with
    the ramp's kS, kV and kA = 0, then the kS, kV, kA under which that pass's
    logged voltage is exactly what its logged motion needed (a least-squares fit
    of ``V = kS sign(v) + kV v + kA a`` per loop interval, ``V`` the voltage
    written at its start, ``v`` the mean of the velocities logged at its ends,
    ``a`` their difference over its length): for a plant of this form those are the
    gains under which feedforward alone tracks the profile, which is where the
    hand tuning ends. A second pass with them gives ``tracking_error`` (rms
    velocity error, in/s), the number the person would be watching.

The dead-wheel path (``ForwardRampLogger``, ``LateralRampLogger``) is not
emulated: Road Runner runs those only on a robot with dead wheels. Samples below
``min_speed_fraction`` of the run's largest wheel speed are left out of the
velocity fits (the robot is still breaking away). The model's own pose serves as
the tape measure; everything else is what the robot code reads.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simcore import checks
from simcore.controller import PeriodicController
from simcore.engine import simulate
from simcore.errors import ConfigError, ConfigTypeError

from .bulk import BulkCachingMode
from .imu import IMU
from .motor import Hub
from .opmode import linear_opmode
from .sdk import AngleUnit, Direction, RunMode, ZeroPowerBehavior

__all__ = ["feedforward_ramps", "RoadRunnerTuning", "RAMP_POWER_PER_SEC", "RAMP_POWER_MAX", "MAX_WHEEL_VEL",
           "PROFILE_ACCEL"]

#: The ramp loggers' default power slope, 1/s, and ceiling.
RAMP_POWER_PER_SEC = 0.1
RAMP_POWER_MAX = 0.9
#: Road Runner's default ``maxWheelVel``, in/s, and profile accelerations ``minProfileAccel``, ``maxProfileAccel``,
#: in/s² (the quickstart's MecanumDrive.Params), which ManualFeedforwardTuner's profile uses.
MAX_WHEEL_VEL = 50.0
PROFILE_ACCEL = (-30.0, 50.0)

_WHEELS = ("front_left", "front_right", "rear_left", "rear_right")
_INCH = 0.0254
#: Power sign of each wheel (WHEELS order) in each powered phase.
_PATTERNS = {"angular": (-1, 1, -1, 1), "profile": (1, 1, 1, 1)}


@dataclass
class RoadRunnerTuning:
    """What Road Runner's tuning steps give (see the module docstring); units as Road Runner's."""

    in_per_tick: float  #: ForwardPushTest
    lateral_in_per_tick: float  #: LateralPushTest
    track_width_ticks: float  #: AngularRampLogger
    ks: float  #: V, after ManualFeedforwardTuner (emulated)
    kv: float  #: V per tick/s, after ManualFeedforwardTuner (emulated)
    ka: float  #: V per tick/s², ManualFeedforwardTuner (emulated)
    ramp_ks: float  #: AngularRampLogger's feedforward regression: intercept, V
    ramp_kv: float  #: AngularRampLogger's feedforward regression: slope, V per tick/s
    tracking_error: float  #: rms velocity error of a feedforward-only profile pass with the final gains, in/s
    logs: dict = field(default_factory=dict, repr=False)  #: step -> arrays ``t, power, voltage, position, ...``

    def __str__(self):
        return "\n".join([
            "Road Runner drive parameters, by its tuning steps for drive encoders:",
            f"  inPerTick        = {self.in_per_tick:.6g}      (ForwardPushTest)",
            f"  lateralInPerTick = {self.lateral_in_per_tick:.6g}      (LateralPushTest)",
            f"  trackWidthTicks  = {self.track_width_ticks:.6g}      (AngularRampLogger)",
            f"  kS = {self.ramp_ks:.6g} V, kV = {self.ramp_kv:.6g} V/(tick/s)      (AngularRampLogger, "
            "feedforward regression)",
            f"  kS = {self.ks:.6g} V, kV = {self.kv:.6g} V/(tick/s), kA = {self.ka:.6g} V/(tick/s^2)      "
            "(ManualFeedforwardTuner, emulated hand tuning)",
            f"  feedforward-only profile with these: rms velocity error {self.tracking_error:.3g} in/s",
        ])


def _hub_and_motors(drive):
    hub = Hub()
    motors = [hub.motor(port, drive, wheel=w) for port, w in enumerate(_WHEELS)]
    for m in (motors[0], motors[2]):  # Road Runner's MecanumDrive reverses leftFront and leftBack (mirrored)
        m.setDirection(Direction.REVERSE)
    return hub, motors, IMU(drive)


def _record(log, hub, motors, imu, drive):
    hub.clearBulkCache()
    log["position"].append([m.getCurrentPosition() for m in motors])
    log["velocity"].append([m.getVelocity() for m in motors])
    log["yaw_rate"].append(imu.getRobotAngularVelocity(AngleUnit.RADIANS).zRotationRate)
    log["voltage"].append(float(hub.signals[f"{drive.name}.supply_voltage"]))
    log["x"].append(float(hub.signals[f"{drive.name}.x"]))
    log["y"].append(float(hub.signals[f"{drive.name}.y"]))


def _new_log():
    return {k: [] for k in ("t", "power", "voltage", "position", "velocity", "yaw_rate", "x", "y")}


def _arrays(log):
    return {k: np.asarray(v, dtype=float) for k, v in log.items()}


def _push(drive, direction, force, push_time, duration, loop_period):
    """ForwardPushTest / LateralPushTest: the motors float while the chassis is pushed, then comes to rest."""
    hub, motors, imu = _hub_and_motors(drive)
    log = _new_log()

    def logger():
        hub.setBulkCachingMode(BulkCachingMode.MANUAL)
        for m in motors:
            m.setMode(RunMode.RUN_WITHOUT_ENCODER)
            m.setZeroPowerBehavior(ZeroPowerBehavior.FLOAT)
            m.setPower(0.0)
        t = 0.0
        while True:
            log["t"].append(t)
            log["power"].append(0.0)
            _record(log, hub, motors, imu, drive)
            t = yield

    key = f"{drive.name}.external_force_{direction}"
    hand = PeriodicController(loop_period, lambda t, signals: {key: force if t < push_time else 0.0}, name="push")
    simulate([drive], duration, controllers=[linear_opmode(logger, period=loop_period, hubs=[hub, imu]),
                                             *hub.controllers(), hand])
    return _arrays(log)


def _powered(drive, phase, duration, loop_period, power_of):
    """A powered step: each loop, ``power_of(t, hub voltage)`` on every wheel (with the phase's signs), then a
    read (as Road Runner's op modes: the voltage sensor, the powers, the encoders)."""
    hub, motors, imu = _hub_and_motors(drive)
    signs = _PATTERNS[phase]
    log = _new_log()

    def logger():
        hub.setBulkCachingMode(BulkCachingMode.MANUAL)
        for m in motors:
            m.setMode(RunMode.RUN_WITHOUT_ENCODER)
        t = 0.0
        while True:
            power = power_of(t, float(hub.signals[f"{drive.name}.supply_voltage"]))
            log["t"].append(t)
            log["power"].append(power)
            for m, s in zip(motors, signs):
                m.setPower(s * power)
            _record(log, hub, motors, imu, drive)
            t = yield

    simulate([drive], duration, controllers=[linear_opmode(logger, period=loop_period, hubs=[hub, imu]),
                                             *hub.controllers()])
    return _arrays(log)


def _profile(distance, v_max, accel, decel):
    """Road Runner's trapezoid forward ``distance`` then back (ticks): ``(t_end, f(t) -> (v, a))``."""
    v = min(v_max, math.sqrt(2.0 * distance * accel * decel / (accel + decel)))
    t_a, t_d = v / accel, v / decel
    t_c = (distance - v * t_a / 2.0 - v * t_d / 2.0) / v
    leg = t_a + t_c + t_d

    def one_way(t):
        if t < t_a:
            return accel * t, accel
        if t < t_a + t_c:
            return v, 0.0
        if t < leg:
            return v - decel * (t - t_a - t_c), -decel
        return 0.0, 0.0

    def target(t):
        if t < leg:
            return one_way(t)
        vb, ab = one_way(t - leg)
        return -vb, -ab
    return 2.0 * leg, target


def _feedforward_pass(drive, gains, profile, t_end, loop_period):
    ks, kv, ka = gains

    def power_of(t, voltage):
        v, a = profile(t)
        return max(-1.0, min(1.0, (ks * np.sign(v) + kv * v + ka * a) / voltage))
    return _powered(drive, "profile", t_end, loop_period, power_of)


def _interval_fit(log, phase, keep_fraction):
    """``V = kS sign(v) + kV v + kA a`` by least squares over the loop intervals (see the module docstring)."""
    signs = np.array(_PATTERNS[phase], dtype=float)
    V = (log["power"] * log["voltage"])[:, None] * signs
    v, t = log["velocity"] * signs, log["t"]
    V, a, v = V[:-1], np.diff(v, axis=0) / np.diff(t)[:, None], (v[:-1] + v[1:]) / 2.0
    keep = np.abs(v) > keep_fraction * np.abs(v).max()
    rows = np.column_stack([np.sign(v[keep]), v[keep], a[keep]])
    return np.linalg.lstsq(rows, V[keep], rcond=None)[0]


def feedforward_ramps(drive, *, push_force: float = 60.0, push_time: float = 0.5, push_duration: float = 2.0,
                      angular_time: float = 3.0, profile_distance: float = 64.0, loop_period: float = 0.01,
                      power_per_sec: float = RAMP_POWER_PER_SEC, power_max: float = RAMP_POWER_MAX,
                      min_speed_fraction: float = 0.1, verbose: bool = True) -> RoadRunnerTuning:
    """Run Road Runner's drive-encoder tuning steps on a hub-drivable mecanum model; print and return what they give.

    Parameters
    ----------
    drive : MecanumDrive
        Built from an FTC motor type (``command="duty"``: hub channels on its wheels), with
        ``field=None``: the steps need open floor, as on a real robot.
    push_force, push_time, push_duration : float
        The hand's push in the push tests (N, along the robot's x or y), how long it
        pushes and how long each test lasts (the robot must come to rest), s.
    angular_time : float
        Length of AngularRampLogger's ramp, s.
    profile_distance : float
        ManualFeedforwardTuner's profile distance, in (Road Runner's default 64).
    loop_period : float
        The op modes' loop time, s.
    power_per_sec, power_max : float
        The ramp (Road Runner's defaults).
    min_speed_fraction : float
        Samples slower than this fraction of the run's top wheel speed are left out of the fits.
    verbose : bool
        Print the result.

    Returns
    -------
    RoadRunnerTuning
    """
    if getattr(drive, "motor_type", None) is None or not all(f"{w}_duty" in drive.input_names for w in _WHEELS):
        raise ConfigTypeError("drive", drive, "a mecanum drive built from an FTC motor type (hub channels on "
                                              "front_left, front_right, rear_left, rear_right)")
    if getattr(drive, "field", None) is not None:
        raise ConfigError("drive", drive, "a drive on open floor, as Road Runner's tuning steps need (its profile "
                                          f"runs {profile_distance!r} in): this one stands in the walls "
                                          f"{drive.field}; build it with field=None")
    push_force = checks.positive("push_force", push_force, "N", what="force")
    push_time = checks.positive("push_time", push_time, "s", what="duration")
    push_duration = checks.positive("push_duration", push_duration, "s", what="duration")
    if not push_duration > push_time:
        raise ConfigError("push_duration", push_duration, f"longer than push_time={push_time} s")
    angular_time = checks.positive("angular_time", angular_time, "s", what="duration")
    profile_distance = checks.positive("profile_distance", profile_distance, "in", what="distance")
    loop_period = checks.positive("loop_period", loop_period, "s", what="period")
    power_per_sec = checks.positive("power_per_sec", power_per_sec, what="power per second")
    power_max = checks.fraction("power_max", power_max, low_open=True)
    min_speed_fraction = checks.fraction("min_speed_fraction", min_speed_fraction)
    logs = {}

    # ForwardPushTest, LateralPushTest: the tape measure over the ticks.
    fwd = logs["forward_push"] = _push(drive, "x", push_force, push_time, push_duration, loop_period)
    in_per_tick = (fwd["x"][-1] / _INCH) / fwd["position"][-1].mean()
    lat = logs["lateral_push"] = _push(drive, "y", push_force, push_time, push_duration, loop_period)
    fl, fr, rl, rr = lat["position"][-1]
    lateral_in_per_tick = (lat["y"][-1] / _INCH) / ((-fl + rl - rr + fr) / 4.0)

    # AngularRampLogger: the track width, and its feedforward regression over every wheel.
    ang = logs["angular"] = _powered(drive, "angular", angular_time, loop_period,
                                     lambda t, voltage: min(power_per_sec * t, power_max))
    fl, fr, rl, rr = ang["velocity"].T
    turning = (-fl - rl + rr + fr) / 4.0
    keep = np.abs(turning) > min_speed_fraction * np.abs(turning).max()
    w = ang["yaw_rate"][keep]
    track_width_ticks = float(w @ turning[keep] / (w @ w))
    signs = np.array(_PATTERNS["angular"], dtype=float)
    wheel_v = (ang["velocity"] * signs)[keep].ravel()
    applied = np.repeat((ang["power"] * ang["voltage"])[keep], 4)
    if len(wheel_v) < 2:
        raise ConfigError("angular_time", angular_time, "a ramp long enough for the wheels to move")
    ramp_kv, ramp_ks = np.polyfit(wheel_v, applied, 1)

    # ManualFeedforwardTuner, emulated: a pass with the ramp's gains, the gains its log needed, a check pass.
    to_ticks = 1.0 / in_per_tick
    t_end, profile = _profile(profile_distance * to_ticks, MAX_WHEEL_VEL * to_ticks, PROFILE_ACCEL[1] * to_ticks,
                              -PROFILE_ACCEL[0] * to_ticks)
    first = logs["profile"] = _feedforward_pass(drive, (ramp_ks, ramp_kv, 0.0), profile, t_end, loop_period)
    ks, kv, ka = _interval_fit(first, "profile", min_speed_fraction)
    check = logs["profile_check"] = _feedforward_pass(drive, (ks, kv, ka), profile, t_end, loop_period)
    # the velocity read at a loop is the hub's at the read, one loop after the power written from the target
    target_v = np.array([profile(t)[0] for t in check["t"]])
    error = (check["velocity"].mean(axis=1) - target_v) * in_per_tick
    tracking_error = float(np.sqrt(np.mean(error ** 2)))

    result = RoadRunnerTuning(float(in_per_tick), float(lateral_in_per_tick), track_width_ticks, float(ks),
                              float(kv), float(ka), float(ramp_ks), float(ramp_kv), tracking_error, logs)
    if verbose:
        print(result)
    return result
