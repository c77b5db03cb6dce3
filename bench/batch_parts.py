"""Where a batch's time goes: the cost paid once per controller tick against the rounds of attempts.

Runs ``bench/batch.py``'s arm batch (N variants, 500 ticks at 100 Hz) with timers around the kernel's
parts, in the simcore this interpreter imports, and prints, for the run of least total time out of
``--repeat``, the milliseconds spent in each (perf_counter, nested: ``integrate`` holds ``restart``,
``attempt`` and ``events_in_step``; ``run_ticks`` holds ``controller tick``; ``events_in_step`` holds
``stop bound``; the scatters of finished columns and the views of the running ones are in ``integrate``,
partly inside ``restart``):

* ``run_ticks``: the controllers at each tick, their input writes, the recorder's tick rows;
* ``restart``: the start of each interval (its ``derivative`` is the right-hand side at the new inputs);
* ``attempt``, ``events_in_step``: the rounds of attempts between two ticks;
* ``stop bound``: how far each step's dense output can move (the matrix products deciding which
  columns' stop guards are sampled); ``scatters``: finished columns written back to the batch;
  ``views of running columns``: the running subset's physics, inputs and modes gathered.

The timers cost about a microsecond a call, on both sides of a comparison. Run it with two interpreters
(before and after a change), alternately, in one session:
``python bench/batch_parts.py --n 1``, ``--n 1000`` and ``--n 10000``.
"""
from __future__ import annotations

import argparse
import collections
import os
import runpy
import time

PARTS = [("_Batch", "_run_ticks", "run_ticks"), ("BatchedControlLoop", "tick", "controller tick"),
         ("_Batch", "_integrate", "integrate"), ("_Batch", "_restart", "restart"),
         ("BatchView", "derivative", "derivative (restart)"), ("batch_rk", "attempt", "attempt"),
         ("_Batch", "_events_in_step", "events_in_step"), ("batch", "_reach", "stop bound (events)"),
         ("batch", "_put", "scatters"), ("BatchView", "sub", "views of running columns")]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    import simcore
    from simcore import batch, batch_rk, simulate_batch
    from simcore.controllers import batched
    bench = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "batch.py"), run_name="bench")
    owners = {"_Batch": batch._Batch, "BatchView": batch.BatchView, "BatchedControlLoop": batched.BatchedControlLoop,
              "batch_rk": batch_rk, "batch": batch}
    spent = collections.Counter()

    def timer(fn, label):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[label] += time.perf_counter() - t0
        return timed
    for owner, name, label in PARTS:
        setattr(owners[owner], name, timer(getattr(owners[owner], name), label))

    def run():
        if args.n == 1:  # as bench/batch.py's N = 1 row
            return simulate_batch(*bench["parts"]()[:1], bench["T_END"], [bench["parts"]()[1]], params={"pid.kp": [40.0]})
        return bench["run_batch"](args.n)
    run()
    best = None
    for _ in range(args.repeat):
        spent.clear()
        t0 = time.perf_counter()
        run()
        total = time.perf_counter() - t0
        if best is None or total < best[0]:
            best = (total, dict(spent))
    total, parts = best
    print(f"{os.path.dirname(os.path.dirname(simcore.__file__))} N={args.n}: total {total * 1e3:.0f} ms; "
          + ", ".join(f"{label} {parts.get(label, 0.0) * 1e3:.0f}" for _, _, label in PARTS))


if __name__ == "__main__":
    main()
