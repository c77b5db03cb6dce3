"""The review of simulate_batch's seventh round: lookups, hints, per-variant errors, warning wording.

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
