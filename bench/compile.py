"""What a user waits for: importing simcore, and the README's first simulation with a cold and a warm kernel cache.

Each figure is measured in a fresh Python process (wall time of the child, from its start to the end of
the step, medians of ``--repeat`` runs):

1. ``import simcore`` alone (it must load no numba and compile nothing);
2. the README's first simulation (a NEO arm under a 50 Hz PID with its stops armed) with an empty kernel
   cache folder: numba compiles every kernel function the run uses (target: at most 30 s);
3. the same with the cache warm (target: at most 1.0 s more than ``import simcore`` alone).

The cache folder is a fresh temporary one (``NUMBA_CACHE_DIR``), so the user's own cache is neither read
nor written. Beside each wall time the child's CPU time is printed (numba compiles on one thread, so on a
loaded machine the CPU time is the steadier figure). With ``--baseline-python`` (another checkout's
interpreter, e.g. a worktree of the previous commit) the same figures are measured for it too, run by run
interleaved, so both see the same load. Run: ``python bench/compile.py [--repeat N] [--baseline-python PY]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

IMPORT = "import time; t0 = time.perf_counter(); import simcore; import sys; " \
         "print(time.perf_counter() - t0, 'numba' in sys.modules)"

FIRST = """
import time
t0 = time.perf_counter()
import simcore.models as models
from simcore.models.motors import NEO
from simcore.controllers import PIDController, control_loop
from simcore import simulate
arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                    setpoint=1.0)
result = simulate(arm, 2.0, [loop])
t2 = time.perf_counter()
assert simulate.__module__ and result.final("arm.angle") > 0.9
print(t2 - t0, time.process_time())
"""


def _child(code: str, cache: str, python: str) -> list:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    # (run from an empty folder: ``-c`` puts the working folder first on the path, where a checkout's own
    # simcore would shadow the interpreter's)
    with tempfile.TemporaryDirectory() as empty:
        out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=empty)
    return out.stdout.split()


def _measure(python: str, figures: dict) -> None:
    with tempfile.TemporaryDirectory() as cache:
        t, numba_loaded = _child(IMPORT, cache, python)
        assert numba_loaded == "False", "import simcore loaded numba"
        figures.setdefault("import simcore, s", []).append(float(t))
        wall, cpu = _child(FIRST, cache, python)
        figures.setdefault("first simulation, empty cache, s", []).append(float(wall))
        figures.setdefault("  its CPU time, s", []).append(float(cpu))
        wall, cpu = _child(FIRST, cache, python)
        figures.setdefault("first simulation, warm cache, s", []).append(float(wall))


def _report(label: str, figures: dict) -> dict:
    rows = {name: statistics.median(values) for name, values in figures.items()}
    rows["warm minus import, s"] = rows["first simulation, warm cache, s"] - rows["import simcore, s"]
    print(label)
    for name, value in rows.items():
        print(f"  {name:38s} {value:8.3f}")
    print(f"  target: cold <= 30 s: {'met' if rows['first simulation, empty cache, s'] <= 30 else 'MISSED'}; "
          f"warm - import <= 1.0 s: {'met' if rows['warm minus import, s'] <= 1.0 else 'MISSED'}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-python", default=None,
                    help="another checkout's interpreter, measured interleaved with this one")
    args = ap.parse_args()
    this, base = {}, {}
    for _ in range(args.repeat):
        _measure(sys.executable, this)
        if args.baseline_python:
            _measure(args.baseline_python, base)
    out = {"this": _report("this checkout", this)}
    if args.baseline_python:
        out["baseline"] = _report(f"baseline ({args.baseline_python})", base)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
