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

The plan, its evaluation and the first passage of a position are written once, in
:mod:`simcore.kernel.profile` (compiled by numba, loaded when the first profile is made:
``import simcore`` loads no numba); a profile keeps its limits and its last plan in that
module's two vectors (:meth:`TrapezoidProfile.kernel_vectors`).
"""
from __future__ import annotations

__all__ = ["State", "Constraints", "TrapezoidProfile"]

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcore import checks


def _kernel():
    """:mod:`simcore.kernel.profile`, imported at first use (``import simcore`` loads no numba)."""
    global _profile_kernel
    if _profile_kernel is None:
        from simcore.kernel import profile
        _profile_kernel = profile
    return _profile_kernel


_profile_kernel = None


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


class _ConstraintsFields(NamedTuple):
    max_velocity: float
    max_acceleration: float


class Constraints(_ConstraintsFields):
    """Profile limits: ``max_velocity`` (m/s or rad/s), ``max_acceleration`` (m/s^2 or rad/s^2).

    Raises
    ------
    ConfigError
        A limit is not a positive finite number (or a Quantity of that dimension).
    """

    __slots__ = ()

    def __new__(cls, max_velocity: float, max_acceleration: float):
        return tuple.__new__(cls, (_limit("max_velocity", max_velocity, "/s"),
                                   _limit("max_acceleration", max_acceleration, "/s**2")))

    @classmethod
    def _make(cls, iterable):
        # namedtuple's _make (and so _replace) would skip the checks.
        return cls(*iterable)


def _limit(parameter: str, value, per: str) -> float:
    return checks.positive(parameter, _m_or_rad(parameter, value, per))


def _state(name: str, value) -> State:
    """Accept a State or a ``(position, velocity)`` pair; check both are finite."""
    if isinstance(value, State):
        return value
    items = checks.unpack(name, value, 2, "a State or a (position, velocity) pair")
    return State(_m_or_rad(f"{name}.position", items[0]), _m_or_rad(f"{name}.velocity", items[1], "/s"))


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
        k = _kernel()
        # The limits and the last plan, in simcore.kernel.profile's two vectors.
        self._p = np.array(Constraints(max_velocity, max_acceleration), dtype=float)
        self._s = np.zeros(k.N_PROFILE_STATE)

    def kernel_vectors(self):
        """The profile's own parameter and state vectors, shapes ``(N_PROFILE_PARAMETERS,)`` and
        ``(N_PROFILE_STATE,)`` laid out as :mod:`simcore.kernel.profile` says (the storage, not copies)."""
        return self._p, self._s

    @property
    def constraints(self) -> Constraints:
        """The limits this profile was built with."""
        return Constraints(self.max_velocity, self.max_acceleration)

    @property
    def max_velocity(self) -> float:
        """Largest speed, m/s (or rad/s)."""
        return float(self._p[_kernel().Q_MAX_VELOCITY])

    @property
    def max_acceleration(self) -> float:
        """Largest acceleration magnitude, m/s^2 (or rad/s^2)."""
        return float(self._p[_kernel().Q_MAX_ACCELERATION])

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
        goal = _state("goal_state", goal_state)
        kernel = _profile_kernel or _kernel()
        return State(*kernel.calculate(self._p, 0, self._s, 0, t, start.position, start.velocity,
                                       goal.position, goal.velocity))

    def total_time(self) -> float:
        """Duration of the last planned profile, s (0 before any :meth:`calculate`)."""
        return _duration(self._s)

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
        k = _kernel()
        tau = k.time_left_until(self._s, 0, target)
        if tau == tau:
            return float(tau)
        if self._s[k.Z_N_SEGMENTS] == 0.0 and self._s[k.Z_START_POSITION] == target:
            return 0.0
        return self.total_time() if self._s[k.Z_GOAL_POSITION] == target else math.inf

    def time_between(self, current, goal) -> float:
        """Duration, s, of the profile from ``current`` to ``goal`` (nothing is stored).

        This is WPILib 2027's two-state ``timeLeftUntil(current, goal)``.
        """
        current, goal = _state("current", current), _state("goal", goal)
        k = _kernel()
        scratch = np.zeros(k.N_PROFILE_STATE)
        k.plan(self._p, 0, scratch, 0, current.position, current.velocity, goal.position, goal.velocity)
        return _duration(scratch)


def _duration(s) -> float:
    """The sum of a plan's segment durations (``s`` a :mod:`simcore.kernel.profile` state vector), exactly
    rounded (``math.fsum``), s."""
    k = _kernel()
    n = int(s[k.Z_N_SEGMENTS])
    return math.fsum(s[k.Z_SEGMENTS:k.Z_SEGMENTS + 2 * n:2].tolist())
