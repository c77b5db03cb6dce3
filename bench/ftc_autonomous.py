"""A 30 s autonomous on a hub-driven goBILDA mecanum: wall time per simulated second (goal: at most 0.05).

The robot: four goBILDA 5203 312 rpm motors on 96 mm mecanum wheels, 12 kg, each wheel a
channel of one hub (firmware at 100 Hz). The op mode: the drive-by-encoder sample
(``simcore.controllers.hub.samples.DriveByEncoder``), Java style on its own thread, its
three legs repeated until STOP at 30 s; every encoder read and ``isBusy()`` is a 2 ms hub
round trip, so the op mode ticks at 500 Hz.

Printed: the median over ``--repeat`` runs of wall and CPU time per simulated second, the
ticks, solver steps and right-hand-side calls; then where the time goes: the same op mode
in the generator style (same trajectory, no thread), the mecanum alone with its inputs held
and the same 500 Hz tick grid (the cost of the integration restarts), and the cost of one
mecanum right-hand side, the Java style without the bound on lines between hand-overs (its ``sys.settrace``
line counter), and what handing the turn between two threads costs alone. ``--profile`` adds the top
functions of one run (cProfile, main thread).

Run: ``python bench/ftc_autonomous.py [--repeat N] [--profile]``.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import threading
import time

import numpy as np

from simcore import PeriodicController, simulate
from simcore.controllers.hub import IMU, Hub, linear_opmode, run_opmode
from simcore.controllers.hub.linear import MAX_LINES_WITHOUT_HANDOVER
from simcore.controllers.hub.samples import ENCODER_LEGS, DriveByEncoder, counts_per_inch, drive_by_encoder
from simcore.models import MecanumDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.mecanum import WHEELS

T_END = 30.0
ROUND_TRIP = 0.002
LEGS = ENCODER_LEGS * 8  # more than 30 s of legs: STOP ends the op mode
SIDES = {"left": ("front_left", "rear_left"), "right": ("front_right", "rear_right")}
CPI = counts_per_inch(GOBILDA_5203_312, 0.096)


def robot():
    # Open floor (no FTC walls), as this benchmark has always run: its 30 s of repeated legs would reach a wall.
    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                         field=None)
    hub = Hub()
    config = {w: hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)}
    config["imu"] = IMU(drive)
    return drive, hub, config


def java_run(max_lines=MAX_LINES_WITHOUT_HANDOVER):
    drive, hub, config = robot()
    controllers = run_opmode(DriveByEncoder(CPI, legs=LEGS, **SIDES), hubs=[hub], configuration=config,
                             stop_time=T_END, max_lines_without_handover=max_lines)
    return simulate([drive], T_END, controllers=controllers)


def generator_run():
    drive, hub, config = robot()
    left, right = ([config[n] for n in SIDES[s]] for s in ("left", "right"))
    code = lambda: drive_by_encoder(left, right, CPI, legs=LEGS, hubs=[hub])  # noqa: E731
    return simulate([drive], T_END, controllers=[linear_opmode(code, period=ROUND_TRIP, hubs=[hub], stop_time=T_END),
                                                 *hub.controllers()])


def held_inputs_run():
    """The mecanum alone, driving forward with its duties held, on the same 500 Hz tick grid."""
    drive, _, _ = robot()
    duties = {f"{drive.name}.{w}_duty": 0.5 for w in WHEELS}
    return simulate([drive], T_END, controllers=[PeriodicController(ROUND_TRIP, lambda t, s: duties)])


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    res = fn()
    return time.perf_counter() - w0, time.process_time() - c0, res


def rhs_cost(n: int = 20000) -> float:
    drive, _, _ = robot()
    x = np.array(drive.initial_state(), dtype=float)
    x[3] = 0.5
    u = np.array(drive.initial_inputs(), dtype=float)
    u[:4] = 0.5
    drive.mode = drive.initial_mode(0.0, x, u)
    t0 = time.process_time()
    for k in range(n):
        x[0] = k * 1e-6  # a new state each call (the model remembers the last one)
        drive.derivatives(0.0, x, u)
    return (time.process_time() - t0) / n


def handover_cost(n: int = 20000) -> tuple:
    """Wall and CPU time of one round trip of the turn between two threads through two locks (what the op mode's
    session does at each of its ticks, with nothing else), s."""
    to_other, back = threading.Lock(), threading.Lock()
    to_other.acquire()
    back.acquire()

    def other():
        for _ in range(n):
            to_other.acquire()
            back.release()

    thread = threading.Thread(target=other)
    thread.start()
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        to_other.release()
        back.acquire()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    thread.join()
    return wall / n, cpu / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    walls, cpus = [], []
    for _ in range(args.repeat):
        wall, cpu, res = timed(java_run)
        walls.append(wall / T_END)
        cpus.append(cpu / T_END)
    s = res.stats
    ticks = {c: len(res.ticks(c)) for c in res.controller_names}
    wall = statistics.median(walls)
    print(f"Java-style autonomous, {T_END:.0f} s: wall {wall:.3f} s per simulated s (goal <= 0.05: "
          f"{'met' if wall <= 0.05 else 'not met'}), CPU {statistics.median(cpus):.3f} s/s; runs "
          f"{', '.join(f'{w:.3f}' for w in walls)}")
    print(f"  ticks {ticks}; solver steps {s['n_steps']}, segments {s['n_segments']}, rhs calls {s['nfev']}, "
          f"events {s['n_events']}")
    gw, gc, gen = timed(generator_run)
    same = np.array_equal(gen.t, res.t) and all(np.array_equal(gen[f"mecanum.{n}"], res[f"mecanum.{n}"])
                                                for n in ("x", "y", "heading"))
    print(f"  generator style (no thread): wall {gw / T_END:.3f} s/s, CPU {gc / T_END:.3f} s/s "
          f"(same trajectory: {same})")
    hw, hc, held = timed(held_inputs_run)
    print(f"  mecanum alone, inputs held, same 500 Hz ticks: wall {hw / T_END:.3f} s/s, CPU {hc / T_END:.3f} s/s, "
          f"rhs calls {held.stats['nfev']}")
    uw, uc, _ = timed(lambda: java_run(max_lines=0))
    print(f"  Java style without the bound on lines between hand-overs (max_lines_without_handover=0): wall "
          f"{uw / T_END:.3f} s/s, CPU {uc / T_END:.3f} s/s")
    rw, rc = handover_cost()
    turns = ticks["DriveByEncoder"]
    print(f"  one round trip of the turn between two threads (two locks, nothing else): {rw * 1e6:.1f} us wall, "
          f"{rc * 1e6:.1f} us CPU; the op mode's {turns} turns: {rc * turns / T_END:.3f} CPU s per simulated s")
    per_call = rhs_cost()
    print(f"  one mecanum right-hand side: {per_call * 1e6:.1f} us CPU; the autonomous's {s['nfev']} calls: "
          f"{per_call * s['nfev'] / T_END:.3f} CPU s per simulated s")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        java_run()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
