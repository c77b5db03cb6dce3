"""PIDController, ProfiledPIDController and BangBangController against hand-derived
values of WPILib's documented semantics (see controllers/pid.py's docstring)."""
import math

import numpy as np
import pytest

from simcore.controllers.bangbang import BangBangController
from simcore.controllers.pid import PIDController, input_modulus
from simcore.controllers.profile import State
from simcore.controllers.profiled_pid import ProfiledPIDController
from simcore.errors import ConfigError

T = 0.02


# --------------------------------------------------------------- input_modulus
@pytest.mark.parametrize("value, expected", [
    (0.0, 0.0),
    (1.5, 1.5),
    (3.5, -0.5),          # 3.5 - 4
    (-2.5, 1.5),          # -2.5 + 4
    (10.0, 2.0),          # 10 - 2 * 4
    (-2.0, 2.0),          # the low end maps to the high end: (lo, hi]
    (2.0, 2.0),
])
def test_input_modulus_half_open(value, expected):
    assert input_modulus(value, -2.0, 2.0) == pytest.approx(expected, abs=1e-15)


def test_input_modulus_array_matches_scalar_rule():
    values = np.array([0.0, 3.5, -2.5, 10.0, -2.0])
    assert np.allclose(input_modulus(values, -2.0, 2.0), [0.0, -0.5, 1.5, 2.0, 2.0])


# ------------------------------------------------------------------ proportional
def test_proportional_only():
    pid = PIDController(3.0, 0.0, 0.0)
    assert pid.calculate(1.0, 2.5) == pytest.approx(4.5)
    assert pid.error == pytest.approx(1.5)


def test_first_call_derivative_is_zero():
    pid = PIDController(0.0, 0.0, 0.5)
    assert pid.calculate(1.0, 3.0) == 0.0
    assert pid.error_derivative == 0.0
    # The second call differences against the first error: (1.5 - 2.0) / T.
    assert pid.calculate(1.5) == pytest.approx(0.5 * -0.5 / T)
    pid.reset()
    assert pid.calculate(0.0) == 0.0


def test_derivative_kick_option_reproduces_wpilib_first_call():
    # WPILib starts prev_error at 0 (not at the first error): a derivative kick.
    pid = PIDController(0.0, 0.0, 0.5, derivative_kick=True)
    out = pid.calculate(1.0, 3.0)
    assert pid.error_derivative == pytest.approx(2.0 / T)
    assert out == pytest.approx(0.5 * 2.0 / T)
    # Second call with the same error: derivative zero.
    assert pid.calculate(1.0) == pytest.approx(0.0)


def test_derivative_is_finite_difference_of_error():
    pid = PIDController(0.0, 0.0, 2.0, period=0.1)
    pid.calculate(0.0, 1.0)            # error 1
    out = pid.calculate(0.25)          # error 0.75
    assert pid.error_derivative == pytest.approx(-2.5)
    assert out == pytest.approx(-5.0)


def test_reset_restarts_derivative_from_zero_previous_error():
    pid = PIDController(0.0, 0.0, 1.0, derivative_kick=True)
    pid.calculate(0.0, 1.0)
    pid.calculate(0.0)
    pid.reset()
    assert pid.calculate(0.5) == pytest.approx(0.5 / T)


# -------------------------------------------------------------------- integrator
def test_integral_accumulates_error_times_period():
    pid = PIDController(0.0, 2.0, 0.0)
    pid.set_integrator_range(-100.0, 100.0)
    out = [pid.calculate(0.0, 1.0) for _ in range(3)]
    # total = k * 1 * 0.02, output 2 * total
    assert out == pytest.approx([0.04, 0.08, 0.12])


def test_integrator_clamps_integral_term_to_range():
    pid = PIDController(0.0, 4.0, 0.0, period=0.5)
    pid.set_integrator_range(-1.0, 1.5)
    # total after n calls with error 1: min(0.5 n, 1.5 / 4 = 0.375)
    assert pid.calculate(0.0, 1.0) == pytest.approx(1.5)  # 4 * min(0.5, 0.375)
    assert pid.accumulated_error == pytest.approx(0.375)
    # A negative error unwinds from the clamp, not from the unclamped sum.
    assert pid.calculate(1.25) == pytest.approx(4.0 * (0.375 - 0.125))


def test_default_integrator_range_is_plus_minus_one():
    pid = PIDController(0.0, 1.0, 0.0, period=1.0)
    assert pid.calculate(0.0, 5.0) == pytest.approx(1.0)
    assert pid.calculate(0.0, -50.0) == pytest.approx(-1.0)


def test_i_zone_resets_integrator_outside_zone():
    pid = PIDController(0.0, 1.0, 0.0, period=0.1)
    pid.set_i_zone(0.5)
    pid.calculate(0.0, 0.4)            # inside: total 0.04
    assert pid.accumulated_error == pytest.approx(0.04)
    pid.calculate(-0.2)                # error 0.6 > 0.5: reset
    assert pid.accumulated_error == 0.0
    assert pid.calculate(0.0) == pytest.approx(0.04)


def test_zero_ki_leaves_accumulator_alone():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.calculate(0.0, 1.0)
    assert pid.accumulated_error == 0.0


# ------------------------------------------------------------ continuous input
def test_continuous_input_wraps_the_short_way():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.enable_continuous_input(-math.pi, math.pi)
    sp, meas = math.radians(179.0), math.radians(-179.0)
    assert pid.calculate(meas, sp) == pytest.approx(math.radians(-2.0))
    pid.calculate(math.radians(170.0), math.radians(-170.0))
    assert pid.error == pytest.approx(math.radians(20.0))


def test_continuous_input_half_turn_error_is_positive():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.enable_continuous_input(0.0, 360.0)
    # setpoint - measurement = -180 degrees, exactly half a turn: mapped to +180.
    assert pid.calculate(270.0, 90.0) == pytest.approx(180.0)


def test_disable_continuous_input():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.enable_continuous_input(-math.pi, math.pi)
    pid.disable_continuous_input()
    assert pid.calculate(-3.0, 3.0) == pytest.approx(6.0)


# -------------------------------------------------------------------- tolerance
def test_at_setpoint_needs_setpoint_and_measurement():
    pid = PIDController(1.0, 0.0, 0.0)
    assert not pid.at_setpoint()
    pid.calculate(0.0)                 # no setpoint given yet: error 0 but not at setpoint
    assert not pid.at_setpoint()
    pid.setpoint = 0.01
    assert pid.at_setpoint()           # default tolerance 0.05


def test_tolerance_gates_at_setpoint_strictly():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.set_tolerance(0.1, 1.0)
    pid.calculate(-0.25, 0.05)         # error 0.3: outside the position tolerance
    assert not pid.at_setpoint()
    pid.calculate(0.0)                 # error 0.05 but derivative (0.05 - 0.3) / 0.02 = -12.5
    assert not pid.at_setpoint()
    pid.calculate(0.0)                 # derivative 0
    assert pid.at_setpoint()
    pid.calculate(-0.05)               # error 0.1: not < 0.1; derivative 2.5
    assert not pid.at_setpoint()
    pid.set_tolerance(0.2)             # velocity tolerance back to inf
    assert pid.at_setpoint()


def test_reset_clears_measurement_flag():
    pid = PIDController(1.0, 0.0, 0.0)
    pid.calculate(0.0, 0.0)
    assert pid.at_setpoint()
    pid.reset()
    assert not pid.at_setpoint()


def test_set_setpoint_recomputes_error_against_last_measurement():
    pid = PIDController(1.0, 0.0, 1.0)
    pid.calculate(2.0, 2.0)            # error 0
    pid.set_setpoint(3.0)
    assert pid.error == pytest.approx(1.0)
    assert pid.error_derivative == pytest.approx(1.0 / T)
    # ... and the next calculate uses that error as its previous error.
    pid.calculate(2.0)
    assert pid.error_derivative == pytest.approx(0.0)


# ---------------------------------------------------------------------- batches
def test_array_gains_match_scalar_controllers():
    kp = np.array([0.5, 1.0, 2.0])
    ki = np.array([0.0, 3.0, 10.0])
    batch = PIDController(kp, ki, 0.1)
    singles = [PIDController(p, i, 0.1) for p, i in zip(kp, ki)]
    for meas in (0.0, 0.3, 0.9, 1.4):
        out = batch.calculate(np.full(3, meas), 1.0)
        expected = [c.calculate(meas, 1.0) for c in singles]
        assert np.allclose(out, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ki", [0.0, np.array([0.0, 3.0, 40.0, 0.0])])
def test_array_path_gives_each_variant_its_serial_floats_bit_for_bit(ki):
    # ki = 0 (a PD loop: the accumulator is never touched) and ki mixed with zeros, the integral
    # clamp (ki = 40 saturates its range) and the i_zone reset; the serial controllers run on floats.
    kp, kd = np.array([0.5, 1.0, 2.0, 7.0]), np.array([0.1, 0.0, 0.3, 0.05])
    kis = np.broadcast_to(ki, kp.shape)
    batch = PIDController(kp, ki, kd)
    singles = [PIDController(float(p), float(i), float(d)) for p, i, d in zip(kp, kis, kd)]
    for c in [batch, *singles]:
        c.set_i_zone(0.8)
        c.set_integrator_range(-0.5, 0.5)
    for meas in (0.0, 0.3, -0.5, 0.9, 1.4, 0.95, 0.97):
        out = batch.calculate(np.array([meas, meas + 0.01, meas - 0.02, meas]), 1.0)
        expected = [c.calculate(m, 1.0) for c, m in zip(singles, (meas, meas + 0.01, meas - 0.02, meas))]
        assert type(out) is np.ndarray and out.shape == (4,)
        np.testing.assert_array_equal(out, expected)
        assert np.shape(batch.accumulated_error) == (4,)
        np.testing.assert_array_equal(batch.accumulated_error, [c.accumulated_error for c in singles])


def test_array_path_after_ki_set_to_zero_keeps_then_resets_the_accumulator_as_the_serial_floats():
    # Accumulate with ki = 2, then make it a PD loop (scalar ki = 0): the accumulator is kept while the
    # error stays within the i_zone and reset to 0 once it leaves it, variant by variant, as each
    # serial controller on floats does.
    kp = np.array([0.5, 1.0, 2.0])
    batch = PIDController(kp, 2.0, 0.1)
    singles = [PIDController(float(p), 2.0, 0.1) for p in kp]
    for c in [batch, *singles]:
        c.set_i_zone(0.8)
    offsets = np.array([0.0, 0.3, -0.4])
    for step, meas in enumerate((0.5, 0.6, 0.7, 0.6, 0.5, 0.1, 0.65)):
        if step == 3:
            for c in [batch, *singles]:
                c.ki = 0.0
        out = batch.calculate(meas + offsets, 1.0)
        expected = [c.calculate(float(meas + o), 1.0) for c, o in zip(singles, offsets)]
        np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(batch.accumulated_error, [c.accumulated_error for c in singles])
    # the run kept a non-zero accumulator under ki = 0 in one variant and reset another's
    assert any(c.accumulated_error != 0.0 for c in singles) and any(c.accumulated_error == 0.0 for c in singles)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_array_measurement_or_setpoint_not_finite_is_refused_naming_it(bad):
    pid = PIDController(np.array([1.0, 2.0]), 0.0, 0.0)
    values = np.array([0.5, bad])
    with pytest.raises(ConfigError) as info:
        pid.calculate(values, 1.0)
    assert info.value.parameter == "measurement"
    assert str(info.value) == f"measurement={values!r}: expected finite numbers"
    with pytest.raises(ConfigError) as info:
        pid.calculate(np.array([0.5, 0.25]), values)
    assert info.value.parameter == "setpoint"
    assert str(info.value) == f"setpoint={values!r}: expected finite numbers"


# ------------------------------------------------------------------- validation
@pytest.mark.parametrize("args, name", [
    ((-1.0, 0.0, 0.0), "kp"), ((0.0, -1.0, 0.0), "ki"), ((0.0, 0.0, -1.0), "kd"),
    ((math.nan, 0.0, 0.0), "kp"), ((0.0, math.inf, 0.0), "ki"),
])
def test_bad_gains_raise(args, name):
    with pytest.raises(ConfigError) as info:
        PIDController(*args)
    assert info.value.parameter == name


def test_bad_period_and_ranges_raise():
    with pytest.raises(ConfigError):
        PIDController(1.0, 0.0, 0.0, period=0.0)
    pid = PIDController(1.0, 0.0, 0.0)
    with pytest.raises(ConfigError):
        pid.enable_continuous_input(1.0, 1.0)
    with pytest.raises(ConfigError):
        pid.set_integrator_range(1.0, -1.0)
    with pytest.raises(ConfigError):
        pid.set_tolerance(-0.1)
    with pytest.raises(ConfigError):
        pid.set_i_zone(-1.0)
    with pytest.raises(ConfigError):
        pid.kp = -2.0


# ------------------------------------------------------------ profiled PID
def test_profiled_pid_advances_setpoint_one_period_per_call():
    # vmax 1, amax 2: from rest the setpoint follows x = t^2 during acceleration.
    c = ProfiledPIDController(1.0, 0.0, 0.0, 1.0, 2.0, period=0.1)
    c.reset(0.0)
    out = c.calculate(0.0, 5.0)
    assert c.setpoint.position == pytest.approx(0.01, abs=1e-12)
    assert c.setpoint.velocity == pytest.approx(0.2, abs=1e-12)
    assert out == pytest.approx(0.01)          # kp * (setpoint - measurement)
    c.calculate(0.0)
    assert c.setpoint.position == pytest.approx(0.04, abs=1e-12)
    assert c.goal == State(5.0, 0.0)


def test_profiled_pid_reaches_goal_and_at_goal():
    c = ProfiledPIDController(1.0, 0.0, 0.0, 1.0, 2.0)
    c.reset(0.0)
    assert not c.at_goal()
    for _ in range(300):                       # 6 s > the 3.5 s profile
        c.calculate(c.setpoint.position, 3.0)  # perfect tracking
    assert c.setpoint == State(3.0, 0.0)
    assert c.at_goal()


def test_profiled_pid_reset_uses_measured_velocity():
    c = ProfiledPIDController(1.0, 0.0, 0.0, 2.0, 1.0, period=0.1)
    c.reset(1.0, 0.5)
    c.calculate(1.0, 100.0)
    # accelerating at 1 from v=0.5 for 0.1 s
    assert c.setpoint.position == pytest.approx(1.0 + 0.05 + 0.005, abs=1e-12)
    assert c.setpoint.velocity == pytest.approx(0.6, abs=1e-12)


def test_profiled_pid_continuous_goes_the_short_way():
    c = ProfiledPIDController(1.0, 0.0, 0.0, 10.0, 10.0, period=0.1)
    c.enable_continuous_input(-math.pi, math.pi)
    c.reset(3.0)
    c.calculate(3.0, -3.0)
    # The goal -3 is re-expressed as 2*pi - 3 ~ 3.28 > 3: the setpoint moves up.
    assert c.goal.position == pytest.approx(2 * math.pi - 3.0)
    assert c.setpoint.position > 3.0


# ------------------------------------------------------------------- bang-bang
def test_bang_bang_output_and_tolerance():
    b = BangBangController(tolerance=0.5)
    assert b.calculate(1.0, 2.0) == 1.0
    assert not b.at_setpoint()
    assert b.calculate(2.0) == 0.0              # equal: not below
    assert b.at_setpoint()
    assert b.calculate(2.4) == 0.0
    assert b.error == pytest.approx(-0.4)
    assert np.array_equal(b.calculate(np.array([1.0, 3.0])), [1.0, 0.0])
    with pytest.raises(ConfigError):
        BangBangController(-1.0)


def test_profiled_pid_derivative_kick_reproduces_wpilib_first_call():
    # WPILib (robotpy-wpimath 2026.2.2): ProfiledPIDController(1, 0, 0.2, 1, 2); reset(0);
    # calculate(0, 1.0) -> 0.0044: error 0.0004 (the profile's first step, a t^2 / 2 with a = 2,
    # t = 0.02) times kp, plus kd * error / period because reset leaves a previous error of 0.
    step = 2.0 * 0.02 ** 2 / 2
    ours = ProfiledPIDController(1.0, 0.0, 0.2, 1.0, 2.0)
    ours.reset(0.0)
    assert ours.calculate(0.0, 1.0) == pytest.approx(step, rel=1e-12)
    wpilib = ProfiledPIDController(1.0, 0.0, 0.2, 1.0, 2.0, derivative_kick=True)
    wpilib.reset(0.0)
    assert wpilib.calculate(0.0, 1.0) == pytest.approx(step + 0.2 * step / 0.02, rel=1e-12)
    # second call, both alike: error a (2T)^2 / 2 = 0.0016, derivative (0.0016 - 0.0004) / T
    for c in (ours, wpilib):
        assert c.calculate(0.0, 1.0) == pytest.approx(0.0016 + 0.2 * (0.0016 - 0.0004) / 0.02, rel=1e-9)


def test_kernel_rows_are_each_variant_s_own_controller_and_states_come_back():
    # A batch of three controllers (kp varied) after two calls: its rows are those of three controllers on
    # floats given the same calls; written back, a state row continues as that controller does.
    kp = np.array([1.0, 2.5, 4.0])
    batch = PIDController(kp, 0.5, 0.1, period=0.02)
    singles = [PIDController(float(k), 0.5, 0.1, period=0.02) for k in kp]
    for measured in (np.array([0.1, 0.2, 0.3]), np.array([0.15, 0.1, 0.5])):
        batch.calculate(measured, 1.0)
        for c, m in zip(singles, measured):
            c.calculate(float(m), 1.0)
    p, s = batch.kernel_rows(3)
    for j, c in enumerate(singles):
        assert np.array_equal(p[j], c.kernel_vectors()[0]) and np.array_equal(s[j], c.kernel_vectors()[1])
    assert batch.kernel_rows(4) is None  # not a batch of four
    one = PIDController(2.5, 0.5, 0.1, period=0.02)
    p1, s1 = one.kernel_rows(3)  # one controller's vectors, once per variant
    assert np.array_equal(p1, np.repeat(one.kernel_vectors()[0][None], 3, axis=0))
    fresh = PIDController(kp, 0.5, 0.1, period=0.02)
    fresh.store_kernel_rows(s)
    after = fresh.calculate(np.array([0.2, 0.3, 0.4]), 1.0)
    assert np.array_equal(after, [c.calculate(m, 1.0) for c, m in zip(singles, (0.2, 0.3, 0.4))])
