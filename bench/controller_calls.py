"""What a robot program pays per call of the other built-in controllers' laws on floats.

A 20 ms robot loop calls each once per mechanism per tick. Timed: the median over repeats of the mean wall
time of 100,000 calls, the input varying call to call: ``SimpleMotorFeedforward.calculate(v, a)``,
``ArmFeedforward.calculate(angle, v, a)``, ``ElevatorFeedforward.calculate_with_velocities(v0, v1)``,
``TrapezoidProfile.calculate(0.02, setpoint, goal)`` (re-planned from the last setpoint, as WPILib's examples
do), ``ProfiledPIDController.calculate(measurement)`` and ``BangBangController.calculate(measurement)``. Run it with the interpreter of each checkout to
compare two commits: ``python bench/controller_calls.py``; ``--label X`` tags the printed rows.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from simcore.controllers import (ArmFeedforward, BangBangController, ElevatorFeedforward, ProfiledPIDController,
                                 SimpleMotorFeedforward, State, TrapezoidProfile)

CALLS = 100_000
REPEATS = 7


def _median_per_call(call, inputs) -> float:
    """Median over repeats of the mean time of one ``call(x)`` over ``inputs``, s."""
    call(inputs[0])  # loads (and, first time, compiles) whatever the controller uses
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for x in inputs:
            call(x)
        times.append((time.perf_counter() - t0) / CALLS)
    return statistics.median(times)


def workloads():
    """``(name, call, inputs)`` for each timed row."""
    xs = [math.sin(0.001 * i) for i in range(CALLS)]
    simple = SimpleMotorFeedforward(0.1, 2.0, 0.3)
    arm = ArmFeedforward(0.1, 0.8, 2.0, 0.3)
    elevator = ElevatorFeedforward(0.1, 0.6, 2.0, 0.3)
    profile = TrapezoidProfile(1.5, 3.0)
    goal, setpoint = State(2.0, 0.0), [State(0.0, 0.0)]

    def step_profile(_):
        setpoint[0] = profile.calculate(0.02, setpoint[0], goal)
        if setpoint[0] == goal:  # start again, so every call plans a motion under way
            setpoint[0] = State(0.0, 0.0)

    profiled = ProfiledPIDController(2.0, 0.5, 0.1, 1.5, 3.0)
    profiled.reset(0.0)
    profiled.set_goal(2.0)
    bangbang = BangBangController()
    bangbang.set_setpoint(0.5)
    return [("SimpleMotorFeedforward.calculate(v, a)", lambda x: simple.calculate(x, 0.5), xs),
            ("ArmFeedforward.calculate(angle, v, a)", lambda x: arm.calculate(x, 0.3, 0.5), xs),
            ("ElevatorFeedforward.calculate_with_velocities", lambda x: elevator.calculate_with_velocities(x, 0.2), xs),
            ("TrapezoidProfile.calculate(0.02, setpoint, goal)", step_profile, xs),
            ("ProfiledPIDController.calculate(m)", profiled.calculate, xs),
            ("BangBangController.calculate(m)", bangbang.calculate, xs)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="")
    label = parser.parse_args(argv).label
    for name, call, inputs in workloads():
        t = _median_per_call(call, inputs)
        print(f"{label:>8} {name:<50}: {t * 1e6:6.2f} us per call (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
