"""The characterized tank drive (kV, kA, kS) in the compiled kernel: its run is the Python path's to the bit,
its plant is WPILib's, and a batch over its gains gives each variant its own serial run.

The Python path (``simcore.engine.USE_KERNEL = False``) steps with simcore.dopri5; the analytic checks use
the first-order solution of ``kA a = V - kS - kV v`` on a straight line.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from both_paths import run_on_path
from simcore import PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigError
from simcore.models import TankDrive
from simcore.models.sysid_tank import SysIdTankDrive

GAINS = dict(kv_linear=2.5, ka_linear=0.4, kv_angular=1.1, ka_angular=0.25, ks=0.3, track_width=0.6)


def _drive(**changes):
    return TankDrive.characterized(**{**GAINS, **changes})


def _commands(amp_l, amp_r, w):
    def fn(t, r):
        # (element-wise: a batch hands arrays; the commands exceed the bus now and then, so the clip acts)
        zero = 0.0 * r["drive.x"]
        return {"drive.left_voltage": amp_l * math.sin(w * t) + zero,
                "drive.right_voltage": amp_r * math.cos(0.7 * w * t) - 1.0 + zero}
    return fn


@pytest.mark.parametrize("seed", range(4))
def test_a_characterized_tank_in_the_kernel_is_the_python_path_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    gains = dict(kv_linear=rng.uniform(1.5, 3.5), ka_linear=rng.uniform(0.1, 0.8), kv_angular=rng.uniform(0.5, 2.0),
                 ka_angular=rng.uniform(0.05, 0.5), ks=rng.choice([0.0, rng.uniform(0.1, 1.0)]),
                 track_width=rng.uniform(0.4, 0.9))
    amp_l, amp_r, w = rng.uniform(4, 16), rng.uniform(4, 16), rng.uniform(1, 6)
    method = str(rng.choice(["auto", "RK45"]))
    period = float(rng.choice([0.005, 0.02]))

    def make():
        return [_drive(**gains)], [PeriodicController(period, _commands(amp_l, amp_r, w), name="c")]

    a = run_on_path(True, make, 1.5, method=method)
    b = run_on_path(False, make, 1.5, method=method)
    assert np.array_equal(a.t, b.t)
    assert a.names == b.names
    for name in a.names:
        assert np.array_equal(a[name], b[name]), name
    assert a.stats == b.stats


def test_straight_line_speed_is_the_first_order_solution():
    # kA dv/dt = V - kS - kV v on both sides (equal voltages: no turn), v(0) = 0.
    V, kv, ka, ks = 7.0, GAINS["kv_linear"], GAINS["ka_linear"], GAINS["ks"]
    res = simulate([_drive()], 1.0, inputs={"drive.left_voltage": V, "drive.right_voltage": V}, rtol=1e-10,
                   atol=1e-12)
    expected = (V - ks) / kv * (1.0 - np.exp(-kv * res.t / ka))
    assert np.allclose(res["drive.velocity"], expected, rtol=1e-7, atol=1e-10)
    assert np.allclose(res["drive.x"], (V - ks) / kv * (res.t - ka / kv * (1.0 - np.exp(-kv * res.t / ka))),
                       rtol=1e-7, atol=1e-10)
    assert np.all(res["drive.yaw_rate"] == 0.0)


def test_the_command_is_clipped_to_the_bus_before_ks():
    drive = _drive()
    out = dict(zip(drive.output_names, drive.outputs(0.0, drive.initial_state(), np.array([20.0, -0.2, 12.0]))))
    assert out["left_applied_voltage"] == 12.0 - GAINS["ks"]
    assert out["right_applied_voltage"] == 0.0  # |V| below kS drives nothing
    out = dict(zip(drive.output_names, drive.outputs(0.0, drive.initial_state(), np.array([-5.0, 5.0, -1.0]))))
    assert out["left_applied_voltage"] == 0.0 and out["right_applied_voltage"] == 0.0  # no bus, no drive


def test_a_subclass_with_its_own_law_takes_the_python_path():
    drive = SysIdTankDrive(**GAINS)
    assert drive.kernel_form() is None
    assert _drive().kernel_form() is not None


@pytest.mark.parametrize("key, values", [("ka_linear", [0.2, 0.35, 0.5, 0.8]),
                                         ("track_width", [0.45, 0.6, 0.75, 0.9]),
                                         ("ks", [0.0, 0.2, 0.9, 1.4])])
def test_a_batch_over_the_gains_gives_each_variant_its_serial_run(key, values):
    fn = _commands(14.0, 9.0, 3.0)
    batch = simulate_batch([_drive()], 1.2, [elementwise(PeriodicController(0.02, fn, name="c"))],
                           params={f"drive.{key}": np.array(values)})
    for j, value in enumerate(values):
        serial = simulate([_drive(**{key: value})], 1.2, [PeriodicController(0.02, fn, name="c")], method="RK45")
        variant = batch[j]
        assert np.array_equal(variant.t, serial.t)
        for name in serial.names:
            assert np.array_equal(variant[name], serial[name]), (j, name)


def test_a_batch_refuses_bad_gains_naming_the_variant():
    fn = _commands(14.0, 9.0, 3.0)
    with pytest.raises(ConfigError, match=r"params\['drive.ka_linear'\]\[1\]"):
        simulate_batch([_drive()], 0.1, [elementwise(PeriodicController(0.02, fn, name="c"))],
                       params={"drive.ka_linear": np.array([0.3, 0.0])})
    with pytest.raises(ConfigError, match=r"params\['drive.ks'\]\[0\]"):
        simulate_batch([_drive()], 0.1, [elementwise(PeriodicController(0.02, fn, name="c"))],
                       params={"drive.ks": np.array([-0.1, 0.2])})
    with pytest.raises(ConfigError, match="kv_linear, ka_linear"):
        simulate_batch([_drive()], 0.1, [elementwise(PeriodicController(0.02, fn, name="c"))],
                       params={"drive.mass": np.array([30.0, 40.0])})
