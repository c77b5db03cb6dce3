"""WPILib's ``ProfiledPIDController`` law in kernel form: the goal and setpoint wrapped next to the measurement,
the profile advanced one period, the PID on its position.

The contract is :mod:`simcore.controllers.profiled_pid`'s; its
:class:`~simcore.controllers.ProfiledPIDController` keeps its numbers in three places these functions read:

* the inner PID controller's vectors, laid out as :mod:`simcore.kernel.pid` says (``pid_p`` from ``pid_po``,
  ``pid_s`` from ``pid_so``): its gains and period, whether the input is continuous and its range;
* the profile's parameters, laid out as :mod:`simcore.kernel.profile` says (``p`` from ``po``);
* the state ``s`` from ``so``: the profile's state (:mod:`simcore.kernel.profile`'s ``Z_*``, its last plan),
  then the goal and the setpoint the PID tracks (``Y_*``: position, m or rad, and velocity, m/s or rad/s).
"""
from __future__ import annotations

from . import pid, profile
from .jit import jit

__all__ = ["Y_GOAL_POSITION", "Y_GOAL_VELOCITY", "Y_SETPOINT_POSITION", "Y_SETPOINT_VELOCITY",
           "N_PROFILED_STATE", "advance_setpoint", "calculate"]

Y_GOAL_POSITION = profile.N_PROFILE_STATE
Y_GOAL_VELOCITY = Y_GOAL_POSITION + 1
Y_SETPOINT_POSITION = Y_GOAL_POSITION + 2
Y_SETPOINT_VELOCITY = Y_GOAL_POSITION + 3
N_PROFILED_STATE = Y_GOAL_POSITION + 4


@jit
def advance_setpoint(pid_p, pid_po, p, po, s, so, measurement):
    """Steps 1 and 2 of a call: with continuous input, the goal and the setpoint moved to the copies nearest
    ``measurement`` (``measurement + modulus(x - measurement, -half, half)``, so the profile goes the short
    way round); then the setpoint advanced one PID period along the profile re-planned from it to the goal.
    Returns the new setpoint position."""
    goal, setpoint = s[so + Y_GOAL_POSITION], s[so + Y_SETPOINT_POSITION]
    if pid_p[pid_po + pid.Q_CONTINUOUS] != 0.0:
        half = (pid_p[pid_po + pid.Q_MAX_INPUT] - pid_p[pid_po + pid.Q_MIN_INPUT]) / 2.0
        goal = measurement + pid.modulus(goal - measurement, -half, half)
        setpoint = measurement + pid.modulus(setpoint - measurement, -half, half)
        s[so + Y_GOAL_POSITION] = goal
    position, velocity = profile.calculate(p, po, s, so, pid_p[pid_po + pid.Q_PERIOD], setpoint,
                                           s[so + Y_SETPOINT_VELOCITY], goal, s[so + Y_GOAL_VELOCITY])
    s[so + Y_SETPOINT_POSITION] = position
    s[so + Y_SETPOINT_VELOCITY] = velocity
    return position


@jit
def calculate(pid_p, pid_po, pid_s, pid_so, p, po, s, so, measurement):
    """One ``calculate(measurement)``: :func:`advance_setpoint`, then the PID's ``calculate`` of the
    measurement against the new setpoint position; returns its output (output units)."""
    setpoint = advance_setpoint(pid_p, pid_po, p, po, s, so, measurement)
    return pid.calculate(pid_p, pid_po, pid_s, pid_so, measurement, setpoint, True)
