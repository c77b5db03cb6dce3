"""Drivetrain benchmarks: wall time per simulated second with accuracy, and pyfrc's TankModel accuracy.

1. **Wall time per simulated second** (issue 12's Done-means 1), CPU time of the
   process (so that other work on a shared machine does not count), median of
   ``--repeat`` runs, default tolerances and method:

   * **tank**: two CIMs per side at 10.71:1, 50 kg, friction coefficient 1.0, a
     Battery; a 50 Hz loop alternating (12 V, 10 V) and (-6 V, 6 V) every 2 s; 10 s.
     Target: at most 0.05.
   * **mecanum**: notebook 04's FTC robot (four goBILDA 312 rpm, 12 kg) on a 0.1 ohm
     battery with duty commands, the 50 Hz field-centric square (1 m/s legs of 1.2 s),
     twice; 10 s. Target: at most 0.05.
   * **swerve**: four modules (Kraken X60 drive, Falcon 500 steer), a 50 Hz chassis
     loop and four 1 kHz module loops, a Battery; a figure of drive, strafe while
     turning and reverse; 3 s. Target: at most 0.15. Also printed: the same
     controller schedule on a trivial 22-state system (the engine's own cost per
     simulated second, which bounds what any model can reach).

   Each run's accuracy is its largest position and heading difference, at the
   controller ticks, from a tight reference of the same model (DOP853 at rtol 1e-12,
   or for a stiff model Radau at rtol 1e-10). With ``--baseline-python PATH`` every
   row is also run by this script under another interpreter (a venv with the branch
   point installed), the runs interleaved, and the before/after ratio is printed,
   with the largest difference between the two versions' trajectories (the physics
   changed: the tyre law). Where the default tolerances leave a run less accurate
   than the baseline's, it is also timed at tighter tolerances until its error is
   the baseline's or smaller (the ratio at equal accuracy). With ``--pairs N`` both
   sides are instead timed in fresh processes, N pairs in alternating order, and the
   median of the pairs' ratios is printed (the in-process "after" run follows the
   tight reference in the same process, the baseline's never does; on a loaded
   machine the pairs give the steadier ratio).
2. **pyfrc accuracy.** pyfrc's ``TankModel.theory`` (CIM x2 per side, 10.71:1, 50 kg,
   pyfrc's kitbot frame) driven by a 5-segment percent-output schedule against a
   ``solve_ivp`` (DOP853, rtol = atol = 1e-12) integration of the same equations.
   pyfrc (robotpy) is optional: it is imported if installed, or run in the
   interpreter named by the environment variable ``PYFRC_PYTHON``; otherwise that
   part is skipped with a message.

Run: ``python bench/drivetrains.py [--repeat N] [--baseline-python PATH [--pairs N]] [--only tank,mecanum,swerve,pyfrc]``
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

import simcore
from simcore import PeriodicController
from simcore.models.battery import Battery
from simcore.models.motors import CIM, FALCON_500, GOBILDA_BARE, KRAKEN_X60
from simcore.models.mecanum import MecanumDrive, WHEELS
from simcore.models.swerve import SwerveDrive
from simcore.models.tank import TankDrive
from simcore.controllers.drive_control import swerve_module_controllers
from simcore.controllers.kinematics import ChassisSpeeds, MecanumKinematics, SwerveKinematics

TARGETS = {"tank": 0.05, "mecanum": 0.05, "swerve": 0.15}
T_END = {"tank": 10.0, "mecanum": 10.0, "swerve": 3.0}


# -- the three runs ------------------------------------------------------------------------------------
def tank_run(**solver):
    drive = TankDrive(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0, moi=5.0,
                      friction_coefficient=1.0)

    def cmd(t, s):
        on = t % 4 < 2
        return {"drive.left_voltage": 12.0 if on else -6.0, "drive.right_voltage": 10.0 if on else 6.0}

    return simcore.simulate([drive, Battery()], T_END["tank"], [PeriodicController(0.02, cmd, name="loop")],
                            **solver), "drive", "loop"


MEC_TW, MEC_WB = 0.36, 0.30
MEC_LEGS = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (0.0, 0.0)]


def mecanum_run(**solver):
    mec = MecanumDrive(GOBILDA_BARE, 19.2, track_width=MEC_TW, wheelbase=MEC_WB, wheel_radius=0.048, mass=12.0,
                       moi=0.35, command="duty", start_pose=(1.2, 1.2, 0.0))
    kin = MecanumKinematics((MEC_WB / 2, MEC_TW / 2), (MEC_WB / 2, -MEC_TW / 2), (-MEC_WB / 2, MEC_TW / 2),
                            (-MEC_WB / 2, -MEC_TW / 2))
    v_free = mec.free_speed(12.0)

    def opmode(t, s):
        vx, vy = MEC_LEGS[min(int((t % 6.0) // 1.2), 4)]
        speeds = ChassisSpeeds.from_field_relative(vx, vy, 0.0, s["mecanum.heading"])
        wheels = kin.to_wheel_speeds(speeds).desaturate(v_free)
        return {f"mecanum.{w}_duty": v / v_free for w, v in zip(WHEELS, wheels)}

    return simcore.simulate([mec, Battery(resistance=0.1)], T_END["mecanum"],
                            [PeriodicController(0.02, opmode, name="opmode")], **solver), "mecanum", "opmode"


POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def swerve_command(t, s):
    # a figure: drive, strafe while turning, reverse, stop
    if t < 1.0:
        return ChassisSpeeds(3.0, 0.0, 0.0)
    if t < 2.0:
        return ChassisSpeeds(1.0, 2.0, 1.5)
    return ChassisSpeeds(-2.5, -0.5, -1.0)


def swerve_run(**solver):
    sw = SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                     wheel_radius=0.0508, mass=55.0, moi=6.0)
    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS), swerve_command, rate=1000.0, chassis_rate=50.0)
    return simcore.simulate([sw, Battery()], T_END["swerve"], ctrls, **solver), "swerve", "swerve_chassis"


RUNS = {"tank": tank_run, "mecanum": mecanum_run, "swerve": swerve_run}


def _trajectory(res, name, clock):
    ticks = res.ticks(clock)
    return np.array([res.sample(f"{name}.{k}", ticks) for k in ("x", "y", "heading")])


def measure(kind: str, **solver) -> dict:
    """One timed run (default settings unless ``solver`` says), and its trajectory (x, y, heading at the ticks)."""
    t0 = time.process_time()
    res, name, clock = RUNS[kind](**solver)
    cpu = time.process_time() - t0
    return {"s_per_s": cpu / T_END[kind], "traj": _trajectory(res, name, clock).tolist(),
            "steps": int(res.stats["n_steps"]), "nfev": int(res.stats["nfev"])}


def reference(kind: str) -> list:
    """The tight reference trajectory of the same model: DOP853 at rtol 1e-12, or Radau at 1e-10 for the
    stiff tyre law of the versions before the chassis model (an explicit method would take hours)."""
    if importlib.util.find_spec("simcore.models.chassis") is None:
        res, name, clock = RUNS[kind](method="Radau", rtol=1e-10, atol=1e-12)
    else:
        res, name, clock = RUNS[kind](method="DOP853", rtol=1e-12, atol=1e-12)
    return _trajectory(res, name, clock).tolist()


def _errors(traj, ref):
    a, b = np.asarray(traj), np.asarray(ref)
    return float(np.max(np.hypot(a[0] - b[0], a[1] - b[1]))), float(np.max(np.abs(a[2] - b[2])))


def worker(kind: str, what: str) -> None:
    """Print one measurement as JSON (the subprocess side of --baseline-python)."""
    out = measure(kind) if what == "measure" else {"traj": reference(kind)}
    print(json.dumps(out))


def _baseline(python, kind, what):
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run([python, os.path.abspath(__file__), "--worker", kind, what], capture_output=True, text=True,
                          env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"baseline {kind} {what} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_pairs(kinds, pairs, baseline_python):
    """After/before as pairs of fresh processes (this interpreter, then the baseline's, the order alternating):
    both sides start alike, so a pair's ratio sees the same machine; the median of the pair ratios."""
    print(f"After/before in fresh processes, {pairs} pairs, order alternating; median of the pair ratios")
    for kind in kinds:
        ratios, after, before = [], [], []
        for p in range(pairs):
            order = (sys.executable, baseline_python) if p % 2 == 0 else (baseline_python, sys.executable)
            got = {py: _baseline(py, kind, "measure")["s_per_s"] for py in order}
            after.append(got[sys.executable])
            before.append(got[baseline_python])
            ratios.append(after[-1] / before[-1])
        t_now = statistics.median(after)
        verdict = "met" if t_now <= TARGETS[kind] else "NOT met"
        print(f"  {kind:8s} {t_now:.4f} s/s (target {TARGETS[kind]}: {verdict}; runs {min(after):.4f} to "
              f"{max(after):.4f}); baseline {statistics.median(before):.4f} s/s; ratio after/before "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f} to {max(ratios):.3f})")


def bench_speed(kinds, repeat, baseline_python):
    print(f"Wall (CPU) time per simulated second, median of {repeat}; errors against a tight reference of the same model")
    for kind in kinds:
        ref = reference(kind)
        ref_base = _baseline(baseline_python, kind, "reference")["traj"] if baseline_python else None
        now, base = [], []
        for _ in range(repeat):
            now.append(measure(kind))
            if baseline_python:
                base.append(_baseline(baseline_python, kind, "measure"))
        t_now = statistics.median(m["s_per_s"] for m in now)
        pos, head = _errors(now[0]["traj"], ref)
        verdict = "met" if t_now <= TARGETS[kind] else "NOT met"
        print(f"  {kind:8s} {t_now:.4f} s/s (target {TARGETS[kind]}: {verdict}); {now[0]['steps']} steps, "
              f"{now[0]['nfev']} rhs calls; error {pos:.2e} m, {head:.2e} rad")
        if baseline_python:
            t_base = statistics.median(m["s_per_s"] for m in base)
            bpos, bhead = _errors(base[0]["traj"], ref_base)
            dpos, dhead = _errors(now[0]["traj"], base[0]["traj"])
            print(f"  {'':8s} baseline {t_base:.4f} s/s ({base[0]['steps']} steps, {base[0]['nfev']} rhs calls; "
                  f"error {bpos:.2e} m, {bhead:.2e} rad): ratio after/before {t_now / t_base:.3f}; "
                  f"the two models differ by {dpos:.2e} m, {dhead:.2e} rad")
            if pos > bpos:
                # Less accurate at the default tolerances than the baseline (whose stiff tyre law forced small
                # steps): the time at tighter tolerances until the error is the baseline's or smaller.
                for rtol in (1e-9, 1e-10, 1e-11):
                    tight = [measure(kind, rtol=rtol, atol=rtol / 100) for _ in range(repeat)]
                    t_tight = statistics.median(m["s_per_s"] for m in tight)
                    tpos, thead = _errors(tight[0]["traj"], ref)
                    print(f"  {'':8s} at rtol {rtol:g}, atol {rtol / 100:g}: {t_tight:.4f} s/s, error {tpos:.2e} m, "
                          f"{thead:.2e} rad: ratio after/before at the baseline's accuracy {t_tight / t_base:.3f}")
                    if tpos <= bpos:
                        break
        if kind == "swerve":
            print(f"  {'':8s} engine floor (same schedule, trivial system): {engine_floor():.4f} s/s")


def engine_floor() -> float:
    """CPU time per simulated second of the swerve's controller schedule on a trivial 22-state system."""
    class Trivial(simcore.System):
        def __init__(self):
            super().__init__("s", [f"x{i}" for i in range(22)], [f"u{i}" for i in range(11)], [])

        def derivatives(self, t, x, u):
            return -x + u[0]

    loops = [PeriodicController(0.02, lambda t, s: None, name="chassis")]
    loops += [PeriodicController(0.001, (lambda i: lambda t, s: {f"s.u{i}": 0.5 * s[f"s.x{i}"]})(i), name=f"m{i}")
              for i in range(4)]
    t0 = time.process_time()
    simcore.simulate([Trivial()], T_END["swerve"], loops)
    return (time.process_time() - t0) / T_END["swerve"]


# -- pyfrc accuracy --------------------------------------------------------------------------------------
IN = 0.0254
MASS, GEARING, NMOTORS = 50.0, 10.71, 2
SEGMENTS = [(0.6, (0.8, 0.5)), (0.4, (-0.3, 0.6)), (0.5, (0.05, 0.05)), (0.5, (1.0, 1.0)), (0.5, (0.0, -0.7))]
STATES = ["x", "y", "heading", "left_velocity", "right_velocity", "left_position", "right_position"]

PYFRC_SCRIPT = r"""
import json, sys
from pyfrc.physics import tankmodel, motor_cfgs
from pyfrc.physics.units import units
from wpimath.geometry import Pose2d
segments = json.loads(sys.argv[1])
tm = tankmodel.TankModel.theory(motor_cfgs.MOTOR_CFG_CIM, %(mass)r * units.kg, %(gearing)r, %(nmotors)r)
pose = Pose2d()
out = []
FT = 0.3048
for dur, (pl, pr) in segments:
    n = round(dur / 0.02)
    for _ in range(n):
        tr = tm.calculate(pl, -pr, 0.02)   # pyfrc: right motor -1 is forward
        pose = pose.transformBy(tr)        # what PhysicsInterface.move_robot does
    out.append([pose.X(), pose.Y(), pose.rotation().radians(), tm.l_velocity * FT, tm.r_velocity * FT,
                tm.l_position * FT, tm.r_position * FT])
print(json.dumps(out))
""" % {"mass": MASS, "gearing": GEARING, "nmotors": NMOTORS}


def pyfrc_reference():
    """pyfrc TankModel.theory's equations (from pyfrc's source), DOP853 at rtol = atol = 1e-12."""
    d = 6 * IN
    vmax = CIM.free_speed / (2 * math.pi) * math.pi * d / GEARING
    amax = 2.0 * NMOTORS * CIM.stall_torque * GEARING / (d * MASS)
    kv, ka = 12.0 / vmax, 12.0 / amax
    J = MASS * ((36.5 * IN) ** 2 + (27.5 * IN) ** 2) / 12.0
    bm = 21 * IN / 2.0 * MASS

    def applied(p):
        v = 12.0 * p
        return math.copysign(max(abs(v) - 1.3, 0.0), v)

    def rhs(t, z, a, b):
        v = 0.5 * (z[3] + z[4])
        return [v * math.cos(z[2]), v * math.sin(z[2]), bm * (z[4] - z[3]) / J, (a - kv * z[3]) / ka,
                (b - kv * z[4]) / ka, z[3], z[4]]

    z, t, out = np.zeros(7), 0.0, []
    for dur, (pl, pr) in SEGMENTS:
        z = solve_ivp(rhs, (t, t + dur), z, args=(applied(pl), applied(pr)), method="DOP853", rtol=1e-12,
                      atol=1e-12).y[:, -1]
        t += dur
        out.append(z.copy())
    return np.array(out)


def simcore_pyfrc():
    drive = TankDrive.pyfrc_theory(CIM, MASS, GEARING, n_motors=NMOTORS)
    starts = np.cumsum([0.0] + [d for d, _ in SEGMENTS])

    def cmd(t, s):
        k = min(int(np.searchsorted(starts, t + 1e-12, side="right")) - 1, len(SEGMENTS) - 1)
        pl, pr = SEGMENTS[k][1]
        return {"drive.left_voltage": 12.0 * pl, "drive.right_voltage": 12.0 * pr}

    t0 = time.perf_counter()
    res = simcore.simulate([drive], starts[-1], [PeriodicController(0.02, cmd)])
    wall = time.perf_counter() - t0
    return np.array([[res.sample(f"drive.{n}", [t])[0] for n in STATES] for t in starts[1:]]), wall


def run_pyfrc():
    args = [json.dumps(SEGMENTS)]
    try:
        import pyfrc  # noqa: F401
        python = sys.executable
    except ImportError:
        python = os.environ.get("PYFRC_PYTHON")
        if not python:
            return None, "pyfrc not installed (pip install pyfrc, or set PYFRC_PYTHON to a python that has it)"
    proc = subprocess.run([python, "-c", PYFRC_SCRIPT] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"pyfrc run failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else '?'}"
    version = subprocess.run([python, "-c", "import pyfrc; print(pyfrc.__version__)"], capture_output=True,
                             text=True).stdout.strip()
    return np.array(json.loads(proc.stdout)), f"pyfrc {version}"


def report_errors(label, got, ref):
    pos = np.hypot(got[:, 0] - ref[:, 0], got[:, 1] - ref[:, 1])
    head = np.abs(got[:, 2] - ref[:, 2])
    vel = np.max(np.abs(got[:, 3:5] - ref[:, 3:5]), axis=1)
    print(f"  {label:<34s} max position error {pos.max():.3e} m, heading {head.max():.3e} rad, "
          f"side speed {vel.max():.3e} m/s (final pose error {pos[-1]:.3e} m)")


def bench_pyfrc():
    print("pyfrc TankModel.theory (CIM x2, 10.71:1, 50 kg, kitbot), 2.5 s schedule; reference DOP853 rtol 1e-12")
    ref = pyfrc_reference()
    ours, wall = simcore_pyfrc()
    report_errors(f"simcore (rtol 1e-8, {wall * 1e3:.0f} ms)", ours, ref)
    theirs, msg = run_pyfrc()
    if theirs is None:
        print(f"  pyfrc: skipped: {msg}")
    else:
        report_errors(f"{msg} (5 ms Heun, 20 ms updates)", theirs, ref)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-python", default=None)
    ap.add_argument("--only", default="tank,mecanum,swerve,pyfrc")
    ap.add_argument("--pairs", type=int, default=0,
                    help="with --baseline-python: time after and before as N pairs of fresh processes instead")
    ap.add_argument("--worker", nargs=2, metavar=("KIND", "WHAT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    kinds = [k for k in args.only.split(",") if k in RUNS]
    if kinds and args.pairs and args.baseline_python:
        bench_pairs(kinds, args.pairs, args.baseline_python)
    elif kinds:
        bench_speed(kinds, args.repeat, args.baseline_python)
    if "pyfrc" in args.only.split(","):
        bench_pyfrc()


if __name__ == "__main__":
    main()
