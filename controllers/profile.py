"""Trapezoidal motion profile (bounded velocity and acceleration), WPILib semantics.

:class:`TrapezoidProfile` returns the state at time ``t`` of the *minimum-time*
motion from a current state to a goal state when the velocity magnitude is bounded
by ``max_velocity`` and the acceleration magnitude by ``max_acceleration``. It
follows WPILib's ``TrapezoidProfile`` in its corrected "phase-space" form (allwpilib
PR #8556, 2027 branch ``org/wpilib/math/trajectory/TrapezoidProfile.java``), which
agrees with the 2025/2026 release (``edu/wpi/first/math/trajectory``) wherever that
release is right -- the goal reachable without overshoot and ``|v0| <= max_velocity``
-- and also handles the cases it got wrong:

* a start too fast to stop before the goal (the profile passes the goal, turns
  round and comes back), and goals behind the start (the direction flip);
* a start faster than ``max_velocity``: it first slows to the limit at full
  acceleration (the "recovery" phase) instead of jumping to it;
* a goal velocity beyond the limit is clamped to the limit.

The motion is a sequence of constant-acceleration segments::

    [recovery: a = -sign(v0) * A]  ->  accelerate: a = s * A
        ->  cruise: a = 0 at s * V (omitted if triangular)  ->  decelerate: a = -s * A

where ``s = +1`` when the goal lies beyond the point reached by changing velocity
straight from ``v0`` to ``v_goal`` at full acceleration, ``-1`` when it lies short
of it (exact ties take the sign of the goal velocity, as WPILib does). For
``t >= total_time()`` the profile returns the (clamped) goal.

The intended use, as in WPILib, is either to evaluate one profile at the time since
it started, or to re-plan every period from the previous setpoint
(``setpoint = profile.calculate(period, setpoint, goal)``), which is what
:class:`simcore.controllers.profiled_pid.ProfiledPIDController` does.
"""
from __future__ import annotations

__all__ = ["State", "Constraints", "TrapezoidProfile"]

import math
from dataclasses import dataclass
from typing import NamedTuple

from simcore import checks
from simcore.errors import ConfigError

# Ties between "goal beyond" and "goal short of" the direct velocity change are
# decided by the goal velocity's sign below this distance (m or rad), like WPILib.
_TIE = 1e-12


def _m_or_rad(parameter: str, value, per: str = ""):
    """A profile coordinate: a plain number, or a Quantity of length (to m) or angle (to rad)."""
    if hasattr(value, "dimensionality") and value.dimensionality and "[length]" in value.dimensionality:
        return checks.finite(parameter, value, "m" + per)
    return checks.number(parameter, value, "rad" + per,
                         expected=f"a number in m{per} or rad{per}")


@dataclass(frozen=True)
class State:
    """A point of a motion profile.

    Parameters
    ----------
    position : float or Quantity
        Position (m, or rad for a rotary mechanism).
    velocity : float or Quantity
        Velocity (m/s, or rad/s).

    Raises
    ------
    ConfigError
        A value is not a finite number (or a Quantity of length or angle).
    """

    position: float = 0.0
    velocity: float = 0.0

    def __post_init__(self):
        # Frozen: the checked, converted values are written past the dataclass's guard.
        object.__setattr__(self, "position", _m_or_rad("position", self.position))
        object.__setattr__(self, "velocity", _m_or_rad("velocity", self.velocity, "/s"))

    def __iter__(self):
        # Lets ``position, velocity = state`` work.
        yield self.position
        yield self.velocity


class Constraints(NamedTuple):
    """Profile limits: ``max_velocity`` (m/s or rad/s), ``max_acceleration`` (m/s^2 or rad/s^2)."""

    max_velocity: float
    max_acceleration: float


def _state(name: str, value) -> State:
    """Accept a State or a ``(position, velocity)`` pair; check both are finite."""
    if isinstance(value, State):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ConfigError(name, value, "a State or a (position, velocity) pair")
    items = tuple(value)
    if len(items) != 2:
        raise ConfigError(name, value, "a State or a (position, velocity) pair")
    return State(_m_or_rad(f"{name}.position", items[0]), _m_or_rad(f"{name}.velocity", items[1], "/s"))


def _advance(position: float, velocity: float, time: float, acceleration: float):
    """State after ``time`` s at constant ``acceleration``."""
    return (position + velocity * time + 0.5 * acceleration * time * time,
            velocity + acceleration * time)


class TrapezoidProfile:
    """Minimum-time motion with bounded velocity and acceleration.

    Parameters
    ----------
    max_velocity : float
        Largest speed, m/s (or rad/s). Positive.
    max_acceleration : float
        Largest acceleration magnitude, m/s^2 (or rad/s^2). Positive.

    Raises
    ------
    ConfigError
        A limit is not a positive finite number.

    Examples
    --------
    >>> p = TrapezoidProfile(1.0, 2.0)
    >>> p.calculate(0.25, State(0.0, 0.0), State(3.0, 0.0))
    State(position=0.0625, velocity=0.5)
    >>> p.total_time()
    3.5
    """

    def __init__(self, max_velocity: float, max_acceleration: float):
        self._vmax = checks.positive("max_velocity", _m_or_rad("max_velocity", max_velocity, "/s"))
        self._amax = checks.positive("max_acceleration", _m_or_rad("max_acceleration", max_acceleration, "/s**2"))
        self._start = State()
        self._goal = State()
        self._segments: list[tuple[float, float]] = []

    @property
    def constraints(self) -> Constraints:
        """The limits this profile was built with."""
        return Constraints(self._vmax, self._amax)

    @property
    def max_velocity(self) -> float:
        """Largest speed, m/s (or rad/s)."""
        return self._vmax

    @property
    def max_acceleration(self) -> float:
        """Largest acceleration magnitude, m/s^2 (or rad/s^2)."""
        return self._amax

    # ------------------------------------------------------------------ API
    def calculate(self, t: float, initial_state, goal_state) -> State:
        """State of the profile ``t`` seconds after ``initial_state``, heading for ``goal_state``.

        The plan is kept for :meth:`total_time` and :meth:`time_left_until`.

        Parameters
        ----------
        t : float
            Time since the profile starts at ``initial_state``, s. Non-negative.
        initial_state : State or (float, float)
            The starting position and velocity (m, m/s or rad, rad/s).
        goal_state : State or (float, float)
            The final position and velocity; a velocity beyond ``max_velocity`` is
            clamped to it.

        Returns
        -------
        State
            Position and velocity at time ``t``; the (clamped) goal once ``t >=
            total_time()``.
        """
        t = checks.nonnegative("t", t, "s", what="time")
        start = _state("initial_state", initial_state)
        self._start = start
        self._goal, self._segments = self._plan(start, _state("goal_state", goal_state))
        return self._evaluate(t)

    def total_time(self) -> float:
        """Duration of the last planned profile, s (0 before any :meth:`calculate`)."""
        return math.fsum(d for d, _ in self._segments)

    duration = total_time

    def is_finished(self, t: float) -> bool:
        """True when ``t`` (s since the start) is at or past :meth:`total_time`."""
        return t >= self.total_time()

    def time_left_until(self, target: float) -> float:
        """Time from the start of the last planned profile until it reaches ``target``.

        Parameters
        ----------
        target : float
            A position (m or rad).

        Returns
        -------
        float
            The earliest time, s, at which the profile's position equals ``target``
            (0 if it starts there); ``math.inf`` if the profile never gets there.

        Notes
        -----
        WPILib 2025's ``timeLeftUntil(target)`` computes the same quantity for
        profiles it handles correctly; here the planned segments are inverted
        exactly, so positions the profile passes twice (a turn-round) give the first
        passage.
        """
        target = _m_or_rad("target", target)
        position, velocity = self._start.position, self._start.velocity
        elapsed = 0.0
        for duration, acceleration in self._segments:
            tau = _first_crossing(position - target, velocity, acceleration, duration)
            if tau is not None:
                return elapsed + tau
            position, velocity = _advance(position, velocity, duration, acceleration)
            elapsed += duration
        if not self._segments and self._start.position == target:
            return 0.0
        return self.total_time() if self._goal.position == target else math.inf

    def time_between(self, current, goal) -> float:
        """Duration, s, of the profile from ``current`` to ``goal`` (nothing is stored).

        This is WPILib 2027's two-state ``timeLeftUntil(current, goal)``.
        """
        _, segments = self._plan(_state("current", current), _state("goal", goal))
        return math.fsum(d for d, _ in segments)

    # -------------------------------------------------------------- private
    def _plan(self, start: State, goal: State):
        """Return the clamped goal and the ``(duration, acceleration)`` segments."""
        vmax, amax = self._vmax, self._amax
        goal = State(goal.position, max(-vmax, min(vmax, goal.velocity)))
        segments = []
        x0, v0 = start.position, start.velocity

        # Too fast: slow down to the limit at full deceleration first.
        if abs(v0) > vmax:
            t_rec = (abs(v0) - vmax) / amax
            a_rec = -math.copysign(amax, v0)
            segments.append((t_rec, a_rec))
            x0, _ = _advance(x0, v0, t_rec, a_rec)
            v0 = math.copysign(vmax, v0)

        vg = goal.velocity
        dx = goal.position - x0
        # Displacement of going straight from v0 to vg at full acceleration; the
        # goal beyond it means the first leg accelerates forward (s = +1).
        direct = abs(vg - v0) * (vg + v0) / (2.0 * amax)
        if abs(dx - direct) < _TIE:
            s = math.copysign(1.0, vg)
        else:
            s = 1.0 if dx > direct else -1.0
        a = s * amax

        # Peak velocity of the two-leg (triangular) profile: from
        # v_p^2 - v0^2 = 2 a x1 and v_p^2 - vg^2 = 2 a x3 with x1 + x3 = dx.
        peak = s * math.sqrt(max(a * dx + (vg * vg + v0 * v0) / 2.0, 0.0))
        if abs(peak) > vmax:
            v_lim = s * vmax
            t1 = (v_lim - v0) / a
            t3 = (v_lim - vg) / a
            x1 = (v_lim * v_lim - v0 * v0) / (2.0 * a)
            x3 = (v_lim * v_lim - vg * vg) / (2.0 * a)
            t2 = (dx - x1 - x3) / v_lim
        else:
            t1 = (peak - v0) / a
            t2 = 0.0
            t3 = (peak - vg) / a
        # The algebra makes these non-negative; max() only removes rounding noise.
        segments += [(max(t1, 0.0), a), (max(t2, 0.0), 0.0), (max(t3, 0.0), -a)]
        return goal, segments

    def _evaluate(self, t: float) -> State:
        position, velocity = self._start.position, self._start.velocity
        remaining = t
        for duration, acceleration in self._segments:
            if remaining <= duration:
                return State(*_advance(position, velocity, remaining, acceleration))
            position, velocity = _advance(position, velocity, duration, acceleration)
            remaining -= duration
        return self._goal


def _first_crossing(offset: float, velocity: float, acceleration: float,
                    duration: float):
    """Smallest tau in [0, duration] with offset + v tau + a tau^2 / 2 == 0, or None."""
    slack = 1e-12 * max(1.0, duration)
    if offset == 0.0:
        return 0.0
    if acceleration == 0.0:
        if velocity == 0.0:
            return None
        roots = [-offset / velocity]
    else:
        disc = velocity * velocity - 2.0 * acceleration * offset
        if disc < 0.0:
            # A tangency lost to rounding still counts as reaching the target.
            if disc > -1e-12 * max(1.0, velocity * velocity):
                disc = 0.0
            else:
                return None
        root = math.sqrt(disc)
        roots = [(-velocity - root) / acceleration, (-velocity + root) / acceleration]
    hits = [r for r in roots if -slack <= r <= duration + slack]
    return max(0.0, min(hits)) if hits else None
