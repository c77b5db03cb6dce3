"""The engine's cost against what a team would write by hand, and against WPILib.

Three rows, each a ratio of medians measured in this process, the runs interleaved (CPU time
of the process, so that other work on a shared machine does not count):

1. **Flywheel, 100 Hz.** A NEO flywheel (gearing 2, J = 0.01 kg·m²) under a 100 Hz
   proportional velocity controller for 5 s, rtol 1e-8, atol 1e-10: ``simulate``
   against a hand-written loop calling ``solve_ivp`` once per tick with a 3-line
   right-hand side (the same physics written out). Target: at most 0.8x.
2. **Arm with its stops, 50 Hz.** ``bench/arm.py``'s arm (two 775Pros, 200:1, hard
   stops at -75 and 255 degrees, gravity) under a 50 Hz PID for 10 s: ``simulate``
   (the stops are state events, their guards checked on every step) against a hand
   loop calling ``solve_ivp`` once per tick with two terminal scipy events for the
   stops. Target: at most 0.8x. Also printed: the floor, scipy's RK45 carried by hand
   from tick to tick on the model's own derivatives and the same PID with nothing else
   (no events, checks or records), which bounds what any engine built on it can reach; and the
   same floor on simcore's own Dormand-Prince (``simcore.dopri5``), which the engine now steps
   small systems with (on the model's float form of its derivatives, as the engine).
3. **Arm against WPILib.** The same arm in WPILib's ``SingleJointedArmSim`` stepped at
   20 ms (robotpy's ``wpilib``, an optional dependency of this benchmark: the row is
   skipped with a message when it is not installed). Target: simcore at most 1.0x per
   simulated second (issue 24; it was 4x before the compiled kernel).

4. **Arm under a built-in loop, against WPILib.** The same arm under
   ``control_loop(PIDController)`` with a constant setpoint (its ticks run inside the compiled kernel:
   :mod:`simcore.kernel.ticks`) against ``SingleJointedArmSim`` stepped at 20 ms with the same PID.
   Target (issue 25): at most 0.25x per simulated second.

5. **A 1 kHz built-in loop beside a 50 Hz Python controller.** The same arm under
   ``control_loop(PIDController)`` ticking at 1 kHz, beside the robot program's own 50 Hz loop in Python
   (it reads the arm's angle and the loop's ``at_setpoint()``, as telemetry does, and writes nothing): the
   built-in loop ticks in the kernel between the Python ticks (issue 25). Printed: CPU ms per simulated
   second, and the same run with the loop ticking in Python (its ``kernel_loop`` removed), whose final
   angle it equals to the bit.

With ``--baseline-python PATH`` the same rows are also measured by this script run
under another interpreter (a venv with the previous commit installed, e.g. a git
worktree of the branch point), in a subprocess alternating with this one, and the
before/after ratio of each row is printed.

With ``--stiff`` it instead prints, for a stiff linear problem and a tank drive
with tyre slip and a battery, the wall time and evaluations of RK45, Radau, BDF, LSODA and
``method="auto"`` (the measurement behind ``simcore.solvers.STIFF_METHOD``), and the CPU time
of auto, RK45 and Radau on the stiff problem under 1 and 5 ms ticks (the measurement behind
``simcore.solvers.MIN_EXPLICIT_STEPS``).

Run: ``python bench/engine.py [--repeat N] [--baseline-python PATH] [--stiff]``.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy.integrate import solve_ivp

import simcore
import simcore.models as models
from simcore import PeriodicController, simulate
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO, VEX_775PRO

RTOL, ATOL = 1e-8, 1e-10

# -- 1. flywheel --------------------------------------------------------------------------------------
FW_T_END, FW_PERIOD, FW_SETPOINT, FW_KP, FW_G, FW_J = 5.0, 0.01, 300.0, 0.05, 2.0, 0.01


def flywheel_engine():
    fw = models.Flywheel(NEO, FW_G, FW_J, viscous_friction=0.0)  # the hand loop's frictionless plant
    pc = PeriodicController(FW_PERIOD, lambda t, s: {"flywheel.voltage": FW_KP * (FW_SETPOINT - s["flywheel.velocity"])},
                            name="p")
    return simulate(fw, FW_T_END, [pc], rtol=RTOL, atol=ATOL).final("flywheel.velocity")


def flywheel_hand():
    R = NEO.nominal_voltage / NEO.stall_current
    Kt = NEO.stall_torque / NEO.stall_current
    Kv = NEO.free_speed / (NEO.nominal_voltage - R * NEO.free_current)
    a, b = FW_G * Kt / (R * FW_J), FW_G * FW_G * Kt / (R * Kv * FW_J)

    def f(t, x, v):  # the 3-line right-hand side: J dw/dt = G Kt (V - G w / Kv) / R
        return [x[1], a * v - b * x[1]]

    x = [0.0, 0.0]
    ts, xs = [0.0], [x]
    for k in range(int(round(FW_T_END / FW_PERIOD))):
        v = FW_KP * (FW_SETPOINT - x[1])
        sol = solve_ivp(f, (k * FW_PERIOD, (k + 1) * FW_PERIOD), x, args=(v,), rtol=RTOL, atol=ATOL)
        ts.extend(sol.t[1:])
        xs.extend(sol.y.T[1:])
        x = sol.y[:, -1]
    return x[1]


# -- 2. and 3. the arm -------------------------------------------------------------------------------------
N_MOTORS, G, L, MASS = 2, 200.0, 0.762, 6.0
J = MASS * L * L / 3.0
MIN, MAX = math.radians(-75), math.radians(255)
PERIOD, T_END = 0.02, 10.0
KP, KD = 40.0, 2.0
N_TICKS = int(round(T_END / PERIOD))


def setpoint(t):
    return 1.2 if t < 5.0 else -0.4


def control(pid, t, angle):
    return min(max(pid.calculate(angle, setpoint(t)), -12.0), 12.0)


def arm_engine():
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    pid = PIDController(KP, 0.0, KD, period=PERIOD)
    pc = PeriodicController(PERIOD, lambda t, s: {"arm.voltage": control(pid, t, s["arm.angle"])}, name="pid")
    r = simulate(arm, T_END, [pc], rtol=RTOL, atol=ATOL)
    assert not r.events  # the stops are armed, not hit
    return r.final("arm.angle")


def arm_hand():
    motor = VEX_775PRO.gearbox(N_MOTORS)
    R = 12.0 / motor.stall_current
    Kt = motor.stall_torque / motor.stall_current
    Kv = motor.free_speed / (12.0 - R * motor.free_current)
    a, b, c = G * Kt / (R * J), G * G * Kt / (R * Kv * J), 1.5 * 9.8 / L

    def f(t, x, v):
        return [x[1], a * v - b * x[1] - c * math.cos(x[0])]

    def low(t, x, v):
        return x[0] - MIN

    def high(t, x, v):
        return x[0] - MAX

    low.terminal = high.terminal = True
    low.direction, high.direction = -1, 1
    pid = PIDController(KP, 0.0, KD, period=PERIOD)
    x = [0.0, 0.0]
    ts, xs = [0.0], [x]
    for k in range(N_TICKS):
        t0, t1 = k * 20_000_000 / 1e9, (k + 1) * 20_000_000 / 1e9
        v = control(pid, t0, x[0])
        sol = solve_ivp(f, (t0, t1), x, args=(v,), rtol=RTOL, atol=ATOL, events=(low, high))
        assert sol.status == 0  # no stop reached
        ts.extend(sol.t[1:])
        xs.extend(sol.y.T[1:])
        x = sol.y[:, -1]
    return x[0]


def _carried_by_hand(start, restart):
    """The arm's own derivatives and the PID, integrated from tick to tick by one solver that is moved
    to each new interval with its last step size: ``start(fun, t0, x, t1[, fun_floats])`` builds it
    (``fun_floats``: the model's derivatives on lists of floats, the form the engine calls, where the
    version has it) and ``restart(solver, fun, t0, x, t1, h)`` moves it. No events, checks or records."""
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    arm.mode = "moving"
    u = arm.initial_inputs()
    deriv = arm.derivatives
    on_floats = getattr(arm, "derivatives_of_floats", None)  # the form the engine calls (not in older versions)

    def fun(t, x):
        return deriv(t, x, u)

    def fun_floats(t, x):
        return on_floats(t, x, u.tolist())

    pid = PIDController(KP, 0.0, KD, period=PERIOD)
    x = np.array([0.0, 0.0])
    solver, h = None, None
    for k in range(N_TICKS):
        t0, t1 = k * 20_000_000 / 1e9, (k + 1) * 20_000_000 / 1e9
        u[0] = control(pid, t0, x[0])
        if solver is None:
            solver = start(fun, t0, x, t1) if on_floats is None else start(fun, t0, x, t1, fun_floats)
        else:
            restart(solver, fun, t0, x, t1, min(h, t1 - t0))
        while solver.status == "running":
            solver.step()
        h, x = solver.h_abs, solver.y
    return x[0]


def arm_floor():
    """What no engine built on scipy's RK45 can beat: RK45 carried by hand (:func:`_carried_by_hand`)."""
    from scipy.integrate import RK45

    def start(fun, t0, x, t1, fun_floats=None):
        solver = RK45(fun, t0, x, t1, rtol=RTOL, atol=ATOL)
        solver.fun = fun
        return solver

    def restart(solver, fun, t0, x, t1, h):
        solver.t, solver.y, solver.t_bound, solver.t_old = t0, x, t1, None
        solver.f, solver.h_abs, solver.status = fun(t0, x), h, "running"
    return _carried_by_hand(start, restart)


def arm_floor_lean():
    """The same floor on simcore's own Dormand-Prince (what the engine steps a 2-state system with)."""
    from simcore.dopri5 import DormandPrince

    def start(fun, t0, x, t1, fun_floats=None):
        floats = {} if fun_floats is None else {"fun_floats": fun_floats}  # the model's float form, as the engine
        return DormandPrince(fun, t0, x, t1, rtol=RTOL, atol=ATOL, **floats)

    return _carried_by_hand(start,
                            lambda solver, fun, t0, x, t1, h: solver.restart(t0, x, t1, h))


def _wpilib_arm(command=control):
    """WPILib's arm stepped at 20 ms, its voltage ``command(pid, t, angle)`` at each step (None without
    robotpy's wpilib)."""
    try:
        from wpimath.system.plant import DCMotor
        from wpilib.simulation import SingleJointedArmSim
    except ImportError:
        return None

    def run():
        sim = SingleJointedArmSim(DCMotor.vex775Pro(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
        pid = PIDController(KP, 0.0, KD, period=PERIOD)
        for k in range(N_TICKS):
            sim.setInputVoltage(command(pid, k * 20_000_000 / 1e9, sim.getAngle()))
            sim.update(PERIOD)
        return sim.getAngle()
    return run


# -- 4. the arm under a built-in control loop ----------------------------------------------------------
LOOP_SETPOINT = 1.2


def arm_loop_engine():
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    loop = control_loop(PIDController(KP, 0.0, KD, period=PERIOD), measure="arm.angle", command="arm.voltage",
                        setpoint=LOOP_SETPOINT, output_limits=(-12.0, 12.0))
    return simulate(arm, T_END, [loop], rtol=RTOL, atol=ATOL).final("arm.angle")


def _wpilib_arm_loop():
    return _wpilib_arm(lambda pid, t, angle: min(max(pid.calculate(angle, LOOP_SETPOINT), -12.0), 12.0))


# -- 5. a 1 kHz built-in loop beside a 50 Hz Python controller ---------------------------------------------
FAST_PERIOD = 0.001


def arm_mixed_engine(kernel_ticks: bool = True):
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(N_MOTORS), G, J, L, MIN, MAX, True, 0.0)
    pid = PIDController(KP, 0.0, KD, period=FAST_PERIOD)
    loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=LOOP_SETPOINT,
                        output_limits=(-12.0, 12.0))
    if not kernel_ticks:
        loop.kernel_loop = None  # (a loop the kernel cannot tick: every controller ticks in Python)
    telemetry = []

    def robot(t, s):  # the robot program's own 50 Hz loop
        telemetry.append((s["arm.angle"], pid.at_setpoint()))
        return {}

    r = simulate(arm, T_END, [PeriodicController(PERIOD, robot, name="robot"), loop], rtol=RTOL, atol=ATOL)
    assert len(telemetry) == N_TICKS + 1
    return r.final("arm.angle")


def arm_mixed_python():
    return arm_mixed_engine(False)


def _timed(fn) -> float:
    # CPU time of this process: the machine is shared, and waiting for a core is not the code's cost. Each run
    # starts after a full collection of garbage: one collection of this process's heap (numba's objects
    # included) costs tens of ms, and would otherwise fall on whichever run the earlier ones' allocations
    # trigger it in, the same one every round.
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def measure(repeat: int) -> dict:
    """Median wall times, s, of every workload, interleaved run by run."""
    assert abs(flywheel_engine() - flywheel_hand()) < 1e-5 * FW_SETPOINT
    assert abs(arm_engine() - arm_hand()) < 1e-6 and abs(arm_engine() - arm_floor()) < 1e-6
    runs = {"flywheel_engine": flywheel_engine, "flywheel_hand": flywheel_hand, "arm_engine": arm_engine,
            "arm_hand": arm_hand, "arm_floor": arm_floor}
    try:
        assert abs(arm_engine() - arm_floor_lean()) < 1e-6
        runs["arm_floor_lean"] = arm_floor_lean
    except ImportError:  # a baseline from before simcore.dopri5
        pass
    wp = _wpilib_arm()
    if wp is not None:
        runs["arm_wpilib"] = wp
    runs["arm_loop_engine"] = arm_loop_engine
    wp = _wpilib_arm_loop()
    if wp is not None:
        assert abs(arm_loop_engine() - wp()) < 1e-2  # the same motion (WPILib's own integration is coarser)
        runs["arm_loop_wpilib"] = wp
    runs["arm_mixed_engine"], runs["arm_mixed_python"] = arm_mixed_engine, arm_mixed_python
    assert arm_mixed_engine() == arm_mixed_python()  # the kernel's ticks are the Python ticks'
    times = {k: [] for k in runs}
    for _ in range(repeat):
        for k, fn in runs.items():
            times[k].append(_timed(fn))
    return {k: statistics.median(v) for k, v in times.items()}


def report(m: dict, label: str = "") -> dict:
    ratios = {"flywheel": m["flywheel_engine"] / m["flywheel_hand"], "arm": m["arm_engine"] / m["arm_hand"]}
    ticks = int(round(FW_T_END / FW_PERIOD)) + 1
    print(f"{label}1. flywheel 100 Hz: engine {m['flywheel_engine'] / ticks * 1e6:7.1f} us/tick, hand solve_ivp loop "
          f"{m['flywheel_hand'] / ticks * 1e6:7.1f} us/tick, ratio {ratios['flywheel']:.3f} (target <= 0.8)")
    print(f"{label}2. arm 50 Hz with stops: engine {m['arm_engine'] / T_END * 1e3:6.2f} ms per simulated s, hand "
          f"solve_ivp+events loop {m['arm_hand'] / T_END * 1e3:6.2f}, ratio {ratios['arm']:.3f} (target <= 0.8)")
    if "arm_floor" in m:
        print(f"{label}   floor (scipy RK45 + the model + the PID, nothing else): {m['arm_floor'] / T_END * 1e3:6.2f} ms "
              f"per simulated s; engine/floor {m['arm_engine'] / m['arm_floor']:.2f}")
    if "arm_floor_lean" in m:
        print(f"{label}   floor on simcore's Dormand-Prince (simcore.dopri5): {m['arm_floor_lean'] / T_END * 1e3:6.2f} ms "
              f"per simulated s; engine/floor {m['arm_engine'] / m['arm_floor_lean']:.2f}")
    if "arm_wpilib" in m:
        ratios["wpilib"] = m["arm_engine"] / m["arm_wpilib"]
        floor = (f", floor/WPILib {m['arm_floor'] / m['arm_wpilib']:.2f}" if "arm_floor" in m else "")
        if "arm_floor_lean" in m:
            floor += f", Dormand-Prince floor/WPILib {m['arm_floor_lean'] / m['arm_wpilib']:.2f}"
        print(f"{label}3. arm vs WPILib SingleJointedArmSim (20 ms steps): {m['arm_wpilib'] / T_END * 1e3:6.2f} ms per "
              f"simulated s, ratio simcore/WPILib {ratios['wpilib']:.2f} (target <= 1.0){floor}")
    else:
        print(f"{label}3. arm vs WPILib: skipped (robotpy's wpilib is not installed: pip install wpilib==2026.2.2)")
    if "arm_loop_wpilib" in m:
        ratios["loop_wpilib"] = m["arm_loop_engine"] / m["arm_loop_wpilib"]
        print(f"{label}4. arm under control_loop(PIDController) vs WPILib with the same PID: simcore "
              f"{m['arm_loop_engine'] / T_END * 1e3:6.2f} ms per simulated s, WPILib "
              f"{m['arm_loop_wpilib'] / T_END * 1e3:6.2f}, ratio {ratios['loop_wpilib']:.2f} (target <= 0.25)")
    if "arm_mixed_engine" in m:
        print(f"{label}5. arm under a 1 kHz control_loop(PIDController) beside a 50 Hz Python controller: "
              f"{m['arm_mixed_engine'] / T_END * 1e3:6.2f} ms per simulated s (the loop ticking in Python: "
              f"{m['arm_mixed_python'] / T_END * 1e3:6.2f})")
    return ratios


# -- stiff problems: which implicit method ---------------------------------------------------------------
class ProtheroRobinson(simcore.System):
    """x' = -lam (x - cos t) - sin t, x(0) = 1: solution cos t, stiffness lam (1/s)."""

    name = "pr"
    state_names = ("x",)
    lam = 1e6

    def initial_state(self):
        return np.array([1.0])

    def derivatives(self, t, x, u):
        return np.array([-self.lam * (x[0] - math.cos(t)) - math.sin(t)])


def stiff_rows():
    rows = []
    for method in ("auto", "Radau", "BDF", "LSODA", "RK45"):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", simcore.StiffnessWarning)
            r = simulate(ProtheroRobinson(), 1.0, method=method)
        dt = time.perf_counter() - t0
        err = float(np.max(np.abs(r["pr.x"] - np.cos(r.t))))
        rows.append(("stiff linear, 1 s", method, dt, r.stats["nfev"], err, r.stats["intervals_by_method"]))
    from simcore.models.battery import Battery
    from simcore.models.motors import CIM
    from simcore.models.tank import TankDrive

    def cmd(t, s):
        return {"drive.left_voltage": 12.0 if t % 4 < 2 else -6.0, "drive.right_voltage": 10.0 if t % 4 < 2 else 6.0}

    for method in ("auto", "Radau", "BDF", "LSODA", "RK45"):
        # bench/drivetrains.py's tank: tyre slip (friction_coefficient) and a battery bus, 50 Hz commands.
        drive = TankDrive(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                          moi=5.0, friction_coefficient=1.0)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", simcore.StiffnessWarning)
            r = simulate([drive, Battery()], 3.0, [PeriodicController(0.02, cmd, name="drive")], method=method)
        dt = time.perf_counter() - t0
        rows.append(("tank slip + battery, 3 s", method, dt, r.stats["nfev"], r.final("drive.x"),
                     r.stats["intervals_by_method"]))
    for lam in (1e4, 3e4, 1e5):
        for period in (0.001, 0.005):
            # A stiff problem under a fast loop: Radau restarts at every tick (the "auto" cost rule).
            for method in ("auto", "RK45", "Radau"):
                pc = PeriodicController(period, lambda t, s, lam=lam: {}, name="tick")
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", simcore.StiffnessWarning)
                    problem = ProtheroRobinson()
                    problem.lam = lam
                    r = simulate(problem, 1.0, [pc], method=method)
                dt = time.process_time() - t0
                err = float(np.max(np.abs(r["pr.x"] - np.cos(r.t))))
                rows.append((f"lam {lam:g}, {period * 1e3:g} ms ticks", method, dt, r.stats["nfev"], err,
                             r.stats["intervals_by_method"]))
    for name, method, dt, nfev, val, by in rows:
        print(f"{name:26s} {method:6s} {dt:8.3f} s  nfev {nfev:9d}  {'final x' if 'tank' in name else 'max error'} "
              f"{val:.10g}  intervals {by}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline-python", help="interpreter with the previous commit installed (before/after)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one round, for the parent
    ap.add_argument("--stiff", action="store_true", help="compare the implicit methods on stiff problems")
    args = ap.parse_args()
    if args.stiff:
        stiff_rows()
        return
    if args.json:
        print(json.dumps(measure(args.repeat)))
        return
    if not args.baseline_python:
        report(measure(args.repeat))
        return
    # Before/after: alternate a round of the baseline (a subprocess) with a round here.
    env = dict(os.environ, PYTHONPATH="")
    ours, theirs = [], []
    for _ in range(args.repeat):
        out = subprocess.run([args.baseline_python, os.path.abspath(__file__), "--json", "--repeat", "1"],
                             capture_output=True, text=True, env=env, cwd="/", check=True).stdout
        theirs.append(json.loads(out.strip().splitlines()[-1]))
        ours.append(measure(1))
    med = lambda rs: {k: statistics.median(r[k] for r in rs) for k in rs[0]}  # noqa: E731
    print("before (baseline interpreter):")
    before = report(med(theirs), "  ")
    print("after (this checkout):")
    after = report(med(ours), "  ")
    m_b, m_a = med(theirs), med(ours)
    print(f"before/after CPU time: flywheel {m_b['flywheel_engine'] / m_a['flywheel_engine']:.2f}x faster, "
          f"arm {m_b['arm_engine'] / m_a['arm_engine']:.2f}x faster, "
          f"arm under control_loop {m_b['arm_loop_engine'] / m_a['arm_loop_engine']:.2f}x faster, "
          f"1 kHz loop beside a 50 Hz Python controller {m_b['arm_mixed_engine'] / m_a['arm_mixed_engine']:.2f}x "
          f"faster")
    del before, after


if __name__ == "__main__":
    main()
