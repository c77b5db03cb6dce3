"""A 10 s RUN_TO_POSITION arm on an FTC hub: wall time per simulated second.

A goBILDA 5203 312 rpm motor lifts an arm (load 0.02 kg·m², gravity holding torque 30 %
of stall at horizontal) under the hub's 100 Hz firmware loop, driven by a 50 Hz linear op
mode that moves it between 178 and -120 ticks every 2.5 s at power 0.8. Printed: the
median wall time per simulated second over several runs, the ticks of each controller, and
the solver's work.

Run: ``python bench/hub.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

import simcore.models as models
from simcore.controllers.hub import Hub, RunMode, linear_opmode
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore import simulate

T_END = 10.0


def run():
    arm = models.HubMotor(GOBILDA_5203_312, load_inertia=0.02, external_torque=lambda a: -0.3 * math.cos(a),
                          name="arm")
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        r = run()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    ticks = {name: len(r.ticks(name)) for name in r.controller_names}
    print(f"RUN_TO_POSITION arm, 100 Hz firmware + 50 Hz op mode: {med / T_END * 1e3:.2f} ms per simulated "
          f"second (median of {args.repeat}); ticks {ticks}; solver steps {r.stats['n_steps']}, "
          f"nfev {r.stats['nfev']}")


if __name__ == "__main__":
    main()
