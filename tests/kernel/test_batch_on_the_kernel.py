"""A batch of built-in parts runs on the kernel: each variant is its own serial run, to the bit.

Random arms (mass, gains, static friction, stops hit), random batch sizes, each variant compared with
its own ``simulate(..., method="RK45")`` (the model built with that variant's parameters): every row,
every event, every mode, at any position in any batch.
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore import simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO
import simcore.models as models


def _arm(mass, static):
    return models.Arm(NEO, 40.0, mass=mass, com_distance=0.3, min_angle=-0.6, max_angle=1.2,
                      static_friction=static)


def _loop(kp, kd):
    return control_loop(PIDController(kp, 0.0, kd, period=0.01), measure="arm.angle", command="arm.voltage",
                        setpoint=lambda t: np.where(t < 0.6, 2.0, -1.0), output_limits=(-12.0, 12.0), name="pid")


@pytest.mark.parametrize("seed", range(4))
def test_each_variant_is_its_own_serial_run_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    mass = rng.uniform(0.5, 4.0, n)
    kp = rng.uniform(10.0, 200.0, n)
    kd = rng.uniform(0.0, 3.0, n)
    static = float(rng.choice([0.0, 0.3]))
    batch = simulate_batch(_arm(2.0, static), 1.2, [_loop(50.0, 1.0)],
                           params={"arm.mass": mass, "pid.kp": kp, "pid.kd": kd})
    assert batch.event_counts().min() >= 1  # every variant hits a stop
    for j in rng.permutation(n)[:3]:
        serial = simulate(_arm(float(mass[j]), static), 1.2, [_loop(float(kp[j]), float(kd[j]))], method="RK45")
        variant = batch[int(j)]
        assert np.array_equal(variant.t, serial.t)
        for name in ("arm.angle", "arm.velocity", "arm.voltage"):
            assert np.array_equal(variant[name], serial[name]), name
        assert [(e.t, e.name, e.mode_after) for e in variant.events] == \
            [(e.t, e.name, e.mode_after) for e in serial.events]
        assert variant.stats["n_steps"] == serial.stats["n_steps"]


def test_a_variant_is_the_same_in_any_batch_size_and_position():
    mass = np.array([0.7, 1.9, 3.3, 2.2, 1.1])
    kp = np.array([40.0, 120.0, 80.0, 190.0, 15.0])
    whole = simulate_batch(_arm(2.0, 0.3), 1.2, [_loop(50.0, 1.0)], params={"arm.mass": mass, "pid.kp": kp})
    order = [3, 0, 4]
    part = simulate_batch(_arm(2.0, 0.3), 1.2, [_loop(50.0, 1.0)],
                          params={"arm.mass": mass[order], "pid.kp": kp[order]})
    for i, j in enumerate(order):
        assert np.array_equal(part[i].t, whole[j].t)
        assert np.array_equal(part[i]["arm.angle"], whole[j]["arm.angle"])
