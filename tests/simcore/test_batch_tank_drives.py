"""A batch of tank drives: each variant is its own serial run (issue 25: 200 tank drives with the mass varied
equal their serial runs), over every parameter the tank batches, with its traction events and its battery.

Each variant is compared with ``simulate(..., method="RK45")`` of the drive built with that variant's values:
every row's time, every signal (states, inputs with the battery's bus, outputs), every event.
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore import PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models.battery import Battery
from simcore.models.motors import CIM
from simcore.models.tank import TankDrive


def _tank(gearing=10.71, **options):
    args = dict(n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0, moi=5.0,
                friction_coefficient=1.0)
    args.update(options)
    return TankDrive(CIM, gearing, **args)


def _drive_loop(t, s):
    # bench/drivetrains.py's tank schedule: a hard launch into a turn, then a reversal; element-wise
    on = t % 1.0 < 0.5
    zero = 0.0 * s["drive.x"]
    return {"drive.left_voltage": (12.0 if on else -6.0) + zero, "drive.right_voltage": (10.0 if on else 6.0) + zero}


def _same(variant, serial):
    assert np.array_equal(variant.t, serial.t)
    for name in serial.names:
        assert np.array_equal(variant[name], serial[name], equal_nan=True), name
    assert [(e.t, e.name, e.mode_before, e.mode_after) for e in variant.events] == \
        [(e.t, e.name, e.mode_before, e.mode_after) for e in serial.events]


def test_two_hundred_tank_drives_with_the_mass_varied_are_their_serial_runs():
    masses = np.linspace(25.0, 75.0, 200)
    loop = PeriodicController(0.02, _drive_loop, name="loop")
    batch = simulate_batch([_tank(), Battery()], 1.2, [elementwise(loop)], params={"drive.mass": masses})
    assert batch.event_counts().min() >= 1  # every variant breaks away
    for j, m in enumerate(masses):
        serial = simulate([_tank(mass=float(m)), Battery()], 1.2, [PeriodicController(0.02, _drive_loop, name="loop")],
                          method="RK45")
        _same(batch[j], serial)


@pytest.mark.parametrize("options", [dict(track_energy=True, viscous_friction=0.5),
                                     dict(stator_current_limit=40.0, efficiency=0.9),
                                     dict(friction_coefficient=None),
                                     dict(axle_positions=(0.3, 0.0, -0.3), lateral_friction_coefficient=(0.2, 1.0, 0.2),
                                          track_energy=True)])
def test_every_tank_parameter_batches_to_its_serial_run(options):
    rng = np.random.default_rng(7)
    n = 5
    params = {"mass": rng.uniform(30.0, 70.0, n), "moi": rng.uniform(2.0, 8.0, n),
              "wheel_radius": rng.uniform(0.04, 0.08, n), "gearing": rng.uniform(6.0, 14.0, n)}
    if options.get("friction_coefficient", 1.0) is not None:
        params["friction_coefficient"] = rng.uniform(0.4, 1.2, n)
    loop = PeriodicController(0.02, _drive_loop, name="loop")
    batch = simulate_batch([_tank(**options), Battery()], 1.0, [elementwise(loop)],
                           params={f"drive.{k}": v for k, v in params.items()})
    for j in (0, 3, 4):
        values = {k: float(v[j]) for k, v in params.items()}
        serial = simulate([_tank(**{**options, **values}), Battery()], 1.0,
                          [PeriodicController(0.02, _drive_loop, name="loop")], method="RK45")
        _same(batch[j], serial)


def test_a_batch_refuses_what_the_tank_cannot_vary_naming_it():
    loop = elementwise(PeriodicController(0.02, _drive_loop, name="loop"))
    with pytest.raises(ConfigError, match=r"params\['drive.mass'\]\[1\]"):
        simulate_batch([_tank()], 0.1, [loop], params={"drive.mass": np.array([40.0, -1.0])})
    with pytest.raises(ConfigError, match="mass, moi, wheel_radius, gearing, friction_coefficient"):
        simulate_batch([_tank()], 0.1, [loop], params={"drive.track_width": np.array([0.5, 0.6])})
    with pytest.raises(ConfigError, match="never slips"):
        simulate_batch([_tank(friction_coefficient=None)], 0.1, [loop],
                       params={"drive.friction_coefficient": np.array([0.5, 0.6])})
    with pytest.raises(ConfigTypeError, match="cannot batch"):  # load transfer: no kernel form yet
        simulate_batch([_tank(cog_height=0.3)], 0.1, [loop], params={"drive.mass": np.array([40.0, 50.0])})
