"""An arm on a weak battery that disables the outputs on a brownout (roboRIO stage 2), 5 s: CPU time per
simulated second, and its ratio to another checkout's (the same scenario, interleaved in one run).

The arm (two NEOs, 60:1, 3 kg at 0.3 m, stops, stiction) follows a setpoint that steps every second under a
50 Hz PD written as robot code: a quarter of the output while the battery reports a brownout. The battery
(0.06 ohm, brownout below 6.75 V, recovery above 7.5 V) browns out at each step and recovers.

    python bench/brownout.py                                   # this checkout alone
    python bench/brownout.py --against /work/venv-base/bin/python --repeat 5
        # and another checkout's interpreter (its own simcore), run alternately with this one: each side's
        # median CPU time per simulated second, and the ratio

A run's events are printed, so the two sides can be seen to simulate the same thing.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

T_END = 5.0


def scenario():
    import simcore
    import simcore.models as models
    from simcore.models.motors import NEO

    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2,
                     efficiency=0.8, n_motors=2)
    battery = models.Battery(resistance=0.06, brownout_voltage=6.75, brownout_behaviour="disable")

    def code(t, s):
        target = 1.2 if int(t) % 2 == 0 else -0.3
        scale = 0.25 if s["battery.brownout"] else 1.0
        u = 60.0 * (target - s["arm.angle"]) - 4.0 * s["arm.velocity"]
        return {"arm.voltage": scale * min(12.0, max(-12.0, u))}

    return [arm, battery], [simcore.PeriodicController(0.02, code, name="code")]


def one_run():
    """CPU seconds per simulated second of one run, and its battery events."""
    import simcore

    systems, controllers = scenario()
    c0 = time.process_time()
    r = simcore.simulate(systems, T_END, controllers)
    cpu = time.process_time() - c0
    n = sum(e.system == "battery" for e in r.events)
    return cpu / T_END, n


def serve():
    """Answer each line on stdin with one run's figures (the other side of --against)."""
    for _ in sys.stdin:
        cpu, n = one_run()
        print(f"{cpu!r} {n}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", help="another checkout's Python (its simcore installed)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve()
        return
    one_run()  # warm: the kernel compiled or loaded, the imports done
    other = None
    if args.against:
        other = subprocess.Popen([args.against, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        other.stdin.write("warm\n")
        other.stdin.flush()
        other.stdout.readline()
    mine, theirs = [], []
    for _ in range(args.repeat):
        cpu, n_mine = one_run()
        mine.append(cpu)
        if other is not None:
            other.stdin.write("run\n")
            other.stdin.flush()
            cpu, n_theirs = other.stdout.readline().split()
            theirs.append(float(cpu))
    print(f"this checkout: {1e3 * statistics.median(mine):.2f} ms CPU per simulated second "
          f"({n_mine} battery events), runs {[round(1e3 * c, 2) for c in mine]}")
    if other is not None:
        other.stdin.close()
        other.wait()
        print(f"--against:     {1e3 * statistics.median(theirs):.2f} ms CPU per simulated second "
              f"({n_theirs} battery events), runs {[round(1e3 * c, 2) for c in theirs]}")
        print(f"ratio this / against: {statistics.median(mine) / statistics.median(theirs):.3f}")


if __name__ == "__main__":
    main()
