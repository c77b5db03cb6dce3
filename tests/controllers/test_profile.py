"""TrapezoidProfile against analytic piecewise formulas written out by hand."""
import math

import numpy as np
import pytest

from simcore.controllers.profile import State, TrapezoidProfile
from simcore.errors import ConfigError

TOL = 1e-12


def check(profile, start, goal, analytic, times):
    for t in times:
        got = profile.calculate(t, start, goal)
        x, v = analytic(t)
        assert got.position == pytest.approx(x, abs=TOL), t
        assert got.velocity == pytest.approx(v, abs=TOL), t


def test_trapezoidal_rest_to_rest():
    # A = 2, V = 1, distance 3: accelerate 0.5 s (0.25 m), cruise 2.5 s, decelerate 0.5 s.
    A, V, D = 2.0, 1.0, 3.0

    def analytic(t):
        if t <= 0.5:
            return 0.5 * A * t * t, A * t
        if t <= 3.0:
            return 0.25 + V * (t - 0.5), V
        if t <= 3.5:
            r = 3.5 - t
            return D - 0.5 * A * r * r, A * r
        return D, 0.0

    p = TrapezoidProfile(V, A)
    check(p, State(0.0, 0.0), State(D, 0.0), analytic, np.linspace(0.0, 4.0, 161))
    assert p.total_time() == pytest.approx(3.5, abs=TOL)
    assert p.is_finished(3.5) and not p.is_finished(3.49)


def test_triangular_rest_to_rest():
    # Distance 0.2 with A = 2: peak at t_p = sqrt(0.2 / 2), v_p = 2 t_p < V = 1.
    A, V, D = 2.0, 1.0, 0.2
    tp = math.sqrt(D / A)

    def analytic(t):
        if t <= tp:
            return 0.5 * A * t * t, A * t
        if t <= 2 * tp:
            r = 2 * tp - t
            return D - 0.5 * A * r * r, A * r
        return D, 0.0

    p = TrapezoidProfile(V, A)
    check(p, State(0.0, 0.0), State(D, 0.0), analytic, np.linspace(0.0, 1.0, 101))
    assert p.total_time() == pytest.approx(2 * tp, abs=TOL)


def test_nonzero_initial_velocity_trapezoid():
    # From v0 = 0.5 to V = 1 at A = 2: 0.25 s over (1 - 0.25)/4 = 0.1875 m.
    # Decelerate 1 -> 0: 0.5 s over 0.25 m. Cruise the rest: 3 - 0.4375 m at 1 m/s.
    A, V, D, v0 = 2.0, 1.0, 3.0, 0.5
    t1, x1 = 0.25, 0.1875
    t2 = t1 + (D - 0.4375)
    t3 = t2 + 0.5

    def analytic(t):
        if t <= t1:
            return v0 * t + 0.5 * A * t * t, v0 + A * t
        if t <= t2:
            return x1 + (t - t1), V
        if t <= t3:
            r = t3 - t
            return D - 0.5 * A * r * r, A * r
        return D, 0.0

    p = TrapezoidProfile(V, A)
    check(p, State(0.0, v0), State(D, 0.0), analytic, np.linspace(0.0, 3.5, 141))
    assert p.total_time() == pytest.approx(t3, abs=TOL)


def test_nonzero_initial_and_goal_velocity_triangle():
    # x0 = 1, v0 = 0.2 to x = 1.5 arriving at 0.4, A = 1, V = 10 (never reached).
    # Peak: vp^2 = A dx + (v0^2 + vg^2)/2 = 0.5 + 0.1 = 0.6.
    A, V = 1.0, 10.0
    vp = math.sqrt(0.6)
    ta = vp - 0.2
    tb = ta + (vp - 0.4)

    def analytic(t):
        if t <= ta:
            return 1.0 + 0.2 * t + 0.5 * t * t, 0.2 + t
        if t <= tb:
            r = tb - t
            return 1.5 - (0.4 * r + 0.5 * r * r), 0.4 + r
        return 1.5, 0.4

    p = TrapezoidProfile(V, A)
    check(p, State(1.0, 0.2), State(1.5, 0.4), analytic, np.linspace(0.0, 2.0, 81))


def test_goal_behind_start_is_mirror_image():
    A, V, D = 2.0, 1.0, 3.0
    p = TrapezoidProfile(V, A)
    q = TrapezoidProfile(V, A)
    for t in np.linspace(0.0, 4.0, 81):
        back = p.calculate(t, State(0.0, 0.0), State(-D, 0.0))
        fwd = q.calculate(t, State(0.0, 0.0), State(D, 0.0))
        assert back.position == pytest.approx(-fwd.position, abs=TOL)
        assert back.velocity == pytest.approx(-fwd.velocity, abs=TOL)


def test_overshoot_turns_round():
    # x0 = 0, v0 = 1, goal 0.1 at rest, A = 1: stopping takes 1 s and 0.5 m, so the
    # profile stops at x = 0.5 (t = 1), then runs a triangle of 0.4 m back:
    # half of it (0.2 m) accelerating, peak speed sqrt(0.4), half decelerating.
    A, V = 1.0, 2.0
    tp = math.sqrt(0.4)

    def analytic(t):
        if t <= 1.0:
            return t - 0.5 * t * t, 1.0 - t
        if t <= 1.0 + tp:
            s = t - 1.0
            return 0.5 - 0.5 * s * s, -s
        if t <= 1.0 + 2 * tp:
            r = 1.0 + 2 * tp - t
            return 0.1 + 0.5 * r * r, -r
        return 0.1, 0.0

    p = TrapezoidProfile(V, A)
    check(p, State(0.0, 1.0), State(0.1, 0.0), analytic, np.linspace(0.0, 3.0, 121))
    assert p.total_time() == pytest.approx(1.0 + 2 * tp, abs=TOL)


def test_start_faster_than_limit_recovers_at_full_deceleration():
    # v0 = 3 > V = 1, A = 1: slow to 1 in 2 s covering 4 m, then cruise.
    p = TrapezoidProfile(1.0, 1.0)
    for t in (0.5, 1.0, 2.0, 3.0):
        got = p.calculate(t, State(0.0, 3.0), State(100.0, 0.0))
        if t <= 2.0:
            x, v = 3.0 * t - 0.5 * t * t, 3.0 - t
        else:
            x, v = 4.0 + (t - 2.0), 1.0
        assert got.position == pytest.approx(x, abs=TOL)
        assert got.velocity == pytest.approx(v, abs=TOL)


def test_goal_velocity_clamped_and_returned_after_end():
    p = TrapezoidProfile(1.0, 1.0)
    end = p.calculate(100.0, State(0.0, 0.0), State(5.0, 7.0))
    assert end == State(5.0, 1.0)


def test_already_at_goal():
    p = TrapezoidProfile(1.0, 1.0)
    assert p.calculate(0.3, State(2.0, 0.0), State(2.0, 0.0)) == State(2.0, 0.0)
    assert p.total_time() == 0.0


def test_replanning_each_period_follows_the_single_profile():
    # Re-planning from the previous setpoint (ProfiledPID's use) must land on the
    # same curve as evaluating one profile at the elapsed time.
    p = TrapezoidProfile(1.0, 2.0)
    goal = State(3.0, 0.0)
    setpoint = State(0.0, 0.0)
    for k in range(1, 200):
        setpoint = p.calculate(0.02, setpoint, goal)
        direct = TrapezoidProfile(1.0, 2.0).calculate(0.02 * k, State(0.0, 0.0), goal)
        assert setpoint.position == pytest.approx(direct.position, abs=1e-9)
        assert setpoint.velocity == pytest.approx(direct.velocity, abs=1e-9)


def test_time_left_until():
    p = TrapezoidProfile(1.0, 2.0)
    p.calculate(0.0, State(0.0, 0.0), State(3.0, 0.0))
    assert p.time_left_until(0.0) == 0.0
    assert p.time_left_until(0.09) == pytest.approx(0.3, abs=TOL)     # t^2 = 0.09
    assert p.time_left_until(1.0) == pytest.approx(1.25, abs=TOL)     # 0.5 + 0.75
    assert p.time_left_until(3.0) == pytest.approx(3.5, abs=TOL)
    assert p.time_left_until(4.0) == math.inf
    assert p.time_left_until(-1.0) == math.inf


def test_time_left_until_first_passage_on_overshoot():
    p = TrapezoidProfile(2.0, 1.0)
    p.calculate(0.0, State(0.0, 1.0), State(0.1, 0.0))
    # 0.375 is passed on the way out: t - t^2/2 = 0.375 -> t = 0.5.
    assert p.time_left_until(0.375) == pytest.approx(0.5, abs=TOL)


def test_time_between_does_not_touch_state():
    p = TrapezoidProfile(1.0, 2.0)
    p.calculate(0.0, State(0.0, 0.0), State(3.0, 0.0))
    assert p.time_between(State(0.0, 0.0), State(0.2, 0.0)) == pytest.approx(
        2 * math.sqrt(0.1), abs=TOL)
    assert p.total_time() == pytest.approx(3.5, abs=TOL)


@pytest.mark.parametrize("v, a", [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (math.inf, 1.0),
                                  (1.0, math.nan)])
def test_bad_constraints(v, a):
    with pytest.raises(ConfigError):
        TrapezoidProfile(v, a)


def test_bad_time_and_states():
    p = TrapezoidProfile(1.0, 1.0)
    with pytest.raises(ConfigError):
        p.calculate(-0.1, State(), State(1.0, 0.0))
    with pytest.raises(ConfigError):
        p.calculate(0.1, State(math.nan, 0.0), State(1.0, 0.0))


def test_exact_tie_is_a_single_acceleration():
    # From rest, accelerating at 2 to 1 m/s covers exactly 0.25 m in 0.5 s.
    p = TrapezoidProfile(1.0, 2.0)
    mid = p.calculate(0.25, State(0.0, 0.0), State(0.25, 1.0))
    assert p.total_time() == pytest.approx(0.5, abs=TOL)
    assert mid.position == pytest.approx(0.0625, abs=TOL)
    assert mid.velocity == pytest.approx(0.5, abs=TOL)


def test_random_profiles_are_continuous_bounded_and_end_at_goal():
    # For random start/goal pairs: the state is continuous in t, |a| <= A,
    # |v| <= max(V, |v0|), and the state at the end equals the (clamped) goal.
    rng = np.random.default_rng(7)
    V, A = 1.5, 2.5
    for _ in range(300):
        x0, xg = rng.uniform(-3, 3, 2)
        v0 = rng.uniform(-2.5, 2.5)
        vg = rng.uniform(-1.5, 1.5)
        p = TrapezoidProfile(V, A)
        p.calculate(0.0, State(x0, v0), State(xg, vg))
        total = p.total_time()
        ts = np.linspace(0.0, total, 400)
        states = [p.calculate(t, State(x0, v0), State(xg, vg)) for t in ts]
        pos = np.array([s.position for s in states])
        vel = np.array([s.velocity for s in states])
        dt = ts[1] - ts[0]
        assert np.all(np.abs(np.diff(vel)) <= A * dt * (1 + 1e-9) + 1e-12)
        assert np.all(np.abs(np.diff(pos)) <= max(V, abs(v0)) * dt * (1 + 1e-9) + 1e-12)
        assert np.all(np.abs(vel) <= max(V, abs(v0)) + 1e-12)
        assert pos[-1] == pytest.approx(xg, abs=1e-9)
        assert vel[-1] == pytest.approx(vg, abs=1e-9)


@pytest.mark.parametrize("bad", [None, "1", float("nan"), math.inf, 1j, True, -1.0, 0.0])
def test_constraints_refuse_what_is_not_a_positive_finite_limit(bad):
    from simcore.controllers.profile import Constraints

    for args, parameter in (((bad, 1.0), "max_velocity"), ((1.0, bad), "max_acceleration")):
        with pytest.raises(ConfigError, match=rf"^{parameter}="):
            Constraints(*args)
    with pytest.raises(ConfigError, match="max_velocity"):
        Constraints(1.0, 2.0)._replace(max_velocity=bad)


def test_constraints_convert_quantities_and_refuse_the_wrong_dimension():
    from simcore import Q_
    from simcore.controllers.profile import Constraints

    assert Constraints(Q_(500, "mm/s"), Q_(180, "deg/s**2")) == (0.5, math.pi)
    with pytest.raises(ConfigError, match="max_velocity"):
        Constraints(Q_(1, "m"), 1.0)


def test_a_scalar_quantity_or_0d_array_is_a_position_goal_or_a_clear_error_where_a_state_is_needed():
    from simcore import Q_
    from simcore.controllers import ProfiledPIDController

    c = ProfiledPIDController(1, 0, 0, 1, 2)
    c.calculate(0.0, Q_(1, "m"))
    assert c.goal == State(1.0, 0.0)
    c.calculate(0.0, np.array(250.0))
    assert c.goal == State(250.0, 0.0)
    p = TrapezoidProfile(1.0, 2.0)
    for current in (Q_(1, "m"), np.array(1.0)):
        with pytest.raises(ConfigError, match=r"^initial_state="):
            p.calculate(0.1, current, State(2.0, 0.0))
    with pytest.raises(ConfigError, match=r"^initial_state="):
        p.calculate(0.1, {0.0, 1.0}, State(2.0, 0.0))  # a set has no order
