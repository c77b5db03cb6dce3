"""What a batch accepts as parameters, initial states, inputs and controller writes: what simulate accepts.

Found by a reviewer trying the batch as a new user (review-user6): a setpoint function dropped for a
varied setpoint, strings and booleans read as numbers, per-variant initial states reported without
their variant.
"""
from __future__ import annotations

import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, NonFiniteError, PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigTypeError
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO


def _arm():
    return models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.9)


def _loop(setpoint=0.8):
    return control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=setpoint, output_limits=(-12.0, 12.0), name="pid")


def _step(t):
    return 0.8 if t < 0.1 else -0.3


def test_a_setpoint_function_is_followed_and_is_not_replaced_by_a_varied_setpoint():
    with pytest.raises(ConfigError, match=r"params\['pid.setpoint'\].*setpoint function '_step'") as info:
        simulate_batch(_arm(), 0.2, [_loop(_step)], params={"pid.setpoint": [0.5, 0.2]})
    assert info.value.parameter == "params['pid.setpoint']"
    # without a varied setpoint each variant follows the function, as its own serial run does
    batch = simulate_batch(_arm(), 0.2, [_loop(_step)], params={"pid.kp": [20.0, 35.0]})
    for k, kp in enumerate((20.0, 35.0)):
        loop = control_loop(PIDController(kp, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                            setpoint=_step, output_limits=(-12.0, 12.0), name="pid")
        ref = simulate(_arm(), 0.2, [loop], method="RK45")
        np.testing.assert_allclose(batch.at_ticks("arm.voltage", "pid")[k],
                                   ref.sample("arm.voltage", ref.ticks("pid")), rtol=1e-7, atol=1e-9)
    assert batch.at_ticks("arm.voltage", "pid")[:, -1].max() < 0.0  # both drive down towards -0.3 rad


@pytest.mark.parametrize("values, serial, j", [
    (["1", "2"], "1", 0),
    ([True, False], True, 0),
    ([6.0, True], True, 1),  # numpy alone would make this [6.0, 1.0]
    ([1.0, None], None, 1),
    ([1.0, "2"], "2", 1),
    ([1.0 + 0j, 2.0], 1.0 + 0j, 0),
])
def test_params_that_are_not_real_numbers_are_refused(values, serial, j):
    with pytest.raises(ConfigTypeError) as info:
        simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": values})
    # the first refused element, with its variant (review 7, item 3)
    assert info.value.parameter == f"params['arm.mass'][{j}]" and f"(variant {j})" in str(info.value)
    with pytest.raises(ConfigTypeError):  # as the serial constructor refuses the offending value
        models.Arm(NEO, 100.0, mass=serial, com_distance=0.35, min_angle=-0.6, max_angle=1.9)


def test_params_of_any_real_number_type_are_taken_and_an_overflowing_one_is_refused():
    from decimal import Decimal
    from fractions import Fraction

    plain = simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": [1.5, 2.25]})
    exotic = simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": [Decimal("1.5"), Fraction(9, 4)]})
    np.testing.assert_array_equal(exotic.at_ticks("arm.angle", "pid"), plain.at_ticks("arm.angle", "pid"))
    with pytest.raises(ConfigError, match="finite") as info:  # as simulate refuses 10**400 kg
        simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": [6, 10**400]})
    assert info.value.parameter == "params['arm.mass'][1]"


@pytest.mark.parametrize("value", ["0.1", True, [0.0, "0.1"], [0.0, None], [0.1, True]])
def test_an_initial_state_that_is_not_a_number_is_refused(value):
    with pytest.raises(ConfigTypeError) as info:
        simulate_batch(_arm(), 0.1, [_loop()], params={"pid.kp": [20.0, 30.0]}, x0={"arm.angle": value})
    assert info.value.parameter.startswith("x0['arm.angle']")
    if not isinstance(value, list):
        with pytest.raises(ConfigTypeError):  # as simulate refuses it
            simulate(_arm(), 0.1, [_loop()], x0={"arm.angle": value})


def test_a_per_variant_initial_state_names_its_variant():
    with pytest.raises(ConfigError, match="finite") as info:  # a bad parameter, as in simulate's x0
        simulate_batch(_arm(), 0.1, [_loop()], params={"pid.kp": [20.0, 30.0]}, x0={"arm.angle": [0.0, np.nan]})
    assert info.value.parameter == "x0['arm.angle'][1]" and "(variant 1)" in str(info.value)
    with pytest.raises(ConfigError, match="within the stops") as info:
        simulate_batch(_arm(), 0.1, [_loop()], params={"pid.kp": [20.0, 30.0, 40.0]},
                       x0={"arm.angle": [0.0, 0.5, -2.0]})
    # named as the user set it, x0 (review 7, item 6)
    assert info.value.parameter == "x0['arm.angle'][2]" and info.value.value == -2.0
    assert "(variant 2)" in str(info.value)
    with pytest.raises(NonFiniteError, match="variant 1"):  # a non-finite input is a non-finite signal, as serially
        simulate_batch(_arm(), 0.1, [], params={"arm.mass": [3.0, 4.0]}, inputs={"arm.voltage": [1.0, np.inf]})


# with the part of the label that names the refused element's variant, if an element is to blame
@pytest.mark.parametrize("written, element", [("6", ""), (True, ""), (np.array(["6", "7"]), "[0]"),
                                              (np.array([True, False]), "[0]"), ([12.0, True], "[1]")])
def test_a_controller_writing_something_that_is_not_a_number_is_refused(written, element):
    open_loop = elementwise(PeriodicController(0.02, lambda t, s: {"arm.voltage": written}, name="open"))
    with pytest.raises(ConfigTypeError) as info:
        simulate_batch(_arm(), 0.1, [open_loop], params={"arm.mass": [3.0, 5.0]})
    # the whole value, or its first refused element with its variant (review 7, item 3)
    assert info.value.parameter == "controller 'open'['arm.voltage']" + element
    if not isinstance(written, (np.ndarray, list)):
        with pytest.raises(ConfigTypeError):  # as the serial run refuses it
            simulate(_arm(), 0.1, [PeriodicController(0.02, lambda t, s: {"arm.voltage": written}, name="open")])


def test_array_likes_numpy_reads_are_taken_as_their_numbers():
    """A pandas Series (a Monte Carlo drawn from a DataFrame's column) and a range are numbers per variant, as
    the same values in a list are (review s6b: the checks took lists, tuples and arrays only)."""
    pd = pytest.importorskip("pandas")
    plain = simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": [2.0, 3.0], "pid.kp": [20.0, 30.0]},
                           x0={"arm.angle": [0.0, 0.25]})
    series = simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": pd.Series([2.0, 3.0]),
                                                            "pid.kp": range(20, 40, 10)},
                            x0={"arm.angle": pd.Series([0.0, 0.25])})
    np.testing.assert_array_equal(series.at_ticks("arm.angle", "pid"), plain.at_ticks("arm.angle", "pid"))
    with pytest.raises(ConfigTypeError):  # a Series of booleans is still no numbers
        simulate_batch(_arm(), 0.1, [_loop()], params={"arm.mass": pd.Series([True, False])})
