"""The solver adapter: the restartable Runge-Kutta, the stiffness estimate, and method="auto"."""
import math
import warnings

import numpy as np
import pytest
from scipy.integrate import DOP853, RK23, RK45

import simcore
import simcore.models as models
from simcore import PeriodicController, StiffnessWarning, System, simulate
from simcore.models.motors import NEO, VEX_775PRO
from simcore.dopri5 import DormandPrince
from simcore.dopri5 import stiffness_weights
from simcore.solvers import check_restart, restart_runge_kutta, stiffness_ratio


def _forced_oscillator(t, y):
    return np.array([y[1], -9.0 * y[0] - 0.2 * y[1] + math.cos(2.0 * t)])


@pytest.mark.parametrize("cls", [RK45, RK23, DOP853, DormandPrince])
def test_a_moved_runge_kutta_solver_steps_exactly_as_a_fresh_one(cls):
    # This is what the engine relies on when it carries one solver from tick to tick. A scipy
    # release that changes the fields it writes makes this fail (and the engine warns and falls
    # back to fresh solvers: check_restart).
    assert check_restart(cls) is None
    used = cls(_forced_oscillator, 0.0, np.array([1.0, 0.0]), 2.0, rtol=1e-9, atol=1e-12)
    while used.status == "running":
        used.step()
    y0, h = np.array([0.3, -1.2]), 0.0042
    restart_runge_kutta(used, 2.5, y0, 3.5, h)
    fresh = cls(_forced_oscillator, 2.5, y0, 3.5, rtol=1e-9, atol=1e-12, first_step=h)
    n = 0
    while fresh.status == "running":
        fresh.step()
        used.step()
        n += 1
        assert used.t == fresh.t and np.array_equal(used.y, fresh.y) and used.h_abs == fresh.h_abs
    assert used.status == "finished" and n > 5


@pytest.mark.parametrize("cls, lam, h", [(RK45, 1000.0, 1e-3), (RK45, 50.0, 0.02), (DOP853, 400.0, 0.01)])
def test_the_stiffness_ratio_of_a_linear_decay_is_h_lambda(cls, lam, h):
    # For y' = -lam y the two end-of-step derivatives differ by exactly -lam times the states'
    # difference: the estimate is h * lam up to rounding.
    s = cls(lambda t, y: -lam * y, 0.0, np.array([1.0, 2.0]), 1.0, first_step=h, rtol=1e3, atol=1e3)
    s.step()
    idx, w = stiffness_weights(cls)
    assert stiffness_ratio(s.K, idx, w) == pytest.approx(h * lam, rel=1e-9)


class Decay(System):
    """x' = -lam (x - cos t) - sin t, x(0) = 1: the solution is cos t whatever the stiffness lam (1/s)."""

    name = "pr"
    state_names = ("x",)
    input_names = ("lam",)

    def __init__(self, lam):
        self.lam0 = lam

    def initial_inputs(self):
        return np.array([self.lam0])

    def initial_state(self):
        return np.array([1.0])

    def derivatives(self, t, x, u):
        return np.array([-u[0] * (x[0] - math.cos(t)) - math.sin(t)])


def test_a_stiff_problem_under_the_default_method_takes_few_evaluations_and_is_accurate():
    # Under RK45 this takes about two million evaluations (bench/RESULTS.md).
    r = simulate(Decay(1e6), 1.0)
    assert r.stats["nfev"] <= 20_000
    np.testing.assert_allclose(r["pr.x"], np.cos(r.t), rtol=0, atol=1e-7)
    assert r.stats["intervals_by_method"].get("Radau", 0) >= 1


def test_auto_returns_to_rk45_when_the_stiffness_goes():
    # Stiff (1e5 /s) until a controller relaxes it to 1 /s at 0.2 s.
    pc = PeriodicController(0.01, lambda t, s: {"pr.lam": 1e5 if t < 0.2 else 1.0}, name="relax")
    sim = simcore.Simulator(Decay(1e5), [pc])
    sim.run_until(0.2)
    assert sim._integrator.current == "Radau"
    sim.run_until(1.0)
    r = sim.result()
    assert sim._integrator.current == "RK45"
    by = r.stats["intervals_by_method"]
    assert by["Radau"] >= 3 and by["RK45"] >= 70
    np.testing.assert_allclose(r["pr.x"], np.cos(r.t), rtol=0, atol=1e-7)


def _arm_with_stops():
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(2), 200.0, 1.16, 0.762, -0.5, 1.0, True, 0.0)
    state = {"i": 0.0}

    def pid(t, s):  # drives the arm onto its upper stop, then off it
        e = (1.3 if t < 1.0 else 0.2) - s["arm.angle"]
        state["i"] += 0.02 * e
        return {"arm.voltage": max(-12.0, min(12.0, 40.0 * e + 5.0 * state["i"]))}
    return arm, [PeriodicController(0.02, pid, name="pid")]


@pytest.mark.parametrize("make", [
    lambda: (models.Flywheel(NEO, 2.0, 0.01), [PeriodicController(
        0.01, lambda t, s: {"flywheel.voltage": 0.05 * (300.0 - s["flywheel.velocity"])}, name="p")]),
    _arm_with_stops,
])
def test_a_non_stiff_run_under_auto_is_bit_identical_to_rk45(make):
    systems, ctl = make()
    auto = simulate(systems, 2.0, ctl)
    systems, ctl = make()
    rk45 = simulate(systems, 2.0, ctl, method="RK45")
    assert auto.stats["intervals_by_method"] == rk45.stats["intervals_by_method"]
    np.testing.assert_array_equal(auto.t, rk45.t)
    for name in rk45.names:
        np.testing.assert_array_equal(auto[name], rk45[name])
    assert [e.t for e in auto.events] == [e.t for e in rk45.events]


def test_a_forced_explicit_method_on_a_stiff_problem_says_so_once():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(Decay(1e4), 0.05, method="RK45")
    stiff = [w for w in caught if issubclass(w.category, StiffnessWarning)]
    assert len(stiff) == 1
    assert "method='auto'" in str(stiff[0].message) and "stiff" in str(stiff[0].message)
    assert r.stats["intervals_by_method"] == {"RK45": 1}  # forced: no switch


def test_rk23s_stability_boundary_from_its_tableau_is_above_its_threshold():
    # R(z) = 1 + z b^T (I - z A)^-1 1 from scipy's RK23 tableau; |R(-x)| = 1 where its stability
    # region meets the negative real axis. Bogacki-Shampine: R = 1 + z + z^2/2 + z^3/6, root 2.5127.
    from scipy.integrate import RK23
    from scipy.optimize import brentq
    from simcore.solvers import STABILITY_BOUNDARY

    def modulus(x):
        z = -x
        return abs(1 + z * RK23.B @ np.linalg.solve(np.eye(3) - z * RK23.A, np.ones(3))) - 1.0

    boundary = brentq(modulus, 1.0, 3.0)
    assert boundary == pytest.approx(2.5127453266, abs=1e-9)
    assert 0.7 * boundary < STABILITY_BOUNDARY["RK23"] < boundary


def test_a_forced_rk23_on_a_stiff_problem_says_so_once_and_a_calm_one_does_not():
    # Review finding 5: RK23 had no stiffness estimate and so never warned.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(Decay(1e4), 0.05, method="RK23")
        calm = simulate(Decay(1.0), 2.0, method="RK23")
    stiff = [w for w in caught if issubclass(w.category, StiffnessWarning)]
    assert len(stiff) == 1 and "RK23" in str(stiff[0].message)
    assert r.stats["intervals_by_method"] == {"RK23": 1}
    np.testing.assert_allclose(r["pr.x"], np.cos(r.t), atol=1e-6)
    np.testing.assert_allclose(calm["pr.x"], np.cos(calm.t), atol=1e-6)


def test_the_scipy_internals_read_on_every_step_are_checked_and_a_change_is_caught():
    # Review finding 10: K, y_old, P (interior guard samples) and A, B, C, E (stiffness) were read
    # unchecked. A release that changed them must be caught, and the engine must then fall back.
    from scipy.integrate import DOP853, RK23, RK45
    from simcore import solvers

    assert [solvers.check_internals(c) for c in (RK45, RK23, DOP853)] == [None, None, None]

    with pytest.MonkeyPatch.context() as mp:
        # As if a release stored K or P differently: the interpolation from them no longer matches.
        weights = solvers.rk_interior_weights
        mp.setattr(solvers, "rk_interior_weights", lambda cls, fractions: 1.01 * weights(cls, fractions))
        assert "interior states" in solvers.check_internals(RK45)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DOP853, "C", DOP853.C * 0.5)
        assert "stage at the step's end" in solvers.check_internals(DOP853)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(RK23, "n_stages", 2)  # K one row short of what the tableau says
        assert solvers.check_internals(RK23) is not None
    assert [solvers.check_internals(c) for c in (RK45, RK23, DOP853)] == [None, None, None]


class _Still(System):
    """Ten states that do not move: beside a 2-state system, a simulation too large for simcore's
    own Dormand-Prince (simcore.dopri5.SMALL), so scipy's RK45 steps it."""

    name = "still"
    state_names = tuple(f"x{i}" for i in range(10))

    def initial_state(self):
        return np.zeros(10)

    def derivatives(self, t, x, u):
        return np.zeros(10)


def test_the_engine_falls_back_when_the_scipy_internals_changed(monkeypatch):
    from simcore import solvers
    from _systems import FreeFall

    monkeypatch.setattr(solvers, "check_internals", lambda cls: "a test says so")
    monkeypatch.setattr(solvers, "_internals_checked", {})
    with pytest.warns(RuntimeWarning, match=r"scipy \S+'s RK45 no longer has the internals"):
        sim = simcore.Simulator([FreeFall(1.0, 0.8), _Still()], method="RK45")
        sim.run_until(1.0)
    assert type(sim._integrator._solvers["RK45"]) is RK45
    assert sim.result().event_times("bounce")[0] == pytest.approx(math.sqrt(2 / 9.81), abs=1e-9)
    # simcore's own Dormand-Prince reads none of those internals: a small system keeps it, and its
    # stiffness detection
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(Decay(1e4), 0.05, method="RK45")
    assert [w for w in caught if issubclass(w.category, StiffnessWarning)]
    assert r.stats["intervals_by_method"] == {"RK45": 1}


def test_a_changed_rk45_tableau_falls_back_to_scipys_rk45(monkeypatch):
    from simcore import dopri5, solvers
    from _systems import FreeFall

    assert dopri5.check_tableau() is None
    monkeypatch.setattr(solvers, "check_tableau", lambda: "a test says so")
    monkeypatch.setattr(solvers, "_tableau_checked", {})
    with pytest.warns(RuntimeWarning, match=r"another tableau"):
        sim = simcore.Simulator(FreeFall(1.0, 0.8), method="RK45")
        sim.run_until(1.0)
    assert type(sim._integrator._solvers["RK45"]) is RK45
    assert sim.result().event_times("bounce")[0] == pytest.approx(math.sqrt(2 / 9.81), abs=1e-9)


def test_auto_stays_explicit_when_a_fast_loop_leaves_the_implicit_restarts_the_dearer():
    # lam = 1e4 under a 1 kHz loop: RK45's stable steps (h lam ~ 2.8) make about 4 per interval,
    # while Radau would start afresh (Jacobian, LU) at every one of the 1000 ticks (review-10 item 11
    # measured auto, then switching, at about twice RK45's CPU time). The same stiffness at 20 ms
    # ticks (70 steps an interval) still switches.
    from simcore.solvers import MIN_EXPLICIT_STEPS

    def run(period, method):
        pc = PeriodicController(period, lambda t, s: {"pr.lam": 1e4}, name="c")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StiffnessWarning)
            return simulate(Decay(1e4), 0.3, [pc], method=method)

    fast, fast_rk45 = run(0.001, "auto"), run(0.001, "RK45")
    assert fast.stats["intervals_by_method"] == {"RK45": 300}
    np.testing.assert_array_equal(fast["pr.x"], fast_rk45["pr.x"])
    np.testing.assert_allclose(fast["pr.x"], np.cos(fast.t), rtol=0, atol=1e-7)
    assert 0.001 * 1e4 / 2.5 < MIN_EXPLICIT_STEPS < 0.02 * 1e4 / 3.3  # the rule sits between the two cases
    slow = run(0.02, "auto")
    assert slow.stats["intervals_by_method"].get("Radau", 0) >= 10
    np.testing.assert_allclose(slow["pr.x"], np.cos(slow.t), rtol=0, atol=1e-7)
