"""A hub servo moving a wrist for 5 s: CPU time per simulated second, this checkout against a baseline.

A goBILDA Torque servo (2000-0025-0002) on the hub's 5 V servo rail carries a wrist (load inertia
4.32e-3 kg·m², a 0.3 kg claw 0.12 m from the axis; stops at -1.5 and 1.5 rad) under a Java-style
``LinearOpMode`` that sets the wrist to 0.8, then 0.2, every 0.5 s (the SDK's 600-2400 µs range:
+67.5 and -67.5 degrees). Each round runs the workload in a fresh process (one warm-up run, so the
compiled kernel's cache is loaded and the first-call costs are out, then one timed run: CPU time of the
process, which counts the op mode's thread) under this checkout's interpreter and, alternately, under
``--baseline-python`` (a venv with the version to compare installed). Printed: each side's median CPU
seconds per simulated second, their ratio, whether the run took the compiled kernel, and the largest
difference between the two sides' wrist angles at the op mode's ticks.

Run: ``python bench/servo.py --baseline-python /work/venv-base/bin/python [--repeat 5]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

T_END = 5.0


def build():
    from simcore.controllers.hub import Hub, LinearOpMode, Servo, run_opmode
    from simcore.models.servo import GOBILDA_TORQUE_SERVO, ServoMechanism

    class Wave(LinearOpMode):
        def runOpMode(self):
            wrist = self.hardwareMap.get(Servo, "wrist")
            wrist.setPosition(0.5)
            self.waitForStart()
            up = True
            while self.opModeIsActive():
                wrist.setPosition(0.8 if up else 0.2)
                up = not up
                self.sleep(500)

    wrist = ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist", load_inertia=0.3 * 0.12 ** 2, min_angle=-1.5,
                           max_angle=1.5)
    hub = Hub()
    servo = hub.servo(0, wrist)
    return [wrist], run_opmode(Wave, hubs=[hub], configuration={"wrist": servo}, stop_time=T_END)


def run_once():
    import simcore

    systems, controllers = build()
    sim = simcore.Simulator(systems, controllers)
    compiled = getattr(sim, "_compiled", None) is not None
    c0 = time.process_time()
    sim.run_until(T_END)
    res = sim.result()
    cpu = time.process_time() - c0
    return cpu, compiled, res


def worker():
    run_once()  # warm-up: the kernel's cache loaded, first calls made
    cpu, compiled, res = run_once()
    ticks = [float(x) for x in res.sample("wrist.angle", [0.25 + 0.5 * k for k in range(10)])]
    print(json.dumps({"cpu_per_s": cpu / T_END, "compiled": compiled, "angles": ticks,
                      "simcore": os.path.dirname(__import__("simcore").__file__)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline-python", required=False)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    if not args.baseline_python:
        ap.error("--baseline-python is required (the interpreter of the version to compare with)")
    sides = {"baseline": args.baseline_python, "this checkout": sys.executable}
    results = {name: [] for name in sides}
    for _ in range(args.repeat):
        for name, python in sides.items():  # interleaved: a load change hits both sides alike
            out = subprocess.run([python, os.path.abspath(__file__), "--worker"], capture_output=True, text=True,
                                 check=True).stdout
            results[name].append(json.loads(out.strip().splitlines()[-1]))
    med = {}
    for name, runs in results.items():
        med[name] = statistics.median(r["cpu_per_s"] for r in runs)
        each = ", ".join(f"{r['cpu_per_s'] * 1e3:.2f}" for r in runs)
        print(f"{name:14s} ({runs[0]['simcore']}): {med[name] * 1e3:8.2f} ms CPU per simulated s "
              f"(runs: {each}); compiled kernel: {runs[0]['compiled']}")
    a, b = results["baseline"][0]["angles"], results["this checkout"][0]["angles"]
    print(f"speed-up: {med['baseline'] / med['this checkout']:.1f}x; largest wrist-angle difference at the "
          f"op mode's ticks: {max(abs(x - y) for x, y in zip(a, b)):.3g} rad")


if __name__ == "__main__":
    main()
