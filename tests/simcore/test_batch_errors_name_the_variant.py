"""simulate_batch's lookups, hints, per-variant errors and warning wording.

Each test holds what the user should be told: the parameter they passed, its value, what was
expected and, for a per-variant value, which variant.
"""
import math
import warnings

import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, PeriodicController, StiffnessWarning, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.controllers import PIDController, control_loop
from simcore.errors import ConfigTypeError
from simcore.models.motors import NEO
from simcore.units import Q_

T_END = 0.04  # two ticks of the 50 Hz loop


def parts(max_angle=1.05):
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=max_angle)
    loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def run(**options):
    arm, loop = parts()
    options.setdefault("params", {"pid.kp": [20.0, 40.0]})
    return simulate_batch(arm, T_END, [loop], **options)


# -- 1: event_counts of a name that is not a string ---------------------------------------------------
@pytest.mark.parametrize("name", [5, 1.5, ["upper_stop"], b"upper_stop"])
def test_event_counts_of_a_name_that_is_not_a_string_is_a_type_error(name):
    batch = run()
    with pytest.raises(ConfigTypeError) as info:
        batch.event_counts(name)
    assert info.value.parameter == "name" and info.value.value == name
    assert "None or an event name (str)" in str(info.value)
    np.testing.assert_array_equal(batch.event_counts(None), batch.event_counts())  # None still counts all


# -- 2: the element-wise hint, on the installed numpy's own errors -------------------------------------
def _batch_with(fn):
    arm, _ = parts()
    return simulate_batch(arm, T_END, [elementwise(PeriodicController(0.02, fn, name="scalar"))],
                          params={"arm.mass": [3.0, 4.0]})


@pytest.mark.parametrize("fn", [
    lambda t, s: {"arm.voltage": 6.0 if s["arm.angle"] > 0 else 0.0},  # the truth value of an array
    lambda t, s: {"arm.voltage": float(s["arm.angle"])},  # an array as a Python float
    lambda t, s: {"arm.voltage": math.sin(s["arm.angle"])},  # the same, inside math
    lambda t, s: {"arm.voltage": [0.0, 6.0][s["arm.angle"]]},  # an array as an index
    lambda t, s: {"arm.voltage": max(s["arm.angle"], 0.0)},  # a comparison's truth value, inside max
], ids=["if", "float", "math.sin", "index", "max"])
def test_a_controller_using_an_array_as_one_number_gets_the_element_wise_hint(fn):
    with pytest.raises((TypeError, ValueError)) as info:
        _batch_with(fn)
    notes = " ".join(info.value.__notes__)
    assert "'scalar'" in notes and "(N,) arrays" in notes and "np.where" in notes


@pytest.mark.parametrize("error", [ValueError("a bug of the robot code"), TypeError("wrong type, not arrays"),
                                   ValueError("my check: The truth value of an array with more than one element "
                                              "is ambiguous. Use a.any() or a.all()")],
                         ids=["value", "type", "numpy's words quoted in a message of its own"])
def test_other_controller_errors_get_no_element_wise_hint(error):
    def broken(t, s):
        raise error

    with pytest.raises(type(error)) as info:
        _batch_with(broken)
    assert info.value is error
    assert "np.where" not in " ".join(info.value.__notes__)


# -- 3: a bad element of a per-variant value names its variant ------------------------------------------
@pytest.mark.parametrize("values, j, bad", [
    (np.array([2.0, "x"], dtype=object), 1, "x"),
    ([2.0, None], 1, None),
    ([None, 2.0, 3.0], 0, None),
    ((2.0, 3.0, True), 2, True),
    ([2.0, "x"], 1, "x"),
], ids=["object array", "list with None", "first", "tuple with a bool", "list with a string"])
def test_a_bad_element_of_a_param_names_the_param_variant_and_value(values, j, bad):
    with pytest.raises(ConfigTypeError) as info:
        run(params={"arm.mass": values})
    assert info.value.parameter == f"params['arm.mass'][{j}]"
    assert info.value.value == bad if bad is not None else info.value.value is None
    assert f"(variant {j})" in str(info.value) and "a number" in str(info.value)


def test_a_bad_element_of_x0_or_inputs_names_it_and_its_variant():
    with pytest.raises(ConfigTypeError) as info:
        run(x0={"arm.angle": np.array([0.1, None], dtype=object)})
    assert info.value.parameter == "x0['arm.angle'][1]" and info.value.value is None
    assert "(variant 1)" in str(info.value)
    with pytest.raises(ConfigTypeError) as info:
        run(inputs={"arm.voltage": [1.0, "v"]})
    assert info.value.parameter == "inputs['arm.voltage'][1]" and info.value.value == "v"
    assert "(variant 1)" in str(info.value)


def test_a_wrong_whole_value_is_still_named_whole():
    with pytest.raises(ConfigTypeError) as info:
        run(params={"arm.mass": "heavy"})
    assert info.value.parameter == "params['arm.mass']" and info.value.value == "heavy"


def test_an_input_out_of_range_and_a_non_finite_x0_name_their_element_as_params_do():
    with pytest.raises(ConfigError) as info:
        run(inputs={"arm.brake": [0.5, 1.5]})
    assert info.value.parameter == "inputs['arm.brake'][1]" and info.value.value == 1.5
    assert "[0.0, 1.0] (variant 1, at t=0.0 s)" in str(info.value)
    with pytest.raises(ConfigError) as info:
        run(x0={"arm.angle": [0.1, math.nan]})
    assert info.value.parameter == "x0['arm.angle'][1]" and "a finite number (variant 1)" in str(info.value)


def test_a_boolean_element_is_refused_as_a_boolean():
    with pytest.raises(ConfigTypeError) as info:
        run(params={"pid.kp": [20.0, True]})
    assert info.value.parameter == "params['pid.kp'][1]" and "not True/False (variant 1)" in str(info.value)



# -- 4: the stiffness warning's grammar ----------------------------------------------------------------
def _stiff_message(frictions):
    fw = models.Flywheel(NEO, 2.0, moi=0.002, viscous_friction=0.0)
    loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                        command="flywheel.voltage", setpoint=300.0, output_limits=(-12.0, 12.0), name="pid")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate_batch(fw, 0.2, [loop], params={"flywheel.viscous_friction": frictions})
    said = [str(w.message) for w in caught if issubclass(w.category, StiffnessWarning)]
    assert len(said) == 1
    return said[0]


@pytest.mark.parametrize("frictions, opening", [
    ([30.0], "1 of 1 variant is stiff: the RK45 steps of variant 0 (t="),
    ([0.01, 30.0], "1 of 2 variants is stiff: the RK45 steps of variant 1 (t="),
    ([0.01, 30.0, 0.01, 0.01, 30.0], "2 of 5 variants are stiff: the RK45 steps of variants 1 (t="),
], ids=["1 of 1", "1 of 2", "2 of 5"])
def test_the_stiffness_warning_reads_right_in_singular_and_plural(frictions, opening):
    message = _stiff_message(frictions)
    assert message.startswith(opening)
    assert ") are limited by stability" in message  # the verb of "the RK45 steps"
    assert ("integrates them with" in message) == (opening[0] != "1")
    assert ("integrates it with" in message) == (opening[0] == "1")


# -- 6: an initial position beyond a stop, set by x0 -------------------------------------------------------
def test_an_x0_beyond_a_stop_names_x0_its_value_the_stops_and_the_variant():
    arm, _ = parts()
    with pytest.raises(ConfigError) as serial:
        simulate(arm, T_END, x0={"arm.angle": 2.5})
    assert "[-0.6, 1.05]" in str(serial.value)
    with pytest.raises(ConfigError) as info:
        run(params={"arm.mass": [3.0, 4.0, 5.0]}, x0={"arm.angle": [0.1, 0.2, 2.5]})
    e = info.value
    assert e.parameter == "x0['arm.angle'][2]" and e.value == 2.5
    assert "within the stops [-0.6, 1.05]" in e.expected and "rad" in e.expected and "(variant 2)" in e.expected
    # in the angle's SI unit, whatever unit x0 was given in
    with pytest.raises(ConfigError) as info:
        run(params={"arm.mass": [3.0, 4.0]}, x0={"arm.angle": Q_([10.0, -40.0], "degree")})
    assert info.value.parameter == "x0['arm.angle'][1]" and info.value.value == pytest.approx(math.radians(-40.0))


def test_a_start_angle_the_model_was_built_with_is_not_blamed_on_x0():
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.05)
    arm.min_position = 0.5  # (the model's own state now lies below its stop; x0 sets the velocity only)
    with pytest.raises(ConfigError) as info:
        simulate_batch(arm, T_END, params={"arm.mass": [3.0, 4.0]}, x0={"arm.velocity": 0.0})
    assert not info.value.parameter.startswith("x0")


# -- 5: the constants the batch shares with the serial engine are public names of their home modules ---------
def test_the_shared_rules_are_public_names_and_the_private_ones_are_gone():
    from scipy.integrate import RK45

    from simcore import dopri5, event_handler, solvers

    assert (solvers.STIFF_SKIP_STEPS, solvers.STIFF_CLEAR_AFTER) == (2, 6)
    assert (event_handler.JUST_OFF_ZERO, event_handler.PROBE_STEP) == (5e-324, 1e-8)
    for module, old in ((solvers, "_SKIP_STEPS"), (solvers, "_CLEAR_AFTER"), (solvers, "_stiffness_weights"),
                        (event_handler, "_TINY"), (event_handler, "_PROBE_STEP")):
        assert not hasattr(module, old), old
    # one construction of the stiffness weights, the Dormand-Prince's
    s, w = dopri5.stiffness_weights(RK45)
    assert s == 5 and [float(x) for x in w] == dopri5._W
