"""Built-in control loops ticking in the kernel against the same loops ticking in Python (issue 25, item 3).

For each loop kind the kernel ticks besides the PID (``bench/engine.py`` rows 4 and 5 cover that one), a 10 s run
with the loop's ``kernel_loop`` (the kernel ticks it after its first tick) and without it (every tick in Python, on
the kernel's integration), CPU time per simulated second, medians of ``--repeat`` runs, interleaved:

* an arm (NEO, 60:1, 2 kg at 0.3 m, stops at -0.5 and 1.6 rad) under a ``ProfiledPIDController`` at 50 Hz
  (kP 40 V/rad, kD 1, 2 rad/s and 4 rad/s^2) to 1.2 rad, output limits +-12 V;
* a flywheel (NEO, 1:1, 0.002 kg m^2) under a ``BangBangController`` at 200 Hz to 300 rad/s with a
  ``SimpleMotorFeedforward(0.1, 0.02)`` at the setpoint.

Run: ``python bench/kernel_loops.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import simcore
import simcore.models as models
from simcore.controllers import BangBangController, ProfiledPIDController, SimpleMotorFeedforward, control_loop
from simcore.models.motors import NEO

T_END = 10.0


def arm_run(in_kernel: bool):
    arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.6)
    loop = control_loop(ProfiledPIDController(40.0, 0.0, 1.0, 2.0, 4.0, period=0.02), measure="arm.angle",
                        command="arm.voltage", setpoint=1.2, output_limits=(-12.0, 12.0))
    if not in_kernel:
        loop.kernel_loop = None
    return simcore.simulate(arm, T_END, [loop])


def flywheel_run(in_kernel: bool):
    flywheel = models.Flywheel(NEO, 1.0, moi=0.002)
    loop = control_loop(BangBangController(), measure="flywheel.velocity", command="flywheel.voltage",
                        setpoint=300.0, feedforward=SimpleMotorFeedforward(0.1, 0.02), period=0.005)
    if not in_kernel:
        loop.kernel_loop = None
    return simcore.simulate(flywheel, T_END, [loop])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    for name, run in (("arm, ProfiledPIDController at 50 Hz", arm_run),
                      ("flywheel, BangBangController at 200 Hz", flywheel_run)):
        run(True), run(False)  # compiled and cached, untimed
        cpu = {True: [], False: []}
        for _ in range(repeat):
            for in_kernel in (True, False):
                start = time.process_time()
                run(in_kernel)
                cpu[in_kernel].append(time.process_time() - start)
        kernel, python = (statistics.median(cpu[k]) / T_END * 1e3 for k in (True, False))
        print(f"{name}: in the kernel {kernel:.2f} ms CPU per simulated s, ticking in Python {python:.2f} "
              f"({python / kernel:.1f}x)")


if __name__ == "__main__":
    main()
