"""A servo moving a wrist for 5 s: CPU time per simulated second, this checkout against a baseline.

A goBILDA Torque servo (2000-0025-0002) on the hub's 5 V servo rail lifts a wrist: a 0.3 kg claw
0.12 m from the axis (gravity's torque ``-m g d cos(angle)``, load inertia ``m d²`` = 4.32e-3 kg·m²;
stops at -1.5 and 1.5 rad), commanded to 0.8, then 0.2, every 0.5 s (the SDK's 600-2400 µs range:
+67.5 and -67.5 degrees). Two workloads:

* ``hub``: the hub's ``Servo`` set by a Java-style ``LinearOpMode`` (``run_opmode``: the hub's firmware
  and the op mode's thread tick the simulation);
* ``loop``: the same pulses written by a plain 50 Hz ``PeriodicController`` (the servo's own cost).

Gravity is the servo's ``load_mass`` / ``load_com_distance`` where the version has them (the compiled
kernel's load), else the same torque as a ``load_torque`` function (the Python path): a team's wrist as
each version can write it. Each round runs each workload in a fresh process (one warm-up run, so the
compiled kernel's cache is loaded and the first-call costs are out, then one timed run: CPU time of the
process, which counts the op mode's thread) under this checkout's interpreter and, alternately, under
``--baseline-python`` (a venv with the version to compare installed). Printed per workload: each side's
median CPU seconds per simulated second, their ratio, whether the run took the compiled kernel and how
gravity was written, and the largest difference between the two sides' wrist angles at ten instants.

Run: ``python bench/servo.py --baseline-python /path/to/baseline/venv/bin/python [--repeat 5]``.
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


CLAW_MASS, CLAW_ARM, G = 0.3, 0.12, 9.80665  # kg, m, m/s²


def make_wrist():
    """The wrist, and how its gravity is written (``"load_mass"``: in kernel form; ``"load_torque"``: Python)."""
    import math

    from simcore.errors import ConfigTypeError
    from simcore.models.servo import GOBILDA_TORQUE_SERVO, ServoMechanism

    common = dict(name="wrist", min_angle=-1.5, max_angle=1.5)
    try:
        return ServoMechanism(GOBILDA_TORQUE_SERVO, load_mass=CLAW_MASS, load_com_distance=CLAW_ARM,
                              **common), "load_mass"
    except ConfigTypeError:  # an unknown keyword: a version without a gravity load in kernel form
        return ServoMechanism(GOBILDA_TORQUE_SERVO, load_inertia=CLAW_MASS * CLAW_ARM ** 2,
                              load_torque=lambda a: -CLAW_MASS * G * CLAW_ARM * math.cos(a), **common), "load_torque"


def build_loop():
    from simcore import PeriodicController

    wrist, how = make_wrist()
    # the SDK's pulse for positions 0.8 and 0.2 on its 600-2400 us range
    pulses = PeriodicController(0.02, lambda t, s: {"wrist.pulse_width": 2040.0 if int(t / 0.5) % 2 == 0 else 960.0,
                                                    "wrist.pwm_enabled": 1.0}, name="pulses")
    return [wrist], [pulses], how


def build_hub():
    from simcore.controllers.hub import Hub, LinearOpMode, Servo, run_opmode

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

    wrist, how = make_wrist()
    hub = Hub()
    servo = hub.servo(0, wrist)
    return [wrist], run_opmode(Wave, hubs=[hub], configuration={"wrist": servo}, stop_time=T_END), how


WORKLOADS = {"hub": build_hub, "loop": build_loop}


def run_once(workload):
    import simcore

    systems, controllers, how = WORKLOADS[workload]()
    sim = simcore.Simulator(systems, controllers)
    compiled = getattr(sim, "_compiled", None) is not None
    c0 = time.process_time()
    sim.run_until(T_END)
    res = sim.result()
    cpu = time.process_time() - c0
    return cpu, compiled, res, how


def worker(workload):
    run_once(workload)  # warm-up: the kernel's cache loaded, first calls made
    cpu, compiled, res, how = run_once(workload)
    angles = [float(res.sample("wrist.angle", 0.25 + 0.5 * k)) for k in range(10)]
    print(json.dumps({"cpu_per_s": cpu / T_END, "compiled": compiled, "angles": angles, "gravity": how,
                      "simcore": os.path.dirname(__import__("simcore").__file__)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline-python", required=False)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker", choices=sorted(WORKLOADS))
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if not args.baseline_python:
        ap.error("--baseline-python is required (the interpreter of the version to compare with)")
    sides = {"baseline": args.baseline_python, "this checkout": sys.executable}
    results = {(w, name): [] for w in WORKLOADS for name in sides}
    for _ in range(args.repeat):
        for w in WORKLOADS:
            for name, python in sides.items():  # interleaved: a load change hits both sides alike
                out = subprocess.run([python, os.path.abspath(__file__), "--worker", w], capture_output=True,
                                     text=True, check=True).stdout
                results[w, name].append(json.loads(out.strip().splitlines()[-1]))
    for w in WORKLOADS:
        med = {}
        for name in sides:
            runs = results[w, name]
            med[name] = statistics.median(r["cpu_per_s"] for r in runs)
            each = ", ".join(f"{r['cpu_per_s'] * 1e3:.2f}" for r in runs)
            print(f"{w:4s} {name:14s} ({runs[0]['simcore']}): {med[name] * 1e3:7.2f} ms CPU per simulated s "
                  f"(runs: {each}); compiled kernel: {runs[0]['compiled']}; gravity as {runs[0]['gravity']}")
        a, b = results[w, "baseline"][0]["angles"], results[w, "this checkout"][0]["angles"]
        print(f"{w:4s} speed-up: {med['baseline'] / med['this checkout']:.1f}x; largest wrist-angle difference: "
              f"{max(abs(x - y) for x, y in zip(a, b)):.3g} rad")


if __name__ == "__main__":
    main()
