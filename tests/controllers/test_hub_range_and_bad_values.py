"""The SDK's Range (clip, scale, throwIfRangeIsInvalid, as its documentation and source define them), and bad values
named: gains that are not numbers, a STOP at or before PLAY, two hubs of one name."""
import math

import pytest

import simcore
from simcore.controllers.hub import (Hub, IllegalArgumentException, LinearOpMode, OpMode, PIDCoefficients,
                                     PIDFCoefficients, Range, iterative_opmode, linear_opmode, run_opmode)
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312


# -- Range -------------------------------------------------------------------------------------------------------
def test_range_clip_returns_the_bound_the_number_passes_or_the_number():
    assert Range.clip(1.7, -1.0, 1.0) == 1.0 and Range.clip(-3.0, -1.0, 1.0) == -1.0
    assert Range.clip(0.25, -1.0, 1.0) == 0.25
    assert Range.clip(7, 0, 5) == 5 and isinstance(Range.clip(3, 0, 5), int)  # the int overload
    assert math.isnan(Range.clip(math.nan, -1.0, 1.0))  # neither below nor above, as Java's comparisons
    with pytest.raises(ConfigTypeError) as e:
        Range.clip("0.5", -1, 1)
    assert e.value.parameter == "number"
    with pytest.raises(ConfigTypeError) as e:
        Range.clip(0.5, True, 1)
    assert e.value.parameter == "min"


def test_range_scale_maps_one_range_linearly_onto_another():
    # The line through (x1, y1) and (x2, y2): the ends map onto the ends, the middle onto the middle.
    assert Range.scale(0.0, 0.0, 1.0, 10.0, 20.0) == 10.0 and Range.scale(1.0, 0.0, 1.0, 10.0, 20.0) == 20.0
    assert Range.scale(0.5, 0.0, 1.0, 10.0, 20.0) == pytest.approx(15.0, abs=1e-12)
    assert Range.scale(0.25, 0.0, 1.0, 1.0, -1.0) == pytest.approx(0.5, abs=1e-12)  # a falling range
    assert Range.scale(-1.0, -1.0, 1.0, 0.0, 180.0) == pytest.approx(0.0, abs=1e-12)
    assert Range.scale(2.0, 0.0, 1.0, 0.0, 10.0) == pytest.approx(20.0, abs=1e-12)  # not clipped: extrapolates
    with pytest.raises(ConfigError) as e:  # Java divides by zero and returns NaN
        Range.scale(0.5, 1.0, 1.0, 0.0, 1.0)
    assert e.value.parameter == "x2"


def test_range_throw_if_range_is_invalid_raises_the_sdk_s_exception_and_message():
    assert Range.throwIfRangeIsInvalid(0.5, 0.0, 1.0) is None
    assert Range.throwIfRangeIsInvalid(1.0, 0.0, 1.0) is None  # the bounds are valid
    with pytest.raises(IllegalArgumentException) as e:
        Range.throwIfRangeIsInvalid(1.5, 0.0, 1.0)
    assert str(e.value) == "number 1.500000 is invalid; valid ranges are 0.000000..1.000000"
    with pytest.raises(IllegalArgumentException) as e:
        Range.throwIfRangeIsInvalid(-2, 0, 3)
    assert str(e.value) == "number -2 is invalid; valid ranges are 0..3"
    with pytest.raises(IllegalArgumentException, match="NaN"):
        Range.throwIfRangeIsInvalid(math.nan, 0.0, 1.0)
    with pytest.raises(TypeError):
        Range()


# -- PIDF gains --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("field", ["p", "i", "d", "f"])
@pytest.mark.parametrize("bad", ["10", True, None, [1.0]])
def test_a_pidf_gain_that_is_not_a_number_is_refused_naming_its_field(field, bad):
    gains = dict(p=1.0, i=0.1, d=0.0, f=12.0)
    gains[field] = bad
    with pytest.raises(ConfigTypeError) as e:
        PIDFCoefficients(**gains)
    assert e.value.parameter == field and repr(bad) in str(e.value)
    c = PIDFCoefficients(1.0, 0.1, 0.0, 12.0)
    with pytest.raises(ConfigTypeError) as e:  # the public field, assigned later
        setattr(c, field, bad)
    assert e.value.parameter == field
    assert (c.p, c.i, c.d, c.f) == (1.0, 0.1, 0.0, 12.0)  # unchanged


def test_pid_coefficients_fields_are_checked_too_and_numbers_still_pass():
    with pytest.raises(ConfigTypeError) as e:
        PIDCoefficients(1.0, "0.5", 0.0)
    assert e.value.parameter == "i"
    c = PIDCoefficients(2, 0, 1)
    assert (c.p, c.i, c.d) == (2.0, 0.0, 1.0) and all(type(v) is float for v in (c.p, c.i, c.d))
    with pytest.raises(ConfigTypeError) as e:
        c.d = False
    assert e.value.parameter == "d"
    with pytest.raises(ConfigTypeError) as e:
        PIDFCoefficients(1, 2, 3, 4, "PIDF")
    assert e.value.parameter == "algorithm"


# -- STOP at or before PLAY --------------------------------------------------------------------------------------
class Idle(LinearOpMode):
    def runOpMode(self):
        self.waitForStart()
        while self.opModeIsActive():
            self.idle()


@pytest.mark.parametrize("start, stop", [(0.0, 0.0), (0.5, 0.5), (0.5, 0.2)])
def test_a_stop_time_at_or_before_the_start_is_refused_naming_both(start, stop):
    hub = Hub()
    arm = HubMotor(GOBILDA_5203_312, name="arm")
    with pytest.raises(ConfigError) as e:
        run_opmode(Idle, hubs=[hub], configuration={"arm": hub.motor(0, arm)}, start_time=start, stop_time=stop)
    assert e.value.parameter == "stop_time" and f"start_time={start!r}" in str(e.value)
    with pytest.raises(ConfigError) as e:
        iterative_opmode(OpMode(), period=0.01, loop=lambda: None, start_time=start, stop_time=stop)
    assert e.value.parameter == "stop_time" and f"start_time={start!r}" in str(e.value)


def test_a_generator_op_mode_stopped_at_or_before_its_first_tick_is_refused():
    def code():
        while True:
            yield

    with pytest.raises(ConfigError) as e:
        linear_opmode(code, period=0.01, offset=0.1, stop_time=0.1)
    assert e.value.parameter == "stop_time" and "offset=0.1" in str(e.value)
    linear_opmode(code, period=0.01, offset=0.1, stop_time=0.11)  # after it: fine


# -- two hubs of one name ----------------------------------------------------------------------------------------
def test_two_hubs_left_at_the_default_name_are_refused_naming_the_fix():
    control, expansion = Hub(), Hub()
    arm, lift = HubMotor(GOBILDA_5203_312, name="arm"), HubMotor(GOBILDA_5203_312, name="lift")
    config = {"arm": control.motor(0, arm), "lift": expansion.motor(0, lift)}
    with pytest.raises(ConfigError) as e:
        run_opmode(Idle, hubs=[control, expansion], configuration=config)
    assert e.value.parameter == "hubs" and "'hub'" in str(e.value) and 'Hub(name="Expansion Hub 2")' in str(e.value)
    with pytest.raises(ConfigError, match="Control Hub"):
        linear_opmode(lambda: iter(()), period=0.01, hubs=[control, expansion])
    # named as the robot configuration names them, they run together
    control2, expansion2 = Hub(name="Control Hub"), Hub(name="Expansion Hub 2")
    arm2, lift2 = HubMotor(GOBILDA_5203_312, name="arm"), HubMotor(GOBILDA_5203_312, name="lift")
    config = {"arm": control2.motor(0, arm2), "lift": expansion2.motor(0, lift2)}
    res = simcore.simulate([arm2, lift2], 0.05, controllers=run_opmode(Idle, hubs=[control2, expansion2],
                                                                       configuration=config, stop_time=0.04))
    assert res.t[-1] == pytest.approx(0.05)
