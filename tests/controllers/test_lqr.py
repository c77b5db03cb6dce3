"""LQR gains against hand-solved scalar Riccati equations and the Riccati residuals."""
import math

import numpy as np
import pytest
import scipy.linalg

from simcore.controllers.lqr import LinearQuadraticRegulator, bryson, discretize, lqr
from simcore.errors import ConfigError, ConfigTypeError


def test_scalar_continuous_matches_closed_form():
    # 2 a P - b^2 P^2 / r + q = 0  ->  P = r (a + sqrt(a^2 + b^2 q / r)) / b^2,
    # K = b P / r = (a + sqrt(a^2 + b^2 q / r)) / b.
    a, b, q, r = 0.7, 2.0, 3.0, 0.5
    K = lqr([[a]], [[b]], [[q]], [[r]])
    assert K.shape == (1, 1)
    assert K[0, 0] == pytest.approx((a + math.sqrt(a * a + b * b * q / r)) / b, rel=1e-12)


def test_scalar_discrete_matches_closed_form():
    a, b, q, r, T = -1.3, 0.8, 2.0, 0.1, 0.05
    ad = math.exp(a * T)
    bd = b * (ad - 1.0) / a
    # Scalar DARE: P = ad^2 P - (ad bd P)^2 / (r + bd^2 P) + q, i.e.
    # bd^2 P^2 + (r - ad^2 r - q bd^2) P - q r = 0; take the positive root.
    c1 = bd * bd
    c2 = r - ad * ad * r - q * bd * bd
    P = (-c2 + math.sqrt(c2 * c2 + 4 * c1 * q * r)) / (2 * c1)
    K_expected = bd * P * ad / (r + bd * bd * P)
    K = lqr([[a]], [[b]], [[q]], [[r]], dt=T)
    assert K[0, 0] == pytest.approx(K_expected, rel=1e-10)


def test_double_integrator_known_gain():
    # Q = I, R = 1: the classic K = [1, sqrt(3)].
    K = lqr([[0, 1], [0, 0]], [0, 1], np.eye(2), [[1.0]])
    assert np.allclose(K, [[1.0, math.sqrt(3.0)]], rtol=0, atol=1e-10)


def test_discretize_double_integrator():
    T = 0.02
    Ad, Bd = discretize([[0, 1], [0, 0]], [[0], [1]], T)
    assert np.allclose(Ad, [[1, T], [0, 1]], rtol=0, atol=1e-15)
    assert np.allclose(Bd, [[T * T / 2], [T]], rtol=0, atol=1e-15)


def test_discrete_gain_tends_to_continuous_as_period_shrinks():
    A = np.array([[0.0, 1.0], [0.0, -4.0]])
    B = np.array([[0.0], [12.0]])
    Q, R = bryson([0.02, 0.5]), bryson([12.0])
    Kc = lqr(A, B, Q, R)
    # The discrete gain differs from the continuous one at first order in dt.
    err = [np.max(np.abs(lqr(A, B, Q, R, dt=dt) / Kc - 1.0)) for dt in (1e-3, 1e-4, 1e-5)]
    assert err[2] < 3e-3
    assert err[1] / err[2] == pytest.approx(10.0, rel=0.1)
    assert err[0] / err[1] == pytest.approx(10.0, rel=0.2)


def test_riccati_residuals_for_a_mimo_plant():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(3, 3))
    B = rng.normal(size=(3, 2))
    Q = np.diag([1.0, 2.0, 3.0])
    R = np.diag([0.5, 2.0])
    K = lqr(A, B, Q, R)
    # Recover P from the CARE independently of the module and check K = R^-1 B'P.
    P = scipy.linalg.solve_continuous_are(A, B, Q, R)
    residual = A.T @ P + P @ A - P @ B @ np.linalg.solve(R, B.T @ P) + Q
    assert np.max(np.abs(residual)) < 1e-9
    assert np.allclose(K, np.linalg.solve(R, B.T @ P), atol=1e-10)
    assert np.all(np.linalg.eigvals(A - B @ K).real < 0)
    # Discrete: the gain must satisfy the DARE's stationarity with the ZOH plant.
    T = 0.05
    Kd = lqr(A, B, Q, R, dt=T)
    Ad = scipy.linalg.expm(A * T)
    Bd = np.linalg.solve(A, (Ad - np.eye(3))) @ B      # A invertible here
    Pd = scipy.linalg.solve_discrete_are(Ad, Bd, Q, R)
    assert np.allclose(Kd, np.linalg.solve(Bd.T @ Pd @ Bd + R, Bd.T @ Pd @ Ad), atol=1e-9)
    assert np.all(np.abs(np.linalg.eigvals(Ad - Bd @ Kd)) < 1.0)


def test_regulator_calculate_is_gain_times_error():
    reg = LinearQuadraticRegulator([[0, 1], [0, 0]], [0, 1], np.eye(2), [[1.0]])
    u = reg.calculate([0.5, -1.0], [1.0, 0.0])
    assert u == pytest.approx([1.0 * 0.5 + math.sqrt(3.0) * 1.0], abs=1e-9)
    assert reg.calculate([1.0, 0.0]) == pytest.approx([0.0], abs=1e-12)  # r kept
    reg.reset()
    assert np.all(reg.r == 0.0)


def test_bryson():
    assert np.allclose(bryson([0.1, 2.0, math.inf]), np.diag([100.0, 0.25, 0.0]),
                       rtol=1e-15, atol=0)
    with pytest.raises(ConfigError):
        bryson([0.0, 1.0])
    with pytest.raises(ConfigError):
        bryson([-1.0])


def test_uncontrollable_unstable_plant_raises():
    with pytest.raises(ConfigError):
        lqr([[1.0]], [[0.0]], [[1.0]], [[1.0]])
    with pytest.raises(ConfigError):
        lqr([[1.0]], [[0.0]], [[1.0]], [[1.0]], dt=0.02)


def test_undetectable_marginal_mode_raises():
    # Position is free (Q = 0 on it): the closed loop keeps a pole at 0.
    with pytest.raises(ConfigError):
        lqr([[0, 1], [0, 0]], [0, 1], np.diag([0.0, 1.0]), [[1.0]])


def test_bad_costs_and_shapes():
    A, B = [[0, 1], [0, 0]], [0, 1]
    with pytest.raises(ConfigError):
        lqr(A, B, np.eye(2), [[0.0]])              # R not positive definite
    with pytest.raises(ConfigError):
        lqr(A, B, -np.eye(2), [[1.0]])             # Q not PSD
    with pytest.raises(ConfigError):
        lqr(A, B, [[1, 2], [0, 1]], [[1.0]])       # Q not symmetric
    with pytest.raises(ConfigError):
        lqr(A, [[1, 0, 0]], np.eye(2), [[1.0]])    # B rows
    with pytest.raises(ConfigError):
        lqr(A, B, np.eye(2), [[1.0]], dt=0.0)


@pytest.mark.parametrize("A, dt", [([[0, 1], [0, 0]], 1e300), ([[1e300, 0], [0, 0]], 0.02), ([[800, 0], [0, 0]], 1.0)])
def test_a_discretization_that_overflows_is_refused_not_returned_as_nan(A, dt):
    # exp(800) > 1.8e308, the largest double: Ad cannot be represented
    with pytest.raises(ConfigError, match=r"\(A, B, dt\)=.*overflows"):
        discretize(A, [[0], [1]], dt)


@pytest.mark.parametrize("dt, error", [("0.02", ConfigTypeError), (-0.02, ConfigError), (True, ConfigTypeError)])
def test_lqr_names_a_bad_period_dt(dt, error):
    with pytest.raises(error, match=r"^dt="):
        lqr([[0, 1], [0, 0]], [[0], [1]], np.eye(2), [[1.0]], dt=dt)
