"""The engine's own Dormand-Prince 5(4) (simcore.dopri5): the batch kernel's arithmetic, scipy's steps."""
import math

import numpy as np
import pytest
from scipy.integrate import RK45

import simcore
from simcore import dopri5
from simcore.dopri5 import DormandPrince


def _oscillator(t, y):
    return np.array([y[1], -9.0 * y[0] - 0.2 * y[1] + math.cos(2.0 * t)])


def _linear_system(n):
    """y' = M y + sin(3 t) (1, ..., 1) with a fixed random M of n states, plus a jump in the forcing at
    t = 1.3 that makes the solver reject attempts."""
    M = np.random.default_rng(n).normal(size=(n, n)) - 1.5 * np.eye(n)

    def f(t, y):
        return M @ y + (math.sin(3.0 * t) + (4.0 if t > 1.3 else 0.0))
    return f


def _attempts(n):
    """Every attempt (accepted or rejected) of a DormandPrince run on :func:`_linear_system`, as dicts
    of t, y, f, h, capped (an attempt of the same step was rejected before), y_new, K, err and
    h_next (the step size the solver went on with)."""
    fun = _linear_system(n)
    s = DormandPrince(fun, 0.0, np.linspace(-1.0, 1.0, n), 3.0, rtol=1e-9, atol=1e-12)
    log, original = [], s._attempt

    def logged(t, h):
        capped = bool(log) and log[-1]["t"] == t and log[-1]["err"] >= 1.0
        y, f = np.array(s._yl), np.array(s._fl)
        err = original(t, h)
        log.append(dict(t=t, y=y, f=f, h=h, capped=capped, y_new=np.array(s._new_yl), K=np.array(s._new_K), err=err))
        return err

    s._attempt = logged
    while s.status == "running":
        s.step()
        log[-1]["h_next"] = s.h_abs
    for a, b in zip(log, log[1:]):
        if a["err"] >= 1.0:
            a["retry"] = b["h"]  # the retry's step, t_new - t
    return fun, s, log


def test_a_right_hand_side_on_lists_takes_the_same_steps_to_the_bit():
    # fun_floats (the engine's path for systems with a float form of their derivatives) is only a
    # cheaper way to evaluate the same stages: every step, rejections included, is the array path's.
    fun = _linear_system(4)
    calls = []

    def on_lists(t, y):
        calls.append(type(y))
        return fun(t, np.array(y)).tolist()

    runs = []
    for kw in ({}, {"fun_floats": on_lists}):
        s = DormandPrince(fun, 0.0, np.linspace(-1.0, 1.0, 4), 3.0, rtol=1e-9, atol=1e-12, **kw)
        steps = []
        while s.status == "running":
            s.step()
            steps.append((s.t, s.y.copy(), s.h_abs))
        runs.append(steps)
    assert len(runs[0]) == len(runs[1]) > 50 and set(calls) == {list}
    for (t0, y0, h0), (t1, y1, h1) in zip(*runs):
        assert t0 == t1 and h0 == h1
        np.testing.assert_array_equal(y0, y1)


def test_the_first_attempt_is_clamped_to_ten_ulps_and_max_step_as_scipys():
    # A step size below ten units in the last place of t is raised to that; one above max_step cut to it.
    for first, max_step in ((1e-300, math.inf), (0.5, 0.01)):
        ours = DormandPrince(_oscillator, 1.0, np.array([1.0, 0.0]), 2.0, rtol=1e-6, atol=1e-9,
                             first_step=first, max_step=max_step)
        ref = RK45(_oscillator, 1.0, np.array([1.0, 0.0]), 2.0, rtol=1e-6, atol=1e-9, first_step=first,
                   max_step=max_step)
        ours.step()
        ref.step()
        assert ours.t == ref.t == 1.0 + min(max(first, 10 * (math.nextafter(1.0, 2.0) - 1.0)), max_step)


def test_after_a_rejection_scipys_step_control_is_followed():
    # scipy RK45's step rule, attempt by attempt (scipy/integrate/_ivp/rk.py): a rejected attempt is
    # retried with h * max(0.2, 0.9 err^(-1/5)); an accepted step proposes h * min(10, 0.9 err^(-1/5)),
    # at most h itself when that step had a rejection. The forcing's jump at t = 1.3 makes rejections.
    # (Against scipy's own run the step times agree only until an error estimate within round-off of 1:
    # scipy leaves the order of its stage sums to BLAS, which rounds differently on some processors.)
    fun, s, log = _attempts(4)
    rejected = [a for a in log if a["err"] >= 1.0]
    assert rejected and any(abs(a["t"] - 1.3) < 0.1 for a in rejected)
    for a in rejected:  # (the retry's step is t + h_retry - t: within round-off of t of the rule's h_retry)
        assert a["retry"] == pytest.approx(a["h"] * max(0.2, 0.9 * a["err"] ** (-1 / 5)), rel=1e-12)
    for a in log:
        if a["err"] < 1.0:
            factor = 10.0 if a["err"] == 0.0 else min(10.0, 0.9 * a["err"] ** (-1 / 5))
            if a["capped"]:
                factor = min(1.0, factor)
            assert a["h_next"] == a["h"] * factor
    ref = RK45(fun, 0.0, np.linspace(-1.0, 1.0, 4), 3.0, rtol=1e-9, atol=1e-12)
    while ref.status == "running":
        ref.step()
    np.testing.assert_allclose(s.y, ref.y, rtol=1e-7, atol=1e-9)  # both to the tolerance of the same solution


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


def test_bad_arguments_are_refused_naming_them():
    f = _oscillator
    for kwargs, word in ((dict(rtol=-1.0), "rtol"), (dict(atol=np.array([1e-9, 1e-9])), "atol"),
                         (dict(max_step=0.0), "max_step"), (dict(first_step=0.0), "first_step")):
        with pytest.raises(ValueError, match=word):
            DormandPrince(f, 0.0, np.array([1.0, 0.0]), 1.0, **kwargs)
    with pytest.raises(ValueError, match="t_bound"):
        DormandPrince(f, 1.0, np.array([1.0, 0.0]), 0.5)
    s = DormandPrince(f, 0.0, np.array([1.0, 0.0]), 0.1, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        s.restart(0.0, np.zeros(3), 1.0, 0.01)
    while s.status == "running":
        s.step()
    with pytest.raises(RuntimeError, match="finished solver"):
        s.step()
