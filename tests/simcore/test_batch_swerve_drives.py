"""A batch of swerve drives: each variant is its own serial run, over every parameter the swerve batches (mass,
moi, friction coefficient), with its tyres' traction events and its battery.

Each variant is compared with ``simulate(..., method="RK45")`` of the drive built with that variant's values:
every row's time, every signal (states, inputs with the battery's bus, outputs), every event.
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore import PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigError
from simcore.models.battery import Battery
from simcore.models.motors import FALCON_500, KRAKEN_X60
from simcore.models.swerve import SwerveDrive

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def _swerve(**options):
    args = dict(module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0,
                moi=6.0, friction_coefficient=0.8, couple_ratio=3.5, name="drive")
    args.update(options)
    return SwerveDrive(KRAKEN_X60, FALCON_500, **args)


def _drive_loop(t, s):
    # a launch forward, then the modules turned while the wheels reverse; element-wise
    zero = 0.0 * s["drive.x"]
    d, st = ((12.0, 12.0, 12.0, 12.0), (0.0, 0.0, 0.0, 0.0)) if t % 0.8 < 0.4 else \
        ((-12.0, -8.0, -12.0, -8.0), (3.0, -3.0, 3.0, -3.0))
    out = {f"drive.drive_voltage_{i}": v + zero for i, v in enumerate(d)}
    out.update({f"drive.steer_voltage_{i}": v + zero for i, v in enumerate(st)})
    return out


def _same(variant, serial):
    assert np.array_equal(variant.t, serial.t)
    for name in serial.names:
        assert np.array_equal(variant[name], serial[name], equal_nan=True), name
    assert [(e.t, e.name, e.mode_before, e.mode_after) for e in variant.events] == \
        [(e.t, e.name, e.mode_before, e.mode_after) for e in serial.events]


@pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")
def test_fifty_swerve_drives_are_their_serial_runs():
    rng = np.random.default_rng(26)
    n = 50
    values = {"mass": rng.uniform(30.0, 65.0, n), "moi": rng.uniform(2.0, 8.0, n),
              "friction_coefficient": rng.uniform(0.3, 1.2, n)}
    loop = PeriodicController(0.02, _drive_loop, name="loop")
    batch = simulate_batch([_swerve(track_energy=True), Battery()], 1.0, [elementwise(loop)],
                           params={f"drive.{k}": v for k, v in values.items()})
    assert batch.event_counts().min() >= 1  # every variant's tyres break away
    for j in range(n):
        kw = {k: float(v[j]) for k, v in values.items()}
        serial = simulate([_swerve(track_energy=True, **kw), Battery()], 1.0,
                          [PeriodicController(0.02, _drive_loop, name="loop")], method="RK45")
        _same(batch[j], serial)


def test_a_parameter_the_swerve_does_not_batch_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"drive\.wheel_radius"):
        simulate_batch([_swerve()], 0.1, [], params={"drive.wheel_radius": np.full(3, 0.05)})
    with pytest.raises(ConfigError, match=r"drive\.mass.*\[1\]"):
        simulate_batch([_swerve()], 0.1, [], params={"drive.mass": np.array([50.0, -1.0])})
