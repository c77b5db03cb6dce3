"""A 10 s RUN_TO_POSITION arm on an FTC hub: wall time per simulated second.

A goBILDA 5203 312 rpm motor lifts an arm (load 0.02 kg·m², gravity holding torque 30 %
of stall at horizontal) under the hub's 100 Hz firmware loop, driven by a 50 Hz linear op
mode that moves it between 178 and -120 ticks every 2.5 s at power 0.8. Printed: the
median wall time per simulated second over several runs, the ticks of each controller, and
the solver's work.

Then the same moves with the op mode polling ``isBusy()`` at the hub's round trip (2 ms), as
a team's ``while (arm.isBusy())`` loop does: once as a Java-style ``LinearOpMode`` on its own
thread (each ``isBusy`` hands over to the simulation for a round trip), once as a generator
at the same rate that gives the same trajectory (checked). Their ratio is the cost of the
thread hand-over.

Run: ``python bench/hub.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

import simcore.models as models
from simcore.controllers.hub import DcMotorEx, ElapsedTime, Hub, LinearOpMode, RunMode, linear_opmode, run_opmode
from simcore.controllers.hub.samples import GeneratorTiming
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore import simulate

T_END = 10.0


def make_arm():
    return models.HubMotor(GOBILDA_5203_312, load_inertia=0.02, external_torque=lambda a: -0.3 * math.cos(a),
                           name="arm")


def run():
    arm = make_arm()
    hub = Hub()
    motor = hub.motor(0, arm)

    def opmode():
        target = 178
        while True:
            motor.setTargetPosition(target)
            motor.setMode(RunMode.RUN_TO_POSITION)
            motor.setPower(0.8)
            yield 2.5
            target = -120 if target == 178 else 178

    r = simulate(arm, T_END, hub.controllers() + [linear_opmode(opmode, period=0.02, hubs=[hub])])
    return r


class BusyLoop(LinearOpMode):
    """The moves in Java style: every 2.5 s a new target, ``while (arm.isBusy())``, then poll until the next."""

    def runOpMode(self):
        motor = self.hardwareMap.get(DcMotorEx, "arm")
        target, move = 178, 0
        while self.opModeIsActive():
            motor.setTargetPosition(target)
            motor.setMode(RunMode.RUN_TO_POSITION)
            motor.setPower(0.8)
            move += 1
            while motor.isBusy():
                pass
            while self.getRuntime() < 2.5 * move:
                motor.isBusy()
            target = -120 if target == 178 else 178


def run_java():
    arm = make_arm()
    hub = Hub()
    return simulate(arm, T_END, run_opmode(BusyLoop, hubs=[hub], configuration={"arm": hub.motor(0, arm)}))


def run_generator_at_the_round_trip():
    arm = make_arm()
    hub = Hub()
    motor = hub.motor(0, arm)

    def opmode():  # BusyLoop with its costs as yields (GeneratorTiming)
        timing, since_init = GeneratorTiming(), ElapsedTime()
        target, move = 178, 0
        while True:
            yield from timing.idle()  # opModeIsActive()
            motor.setTargetPosition(target)
            motor.setMode(RunMode.RUN_TO_POSITION)
            motor.setPower(0.8)
            move += 1
            while (yield from timing.read(motor.isBusy)):
                pass
            while since_init.seconds() < 2.5 * move:
                yield from timing.read(motor.isBusy)
            target = -120 if target == 178 else 178

    return simulate(arm, T_END, [linear_opmode(opmode, period=0.002, hubs=[hub]), *hub.controllers()])


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    med, r = _median_time(run, args.repeat)
    ticks = {name: len(r.ticks(name)) for name in r.controller_names}
    print(f"RUN_TO_POSITION arm, 100 Hz firmware + 50 Hz op mode: {med / T_END * 1e3:.2f} ms per simulated "
          f"second (median of {args.repeat}); ticks {ticks}; solver steps {r.stats['n_steps']}, "
          f"nfev {r.stats['nfev']}")
    java, rj = _median_time(run_java, args.repeat)
    gen, rg = _median_time(run_generator_at_the_round_trip, args.repeat)
    same = np.array_equal(rj["arm.angle"], rg["arm.angle"])
    print(f"isBusy polled at the 2 ms round trip: Java style {java / T_END * 1e3:.2f}, generator style "
          f"{gen / T_END * 1e3:.2f} ms per simulated second; ratio {java / gen:.2f} (the thread hand-over); "
          f"same trajectory: {same}")


if __name__ == "__main__":
    main()
