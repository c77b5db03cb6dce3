"""Drivetrain benchmarks: pyfrc's TankModel accuracy, and swerve wall time.

1. **pyfrc accuracy.** pyfrc's ``TankModel.theory`` (CIM x2 per side, 10.71:1,
   50 kg, pyfrc's kitbot frame) driven by a 5-segment percent-output schedule
   (``update_sim`` every 20 ms, pyfrc's default 5 ms internal Heun step). The
   reference is a ``solve_ivp`` (DOP853, rtol = atol = 1e-12) integration of the
   same equations; simcore's ``TankDrive.pyfrc_theory`` runs at its default
   tolerances. Errors are printed at the segment ends. pyfrc (robotpy) is optional:
   it is imported if installed, or run in the interpreter named by the environment
   variable ``PYFRC_PYTHON``; otherwise that part is skipped with a message.
2. **Swerve wall time.** A 4-module swerve (Kraken X60 drive, Falcon 500 steer,
   friction 1.2) for 10 s: a 50 Hz chassis loop (kinematics) and four 1 kHz module
   loops (steer PD, drive feedforward + P), with and without a Battery; prints wall
   time per simulated second and solver statistics. Also a tank drive with traction.

Run: ``python bench/drivetrains.py``
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

import simcore
from simcore import PeriodicController
from simcore.models.battery import Battery
from simcore.models.motors import CIM, FALCON_500, KRAKEN_X60
from simcore.models.swerve import SwerveDrive
from simcore.models.tank import TankDrive
from simcore.controllers.drive_control import swerve_module_controllers
from simcore.controllers.kinematics import ChassisSpeeds, SwerveKinematics

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


POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def swerve_command(t, s):
    # a figure: drive, strafe while turning, reverse, stop
    if t < 2.0:
        return ChassisSpeeds(3.0, 0.0, 0.0)
    if t < 5.0:
        return ChassisSpeeds(1.0, 2.0, 1.5)
    if t < 8.0:
        return ChassisSpeeds(-2.5, -0.5, -1.0)
    return ChassisSpeeds(0.0, 0.0, 0.0)


def bench_swerve(t_end=10.0, battery=False, method="RK45"):
    sw = SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                     wheel_radius=0.0508, mass=55.0, moi=6.0)
    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS), swerve_command, rate=1000.0, chassis_rate=50.0)
    systems = [sw, Battery()] if battery else [sw]
    t0 = time.perf_counter()
    res = simcore.simulate(systems, t_end, ctrls, method=method)
    wall = time.perf_counter() - t0
    st = res.stats
    print(f"  swerve {t_end:g} s, {method}{' + battery' if battery else ''}: {wall:.2f} s wall, "
          f"{wall / t_end:.3f} s per simulated s; {st['n_steps']} steps, {st['nfev']} rhs calls, "
          f"{st['n_ticks']} controller calls; max slip {max(res[f'swerve.slip_speed_{i}'].max() for i in range(4)):.3f} m/s")
    return wall / t_end


def bench_tank(t_end=10.0):
    drive = TankDrive(CIM, GEARING, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=MASS, moi=5.0,
                      friction_coefficient=1.0)

    def cmd(t, s):
        return {"drive.left_voltage": 12.0 if t % 4 < 2 else -6.0, "drive.right_voltage": 10.0 if t % 4 < 2 else 6.0}

    for method in ("RK45", "LSODA"):
        t0 = time.perf_counter()
        res = simcore.simulate([drive, Battery()], t_end, [PeriodicController(0.02, cmd)], method=method)
        wall = time.perf_counter() - t0
        print(f"  tank with traction + battery, {t_end:g} s, 50 Hz, {method}: {wall:.2f} s wall, "
              f"{wall / t_end:.3f} s per simulated s; {res.stats['nfev']} rhs calls")


def main():
    bench_pyfrc()
    print("Swerve: 50 Hz chassis loop, four 1 kHz module loops")
    bench_swerve()
    bench_swerve(battery=True)
    print("Tank drive")
    bench_tank()


if __name__ == "__main__":
    main()
