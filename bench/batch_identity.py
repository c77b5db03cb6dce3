"""Bit-identity check of the batch kernel against a baseline interpreter: a speed change must not move a bit.

Runs batches over the compiled kernel's paths, in one chunk and in several on threads: ``bench/batch.py``'s arm (stops hit by some variants),
arms with static friction (breakaway, stuck and velocity-zero events), elevators on a battery with
random resistances and setpoints, and current-limited ones. For each it digests (SHA-256) every
signal at every controller tick, every final value, the event counts, and three variants' whole
results (times, every signal, events), in this interpreter and in the one given by
``--baseline-python`` (a venv with the branch point installed), and compares the digests.

Run: ``python bench/batch_identity.py --baseline-python /tmp/base/.venv/bin/python [--only a,b]``
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np


def _arm_friction(n):
    import simcore.models as models
    from simcore import simulate_batch
    from simcore.controllers import PIDController, control_loop
    from simcore.models.motors import VEX_775PRO
    rng = np.random.default_rng(5)
    arm = models.Arm(VEX_775PRO, 200.0, mass=6.0, com_distance=0.381, moi=1.16, min_angle=-0.3, max_angle=1.3,
                     n_motors=2, static_friction=1.5, viscous_friction=0.2)
    loop = control_loop(PIDController(40.0, 0.0, 2.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.2, output_limits=(-12.0, 12.0), name="pid")
    return simulate_batch(arm, 1.5, [loop], params={"arm.mass": rng.uniform(2, 10, n),
                                                    "pid.kp": rng.uniform(10, 120, n), "pid.kd": rng.uniform(0, 6, n)})


def _elevator(n, limits=False):
    import simcore.models as models
    from simcore import simulate_batch
    from simcore.controllers import PIDController, control_loop
    from simcore.models.motors import NEO
    rng = np.random.default_rng(31)
    kw = dict(stator_current_limit=40.0, supply_current_limit=30.0) if limits else {}
    lift = models.Elevator(NEO, 10.0, carriage_mass=6.0, drum_radius=0.05, min_height=0.0, max_height=1.2,
                           static_friction=2.0, viscous_friction=0.5, **kw)
    loop = control_loop(PIDController(60.0, 0.0, 2.0, period=0.02), measure="elevator.position",
                        command="elevator.voltage", setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return simulate_batch([lift, models.Battery(resistance=0.02)], 0.8, [loop], params={
        "elevator.carriage_mass": rng.uniform(3, 12, n), "elevator.gearing": rng.uniform(8, 14, n),
        "battery.resistance": rng.uniform(0.01, 0.06, n), "pid.kp": rng.uniform(20, 150, n),
        "pid.kd": rng.uniform(0, 4, n), "pid.setpoint": rng.uniform(0.3, 1.4, n)})


def _bench_arm(n):
    import simcore
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(simcore.__file__))), "bench"))
    import batch  # the bench of the simcore this interpreter imports
    return batch.run_batch(n)


CASES = {"bench_arm_7": lambda: _bench_arm(7), "bench_arm_600": lambda: _bench_arm(600),
         "arm_friction_200": lambda: _arm_friction(200), "arm_friction_600": lambda: _arm_friction(600),
         "elevator_150": lambda: _elevator(150), "elevator_600": lambda: _elevator(600),
         "elevator_limited_60": lambda: _elevator(60, True), "elevator_limited_600": lambda: _elevator(600, True)}


def digest(kind: str) -> dict:
    """SHA-256 of each part of one batch's results."""
    b = CASES[kind]()

    def h(*arrays) -> str:
        m = hashlib.sha256()
        for a in arrays:
            m.update(np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes())
        return m.hexdigest()[:20]
    out = {}
    for c in b.controller_names:
        out[f"ticks {c}"] = h(b.tick_times(c))
        for name in b.names:
            out[f"{name} at {c}"] = h(b.at_ticks(name, c))
    for name in b.names:
        out[f"final {name}"] = h(b.final(name))
    out["event counts"] = h(b.event_counts())
    for k in (0, b.n // 2, b.n - 1):
        r = b[k]
        out[f"variant {k}"] = h(r.t, *(r[name] for name in r.names))
        out[f"variant {k} events"] = repr([(e.name, e.t, e.mode_before, e.mode_after) for e in r.events])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-python", required=False)
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(digest(args.worker)))
        return 0
    if not args.baseline_python:
        ap.error("--baseline-python is required (the interpreter of the version to compare with)")
    bad = 0
    for kind in args.only.split(","):
        mine = digest(kind)
        theirs = json.loads(subprocess.run([args.baseline_python, os.path.abspath(__file__), "--worker", kind],
                                           check=True, capture_output=True, text=True).stdout)
        differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
        bad += bool(differ)
        print(f"{kind:22s} {'IDENTICAL' if not differ else 'DIFFERENT: ' + ', '.join(differ[:6])} "
              f"({len(mine)} parts)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
