"""What the batch kernel's attempts alone cost, against a whole run (issue 13's targets, for the record).

A ``simulate_batch`` run is rounds of RK45 attempts between ticks, plus the events, the controller
ticks and the bookkeeping. This script times only ``simcore.batch_rk.attempt`` on the bench arm's own
batched right-hand side (``bench/batch.py``'s arm and variants, driven and moving, no events), as
many attempts as a real run makes, in three arrangements:

* ``as run``: one attempt per round of the real run, at that round's width (the widths are recorded
  from a real run first);
* ``per-variant schedules``: each variant's own attempts (its chain: every attempt of a variant needs
  the one before it) run back to back from the start, round r holding the variants whose chain is
  longer than r. This is the best a kernel whose variants did not wait for one another at the ticks
  could do: it still needs as many rounds as the longest chain;
* ``full width``: the real run's column-attempts packed into rounds of all N columns (no kernel can
  have this; it ignores the chains).

Only the attempts are timed (each call, CPU time). Printed for N = 1, 1,000 and 10,000, with the whole
run and (for N = 1) one serial ``simulate`` in the same process, CPU seconds, least of 3. The N = 1 target (at most 2x a serial simulate) is out of reach
of this kernel when its attempts alone cost more than twice the serial run.

Run: ``python bench/batch_floor.py``
"""
from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

import numpy as np

from simcore import batch_rk, simulate

BENCH = runpy.run_path(str(Path(__file__).with_name("batch.py")), run_name="bench")
REPEAT = 3


def least(fn):
    best = np.inf
    for _ in range(REPEAT):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def widths_of_a_run(n):
    """The width of every round of attempts of ``run_batch(n)``, and each variant's count of attempts (its
    chain), recorded by wrapping the kernel's attempt."""
    widths, chain, own = [], np.zeros(n, dtype=np.int64), batch_rk.attempt

    def recording(rhs, t, *args, **kwargs):
        widths.append(t.shape[0])
        # The running variants' indices are the caller's (simcore.batch._Batch._integrate) local S.
        np.add.at(chain, sys._getframe(1).f_locals["S"], 1)
        return own(rhs, t, *args, **kwargs)

    batch_rk.attempt = recording
    try:
        BENCH["run_batch"](n)
    finally:
        batch_rk.attempt = own
    return widths, chain


def attempts_alone(n, widths):
    """CPU s of one attempt per entry of ``widths`` on the arm's batched derivatives (driven, moving).

    Only the attempts are timed. The columns of a width are built when the width changes (as the real
    run gathers its working copies when variants stop running), and only the current width's are kept:
    holding one set per distinct width would measure the memory of thousands of sets instead."""
    arm, _ = BENCH["parts"]()
    b = arm.batched({"mass": BENCH["variants"](n)["arm.mass"]}, n)
    rng = np.random.default_rng(0)
    x = np.stack([rng.uniform(0.0, 1.2, n), rng.uniform(-1.0, 1.0, n)])
    u = np.stack([rng.uniform(-12.0, 12.0, n), np.zeros(n), np.full(n, 12.0)])
    mode = np.full(n, b.MODES.index("moving"), dtype=np.int8)

    def columns(w):
        cols = np.arange(w)
        sub = b.take(cols)
        uw, mw = u[:, :w].copy(), mode[:w].copy()
        pre = sub.prepare(uw, mw)
        rhs = (lambda s, uw, mw, pre: lambda t, Y, out: s.derivatives(t, Y, uw, mw, out, pre))(sub, uw, mw, pre)
        xw = x[:, :w].copy()
        f = np.empty_like(xw)
        rhs(None, xw, f)
        return rhs, xw, f, np.zeros(w), np.full(w, 0.0075), np.zeros(w, dtype=bool)

    def run():
        spent, width, current = 0.0, None, None
        for w in widths:
            if w != width:
                width, current = w, None
                current = columns(w)
            rhs, xw, f, t, h, rejected = current
            c0 = time.process_time()
            batch_rk.attempt(rhs, t, xw, f, h, 5.0, rejected, rtol=1e-8, atol=1e-10, timed=False)
            spent += time.process_time() - c0
        return spent
    return min(run() for _ in range(REPEAT))


def main():
    arm, loop = BENCH["parts"]()
    serial = least(lambda: simulate(*BENCH["parts"]()[:1], BENCH["T_END"], [BENCH["parts"]()[1]], method="RK45"))
    for n in (1, 1_000, 10_000):
        widths, chain = widths_of_a_run(n)
        whole = least(lambda: BENCH["run_batch"](n))
        cols = sum(widths)
        as_run = attempts_alone(n, widths)
        own_pace = [int(w) for w in np.bincount(chain)[::-1].cumsum()[::-1][1:]]  # round r: chains longer than r
        scheduled = attempts_alone(n, own_pace)
        full = attempts_alone(n, [n] * round(cols / n))
        line = (f"N = {n:,}: whole run {whole:.3f} s; its {len(widths)} rounds ({cols:,} column-attempts) of "
                f"attempts alone {as_run:.3f} s as run; per-variant schedules {len(own_pace)} rounds (the longest "
                f"chain; the median variant's {np.median(chain):.0f}), {scheduled:.3f} s; {full:.3f} s packed at "
                f"full width")
        if n == 1:
            line += (f"; serial simulate {serial:.3f} s (attempts alone are {as_run / serial:.2f}x it, "
                     f"the whole run {whole / serial:.2f}x; target <= 2x)")
        print(line)


if __name__ == "__main__":
    main()
