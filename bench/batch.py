"""simulate_batch: wall time for 1, 1,000 and 10,000 arm variants, peak memory, and the cost per variant
against serial simcore and WPILib's SingleJointedArmSim (issues 13 and 24).

The arm is WPILib's SingleJointedArmSim example shape (two 775Pros, 200:1, a 0.762 m rod of
J = 1.161 kg m^2, g = 9.8 m/s^2, ``Arm.from_wpilib``) with hard stops at -0.3 and 1.3 rad; a
100 Hz PID (output +-12 V) moves it from level to 1.2 rad, 5 s simulated. The variants draw
the arm's mass (its gravity torque) from U(2, 10) kg, kP from U(10, 120) V/rad and kD from
U(0, 6) V s/rad; the stiffer ones overshoot into the upper stop.

Printed (each time the median of 3 runs, wall and CPU (``time.process_time``: this process alone, what
counts on a shared machine); ratios against baselines measured in this process, from CPU times):

* N = 10,000 and N = 1,000: wall time of one ``simulate_batch`` (issue 24's targets: 1.0 s and 0.15 s on
  this machine's two cores), for this arm and for a light one (a NEO on 30:1, 0.3 m to its centre of mass,
  stops at -0.5 and 1.6 rad, the mass from U(1, 4) kg, kP from U(10, 200) V/rad, kD from U(0, 3) V s/rad:
  stiff gains on a light arm, stops hit);
* N = 1: ``simulate_batch`` against one ``simulate(..., method="RK45")`` of the same arm (target <= 1.3x);
* peak memory of the 10,000 batch (target 500 MB): the resident-set high-water mark of a child
  process that runs it, minus that of a child that only imports and builds the parts (measured once the
  kernel is in its disk cache: a child that compiles it holds the compiler's memory too, some 200 MB);
* cost per variant: the 10,000 batch's time / N against serial ``simulate`` and against WPILib's
  ``SingleJointedArmSim`` stepped at 10 ms in Python (goal: 30x faster per variant than WPILib),
  and the error of each at the ticks against scipy DOP853 at rtol 1e-12 run tick to tick on the
  same equations written out here (for five variants at WPILib's own mass).

Run: ``python bench/batch.py`` (the WPILib rows need ``pip install wpilib==2026.2.2``, which pulls in
robotpy-wpimath: an optional dependency of this benchmark only; without it they are skipped).
"""
from __future__ import annotations

import math
import statistics
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

import simcore.models as models
from simcore import simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO, VEX_775PRO

N_MOTORS, G, L = 2, 200.0, 0.762
J = 6.0 * L * L / 3.0
MIN, MAX = -0.3, 1.3
PERIOD, T_END, SETPOINT = 0.01, 5.0, 1.2
REPEAT = 3


def parts(kp=40.0, kd=2.0, mass=None):
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    if mass is not None:  # a serial arm of that mass: what a batch variant of "arm.mass" is
        arm = models.Arm(VEX_775PRO.gearbox(N_MOTORS), G, mass=mass, com_distance=L / 2, moi=J, min_angle=MIN,
                         max_angle=MAX, g=9.8)
    loop = control_loop(PIDController(kp, 0.0, kd, period=PERIOD), measure="arm.angle", command="arm.voltage",
                        setpoint=SETPOINT, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def variants(n, seed=0):
    rng = np.random.default_rng(seed)
    return {"arm.mass": rng.uniform(2.0, 10.0, n), "pid.kp": rng.uniform(10.0, 120.0, n),
            "pid.kd": rng.uniform(0.0, 6.0, n)}


def run_batch(n):
    arm, loop = parts()
    return simulate_batch(arm, T_END, [loop], params=variants(n))


def light_parts():
    arm = models.Arm(NEO, 30.0, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.6)
    loop = control_loop(PIDController(50.0, 0.0, 1.0, period=PERIOD), measure="arm.angle", command="arm.voltage",
                        setpoint=SETPOINT, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def run_light_batch(n, seed=0):
    rng = np.random.default_rng(seed)
    arm, loop = light_parts()
    return simulate_batch(arm, T_END, [loop], params={"arm.mass": rng.uniform(1.0, 4.0, n),
                                                     "pid.kp": rng.uniform(10.0, 200.0, n),
                                                     "pid.kd": rng.uniform(0.0, 3.0, n)})


def timed(fn, repeat=REPEAT):
    """(median wall s, median CPU s, last result) of ``repeat`` calls."""
    wall, cpu, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return statistics.median(wall), statistics.median(cpu), out


def reference(kp, kd):
    """Tick-to-tick DOP853 at rtol 1e-12 of WPILib's arm equations, the PID's clamp included."""
    # WPILib's arm plant dw/dt = a w + b V - 3/2 g cos(angle) / L, from the 775Pro datasheet (12 V,
    # 0.71 N m and 134 A stall, 0.7 A and 18730 rpm free), two motors on 200:1.
    stall_torque, stall_current, free_current = 2 * 0.71, 2 * 134.0, 2 * 0.7
    ohm = 12.0 / stall_current
    kt = stall_torque / stall_current
    kv = (18730 * 2 * math.pi / 60) / (12.0 - ohm * free_current)
    a, b = -G * G * kt / (kv * ohm * J), G * kt / (ohm * J)

    def f(t, x, v):
        return [x[1], a * x[1] + b * v - 1.5 * 9.8 * math.cos(x[0]) / L]

    pid = PIDController(kp, 0.0, kd, period=PERIOD)
    x = np.array([0.0, 0.0])
    n = int(round(T_END / PERIOD))
    out = [0.0]
    for k in range(n):
        v = min(max(pid.calculate(x[0], SETPOINT), -12.0), 12.0)
        sol = solve_ivp(f, (k * PERIOD, (k + 1) * PERIOD), x, args=(v,), method="DOP853", rtol=1e-12, atol=1e-13)
        x = sol.y[:, -1]
        if not MIN <= x[0] <= MAX:  # the stops: only variants that stay clear of them are compared
            return None
        out.append(x[0])
    return np.array(out)


def wpilib_runner():
    try:
        from wpilib.simulation import SingleJointedArmSim
        from wpimath.system.plant import DCMotor
    except ImportError:
        return None

    def run(kp, kd):
        sim = SingleJointedArmSim(DCMotor.vex775Pro(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
        pid = PIDController(kp, 0.0, kd, period=PERIOD)
        angles = [sim.getAngle()]
        for _ in range(int(round(T_END / PERIOD))):
            sim.setInputVoltage(min(max(pid.calculate(sim.getAngle(), SETPOINT), -12.0), 12.0))
            sim.update(PERIOD)
            angles.append(sim.getAngle())
        return np.array(angles)
    return run


def peak_memory_mb(n):
    """Peak resident memory (VmHWM) of a fresh child running an n-variant batch, and of one that only
    imports and builds the parts, MB. (ru_maxrss would carry this process's high-water mark across exec.)"""
    def child(run):
        code = (f"import runpy; m = runpy.run_path({__file__!r}, run_name='bench'); m['parts']()\n"
                + (f"m['run_batch']({n})\n" if run else "")
                + "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        return int(out.split()[-1]) / 1024.0
    base, peak = child(False), child(True)
    return peak - base, peak


def main():
    simulate(*parts()[:1], T_END, [parts()[1]], method="RK45")  # the kernel loaded from the cache, untimed
    simulate_batch(*parts()[:1], T_END, [parts()[1]], params={"pid.kp": [40.0]})
    run_batch(1_000)  # (and compiled into the cache first if the code changed: the memory's child loads it)
    extra, total = peak_memory_mb(10_000)
    w1_serial, t1_serial, r1 = timed(lambda: simulate(*parts()[:1], T_END, [parts()[1]], method="RK45"))
    w1_batch, t1_batch, _ = timed(lambda: simulate_batch(*parts()[:1], T_END, [parts()[1]], params={"pid.kp": [40.0]}))
    print(f"N = 1: simulate_batch {t1_batch:.3f} s CPU ({w1_batch:.3f} s wall), simulate(RK45) {t1_serial:.3f} s CPU "
          f"({w1_serial:.3f} s wall), ratio {t1_batch / t1_serial:.2f} (target <= 1.3)")
    for label, run in (("WPILib's arm", run_batch), ("light arm", run_light_batch)):
        w1k, t1k, b1k = timed(lambda: run(1_000))
        print(f"{label}, N = 1,000: {t1k:.2f} s CPU, {w1k:.2f} s wall (target 0.15 s), "
              f"{t1k / 1e3 * 1e3:.3f} ms CPU per variant, {b1k.n_steps.mean():.0f} steps per variant "
              f"(max {b1k.n_steps.max()})")
        w10k, t10k, b10k = timed(lambda: run(10_000))
        hit = b10k.event_counts("upper_stop") + b10k.event_counts("lower_stop") > 0
        print(f"{label}, N = 10,000: {t10k:.2f} s CPU, {w10k:.2f} s wall (target 1.0 s), "
              f"{t10k / 1e4 * 1e3:.3f} ms CPU per variant; {hit.mean() * 100:.0f} % of the variants hit a stop")
        if run is run_batch:
            per_batch = t10k / 1e4  # the per-variant rows below are WPILib's arm's
    print(f"peak memory of the 10,000 batch: {extra:.0f} MB above the interpreter and imports "
          f"({total:.0f} MB resident in all; target 500 MB)")
    per_serial = t1_serial
    print(f"per variant (CPU): batch(10,000) {per_batch * 1e3:.3f} ms, serial simulate {per_serial * 1e3:.1f} ms "
          f"(batch {per_serial / per_batch:.0f}x faster)")
    wp = wpilib_runner()
    if wp is None:
        print("WPILib SingleJointedArmSim: not installed (pip install wpilib==2026.2.2); rows skipped")
        return
    p = variants(20, seed=1)
    _, t_wp, _ = timed(lambda: [wp(kp, kd) for kp, kd in zip(p["pid.kp"], p["pid.kd"])])
    t_wp /= 20
    print(f"per variant: WPILib SingleJointedArmSim {t_wp * 1e3:.2f} ms CPU; batch(10,000) is "
          f"{t_wp / per_batch:.1f}x faster per variant (goal 30x)")
    # Accuracy at WPILib's own mass, against the tight reference, for variants clear of the stops.
    arm, loop = parts()
    gains = [(25.0, 3.0), (40.0, 2.0), (15.0, 4.0), (30.0, 5.0), (20.0, 2.5)]
    b = simulate_batch(arm, T_END, [loop], params={"pid.kp": [g[0] for g in gains], "pid.kd": [g[1] for g in gains]})
    errs_b, errs_w = [], []
    for k, (kp, kd) in enumerate(gains):
        ref = reference(kp, kd)
        if ref is None:
            continue
        errs_b.append(np.max(np.abs(b.at_ticks("arm.angle", "pid")[k] - ref)))
        errs_w.append(np.max(np.abs(wp(kp, kd) - ref)))
    print(f"largest angle error at the ticks over {len(errs_b)} variants: batch {max(errs_b):.2e} rad, "
          f"WPILib {max(errs_w):.2e} rad ({max(errs_w) / max(errs_b):.1e}x larger)")


if __name__ == "__main__":
    main()
