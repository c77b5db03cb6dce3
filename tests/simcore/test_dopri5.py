"""The engine's own Dormand-Prince 5(4) (simcore.dopri5): the batch kernel's arithmetic, scipy's steps."""
import math

import numpy as np
import pytest
from scipy.integrate import RK45

import simcore
from simcore import batch_rk, dopri5
from simcore.dopri5 import DormandPrince


def _oscillator(t, y):
    return np.array([y[1], -9.0 * y[0] - 0.2 * y[1] + math.cos(2.0 * t)])


class _Counted:
    def __init__(self, fun):
        self.fun, self.n = fun, 0

    def __call__(self, t, y):
        self.n += 1
        return self.fun(t, y)


def test_each_step_is_bit_for_bit_the_batch_kernels_column():
    # The batch kernel steps one column per variant; the serial solver must give a variant the very
    # same bits (so a batch and its variants' own runs agree exactly, not to a tolerance). Each
    # accepted step is replayed by batch_rk.attempt with the state as the middle of three columns.
    fun = _Counted(_oscillator)
    s = DormandPrince(fun, 0.0, np.array([1.0, -0.5]), 6.0, rtol=1e-9, atol=1e-12)
    compared = 0
    while s.status == "running":
        t, y, f = s.t, s.y.copy(), np.array(s._fl)
        before = fun.n
        s.step()
        if fun.n - before != 6:
            continue  # an attempt was rejected: its retry's growth is capped (compared below with rejected=True)
        Y = np.stack([y * 0.5, y, y + 1.0], axis=1)
        F = np.stack([_oscillator(t, Y[:, j]) for j in range(3)], axis=1)

        def rhs(ts, yy, out):
            for j in range(3):
                out[:, j] = _oscillator(float(ts[j]), yy[:, j])

        h = s.t - t
        ok, t_new, y_new, K, h_next = batch_rk.attempt(rhs, np.full(3, t), Y, F, np.full(3, h), s.t_bound,
                                                       np.zeros(3, dtype=bool), rtol=1e-9, atol=1e-12)
        assert ok[1] and t_new[1] == s.t
        np.testing.assert_array_equal(y_new[:, 1], s.y)
        np.testing.assert_array_equal(K[:, :, 1], s.K)
        assert h_next[1] == s.h_abs
        compared += 1
    assert s.status == "finished" and s.t == 6.0 and compared > 100


def test_it_takes_scipys_steps_to_the_tolerance_and_is_accurate():
    # Undamped y'' = -w^2 y: y = cos(w t). scipy's RK45 sums the stages in BLAS's order, so the
    # two agree to the tolerance, not the bit; both are as accurate as the tolerance asks.
    w = 3.0

    def f(t, y):
        return np.array([y[1], -w * w * y[0]])

    ours = DormandPrince(f, 0.0, np.array([1.0, 0.0]), 5.0, rtol=1e-9, atol=1e-12)
    ref = RK45(f, 0.0, np.array([1.0, 0.0]), 5.0, rtol=1e-9, atol=1e-12)
    assert ours.h_abs == ref.h_abs  # the same initial step rule
    n_ours = n_ref = 0
    while ours.status == "running":
        ours.step()
        n_ours += 1
    while ref.status == "running":
        ref.step()
        n_ref += 1
    assert abs(n_ours - n_ref) <= 0.01 * n_ref
    assert ours.t == 5.0
    exact = np.array([math.cos(w * 5.0), -w * math.sin(w * 5.0)])
    np.testing.assert_allclose(ours.y, exact, rtol=0, atol=2e-8)
    np.testing.assert_allclose(ours.y, ref.y, rtol=0, atol=2e-8)


def test_dense_output_and_interior_states_are_scipys_interpolant_of_the_step():
    s = DormandPrince(_oscillator, 0.0, np.array([1.0, 0.0]), 1.0, rtol=1e-6, atol=1e-9)
    for _ in range(4):
        s.step()
    h = s.t - s.t_old
    ref = RK45(_oscillator, s.t_old, s.y_old, 1.0, rtol=1e-6, atol=1e-9, first_step=h)
    ref.K[:] = s.K  # scipy's RkDenseOutput from the same stages: Q = K.T @ P
    ref.t_old, ref.y_old, ref.t = s.t_old, s.y_old, s.t
    scipy_sol = ref._dense_output_impl()
    sol = s.dense_output()
    ts = s.t_old + h * np.array([0.0, 0.1, 0.37, 0.5, 0.99, 1.0])
    np.testing.assert_allclose(sol(ts), scipy_sol(ts), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(sol(s.t_old), s.y_old, rtol=1e-14)
    np.testing.assert_allclose(sol(s.t), s.y, rtol=1e-12)
    fr = (0.25, 0.5, 0.75, 1.0)
    inner = s.interior_states(fr)
    assert inner.shape == (2, 4)
    np.testing.assert_array_equal(inner[:, -1], s.y)
    np.testing.assert_allclose(inner, scipy_sol(s.t_old + h * np.array(fr)), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("lam, h", [(1000.0, 1e-3), (50.0, 0.02)])
def test_the_stiffness_ratio_of_a_linear_decay_is_h_lambda(lam, h):
    s = DormandPrince(lambda t, y: -lam * y, 0.0, np.array([1.0, 2.0]), 1.0, first_step=h, rtol=1e3, atol=1e3)
    s.step()
    assert s.t - s.t_old == h
    assert s.stiffness_ratio() == pytest.approx(h * lam, rel=1e-9)


def test_a_blow_up_fails_as_scipy_does():
    # y' = y^2, y(0) = 1: y = 1 / (1 - t) leaves every bound at t = 1.
    def f(t, y):
        return y * y

    ours, ref = (cls(f, 0.0, np.array([1.0]), 2.0, rtol=1e-8, atol=1e-10) for cls in (DormandPrince, RK45))
    messages = []
    for s in (ours, ref):
        with np.errstate(over="ignore", invalid="ignore"):
            while s.status == "running":
                msg = s.step()
        messages.append(msg)
    assert ours.status == ref.status == "failed"
    assert messages[0] == messages[1]
    assert ours.t == pytest.approx(1.0, abs=1e-6) and ours.t == pytest.approx(ref.t, abs=1e-9)


def test_the_engine_steps_small_systems_with_it_and_large_ones_with_scipy():
    from _systems import FreeFall

    sim = simcore.Simulator(FreeFall(1.0, 0.8), method="RK45")
    sim.run_until(1.0)
    assert type(sim._integrator._solvers["RK45"]) is DormandPrince
    # the bounce, located on its interpolant, at the analytic instant
    assert sim.result().event_times("bounce")[0] == pytest.approx(math.sqrt(2 / 9.81), abs=1e-9)

    class Many(simcore.System):
        name = "many"
        state_names = tuple(f"x{i}" for i in range(dopri5.SMALL + 1))

        def initial_state(self):
            return np.ones(len(self.state_names))

        def derivatives(self, t, x, u):
            return -x

    sim = simcore.Simulator(Many(), method="RK45")
    sim.run_until(1.0)
    assert type(sim._integrator._solvers["RK45"]) is RK45
    np.testing.assert_allclose(sim.result().final("many.x0"), math.exp(-1.0), rtol=1e-7)
