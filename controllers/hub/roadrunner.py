"""Road Runner's feedforward tuning procedure on a simulated mecanum drive: what its tuners would measure.

Road Runner's tuning op modes (``road-runner-ftc``'s ``ForwardRampLogger``,
``LateralRampLogger``/``LateralPushTest``, ``AngularRampLogger``,
``ForwardPushTest`` and ``ManualFeedforwardTuner``) drive the robot with a power that
grows linearly (0.1 per second up to 0.9, the loggers' defaults), log each loop the
power, the hub's voltage and the drive encoders (a manual bulk read), and fit the
drive parameters from the logs. :func:`feedforward_ramps` runs the same procedure
here, each phase a separate run from rest, through a hub exactly as robot code
would (powers by ``setPower``, encoders by a bulk read, the yaw rate by the IMU), in
the generator style at one loop every ``loop_period``:

``forward`` (ForwardRampLogger, ForwardPushTest)
    All four wheels at the ramp. ``in_per_tick``: the robot's forward travel
    (what the push test's tape measure gives) over the wheels' mean tick count.
    Road Runner's ramp regression, applied voltage (power x voltage) against wheel
    velocity in ticks/s, gives its quasi-static ``ramp_kv`` (slope) and ``ramp_ks``
    (intercept); that intercept also carries ``kA`` times the ramp's acceleration.
``step`` (what ManualFeedforwardTuner is for)
    Road Runner leaves ``kA`` to tuning by hand until a profile is followed with
    feedforward alone; here a power step (``step_power``) supplies the acceleration,
    and ``kS``, ``kV``, ``kA`` come from one least-squares fit of
    ``V = kS sign(v) + kV v + kA a`` over the forward ramp and the step together,
    per loop interval (``V`` the voltage written at its start, ``v`` the mean of the
    velocities logged at its ends, ``a`` their difference over its length).
``lateral`` (LateralRampLogger, LateralPushTest)
    The strafe ramp (front left and rear right backward, the others forward):
    ``lateral_in_per_tick`` is the robot's sideways travel over the lateral tick sum
    ``(-fl + rl - rr + fr) / 4``.
``angular`` (AngularRampLogger)
    Left wheels backward, right forward: ``track_width_ticks`` is the slope (through
    zero) of the wheels' turning ticks/s ``(-fl - rl + rr + fr) / 4`` against the
    IMU's yaw rate in rad/s.

Samples below ``min_speed_fraction`` of the run's largest wheel speed are left out
of the velocity fits (the robot is still breaking away). The model's own signals
serve as the tape measure; everything else is what the robot code reads.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simcore import checks
from simcore.engine import simulate
from simcore.errors import ConfigError, ConfigTypeError

from .bulk import BulkCachingMode
from .imu import IMU
from .motor import Hub
from .opmode import linear_opmode
from .sdk import AngleUnit, RunMode

__all__ = ["feedforward_ramps", "RoadRunnerTuning", "RAMP_POWER_PER_SEC", "RAMP_POWER_MAX"]

#: The ramp loggers' default power slope, 1/s, and ceiling.
RAMP_POWER_PER_SEC = 0.1
RAMP_POWER_MAX = 0.9

_WHEELS = ("front_left", "front_right", "rear_left", "rear_right")
_INCH = 0.0254
#: Power sign of each wheel (WHEELS order) in each phase.
_PATTERNS = {"forward": (1, 1, 1, 1), "step": (1, 1, 1, 1), "lateral": (-1, 1, 1, -1), "angular": (-1, 1, -1, 1)}


@dataclass
class RoadRunnerTuning:
    """What Road Runner's tuners would measure (see the module docstring); units as Road Runner's."""

    in_per_tick: float
    lateral_in_per_tick: float
    track_width_ticks: float
    ks: float  #: V
    kv: float  #: V per tick/s
    ka: float  #: V per tick/s²
    ramp_ks: float  #: the forward ramp's quasi-static intercept, V
    ramp_kv: float  #: the forward ramp's quasi-static slope, V per tick/s
    logs: dict = field(default_factory=dict, repr=False)  #: phase -> arrays ``t, power, voltage, position, velocity``

    def __str__(self):
        return "\n".join([
            "Road Runner drive parameters (as its tuners measure them):",
            f"  inPerTick        = {self.in_per_tick:.6g}      (ForwardPushTest)",
            f"  lateralInPerTick = {self.lateral_in_per_tick:.6g}      (LateralPushTest / LateralRampLogger)",
            f"  trackWidthTicks  = {self.track_width_ticks:.6g}      (AngularRampLogger)",
            f"  kS = {self.ks:.6g} V, kV = {self.kv:.6g} V/(tick/s), kA = {self.ka:.6g} V/(tick/s^2)"
            "      (forward ramp and step, with acceleration)",
            f"  the forward ramp's quasi-static regression alone: kS = {self.ramp_ks:.6g} V, kV = {self.ramp_kv:.6g}",
        ])


def _run_phase(drive, phase, duration, loop_period, power_per_sec, power_max, step_power):
    hub = Hub()
    motors = [hub.motor(port, drive, wheel=w) for port, w in enumerate(_WHEELS)]
    imu = IMU(drive)
    signs = _PATTERNS[phase]
    log = {k: [] for k in ("t", "power", "voltage", "position", "velocity", "yaw_rate", "x", "y")}
    voltage_key = f"{drive.name}.supply_voltage"

    def logger():
        hub.setBulkCachingMode(BulkCachingMode.MANUAL)
        for m in motors:
            m.setMode(RunMode.RUN_WITHOUT_ENCODER)
        t = 0.0
        while True:
            power = step_power if phase == "step" else min(power_per_sec * t, power_max)
            log["t"].append(t)
            log["power"].append(power)
            for m, s in zip(motors, signs):
                m.setPower(s * power)
            log["voltage"].append(float(hub.signals[voltage_key]))
            hub.clearBulkCache()
            log["position"].append([m.getCurrentPosition() for m in motors])
            log["velocity"].append([m.getVelocity() for m in motors])
            log["yaw_rate"].append(imu.getRobotAngularVelocity(AngleUnit.RADIANS).zRotationRate)
            log["x"].append(float(hub.signals[f"{drive.name}.x"]))
            log["y"].append(float(hub.signals[f"{drive.name}.y"]))
            t = yield

    simulate([drive], duration, controllers=[linear_opmode(logger, period=loop_period, hubs=[hub, imu]),
                                             *hub.controllers()])
    return {k: np.asarray(v, dtype=float) for k, v in log.items()}


def _applied(log, phase):
    """Each wheel's applied voltage (power x hub voltage, signed) and velocity, ticks/s, in the wheel's own sense."""
    signs = np.array(_PATTERNS[phase], dtype=float)
    voltage = (log["power"] * log["voltage"])[:, None] * signs
    return voltage, log["velocity"], log["t"]


def feedforward_ramps(drive, *, ramp_time: float = 4.0, step_time: float = 1.0, lateral_time: float = 2.0,
                      angular_time: float = 3.0, step_power: float = 0.4, loop_period: float = 0.01,
                      power_per_sec: float = RAMP_POWER_PER_SEC, power_max: float = RAMP_POWER_MAX,
                      min_speed_fraction: float = 0.1, verbose: bool = True) -> RoadRunnerTuning:
    """Run Road Runner's feedforward procedure on a hub-drivable mecanum model; print and return what it measures.

    Parameters
    ----------
    drive : MecanumDrive
        Built from an FTC motor type (``command="duty"``: hub channels on its wheels).
    ramp_time, step_time, lateral_time, angular_time : float
        Length of each phase, s (each a run from rest).
    step_power : float
        Power of the step phase (keep the rollers gripping: a wheel force past ``mu N`` slips).
    loop_period : float
        The logger's loop time, s.
    power_per_sec, power_max : float
        The ramp (Road Runner's defaults).
    min_speed_fraction : float
        Samples slower than this fraction of the phase's top wheel speed are left out of the fits.
    verbose : bool
        Print the result.

    Returns
    -------
    RoadRunnerTuning
    """
    if getattr(drive, "motor_type", None) is None or not all(f"{w}_duty" in drive.input_names for w in _WHEELS):
        raise ConfigTypeError("drive", drive, "a mecanum drive built from an FTC motor type (hub channels on "
                                              "front_left, front_right, rear_left, rear_right)")
    durations = {p: checks.positive(n, v, "s", what="duration") for p, n, v in (
        ("forward", "ramp_time", ramp_time), ("step", "step_time", step_time),
        ("lateral", "lateral_time", lateral_time), ("angular", "angular_time", angular_time))}
    step_power = checks.fraction("step_power", step_power, low_open=True)
    loop_period = checks.positive("loop_period", loop_period, "s", what="period")
    power_per_sec = checks.positive("power_per_sec", power_per_sec, what="power per second")
    power_max = checks.fraction("power_max", power_max, low_open=True)
    min_speed_fraction = checks.fraction("min_speed_fraction", min_speed_fraction)
    logs = {p: _run_phase(drive, p, d, loop_period, power_per_sec, power_max, step_power)
            for p, d in durations.items()}

    def moving(velocity):
        return np.abs(velocity) > min_speed_fraction * np.abs(velocity).max()

    # Forward: the push test's distance per tick, the ramp's quasi-static line, and the fit with acceleration.
    fwd = logs["forward"]
    in_per_tick = (fwd["x"][-1] / _INCH) / fwd["position"][-1].mean()
    rows, rhs, qs_v, qs_V = [], [], [], []
    for phase in ("forward", "step"):
        V, v, t = _applied(logs[phase], phase)
        # Per loop interval: the voltage written at its start is held over it; its mean velocity (trapezoid)
        # and its velocity change per second satisfy the feedforward exactly for this first-order plant.
        V, a, v = V[:-1], np.diff(v, axis=0) / np.diff(t)[:, None], (v[:-1] + v[1:]) / 2.0
        keep = moving(v)
        rows.append(np.column_stack([np.sign(v[keep]), v[keep], a[keep]]))
        rhs.append(V[keep])
        if phase == "forward":
            qs_v, qs_V = v[keep], V[keep]
    ks, kv, ka = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)[0]
    if len(qs_v) < 2:
        raise ConfigError("ramp_time", ramp_time, "a ramp long enough for the wheels to move")
    ramp_kv, ramp_ks = np.polyfit(qs_v, qs_V, 1)
    # Lateral: sideways travel per lateral tick.
    lat = logs["lateral"]
    fl, fr, rl, rr = lat["position"][-1]
    lateral_in_per_tick = (lat["y"][-1] / _INCH) / ((-fl + rl - rr + fr) / 4.0)
    # Angular: turning ticks/s against the IMU's yaw rate, a line through zero.
    ang = logs["angular"]
    fl, fr, rl, rr = ang["velocity"].T
    wheel = (-fl - rl + rr + fr) / 4.0
    keep = moving(wheel)
    w = ang["yaw_rate"][keep]
    track_width_ticks = float(w @ wheel[keep] / (w @ w))
    result = RoadRunnerTuning(float(in_per_tick), float(lateral_in_per_tick), track_width_ticks, float(ks),
                              float(kv), float(ka), float(ramp_ks), float(ramp_kv), logs)
    if verbose:
        print(result)
    return result
