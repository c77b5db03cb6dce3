"""WPILib's ``TrapezoidProfile`` in kernel form: the plan, its evaluation (``calculate``) and the first passage
of a position (``time_left_until``).

The contract (the minimum-time motion under ``|v| <= max_velocity`` and ``|a| <= max_acceleration``, WPILib's
corrected phase-space form: the recovery from a start beyond the velocity limit, the direction by the goal's
side of the direct velocity change, ties by the goal velocity's sign, the goal velocity clamped) is
:mod:`simcore.controllers.profile`'s, whose :class:`~simcore.controllers.TrapezoidProfile` keeps its numbers
in the two vectors these functions work on, so that robot code calling it, a run whose loops tick in the
kernel and a batch share one implementation:

* parameters ``p`` from offset ``po`` (``Q_*``): the velocity limit (m/s or rad/s) and the acceleration
  limit (m/s^2 or rad/s^2);
* state ``s`` from offset ``so`` (``Z_*``): the last plan: its start (position, velocity), its goal with the
  velocity clamped, how many constant-acceleration segments it has (0 before any plan; 3, or 4 with a
  recovery first) and each segment's duration (s) and acceleration, from ``Z_SEGMENTS`` in pairs.

A batch of profiles (one per variant) is a matrix of parameter rows and one of state rows; the ``*_each``
functions run the scalar functions row by row, so each variant gets the arithmetic a single profile gets,
to the bit.
"""
from __future__ import annotations

import math

from .jit import jit

__all__ = ["Q_MAX_VELOCITY", "Q_MAX_ACCELERATION", "N_PROFILE_PARAMETERS", "Z_START_POSITION",
           "Z_START_VELOCITY", "Z_GOAL_POSITION", "Z_GOAL_VELOCITY", "Z_N_SEGMENTS", "Z_SEGMENTS", "MAX_SEGMENTS",
           "N_PROFILE_STATE", "TIE", "plan", "calculate", "time_left_until", "calculate_each"]

Q_MAX_VELOCITY, Q_MAX_ACCELERATION = range(2)
N_PROFILE_PARAMETERS = 2
Z_START_POSITION, Z_START_VELOCITY, Z_GOAL_POSITION, Z_GOAL_VELOCITY, Z_N_SEGMENTS, Z_SEGMENTS = range(6)
MAX_SEGMENTS = 4  # recovery, accelerate, cruise, decelerate
N_PROFILE_STATE = Z_SEGMENTS + 2 * MAX_SEGMENTS
# Ties between "goal beyond" and "goal short of" the direct velocity change are decided by the goal
# velocity's sign below this distance (m or rad), like WPILib.
TIE = 1e-12


@jit(internal=True)
def _at_least_zero(x):
    """``max(x, 0.0)`` as Python evaluates it: ``x`` unless 0 is greater (so -0.0 and NaN stay)."""
    return 0.0 if 0.0 > x else x


@jit(internal=True)
def _advance(position, velocity, time, acceleration):
    """The state after ``time`` s at constant ``acceleration``."""
    return (position + velocity * time + 0.5 * acceleration * time * time,
            velocity + acceleration * time)


@jit(internal=True)
def _segment(s, so, k, duration, acceleration):
    s[so + Z_SEGMENTS + 2 * k] = duration
    s[so + Z_SEGMENTS + 2 * k + 1] = acceleration


@jit
def plan(p, po, s, so, start_position, start_velocity, goal_position, goal_velocity):
    """Plan the motion from the start to the goal into ``s``: the start, the goal with its velocity clamped to
    the limit, and the segments ``[recovery: -sign(v0) A] -> s A -> 0 at s V (or none) -> -s A``."""
    vmax, amax = p[po + Q_MAX_VELOCITY], p[po + Q_MAX_ACCELERATION]
    vg = goal_velocity if goal_velocity < vmax else vmax
    vg = vg if vg > -vmax else -vmax
    s[so + Z_START_POSITION] = start_position
    s[so + Z_START_VELOCITY] = start_velocity
    s[so + Z_GOAL_POSITION] = goal_position
    s[so + Z_GOAL_VELOCITY] = vg
    x0, v0 = start_position, start_velocity
    k = 0
    if abs(v0) > vmax:  # too fast: slow down to the limit at full deceleration first
        t_rec = (abs(v0) - vmax) / amax
        a_rec = -math.copysign(amax, v0)
        _segment(s, so, 0, t_rec, a_rec)
        k = 1
        x0 = _advance(x0, v0, t_rec, a_rec)[0]
        v0 = math.copysign(vmax, v0)
    dx = goal_position - x0
    # The displacement of going straight from v0 to vg at full acceleration; the goal beyond it means the
    # first leg accelerates forward (s = +1).
    direct = abs(vg - v0) * (vg + v0) / (2.0 * amax)
    if abs(dx - direct) < TIE:
        sign = math.copysign(1.0, vg)
    else:
        sign = 1.0 if dx > direct else -1.0
    a = sign * amax
    # The triangular profile's peak velocity: v_p^2 - v0^2 = 2 a x1 and v_p^2 - vg^2 = 2 a x3, x1 + x3 = dx.
    peak = sign * math.sqrt(_at_least_zero(a * dx + (vg * vg + v0 * v0) / 2.0))
    if abs(peak) > vmax:
        v_lim = sign * vmax
        t1 = (v_lim - v0) / a
        t3 = (v_lim - vg) / a
        x1 = (v_lim * v_lim - v0 * v0) / (2.0 * a)
        x3 = (v_lim * v_lim - vg * vg) / (2.0 * a)
        t2 = (dx - x1 - x3) / v_lim
    else:
        t1 = (peak - v0) / a
        t2 = 0.0
        t3 = (peak - vg) / a
    # The algebra makes the durations non-negative; the clamp removes rounding noise only.
    _segment(s, so, k, _at_least_zero(t1), a)
    _segment(s, so, k + 1, _at_least_zero(t2), 0.0)
    _segment(s, so, k + 2, _at_least_zero(t3), -a)
    s[so + Z_N_SEGMENTS] = k + 3


@jit
def calculate(p, po, s, so, t, start_position, start_velocity, goal_position, goal_velocity):
    """``calculate(t, start, goal)``: plan into ``s`` (:func:`plan`) and return ``(position, velocity)`` at
    ``t`` s after the start; the clamped goal once ``t`` is past the last segment."""
    plan(p, po, s, so, start_position, start_velocity, goal_position, goal_velocity)
    position, velocity = start_position, start_velocity
    remaining = t
    for k in range(int(s[so + Z_N_SEGMENTS])):
        duration = s[so + Z_SEGMENTS + 2 * k]
        acceleration = s[so + Z_SEGMENTS + 2 * k + 1]
        if remaining <= duration:
            return _advance(position, velocity, remaining, acceleration)
        position, velocity = _advance(position, velocity, duration, acceleration)
        remaining -= duration
    return s[so + Z_GOAL_POSITION], s[so + Z_GOAL_VELOCITY]


@jit(internal=True)
def _first_crossing(offset, velocity, acceleration, duration):
    """The smallest ``tau`` in ``[0, duration]`` (give or take 1e-12 relative) with ``offset + v tau + a tau^2
    / 2 == 0``, or NaN. A tangency lost to rounding (a slightly negative discriminant) still counts."""
    if offset == 0.0:
        return 0.0
    if acceleration == 0.0:
        if velocity == 0.0:
            return math.nan
        first = second = -offset / velocity
    else:
        disc = velocity * velocity - 2.0 * acceleration * offset
        if disc < 0.0:
            if disc > -1e-12 * max(1.0, velocity * velocity):
                disc = 0.0
            else:
                return math.nan
        root = math.sqrt(disc)
        first = (-velocity - root) / acceleration
        second = (-velocity + root) / acceleration
    slack = 1e-12 * max(1.0, duration)
    hit = math.nan
    if -slack <= first <= duration + slack:
        hit = first
    if -slack <= second <= duration + slack and not second >= hit:  # the earlier root (NaN: none yet)
        hit = second
    if hit != hit:
        return math.nan
    return hit if hit > 0.0 else 0.0  # max(0.0, hit) as Python evaluates it: a root just before 0 is 0


@jit
def time_left_until(s, so, target):
    """The earliest time (s from the start of the plan in ``s``) at which its position is ``target``,
    segment by segment; NaN when no segment reaches it (then the caller decides: the goal reached at the end,
    an empty plan starting there, or never)."""
    position, velocity = s[so + Z_START_POSITION], s[so + Z_START_VELOCITY]
    elapsed = 0.0
    for k in range(int(s[so + Z_N_SEGMENTS])):
        duration = s[so + Z_SEGMENTS + 2 * k]
        acceleration = s[so + Z_SEGMENTS + 2 * k + 1]
        tau = _first_crossing(position - target, velocity, acceleration, duration)
        if tau == tau:
            return elapsed + tau
        position, velocity = _advance(position, velocity, duration, acceleration)
        elapsed += duration
    return math.nan


@jit
def calculate_each(P, S, T, X0, V0, XG, VG, positions, velocities):
    """:func:`calculate` of each profile: rows ``i`` of ``P`` and ``S`` at time ``T[i]`` from ``(X0[i],
    V0[i])`` to ``(XG[i], VG[i])``, into ``positions[i]`` and ``velocities[i]``."""
    for i in range(P.shape[0]):
        positions[i], velocities[i] = calculate(P[i], 0, S[i], 0, T[i], X0[i], V0[i], XG[i], VG[i])
