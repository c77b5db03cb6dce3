"""Where the compiled kernel's time goes, per variant: its pieces timed alone (issue 24's batch).

Three rows, each the median of a few repeats in this process (wall time of compiled code, no Python inside):

1. **Advance**: ``advance_chunk`` over 2,000 variants of a NEO arm on 30:1 (no stops) for one 10 ms tick,
   per variant, with the steps and evaluations it took; and an empty call (the variant already at the tick),
   the per-variant cost of copying its rows in and out.
2. **Evaluation**: one derivative evaluation of the arm through the parts' dispatch
   (``simcore.kernel.parts.derivatives``), calling the mechanism's function directly
   (``simcore.kernel.geared.derivatives``), and the same arithmetic hand-written (the floor).
3. **Attempt**: one Dormand-Prince attempt (``simcore.kernel.dopri5.attempt``: six evaluations, the stage sums
   and the error norm).

Run: ``python bench/kernel_costs.py``.
"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np
from numba import njit

import simcore.models as models
from simcore.compiled_run import CompiledRun
from simcore.kernel import advance as ka
from simcore.kernel import dopri5 as kd
from simcore.kernel import geared, parts
from simcore.kernel import layout as kl
from simcore.kernel.borrowed import borrowed
from simcore.models.motors import NEO

N = 2000
LOOPS = 2_000_000


def _run(arm, n):
    cr = CompiledRun([arm.kernel_form()], [slice(0, 2)], [3], n, rtol=1e-8, atol=1e-8, max_step=np.inf,
                     method="RK45", keep_steps=False)
    cr.U[:, 0], cr.U[:, 1], cr.U[:, 2] = 3.0, 0.0, 12.0
    return cr


def advance_rows():
    arm = models.Arm(NEO, 30.0, mass=2.0, com_distance=0.3, min_angle=None, max_angle=None)
    cr = _run(arm, N)
    args = cr._advance_args + cr._scratch[0]

    def tick(dt):
        cr.RS[:, kl.S_T_END] = cr.RS[:, kl.S_T] + dt
        cr.RS[:, kl.S_NROWS] = 0
        steps, nfev = cr.RS[:, kl.S_NSTEPS].sum(), cr.RS[:, kl.S_NFEV].sum()
        t = time.perf_counter()
        ka.advance_chunk(0, N, *args)
        return (time.perf_counter() - t) / N, (cr.RS[:, kl.S_NSTEPS].sum() - steps) / N, \
            (cr.RS[:, kl.S_NFEV].sum() - nfev) / N

    tick(0.01)
    empty = statistics.median(tick(0.0)[0] for _ in range(9))
    runs = [tick(0.01) for _ in range(5)]
    per = statistics.median(r[0] for r in runs)
    print(f"1. advance one tick: {per * 1e9:.0f} ns per variant ({runs[-1][1]:.2f} steps, {runs[-1][2]:.1f} "
          f"evaluations); an empty call {empty * 1e9:.0f} ns per variant")


@njit
def _through_parts(table, P, U, modes, X, out, n):
    table, P, U, modes, X, out = borrowed(table), borrowed(P), borrowed(U), borrowed(modes), borrowed(X), \
        borrowed(out)
    s = 0.0
    for i in range(n):
        X[1] = 1.0 + i * 1e-9
        parts.derivatives(table, P, U, modes, 0.0, X, out)
        s += out[1]
    return s


@njit
def _direct(table, P, U, modes, X, out, n):
    P, U, X, out = borrowed(P), borrowed(U), borrowed(X), borrowed(out)
    s = 0.0
    for i in range(n):
        X[1] = 1.0 + i * 1e-9
        geared.derivatives(P, 0, 0, X, 0, U, 0, out)
        s += out[1]
    return s


@njit
def _hand_written(table, P, U, modes, X, out, n):
    s = 0.0
    for i in range(n):
        v = 1.0 + i * 1e-9
        emf = P[kl.P_K] * v / P[kl.P_KV]
        vb = U[2]
        i_stator = (min(max(U[0], -vb), vb) - emf) / P[kl.P_R]
        f = P[kl.P_GEARING] * P[kl.P_KT] * i_stator * P[kl.P_K_PER_GEARING] + P[kl.P_LOAD_A] * math.sin(
            P[kl.P_LOAD_B] - X[0])
        out[1] = f / P[kl.P_M]
        s += out[1]
    return s


@njit
def _attempts(table, P, U, modes, X, n):
    K, y_new, tmp, f = np.empty((7, 2)), np.empty(2), np.empty(2), np.empty(2)
    table, P, U, modes, X = borrowed(table), borrowed(P), borrowed(U), borrowed(modes), borrowed(X)
    bK, by, bt, bf = borrowed(K), borrowed(y_new), borrowed(tmp), borrowed(f)
    parts.derivatives(table, P, U, modes, 0.0, X, bf)
    for i in range(2):
        bK[0, i] = bf[i]
    s = 0.0
    for i in range(n):
        s += kd.attempt(table, P, U, modes, 0.0, 1e-3 + i * 1e-12, X, bK, by, 1e-8, 1e-8, bt, bf)
    K[0, 0] = s  # (K, y_new, tmp, f held to here: their borrowed views were used above)
    return s + y_new[0] + tmp[0] + f[0]


def _per_call(fn, args, n=LOOPS):
    fn(*args, 10)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        fn(*args, n)
        times.append((time.perf_counter() - t) / n)
    return statistics.median(times)


def evaluation_rows():
    arm = models.Arm(NEO, 30.0, mass=2.0, com_distance=0.3, min_angle=None, max_angle=None)
    cr = _run(arm, 1)
    cr.X[0] = [0.3, 1.0]
    a = (cr.table, cr.P[0], cr.U[0], cr.modes[0], cr.X[0], np.empty(2))
    print(f"2. one evaluation: through the parts' dispatch {_per_call(_through_parts, a) * 1e9:.1f} ns, the "
          f"mechanism's function {_per_call(_direct, a) * 1e9:.1f} ns, hand-written {_per_call(_hand_written, a) * 1e9:.1f} ns")
    b = (cr.table, cr.P[0], cr.U[0], cr.modes[0], cr.X[0])
    print(f"3. one Dormand-Prince attempt: {_per_call(_attempts, b, LOOPS // 4) * 1e9:.0f} ns")


if __name__ == "__main__":
    advance_rows()
    evaluation_rows()
