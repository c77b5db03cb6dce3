"""The batch as a new user meets it: lookups, batched sweeps, messages and the element-wise hint.

Each test holds what the user expected: a clear error naming the parameter, its value and what was
expected, where the batch was silent or blamed the wrong thing.
"""
from pathlib import Path

import numpy as np
import pytest

import simcore.models as models
import simcore.batch as batch_module
from simcore import ConfigError, simulate, simulate_batch, sweep
from simcore.batch import elementwise
from simcore.controllers import PIDController, control_loop
from simcore.controller import PeriodicController
from simcore.errors import ConfigTypeError
from simcore.models import Battery
from simcore.models.motors import NEO

T_END = 0.04  # two ticks of the 50 Hz loop: enough for every check here


def parts():
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.05)
    loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def small_batch(kp, **options):
    arm, loop = parts()
    return simulate_batch(arm, T_END, [loop], params={"pid.kp": kp}, **options)


# -- finding 4: event_counts of an event no system has -----------------------------------------------------
def test_event_counts_refuses_an_event_name_no_system_has():
    batch = small_batch([20.0, 40.0])
    with pytest.raises(ConfigError, match="upper_stpo") as info:
        batch.event_counts("upper_stpo")
    assert info.value.parameter == "name"
    assert "upper_stop" in str(info.value) and "velocity_zero" in str(info.value)  # the valid names
    # a real event that did not fire in 40 ms (the arm starts at 0 rad, the lower stop is at -0.6 rad)
    np.testing.assert_array_equal(batch.event_counts("lower_stop"), [0, 0])


# -- finding 5: make_result of a batched sweep returning the wrong thing -------------------------------------
def _serial_run(kp):
    arm, loop = parts()
    return simulate(arm, T_END, [loop], method="RK45")


def _one_variant_short(kp):
    return small_batch(np.asarray(kp)[:-1])


def _metric_not_reached(result):
    raise AssertionError("a metric ran on what make_result returned")


def test_a_batched_sweep_checks_what_make_result_returned_before_the_metrics():
    grid = {"kp": [20.0, 40.0, 60.0]}
    metrics = {"m": _metric_not_reached}
    with pytest.raises(ConfigTypeError, match="make_result") as info:
        sweep(_serial_run, grid, metrics, executor="serial", batch=True, progress=False)
    assert "BatchResult" in str(info.value) and "returned a Result" in str(info.value)
    with pytest.raises(ConfigError, match="make_result") as info:
        sweep(_one_variant_short, grid, metrics, executor="serial", batch=True, progress=False)
    assert ".n=2" in str(info.value) and "3 variants" in str(info.value)


# -- finding 8: chunk_size without batch=True -------------------------------------------------------------
def test_chunk_size_without_batch_is_refused():
    with pytest.raises(ConfigError, match="chunk_size") as info:
        sweep(_serial_run, {"kp": [20.0, 40.0]}, {"m": _metric_not_reached}, executor="serial", chunk_size=2)
    assert "batch=True" in str(info.value)


# -- finding 11: the progress of a batched sweep counts points as each chunk completes -----------------------
def test_a_batched_sweeps_progress_advances_by_a_chunk_at_a_time(monkeypatch):
    import tqdm.auto

    steps = []

    class Bar:
        def __init__(self, total, **kwargs):
            self.total = total

        def update(self, n=1):
            steps.append(n)

        def close(self):
            pass

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    sweep(small_batch, {"kp": [10.0, 20.0, 30.0, 40.0, 50.0]}, {"final": lambda r: r.final("arm.angle")},
          executor="serial", batch=True, chunk_size=2, progress=True)
    assert steps == [2, 2, 1]  # one update per chunk, of its points (a rate per point, not per chunk)


# -- finding 7: a batched battery that disables its loads -------------------------------------------------
def test_a_disabling_battery_batches_and_the_docs_say_so():
    arm, loop = parts()
    batch = simulate_batch([arm, Battery(brownout_behaviour="disable", name="main")], 0.1, [loop],
                           params={"arm.mass": [3.0, 4.0]})
    assert batch.n == 2 and batch[1].modes["main"][0] == "normal"
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for doc in (batch_module.__doc__, readme):
        assert 'brownout_behaviour="flag"' in doc and '"disable"' in doc


# -- finding 10: a variant's stats say what was recorded --------------------------------------------------
def test_a_variants_stats_say_what_was_recorded():
    for record in ("all", "ticks"):
        batch = small_batch([20.0, 40.0], record=record)
        assert batch[1].stats["record"] == record
        arm, loop = parts()
        assert simulate(arm, T_END, [loop], method="RK45", record=record).stats["record"] == record


# -- finding 12: a function that is not element-wise ------------------------------------------------------
def _batch_with(controller):
    arm, _ = parts()
    return simulate_batch(arm, T_END, [controller], params={"arm.mass": [3.0, 4.0]})


@pytest.mark.parametrize("fn", [
    lambda t, s: {"arm.voltage": 6.0 if s["arm.angle"] < 0.5 else 0.0},  # ValueError: truth value of an array
    lambda t, s: {"arm.voltage": 6.0 - float(s["arm.angle"])},  # TypeError: only 0-dimensional/length-1 arrays
], ids=["if", "float"])
def test_a_scalar_only_controller_gets_the_element_wise_hint(fn):
    with pytest.raises((ValueError, TypeError)) as info:
        _batch_with(elementwise(PeriodicController(0.02, fn, name="scalar")))
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "'scalar'" in notes and "(N,) arrays" in notes and "np.where" in notes


def test_a_scalar_only_control_law_gets_the_hint_and_other_errors_do_not():
    law = lambda measurement, setpoint: 3.0 if measurement < setpoint else 0.0  # noqa: E731
    loop = control_loop(law, measure="arm.angle", command="arm.voltage", setpoint=1.0, period=0.02, name="law")
    with pytest.raises(ValueError) as info:
        _batch_with(loop)
    assert "np.where" in " ".join(info.value.__notes__)

    def broken(t, s):
        raise ValueError("a robot-code bug unrelated to arrays")

    with pytest.raises(ValueError) as info:
        _batch_with(elementwise(PeriodicController(0.02, broken, name="broken")))
    assert "np.where" not in " ".join(info.value.__notes__)
