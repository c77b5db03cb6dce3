"""TrapezoidProfile runs simcore.kernel.profile's law: on random limits and distances its states equal the
analytic rest-to-rest trapezoid (or triangle) written from the kinematics; on random starts and goals its
motion keeps the limits, is continuous and ends at the (clamped) goal at ``total_time``; ``time_left_until``
inverts it; rows run by ``calculate_each`` equal single profiles to the bit; the kernel reads a profile's
vectors at offsets. CI runs this file with NUMBA_DISABLE_JIT=1 too.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from simcore.controllers import State, TrapezoidProfile


def rest_to_rest(vmax, amax, distance, t):
    """The minimum-time rest-to-rest motion over ``distance`` (either sign) at time ``t``, from the kinematics:
    accelerate at ``amax`` to the peak ``min(vmax, sqrt(amax |d|))``, cruise, decelerate symmetrically."""
    sign, d = math.copysign(1.0, distance), abs(distance)
    peak = min(vmax, math.sqrt(amax * d))
    ramp = peak / amax
    cruise = (d - peak * ramp) / peak if d > 0 else 0.0
    total = 2 * ramp + cruise
    if t <= ramp:
        x, v = 0.5 * amax * t * t, amax * t
    elif t <= ramp + cruise:
        x, v = 0.5 * peak * ramp + peak * (t - ramp), peak
    elif t <= total:
        r = total - t
        x, v = d - 0.5 * amax * r * r, amax * r
    else:
        x, v = d, 0.0
    return sign * x, sign * v, total


@pytest.mark.parametrize("seed", range(6))
def test_rest_to_rest_equals_the_analytic_trapezoid(seed):
    rng = random.Random(seed)
    for _ in range(40):
        vmax, amax = rng.uniform(0.1, 5.0), rng.uniform(0.1, 10.0)
        start, distance = rng.uniform(-5, 5), rng.choice([rng.uniform(-10, 10), rng.uniform(-0.05, 0.05)])
        profile = TrapezoidProfile(vmax, amax)
        for t in [0.0] + sorted(rng.uniform(0.0, 12.0) for _ in range(20)):
            got = profile.calculate(t, State(start, 0.0), State(start + distance, 0.0))
            x, v, total = rest_to_rest(vmax, amax, distance, t)
            assert got.position == pytest.approx(start + x, abs=1e-9)
            assert got.velocity == pytest.approx(v, abs=1e-9)
            assert profile.total_time() == pytest.approx(total, rel=1e-9, abs=1e-12)


def _random_case(rng):
    vmax, amax = rng.uniform(0.2, 4.0), rng.uniform(0.2, 8.0)
    start = State(rng.uniform(-5, 5), rng.choice([0.0, rng.uniform(-vmax, vmax), rng.uniform(-3 * vmax, 3 * vmax)]))
    goal = State(rng.uniform(-5, 5), rng.choice([0.0, rng.uniform(-vmax, vmax), rng.uniform(-2 * vmax, 2 * vmax)]))
    return vmax, amax, start, goal


def _planned(rng):
    """A random case planned: ``(vmax, amax, start, goal, profile, total_time)``."""
    vmax, amax, start, goal = _random_case(rng)
    profile = TrapezoidProfile(vmax, amax)
    profile.calculate(0.0, start, goal)
    return vmax, amax, start, goal, profile, profile.total_time()


@pytest.mark.parametrize("seed", range(6))
def test_random_motions_keep_the_limits_stay_continuous_and_end_at_the_clamped_goal(seed):
    rng = random.Random(50 + seed)
    for _ in range(25):
        vmax, amax, start, goal, profile, total = _planned(rng)
        dt = total / 400 if total > 0 else 1e-3
        states = [profile.calculate(k * dt, start, goal) for k in range(401)]
        x = np.array([s.position for s in states])
        v = np.array([s.velocity for s in states])
        assert x[0] == start.position and v[0] == start.velocity
        clamped = max(-vmax, min(vmax, goal.velocity))
        assert x[-1] == pytest.approx(goal.position, abs=1e-9) and v[-1] == pytest.approx(clamped, abs=1e-9)
        after = profile.calculate(total + 1.0, start, goal)
        assert (after.position, after.velocity) == (goal.position, clamped)
        # |a| <= amax between samples; position the integral of velocity (the trapezoid rule is exact up to
        # the jerk at segment joints, bounded by amax dt^2 per step)
        assert np.all(np.abs(np.diff(v)) <= amax * dt * (1 + 1e-9) + 1e-12)
        assert np.all(np.abs(np.diff(x) - 0.5 * (v[1:] + v[:-1]) * dt) <= amax * dt * dt + 1e-12)
        # the speed is above the limit only while a start beyond it slows down (never rising there)
        over = np.abs(v) > vmax * (1 + 1e-12)
        if over.any():
            assert abs(start.velocity) > vmax and np.all(np.diff(np.abs(v[:np.flatnonzero(over)[-1] + 1])) <= 0)


@pytest.mark.parametrize("seed", range(4))
def test_time_left_until_is_the_first_time_the_profile_is_at_the_target(seed):
    rng = random.Random(90 + seed)
    for _ in range(40):
        vmax, amax, start, goal, profile, total = _planned(rng)
        target = rng.choice([goal.position, start.position + rng.uniform(0, 1) * (goal.position - start.position)])
        tau = profile.time_left_until(target)
        assert 0.0 <= tau <= total + 1e-9
        assert profile.calculate(tau, start, goal).position == pytest.approx(target, abs=1e-7)
        grid = np.linspace(0.0, tau, 200)[:-1]  # never there before (beyond rounding at the target itself)
        positions = np.array([profile.calculate(t, start, goal).position for t in grid]) - target
        side = np.sign(start.position - target)
        assert side == 0.0 or np.all(positions * side > -1e-9)
    assert TrapezoidProfile(1.0, 1.0).calculate(0.0, (0.0, 0.0), (1.0, 0.0)) == State(0.0, 0.0)
    far = TrapezoidProfile(1.0, 1.0)
    far.calculate(0.0, (0.0, 0.0), (1.0, 0.0))
    assert far.time_left_until(2.0) == math.inf and far.time_left_until(0.0) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_rows_run_row_by_row_equal_single_profiles_to_the_bit(seed):
    from simcore.kernel import profile as k

    rng = random.Random(130 + seed)
    cases = [_random_case(rng) for _ in range(12)]
    times = np.array([rng.choice([0.0, 0.02, rng.uniform(0, 6)]) for _ in cases])
    P = np.array([[vmax, amax] for vmax, amax, _, _ in cases])
    S = np.zeros((len(cases), k.N_PROFILE_STATE))
    columns = [np.array(c) for c in zip(*[(*start, *goal) for _, _, start, goal in cases])]
    positions, velocities = np.empty(len(cases)), np.empty(len(cases))
    k.calculate_each(P, S, times, *columns, positions, velocities)
    for i, (vmax, amax, start, goal) in enumerate(cases):
        single = TrapezoidProfile(vmax, amax)
        state = single.calculate(float(times[i]), start, goal)
        assert np.array([state.position, state.velocity]).tobytes() == np.array([positions[i], velocities[i]]).tobytes()
        assert single.kernel_vectors()[1].tobytes() == S[i].tobytes()


def test_the_kernel_reads_a_profiles_vectors_at_offsets():
    from simcore.kernel import profile as k

    profile = TrapezoidProfile(1.0, 2.0)
    expected = profile.calculate(0.25, State(0.0, 0.0), State(3.0, 0.0))
    assert expected == State(0.0625, 0.5)  # WPILib's example: 0.25 s at 2 m/s^2 from rest
    p = np.full(4 + k.N_PROFILE_PARAMETERS, np.nan)
    s = np.full(2 + k.N_PROFILE_STATE + 3, np.nan)
    p[4:] = profile.kernel_vectors()[0]
    assert k.calculate(p, 4, s, 2, 0.25, 0.0, 0.0, 3.0, 0.0) == (expected.position, expected.velocity)
    used = k.Z_SEGMENTS + 2 * 3  # no recovery: three segments; the fourth's slots are not written
    assert s[2:2 + used].tobytes() == profile.kernel_vectors()[1][:used].tobytes()
    assert np.isnan(s[:2]).all() and np.isnan(s[2 + used:]).all()
    assert k.time_left_until(s, 2, 3.0) == pytest.approx(3.5) and profile.time_left_until(3.0) == pytest.approx(3.5)
