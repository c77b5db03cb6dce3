"""simcore.checks: each helper returns the SI value or raises the project's error naming the parameter."""
import math
from fractions import Fraction

import numpy as np
import pytest

from simcore import Q_, checks
from simcore.errors import ConfigError, ConfigTypeError


@pytest.mark.parametrize("value", ["5", b"5", True, False, np.bool_(True), None, 1j, [1.0], object()])
def test_a_value_that_is_not_a_number_is_a_type_error_naming_the_parameter(value):
    with pytest.raises(ConfigTypeError) as ei:
        checks.finite("mass", value, "kg")
    assert ei.value.parameter == "mass" and isinstance(ei.value, TypeError)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10 ** 400, Q_(1.0, "m"), Q_(math.nan, "kg")])
def test_nan_infinity_overflow_and_wrong_dimension_are_value_errors(value):
    with pytest.raises(ConfigError) as ei:
        checks.finite("mass", value, "kg")
    assert ei.value.parameter == "mass" and not isinstance(ei.value, TypeError)


def test_numbers_of_every_numeric_kind_convert_to_si_floats():
    assert checks.finite("m", 2) == 2.0 and type(checks.finite("m", 2)) is float
    assert checks.finite("m", np.float32(0.5)) == 0.5
    assert checks.finite("m", np.int64(3)) == 3.0
    assert checks.finite("m", Fraction(1, 4)) == 0.25
    assert checks.finite("m", np.array(1.5)) == 1.5
    assert checks.finite("mass", Q_(250.0, "g"), "kg") == pytest.approx(0.25, rel=1e-15)
    assert checks.angle("a", Q_(180.0, "deg")) == pytest.approx(math.pi, rel=1e-15)
    assert checks.finite("ratio", Q_(3.0, "")) == 3.0


def test_signs_and_ranges_word_the_expectation_with_the_unit():
    with pytest.raises(ConfigError, match=r"mass=-1.0: expected a positive mass in kg"):
        checks.positive("mass", -1.0, "kg", what="mass")
    with pytest.raises(ConfigError, match=r"mass=0.0: expected a positive"):
        checks.positive("mass", 0.0, "kg")
    assert checks.nonnegative("b", 0.0) == 0.0
    with pytest.raises(ConfigError, match=r"b=-1e-300: expected a non-negative number"):
        checks.nonnegative("b", -1e-300)
    assert checks.tolerance("tol", math.inf) == math.inf
    with pytest.raises(ConfigError):
        checks.tolerance("tol", math.nan)
    assert checks.real("lo", -math.inf) == -math.inf
    with pytest.raises(ConfigError, match="not NaN"):
        checks.real("lo", math.nan)
    assert checks.fraction("efficiency", 1.0, low_open=True) == 1.0
    for bad in (0.0, 1.0 + 1e-15, -0.5):
        with pytest.raises(ConfigError, match=r"efficiency=.*\(0.0, 1.0\]"):
            checks.fraction("efficiency", bad, low_open=True)


def test_arrays_are_checked_element_wise_only_where_allowed():
    np.testing.assert_array_equal(checks.positive("kp", [1, 2.5], allow_array=True), [1.0, 2.5])
    np.testing.assert_array_equal(checks.finite("x", Q_(np.array([1.0, 2.0]), "mm"), "m", allow_array=True),
                                  [0.001, 0.002])
    with pytest.raises(ConfigTypeError, match="a scalar"):
        checks.positive("kp", [1.0, 2.0])
    with pytest.raises(ConfigError, match=r"kp=.*positive"):
        checks.positive("kp", [1.0, 0.0], allow_array=True)
    with pytest.raises(ConfigError, match="finite"):
        checks.finite("kp", [1.0, math.nan], allow_array=True)
    for bad in ([True, False], ["1", "2"], [1 + 1j]):
        with pytest.raises(ConfigTypeError):
            checks.finite("kp", bad, allow_array=True)


def test_a_float_array_is_returned_as_a_copy_and_refused_when_not_finite_or_empty():
    # (float64 arrays take a fast path: it must return what the general path returns and refuse the same)
    a = np.array([1.0, -2.5, 3.0])
    out = checks.finite("x", a, allow_array=True)
    assert out is not a and out.dtype == np.float64
    np.testing.assert_array_equal(out, a)
    out[0] = 9.0
    assert a[0] == 1.0
    for bad in (np.array([1.0, math.nan]), np.array([[1.0], [math.inf]]), np.array([-math.inf])):
        with pytest.raises(ConfigError) as info:
            checks.finite("x", bad, "m", allow_array=True)
        assert str(info.value) == f"x={bad!r}: expected finite numbers in m"
    with pytest.raises(ConfigError, match=r"x=array\(\[\], dtype=float64\): expected at least one number$"):
        checks.finite("x", np.zeros(0), allow_array=True)
    with pytest.raises(ConfigTypeError, match="a scalar"):
        checks.finite("x", a)
    np.testing.assert_array_equal(checks.number("x", np.array([1.0, math.inf]), allow_inf=True, allow_array=True),
                                  [1.0, math.inf])


def test_integers_flags_and_choices_take_only_what_they_say():
    assert checks.integer("n", np.int64(2), minimum=1) == 2
    for bad in (2.0, True, "2"):
        with pytest.raises(ConfigTypeError):
            checks.integer("n", bad, minimum=1)
    with pytest.raises(ConfigError, match=r"n=0: expected a whole number >= 1"):
        checks.integer("n", 0, minimum=1)
    assert checks.flag("f", np.bool_(False)) is False
    for bad in (1, 0, "no", None):
        with pytest.raises(ConfigTypeError, match="True or False"):
            checks.flag("f", bad)
    assert checks.choice("mode", "coast", ("brake", "coast")) == "coast"
    for bad in ("Coast", 1, None, True):
        with pytest.raises(ConfigError, match=r"one of 'brake', 'coast'"):
            checks.choice("mode", bad, ("brake", "coast"))


def test_one_or_many_poses_points_and_angles():
    assert checks.one_or_many("systems", 3, int) == [3]
    assert checks.one_or_many("systems", (1, 2), int) == [1, 2]
    with pytest.raises(ConfigTypeError, match="int instances"):
        checks.one_or_many("systems", [1, "a"], int)
    with pytest.raises(ConfigTypeError):
        checks.one_or_many("systems", "ab", int)
    assert checks.pose("start_pose", (1, 2, Q_(90, "deg"))) == pytest.approx((1.0, 2.0, math.pi / 2), rel=1e-15)
    for bad, parameter in (((1, 2), "start_pose"), ("xyz", "start_pose"), ((1, 2, math.nan), "start_pose[2]"),
                           ((1, Q_(1, "s"), 0), "start_pose[1]")):
        with pytest.raises(ConfigError) as ei:
            checks.pose("start_pose", bad)
        assert ei.value.parameter == parameter
    assert checks.point("p", (Q_(10, "cm"), 0)) == pytest.approx((0.1, 0.0))
    assert checks.angles("a", [0, Q_(90, "deg")], 2) == pytest.approx((0.0, math.pi / 2))
    with pytest.raises(ConfigError, match="2 angles"):
        checks.angles("a", [0.0], 2)
    with pytest.raises(ConfigError) as ei:
        checks.angles("a", [0.0, math.inf])
    assert ei.value.parameter == "a[1]"


def test_standard_gravity_is_the_conventional_value_and_defined_once():
    import simcore.models.arm as arm

    assert checks.STANDARD_GRAVITY == 9.80665 and arm.STANDARD_GRAVITY is checks.STANDARD_GRAVITY


@pytest.mark.parametrize("bad", [[True, 2.0], (1.0, np.bool_(False)), [[1.0, 2.0], [3.0, True]]])
def test_a_bool_inside_an_array_is_refused_as_a_scalar_bool_is(bad):
    with pytest.raises(ConfigTypeError, match=r"kp=.*True/False"):
        checks.finite("kp", bad, allow_array=True)


def test_controllers_and_setpoints_refuse_a_bool_inside_an_array():
    from simcore.controllers import PIDController, control_loop

    with pytest.raises(ConfigTypeError, match="kp"):
        PIDController([True, 2.0], 0, 0)
    with pytest.raises(ConfigTypeError, match="setpoint"):
        control_loop(PIDController(1, 0, 0), measure="s.x", command="s.u", setpoint=[True, 1.0])


@pytest.mark.parametrize("value, unit", [(Q_(10, "Hz"), "rad/s"), (Q_(3000, "rpm"), "Hz"), (Q_(1, "deg/s"), "1/s"),
                                         (Q_(1, "Hz"), "rad/s**2*s")])
def test_frequencies_and_angular_rates_are_not_converted_into_each_other(value, unit):
    # 10 Hz is 20 pi rad/s as a rotation, 3000 rpm is 50 Hz: pint would give 10 and 314
    with pytest.raises(ConfigError, match=r"^speed=.*factor 2 pi"):
        checks.number("speed", value, unit)


def test_angular_rates_and_frequencies_still_convert_within_their_kind():
    assert checks.number("w", Q_(3000, "rpm"), "rad/s") == pytest.approx(3000 * 2 * math.pi / 60, rel=1e-15)
    assert checks.number("rate", Q_(50, "Hz"), "Hz") == 50.0
    assert checks.number("w", Q_(2.0, "1/s"), "rad/s") == 2.0  # written without an angle: taken as rad/s
    assert checks.number("a", Q_(90, "deg"), "rad") == pytest.approx(math.pi / 2, rel=1e-15)


def test_rates_and_wheel_speeds_in_the_wrong_kind_of_unit_are_refused_and_m_per_s_converts():
    from simcore.controllers import ChassisSpeeds, DifferentialWheelSpeeds, MecanumWheelSpeeds, PIDController, \
        control_loop

    with pytest.raises(ConfigError, match=r"^rate="):
        control_loop(PIDController(1, 0, 0), measure="s.x", command="s.u", rate=Q_(3000, "rpm"))
    with pytest.raises(ConfigError, match=r"^omega="):
        ChassisSpeeds(omega=Q_(1, "Hz"))
    assert DifferentialWheelSpeeds(Q_(1, "m/s"), Q_(36, "km/h")) == (1.0, pytest.approx(10.0, rel=1e-15))
    assert MecanumWheelSpeeds(Q_(50, "cm"), 0, 0, 0)[0] == 0.5  # an odometry distance, m
    for bad in (Q_(3, "dimensionless"), Q_(1, "s")):
        with pytest.raises(ConfigError, match=r"^left=.*m/s or m"):
            DifferentialWheelSpeeds(bad, 0)


def test_an_array_with_nan_where_infinities_are_allowed_says_not_nan():
    # Infinities allowed, NaN not: the message names what is wrong (it said "finite numbers").
    values = np.array([1.0, np.inf, np.nan])
    with pytest.raises(ConfigError) as info:
        checks.number("limit", values, allow_inf=True, allow_array=True)
    assert str(info.value) == f"limit={values!r}: expected numbers, not NaN"
    np.testing.assert_array_equal(checks.number("limit", values[:2], allow_inf=True, allow_array=True), values[:2])


def test_a_list_of_quantities_converts_each_one_whole_numbers_included():
    """numpy stacks a list of Quantities by their dimensionless magnitudes in their own dtype: whole
    degrees became whole radians (30 deg -> 0 rad) and kilograms were refused as not dimensionless.
    Each is converted on its own: 30 deg is pi/6 rad, 1 g is 1e-3 kg."""
    import math

    from simcore import Q_
    from simcore.checks import number

    np.testing.assert_allclose(number("p", [Q_(30, "deg"), Q_(60, "deg")], "rad", allow_array=True),
                               [math.pi / 6, math.pi / 3], rtol=1e-15)
    np.testing.assert_allclose(number("p", [Q_(1500, "g"), Q_(2, "kg")], "kg", allow_array=True), [1.5, 2.0],
                               rtol=1e-15)
    np.testing.assert_allclose(number("p", (Q_(1000, "mV"), 2), "V", allow_array=True), [1.0, 2.0], rtol=1e-15)
    with pytest.raises(ConfigError, match="convertible to kg"):
        number("p", [Q_(1, "kg"), Q_(1, "m")], "kg", allow_array=True)


def test_a_batch_takes_a_list_of_whole_number_quantities_at_their_values():
    import simcore.models as models
    from simcore import Q_, simulate_batch
    from simcore.models.motors import NEO

    arm = models.Arm(NEO, 100.0, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    batch = simulate_batch(arm, 0.0, params={"arm.mass": [Q_(1500, "g"), Q_(2, "kg")]},
                           x0={"arm.angle": [Q_(10, "deg"), Q_(20, "deg")]})
    np.testing.assert_allclose(batch.final("arm.angle"), np.deg2rad([10.0, 20.0]), rtol=1e-15)
