"""A rolling wheel never holds more traction than its limit: a breakaway event makes its wheel slip.

The breakaway is located where ``|f| - mu (1 + margin) N`` crosses zero; at the located instant the force can sit
a rounding below the limit, and a mode settled by the strict ``|f| > limit`` alone left such a wheel rolling,
holding up to 14 N more than its limit for 0.07 s on a mecanum drive beside a battery (its guard, just fired,
does not fire again until it crosses zero again). Checked on every row of drives whose commands make their
wheels break away and grip again, on the kernel and on the Python path."""
from __future__ import annotations

import numpy as np
import pytest

import simcore
import simcore.engine as engine
from simcore import PeriodicController
from simcore.models.battery import Battery
from simcore.models.chassis import ROLL
from simcore.models.mecanum import WHEELS, MecanumDrive
from simcore.models.motors import NEO
from simcore.models.tank import TankDrive


def _mecanum():
    drive = MecanumDrive(NEO, 8.0, track_width=0.5, wheelbase=0.45, wheel_radius=0.0508, mass=25.0, moi=1.6,
                         name="drive", friction_coefficient=0.6)

    def law(t, s):
        w = ((1, 1, 1, 1), (-1, 1, 1, -1), (0.7, -0.7, 0.7, -0.7), (0, 0, 0, 0))[int(t / 0.25) % 4]
        return {f"drive.{n}_voltage": 12.0 * v for n, v in zip(WHEELS, w)}
    return drive, law


def _tank():
    drive = TankDrive(NEO, 6.0, n_motors_per_side=2, wheel_radius=0.0508, track_width=0.6, mass=40.0, moi=3.0,
                      name="drive", friction_coefficient=0.7)

    def law(t, s):
        left, right = ((1, 1), (-1, 1), (1, -0.6), (0, 0))[int(t / 0.25) % 4]
        return {"drive.left_voltage": 12.0 * left, "drive.right_voltage": 12.0 * right}
    return drive, law


@pytest.mark.parametrize("use_kernel", [True, False], ids=["kernel", "python"])
@pytest.mark.parametrize("make", [_mecanum, _tank], ids=["mecanum", "tank"])
def test_no_rolling_wheel_holds_more_than_its_limit(make, use_kernel, monkeypatch):
    monkeypatch.setattr(engine, "USE_KERNEL", use_kernel)
    drive, law = make()
    r = simcore.simulate([drive, Battery()], 1.5, [PeriodicController(0.02, law, name="c")])
    assert any(e.name == "breakaway" for e in r.events) and any(e.name == "grip" for e in r.events)
    checked = 0
    for j in range(len(r.t) - 1):
        if r.t[j] == r.t[j + 1]:
            continue  # (the row before an event at that instant: a write just asked for more, before it fired)
        mode = r.modes["drive"][j]
        x = np.array([r[f"drive.{n}"][j] for n in drive.state_names])
        u = np.array([r[f"drive.{n}"][j] for n in drive.input_names], dtype=float)
        drive.mode = mode
        for i, wheel_mode in enumerate(mode[0]):
            if wheel_mode == ROLL:
                # |f| - mu (1 + margin) N: at most rounding above zero (the guards are the Python form's)
                assert drive._breakaway_guard(i)(r.t[j], x, u) <= 1e-9, (r.t[j], i)
                checked += 1
    assert checked > 50
