"""Per-tick cost of the engine against a hand-written solve_ivp-per-tick loop.

Workload: a NEO flywheel (gearing 2, J = 0.01 kg·m²) under a 100 Hz proportional
velocity controller for 5 s, rtol 1e-8, atol 1e-10. The baseline is what a team
would write by hand: one ``solve_ivp`` call per controller tick with the voltage
held, recording every step. Both run in the same process, interleaved, several
times; the ratio of the medians is printed (target: engine <= 0.8x baseline).

Run: ``python bench/engine.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy.integrate import solve_ivp

import simcore.models as models
from simcore.models.motors import NEO
from simcore import PeriodicController, simulate

T_END, PERIOD, SETPOINT, KP = 5.0, 0.01, 300.0, 0.05
RTOL, ATOL = 1e-8, 1e-10


def engine_run():
    fw = models.Flywheel(NEO, 2.0, 0.01)
    pc = PeriodicController(PERIOD, lambda t, s: {"flywheel.voltage": KP * (SETPOINT - s["flywheel.velocity"])},
                            name="p")
    r = simulate(fw, T_END, [pc], rtol=RTOL, atol=ATOL)
    return r.final("flywheel.velocity")


def baseline_run():
    fw = models.Flywheel(NEO, 2.0, 0.01)
    fw.mode = "moving"
    u = np.array([0.0, 1.0, 12.0])
    x = fw.initial_state()
    ts, xs = [0.0], [x]
    n = int(round(T_END / PERIOD))
    for k in range(n):
        u[0] = KP * (SETPOINT - x[1])
        sol = solve_ivp(fw.derivatives, (k * PERIOD, (k + 1) * PERIOD), x, args=(u,), rtol=RTOL, atol=ATOL)
        ts.extend(sol.t[1:])
        xs.extend(sol.y.T[1:])
        x = sol.y[:, -1]
    return x[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    e_final, b_final = engine_run(), baseline_run()
    assert abs(e_final - b_final) < 1e-5 * abs(b_final), (e_final, b_final)
    te, tb = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter(); engine_run(); te.append(time.perf_counter() - t0)
        t0 = time.perf_counter(); baseline_run(); tb.append(time.perf_counter() - t0)
    ticks = int(round(T_END / PERIOD)) + 1
    me, mb = statistics.median(te), statistics.median(tb)
    print(f"engine:   {me / ticks * 1e6:8.1f} us per tick (median of {args.repeat})")
    print(f"baseline: {mb / ticks * 1e6:8.1f} us per tick (solve_ivp once per tick)")
    print(f"ratio engine/baseline: {me / mb:.3f}  (target <= 0.8)")


if __name__ == "__main__":
    main()
