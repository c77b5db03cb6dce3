"""A 10 s closed-loop arm at 50 Hz: wall time per simulated second, and accuracy against a tight reference.

The arm is WPILib's SingleJointedArmSim example shape: two 775Pros, 200:1, 0.762 m arm,
J = m L^2 / 3 for 6 kg, stops at -75 and 255 degrees, gravity on, starting level. A 50 Hz
PID (kP 40 V/rad, kD 2 V*s/rad, limits +-12 V) moves it to 1.2 rad, then to -0.4 rad at 5 s.

Three integrations of the same closed loop, the controller identical in each:

* simcore (``simulate``, default tolerances rtol 1e-8, atol 1e-10);
* the reference: scipy ``solve_ivp`` (DOP853, rtol 1e-12, atol 1e-13) from tick to tick,
  the equations written out here independently of ``models``;
* WPILib's ``SingleJointedArmSim`` stepped at 20 ms (robotpy's ``wpilib`` package), when installed.

Printed: wall time per simulated second of each, their ratio, and each one's largest
angle error against the reference at the 501 ticks.

Run: ``python bench/arm.py``; for the WPILib row, in a separate venv: ``pip install wpilib==2026.2.2 -e .``
(robotpy, an optional extra of the benchmark only).
"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np
from scipy.integrate import solve_ivp

import simcore.models as models
from simcore.controllers import PIDController
from simcore.models.motors import VEX_775PRO
from simcore import PeriodicController, simulate

N_MOTORS, G, L, MASS = 2, 200.0, 0.762, 6.0
J = MASS * L * L / 3.0
MIN, MAX = math.radians(-75), math.radians(255)
PERIOD, T_END = 0.02, 10.0
KP, KD = 40.0, 2.0


def setpoint(t):
    return 1.2 if t < 5.0 else -0.4


def new_pid():
    return PIDController(KP, 0.0, KD, period=PERIOD)


def control(pid, t, angle):
    return min(max(pid.calculate(angle, setpoint(t)), -12.0), 12.0)


def run_simcore():
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    pid = new_pid()
    pc = PeriodicController(PERIOD, lambda t, s: {"arm.voltage": control(pid, t, s["arm.angle"])}, name="pid")
    r = simulate(arm, T_END, [pc])
    ticks = r.ticks("pid")
    return ticks, r.sample("arm.angle", ticks)


def run_reference():
    motor = VEX_775PRO.gearbox(N_MOTORS)
    R = 12.0 / motor.stall_current
    Kt = motor.stall_torque / motor.stall_current
    Kv = motor.free_speed / (12.0 - R * motor.free_current)

    def f(t, x, v):
        return [x[1], G * Kt / (R * J) * (v - G * x[1] / Kv) - 1.5 * 9.8 * math.cos(x[0]) / L]

    pid = new_pid()
    x = np.array([0.0, 0.0])
    n = int(round(T_END / PERIOD))
    angles = [x[0]]
    ticks = [k * 20_000_000 / 1e9 for k in range(n + 1)]  # integer-ns ticks, as the engine's
    for k in range(n + 1):
        v = control(pid, ticks[k], x[0])
        if k == n:
            break
        x = solve_ivp(f, (ticks[k], ticks[k + 1]), x, args=(v,), method="DOP853", rtol=1e-12,
                      atol=1e-13).y[:, -1]
        angles.append(x[0])
    return np.array(ticks), np.array(angles)


def _wpilib_factory():
    try:
        from wpimath.system.plant import DCMotor
    except ImportError:
        return None
    try:
        from wpilib.simulation import SingleJointedArmSim
    except ImportError:
        try:
            from wpimath.simulation import SingleJointedArmSim  # type: ignore
        except ImportError:
            return None

    def run():
        sim = SingleJointedArmSim(DCMotor.vex775Pro(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
        pid = new_pid()
        n = int(round(T_END / PERIOD))
        angles = [sim.getAngle()]
        for k in range(n):
            sim.setInputVoltage(control(pid, k * 20_000_000 / 1e9, sim.getAngle()))
            sim.update(PERIOD)
            angles.append(sim.getAngle())
        return np.arange(n + 1) * PERIOD, np.array(angles)
    return run


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    t_ref, ref = run_reference()
    te, (t_s, ours) = timed(run_simcore, 5)
    assert np.array_equal(t_s, t_ref)
    print(f"simcore: {te / T_END * 1e3:7.2f} ms per simulated second; "
          f"max angle error vs reference {np.max(np.abs(ours - ref)):.2e} rad")
    wp = _wpilib_factory()
    if wp is None:
        print("WPILib SingleJointedArmSim: robotpy-wpimath/wpilib not installed; comparison skipped "
              "(pip install wpilib==2026.2.2 in a separate venv to run it)")
        return
    tw, (t_w, theirs) = timed(wp, 5)
    print(f"WPILib SingleJointedArmSim (20 ms steps): {tw / T_END * 1e3:7.2f} ms per simulated second; "
          f"max angle error vs reference {np.max(np.abs(theirs - ref)):.2e} rad")
    print(f"time ratio simcore/WPILib: {te / tw:.2f}")


if __name__ == "__main__":
    main()
