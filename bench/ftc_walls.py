"""An FTC mecanum drive in the FTC field's walls (its default), wall s per simulated s.

Issue 25's walls item: a drive built from an FTC motor type stands in the field by default, so the walls decide
whether a team's default mecanum runs compiled. The robot (four goBILDA 5203 312 rpm, 12 kg, the 18 in sizing
cube's bumper) starts 0.3 m from the +x wall facing it, drives into it at full duty for 2 s (the impact, then
pushing), strafes along it for 2 s, backs off, turns, and drives diagonally into the (+x, +y) field corner for the
rest of the 10 s, under a 50 Hz loop on a 0.1 ohm battery. Printed: CPU s per simulated s (median of
``--repeat``), the events, and the largest penetration past a wall.

Run: ``python bench/ftc_walls.py [--repeat N] [--field-none]``
"""
from __future__ import annotations

import argparse
import statistics
import time

import simcore
from simcore import PeriodicController
from simcore.field import FTC_FIELD_WALLS
from simcore.models.battery import Battery
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.mecanum import MecanumDrive, WHEELS

T_END = 10.0
#: (start s, duty per wheel: front_left, front_right, rear_left, rear_right)
LEGS = ((0.0, (1.0, 1.0, 1.0, 1.0)), (2.0, (0.6, -0.6, -0.6, 0.6)), (4.0, (-0.5, -0.5, -0.5, -0.5)),
        (5.0, (-0.4, 0.4, -0.4, 0.4)), (5.6, (1.0, 0.0, 0.0, 1.0)))


def run(field_none: bool = False):
    kw = {"field": None} if field_none else {}
    x0 = FTC_FIELD_WALLS[2] - 0.4572 / 2 - 0.3
    mec = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                       start_pose=(x0, 0.5, 0.0), name="mecanum", **kw)

    def opmode(t, s):
        duty = [d for t0, d in LEGS if t >= t0 - 1e-12][-1]
        return {f"mecanum.{w}_duty": v for w, v in zip(WHEELS, duty)}

    return simcore.simulate([mec, Battery(resistance=0.1)], T_END, [PeriodicController(0.02, opmode, name="opmode")])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--field-none", action="store_true", help="the same drive with field=None (no walls)")
    a = ap.parse_args(argv)
    run(a.field_none)  # (compile and warm up)
    times = []
    for _ in range(a.repeat):
        t0 = time.process_time()
        res = run(a.field_none)
        times.append(time.process_time() - t0)
    names = [e.name for e in res.events]
    print(f"ftc mecanum, {'field=None' if a.field_none else 'default walls'}: "
          f"{statistics.median(times) / T_END:.4f} CPU s per simulated s (median of {a.repeat}); "
          f"events {len(names)} ({', '.join(sorted(set(names)))}); final pose "
          f"({res['mecanum.x'][-1]:.4f}, {res['mecanum.y'][-1]:.4f}, {res['mecanum.heading'][-1]:.4f})")


if __name__ == "__main__":
    main()
