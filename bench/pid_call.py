"""What a robot program pays per ``PIDController.calculate(measurement, setpoint)`` on floats.

A 20 ms robot loop calls it once per controller per tick. Timed: the median over repeats of the mean
wall time of 100,000 calls (a PID with kp, ki and kd, continuous input off; measurement varying call to
call, setpoint given), and the same with continuous input on. Run it with the interpreter of each
checkout to compare two commits: ``python bench/pid_call.py``; ``--label X`` tags the printed row.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from simcore.controllers import PIDController

CALLS = 100_000
REPEATS = 7


def per_call(continuous: bool) -> float:
    """Median over repeats of the mean time of one ``calculate(float, float)``, s."""
    pid = PIDController(2.0, 0.5, 0.1, period=0.02)
    if continuous:
        pid.enable_continuous_input(-math.pi, math.pi)
    measurements = [math.sin(0.001 * i) for i in range(CALLS)]
    calculate = pid.calculate
    calculate(0.0, 1.0)  # loads (and, first time, compiles) whatever the controller uses
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for m in measurements:
            calculate(m, 1.0)
        times.append((time.perf_counter() - t0) / CALLS)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="")
    label = parser.parse_args(argv).label
    for continuous in (False, True):
        t = per_call(continuous)
        print(f"{label:>8} calculate(float, float){' continuous' if continuous else '           '}: "
              f"{t * 1e6:6.2f} us per call (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
