"""PID controller that follows a trapezoidal profile to its goal, WPILib semantics.

Follows WPILib's ``ProfiledPIDController`` (``edu/wpi/first/math/controller``,
v2025.3.2), except that by default the first call after construction or
:meth:`~ProfiledPIDController.reset` has a zero derivative, as this package's
:class:`PIDController` (``derivative_kick=True`` gives WPILib's). The profile is
:class:`TrapezoidProfile`, which follows WPILib's 2027 fix (see its module), so a
start above the velocity limit or a goal velocity above it differ from the 2025/2026
releases. Each :meth:`ProfiledPIDController.calculate` call:

1. with continuous input enabled, moves the goal and the current setpoint to the
   copies nearest the measurement (``measurement + input_modulus(p - measurement,
   -half, half)``), so the profile takes the short way round;
2. advances the setpoint one ``period`` along a :class:`TrapezoidProfile` re-planned
   from the previous setpoint to the goal;
3. returns the inner :class:`PIDController`'s output for the new setpoint position
   (the profile's velocity is for a feedforward: read :attr:`setpoint`).

:meth:`~ProfiledPIDController.at_goal` is ``at_setpoint()`` and the setpoint equal
to the goal. :meth:`~ProfiledPIDController.reset` clears the PID and restarts the
profile from a measured state -- call it when enabling, as WPILib requires, or the
profile starts from position 0.

Steps 1-3 are written once, in :mod:`simcore.kernel.profiled_pid` (on
:mod:`simcore.kernel.pid` and :mod:`simcore.kernel.profile`; compiled by numba, loaded
when the first controller is made: ``import simcore`` loads no numba). The controller
keeps its goal, its setpoint and its profile's last plan in that module's state vector,
beside the inner PID's and the profile's own vectors, and one kernel call runs a
:meth:`~ProfiledPIDController.calculate`.
"""
from __future__ import annotations

__all__ = ["ProfiledPIDController"]

import math

from simcore import checks

import numpy as np

from .pid import PIDController
from .profile import Constraints, State, TrapezoidProfile, _m_or_rad, _state


def _kernel():
    """:mod:`simcore.kernel.profiled_pid`, imported at first use (``import simcore`` loads no numba)."""
    global _profiled_kernel
    if _profiled_kernel is None:
        from simcore.kernel import profiled_pid
        _profiled_kernel = profiled_pid
    return _profiled_kernel


_profiled_kernel = None


class ProfiledPIDController:
    """PID on the position of a trapezoidal profile advanced one period per call.

    Parameters
    ----------
    kp, ki, kd : float
        PID gains, as for :class:`PIDController` (output units per m or rad, per
        m*s, per m/s). Non-negative.
    max_velocity : float
        Profile velocity limit, m/s (or rad/s). Positive.
    max_acceleration : float
        Profile acceleration limit, m/s^2 (or rad/s^2). Positive.
    period : float, optional
        Time between calls of :meth:`calculate`, s (default 0.02).
    derivative_kick : bool, optional
        Passed to the inner :class:`PIDController`: False (default) gives a zero
        derivative on the first call after construction or :meth:`reset`; True
        reproduces WPILib, whose reset leaves a previous error of 0, so the first
        call adds ``kd * error / period``.

    Raises
    ------
    ConfigError
        A gain, limit or the period is out of range.
    """

    def __init__(self, kp, ki, kd, max_velocity: float, max_acceleration: float,
                 *, period: float = 0.02, derivative_kick: bool = False):
        self._pid = PIDController(kp, ki, kd, period=period, derivative_kick=derivative_kick)
        self._profile = TrapezoidProfile(max_velocity, max_acceleration)
        # The state of simcore.kernel.profiled_pid: the last plan, the goal and the setpoint (the profile
        # object lends its limits).
        self._s = np.zeros(_kernel().N_PROFILED_STATE)

    # ------------------------------------------------------------- plumbing
    @property
    def pid(self) -> PIDController:
        """The inner PID controller (its setpoint is the profile's position)."""
        return self._pid

    @property
    def period(self) -> float:
        """Time between calls of :meth:`calculate`, s."""
        return self._pid.period

    def set_pid(self, kp, ki, kd) -> None:
        """Set the inner controller's gains."""
        self._pid.set_pid(kp, ki, kd)

    kp = property(lambda self: self._pid.kp, lambda self, v: setattr(self._pid, "kp", v),
                  doc="Proportional gain.")
    ki = property(lambda self: self._pid.ki, lambda self, v: setattr(self._pid, "ki", v),
                  doc="Integral gain.")
    kd = property(lambda self: self._pid.kd, lambda self, v: setattr(self._pid, "kd", v),
                  doc="Derivative gain.")

    def set_i_zone(self, i_zone: float) -> None:
        """See :meth:`PIDController.set_i_zone`."""
        self._pid.set_i_zone(i_zone)

    def set_integrator_range(self, minimum_integral: float, maximum_integral: float) -> None:
        """See :meth:`PIDController.set_integrator_range`."""
        self._pid.set_integrator_range(minimum_integral, maximum_integral)

    @property
    def constraints(self) -> Constraints:
        """The profile's limits."""
        return self._profile.constraints

    def set_constraints(self, max_velocity: float, max_acceleration: float) -> None:
        """Replace the profile's limits (m/s and m/s^2, or rad/s and rad/s^2)."""
        self._profile = TrapezoidProfile(max_velocity, max_acceleration)

    # --------------------------------------------------------------- goal
    @property
    def goal(self) -> State:
        """The goal state (position and velocity)."""
        k = _kernel()
        return State(float(self._s[k.Y_GOAL_POSITION]), float(self._s[k.Y_GOAL_VELOCITY]))

    @goal.setter
    def goal(self, value) -> None:
        self.set_goal(value)

    def set_goal(self, goal) -> None:
        """Set the goal: a position (velocity 0), a :class:`State` or a pair."""
        if isinstance(goal, State) or not (checks.is_scalar(goal) or isinstance(goal, (str, bytes)) or goal is None):
            goal = _state("goal", goal)
        else:
            goal = State(_m_or_rad("goal", goal), 0.0)
        k = _kernel()
        self._s[k.Y_GOAL_POSITION], self._s[k.Y_GOAL_VELOCITY] = goal

    def at_goal(self) -> bool:
        """True when :meth:`at_setpoint` and the profile has reached the goal."""
        k = _kernel()
        return self.at_setpoint() and bool(self._s[k.Y_GOAL_POSITION] == self._s[k.Y_SETPOINT_POSITION]
                                           and self._s[k.Y_GOAL_VELOCITY] == self._s[k.Y_SETPOINT_VELOCITY])

    @property
    def setpoint(self) -> State:
        """The profile state the PID is currently tracking."""
        k = _kernel()
        return State(float(self._s[k.Y_SETPOINT_POSITION]), float(self._s[k.Y_SETPOINT_VELOCITY]))

    def at_setpoint(self) -> bool:
        """The inner PID's :meth:`PIDController.at_setpoint`."""
        return self._pid.at_setpoint()

    # ------------------------------------------------------------ tolerance
    def set_tolerance(self, position_tolerance: float,
                      velocity_tolerance: float = math.inf) -> None:
        """Tolerances for :meth:`at_setpoint` (m or rad; m/s or rad/s)."""
        self._pid.set_tolerance(position_tolerance, velocity_tolerance)

    @property
    def position_error(self) -> float:
        """Setpoint position minus measurement at the last call (m or rad)."""
        return self._pid.error

    @property
    def velocity_error(self) -> float:
        """Finite-difference derivative of :attr:`position_error` (m/s or rad/s)."""
        return self._pid.error_derivative

    def get_position_error(self) -> float:
        """Return :attr:`position_error`."""
        return self._pid.error

    def get_velocity_error(self) -> float:
        """Return :attr:`velocity_error`."""
        return self._pid.error_derivative

    # ------------------------------------------------------ continuous input
    def enable_continuous_input(self, minimum_input: float, maximum_input: float) -> None:
        """Treat the measurement as periodic (see :meth:`PIDController.enable_continuous_input`)."""
        self._pid.enable_continuous_input(minimum_input, maximum_input)

    def disable_continuous_input(self) -> None:
        """Stop wrapping."""
        self._pid.disable_continuous_input()

    def kernel_vectors(self):
        """``(pid_p, pid_s, profile_p, state)``: the vectors :func:`simcore.kernel.profiled_pid.calculate` works on
        (the storage, not copies): the inner PID's parameters and state, the profile's parameters and this
        controller's state (its last plan, goal and setpoint, laid out as that module says); None when the inner
        PID holds arrays (a batch's gains)."""
        vectors = self._pid.kernel_vectors()
        if vectors is None:
            return None
        return vectors[0], vectors[1], self._profile.kernel_vectors()[0], self._s

    # ------------------------------------------------------------- calculate
    def calculate(self, measurement: float, goal=None) -> float:
        """Advance the profile one period and return the PID output.

        Parameters
        ----------
        measurement : float
            Measured position (m or rad).
        goal : float, State or (float, float), optional
            New goal (see :meth:`set_goal`); if omitted the current one is kept.

        Returns
        -------
        float
            The PID output (output units, e.g. V), without feedforward.
        """
        measurement = _m_or_rad("measurement", measurement)
        if goal is not None:
            self.set_goal(goal)
        kernel = _profiled_kernel or _kernel()
        vectors = self.kernel_vectors()
        if vectors is not None:  # robot code: one kernel call
            pid_p, pid_s, profile_p, s = vectors
            return float(kernel.calculate(pid_p, 0, pid_s, 0, profile_p, 0, s, 0, measurement))
        # A PID of array gains (a batch): the profile's step on the settings every element shares, then the
        # PID's element-wise calculate.
        shared = self._pid._p.reshape(-1, self._pid._p.shape[-1])[0]
        profile_p, _ = self._profile.kernel_vectors()
        setpoint = kernel.advance_setpoint(shared, 0, profile_p, 0, self._s, 0, measurement)
        return self._pid.calculate(measurement, float(setpoint))

    def reset(self, measured_position, measured_velocity: float = 0.0) -> None:
        """Reset the PID and restart the profile from a measured state.

        Parameters
        ----------
        measured_position : float or State
            Current position (m or rad), or a :class:`State` (then
            ``measured_velocity`` is ignored).
        measured_velocity : float, optional
            Current velocity, m/s or rad/s (default 0).
        """
        self._pid.reset()
        if isinstance(measured_position, State):
            setpoint = _state("measured", measured_position)
        else:
            setpoint = State(_m_or_rad("measured_position", measured_position),
                             _m_or_rad("measured_velocity", measured_velocity, "/s"))
        k = _kernel()
        self._s[k.Y_SETPOINT_POSITION], self._s[k.Y_SETPOINT_VELOCITY] = setpoint
