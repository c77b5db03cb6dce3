"""Feedforwards against hand-computed voltages and the analytic first-order response."""
import math

import numpy as np
import pytest

from simcore.controllers.feedforward import ArmFeedforward, ElevatorFeedforward, SimpleMotorFeedforward
from simcore.errors import ConfigError


def test_simple_motor_values_and_sign_convention():
    ff = SimpleMotorFeedforward(0.5, 2.0, 0.1)
    assert ff.calculate(2.0, 3.0) == pytest.approx(0.5 + 4.0 + 0.3)
    assert ff.calculate(-2.0, 3.0) == pytest.approx(-0.5 - 4.0 + 0.3)
    assert ff.calculate(0.0, 3.0) == pytest.approx(0.3)       # sign(0) = 0: no ks
    assert ff.calculate(1.0) == pytest.approx(2.5)


def test_elevator_adds_constant_gravity_term():
    ff = ElevatorFeedforward(0.2, 0.9, 3.0, 0.5)
    assert ff.calculate(0.0) == pytest.approx(0.9)
    assert ff.calculate(1.0, 2.0) == pytest.approx(0.2 + 0.9 + 3.0 + 1.0)
    assert ff.calculate(-1.0) == pytest.approx(-0.2 + 0.9 - 3.0)


def test_arm_gravity_is_cosine_of_angle_from_horizontal():
    ff = ArmFeedforward(0.1, 1.5, 2.0, 0.3)
    assert ff.calculate(0.0, 0.0) == pytest.approx(1.5)                 # level
    assert ff.calculate(math.pi / 2, 0.0) == pytest.approx(0.0, abs=1e-15)  # vertical
    assert ff.calculate(math.pi, 0.0) == pytest.approx(-1.5)
    assert ff.calculate(math.pi / 3, 1.0, 2.0) == pytest.approx(0.1 + 0.75 + 2.0 + 0.6)


def test_max_and_min_achievable_simple():
    ff = SimpleMotorFeedforward(0.5, 2.0, 0.1)
    assert ff.max_achievable_velocity(12.0, 3.0) == pytest.approx((12.0 - 0.5 - 0.3) / 2.0)
    assert ff.min_achievable_velocity(12.0, 3.0) == pytest.approx((-12.0 + 0.5 - 0.3) / 2.0)
    assert ff.max_achievable_acceleration(12.0, 1.0) == pytest.approx((12.0 - 0.5 - 2.0) / 0.1)
    assert ff.min_achievable_acceleration(12.0, 1.0) == pytest.approx((-12.0 - 0.5 - 2.0) / 0.1)
    # Consistency: the achievable velocity needs exactly the budget.
    v = ff.max_achievable_velocity(12.0, 3.0)
    assert ff.calculate(v, 3.0) == pytest.approx(12.0)


def test_max_achievable_arm_and_elevator_use_the_full_budget():
    arm = ArmFeedforward(0.1, 1.5, 2.0, 0.3)
    w = arm.max_achievable_velocity(12.0, 0.4, 1.0)
    assert arm.calculate(0.4, w, 1.0) == pytest.approx(12.0)
    a = arm.max_achievable_acceleration(12.0, 0.4, 2.0)
    assert arm.calculate(0.4, 2.0, a) == pytest.approx(12.0)
    elev = ElevatorFeedforward(0.2, 0.9, 3.0, 0.5)
    v = elev.min_achievable_velocity(12.0, 0.0)
    assert elev.calculate(v) == pytest.approx(-12.0)


@pytest.mark.parametrize("kv", [0.0, 1.5])
def test_calculate_with_velocities_reaches_next_velocity(kv):
    # Hold u for T on ka dv/dt = u - ks sign(v0) - kg - kv v; analytic solution.
    ks, kg, ka, T = 0.3, 0.7, 0.4, 0.02
    ff = ElevatorFeedforward(ks, kg, kv, ka, period=T)
    v0, v1 = 1.0, 1.3
    u = ff.calculate_with_velocities(v0, v1)
    drive = u - ks - kg
    if kv == 0.0:
        v_end = v0 + drive / ka * T
    else:
        v_ss = drive / kv
        v_end = v_ss + (v0 - v_ss) * math.exp(-kv / ka * T)
    assert v_end == pytest.approx(v1, rel=1e-12)


def test_calculate_with_velocities_without_inertia():
    ff = SimpleMotorFeedforward(0.5, 2.0)
    assert ff.calculate_with_velocities(1.0, -1.0) == pytest.approx(-0.5 - 2.0)


def test_array_gains_are_element_wise():
    kv = np.array([1.0, 2.0, 3.0])
    ff = SimpleMotorFeedforward(0.5, kv, 0.1)
    assert np.allclose(ff.calculate(2.0, 1.0), 0.5 + 2.0 * kv + 0.1)
    assert np.allclose(ff.calculate(np.array([-1.0, 0.0, 1.0])), [-1.5, 0.0, 3.5])
    batch = ff.calculate_with_velocities(1.0, 1.2)
    singles = [SimpleMotorFeedforward(0.5, k, 0.1).calculate_with_velocities(1.0, 1.2)
               for k in kv]
    assert np.allclose(batch, singles, rtol=1e-12)


@pytest.mark.parametrize("make, name", [
    (lambda: SimpleMotorFeedforward(0.1, -1.0), "kv"),
    (lambda: SimpleMotorFeedforward(0.1, 1.0, -0.1), "ka"),
    (lambda: ElevatorFeedforward(0.1, math.nan, 1.0), "kg"),
    (lambda: ArmFeedforward(math.inf, 1.0, 1.0), "ks"),
    (lambda: SimpleMotorFeedforward(0.1, 1.0, period=0.0), "period"),
])
def test_bad_gains(make, name):
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.parameter == name


def test_helpers_need_positive_gain():
    with pytest.raises(ConfigError):
        SimpleMotorFeedforward(0.1, 0.0).max_achievable_velocity(12.0, 0.0)
    with pytest.raises(ConfigError):
        SimpleMotorFeedforward(0.1, 1.0).max_achievable_acceleration(12.0, 0.0)
