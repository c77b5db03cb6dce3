"""WPILib's ``PIDController`` law in kernel form: one ``calculate``, ``set_setpoint``, ``reset``, the wrap,
``at_setpoint``.

The contract (WPILib's semantics, the first call's derivative, ``i_zone``, the integrator range,
continuous input) is :mod:`simcore.controllers.pid`'s, whose :class:`~simcore.controllers.PIDController`
keeps its numbers in the two vectors these functions work on, so that robot code calling it, a run
whose loops tick in the kernel and a batch share one implementation:

* parameters ``p`` from offset ``po`` (``Q_*``): gains ``kp`` (output per error unit), ``ki`` (per error
  unit-second), ``kd`` (per error unit per second), the period (s), ``i_zone`` (error units), the
  integral term's range (output units), whether the input is continuous (1.0) and its range, and whether
  the first call's derivative kicks (1.0: WPILib's own previous error of 0);
* state ``s`` from offset ``so`` (``Z_*``): setpoint, last measurement, whether each was given (1.0),
  error, previous error, error derivative (units per s) and the integrator's sum (error units * s).

A batch of controllers (one per variant) is a matrix of parameter rows and one of state rows; the
``*_each`` functions run the scalar functions above row by row, so each variant gets the arithmetic a
single controller gets, to the bit.
"""
from __future__ import annotations

from .jit import jit

__all__ = ["Q_KP", "Q_KI", "Q_KD", "Q_PERIOD", "Q_I_ZONE", "Q_MIN_INTEGRAL", "Q_MAX_INTEGRAL", "Q_CONTINUOUS",
           "Q_MIN_INPUT", "Q_MAX_INPUT", "Q_DERIVATIVE_KICK", "N_PID_PARAMETERS", "Z_SETPOINT", "Z_MEASUREMENT",
           "Z_HAVE_SETPOINT", "Z_HAVE_MEASUREMENT", "Z_ERROR", "Z_PREV_ERROR", "Z_ERROR_DERIVATIVE",
           "Z_TOTAL_ERROR", "N_PID_STATE", "modulus", "wrap", "calculate", "set_setpoint", "reset", "at_setpoint",
           "modulus_each", "calculate_each", "set_setpoint_each", "reset_each", "at_setpoint_each"]

(Q_KP, Q_KI, Q_KD, Q_PERIOD, Q_I_ZONE, Q_MIN_INTEGRAL, Q_MAX_INTEGRAL, Q_CONTINUOUS, Q_MIN_INPUT, Q_MAX_INPUT,
 Q_DERIVATIVE_KICK) = range(11)
N_PID_PARAMETERS = 11
(Z_SETPOINT, Z_MEASUREMENT, Z_HAVE_SETPOINT, Z_HAVE_MEASUREMENT, Z_ERROR, Z_PREV_ERROR, Z_ERROR_DERIVATIVE,
 Z_TOTAL_ERROR) = range(8)
N_PID_STATE = 8


@jit
def modulus(value, minimum, maximum):
    """``value`` wrapped into ``(minimum, maximum]`` (WPILib's ``MathUtil.inputModulus``): floor-modulo gives
    ``[0, period)``, taken from the top end."""
    period = maximum - minimum
    return maximum - (maximum - value) % period


@jit
def wrap(p, po, error):
    """The error the short way round when the input is continuous, else ``error``."""
    if p[po + Q_CONTINUOUS] == 0.0:
        return error
    half = (p[po + Q_MAX_INPUT] - p[po + Q_MIN_INPUT]) / 2.0
    return modulus(error, -half, half)


@jit(internal=True)
def _integrated(p, po, s, so, error):
    """The integrator's sum after ``error``: reset past ``i_zone``; with ``ki != 0`` clamped so that the
    integral term stays in its range; with ``ki == 0`` left as it was."""
    if abs(error) > p[po + Q_I_ZONE]:
        return 0.0
    ki = p[po + Q_KI]
    if ki != 0.0:
        return min(max(s[so + Z_TOTAL_ERROR] + error * p[po + Q_PERIOD], p[po + Q_MIN_INTEGRAL] / ki),
                   p[po + Q_MAX_INTEGRAL] / ki)
    return s[so + Z_TOTAL_ERROR]


@jit
def calculate(p, po, s, so, measurement, setpoint, has_setpoint):
    """One call of ``calculate(measurement[, setpoint])`` (``has_setpoint`` False: the setpoint is kept);
    updates ``s`` and returns ``kp * error + ki * sum + kd * error_derivative`` (output units)."""
    if has_setpoint:
        s[so + Z_SETPOINT] = setpoint
        s[so + Z_HAVE_SETPOINT] = 1.0
    error = wrap(p, po, s[so + Z_SETPOINT] - measurement)
    if s[so + Z_HAVE_MEASUREMENT] == 0.0 and p[po + Q_DERIVATIVE_KICK] == 0.0:
        previous = error  # the first call after a reset: no derivative kick
    else:
        previous = s[so + Z_ERROR]
    s[so + Z_PREV_ERROR] = previous
    s[so + Z_MEASUREMENT] = measurement
    s[so + Z_HAVE_MEASUREMENT] = 1.0
    s[so + Z_ERROR] = error
    derivative = (error - previous) / p[po + Q_PERIOD]
    s[so + Z_ERROR_DERIVATIVE] = derivative
    total = _integrated(p, po, s, so, error)
    s[so + Z_TOTAL_ERROR] = total
    return p[po + Q_KP] * error + p[po + Q_KI] * total + p[po + Q_KD] * derivative


@jit
def set_setpoint(p, po, s, so, setpoint):
    """``set_setpoint``: the error and its derivative recomputed against the last measurement."""
    s[so + Z_SETPOINT] = setpoint
    s[so + Z_HAVE_SETPOINT] = 1.0
    error = wrap(p, po, setpoint - s[so + Z_MEASUREMENT])
    s[so + Z_ERROR] = error
    s[so + Z_ERROR_DERIVATIVE] = (error - s[so + Z_PREV_ERROR]) / p[po + Q_PERIOD]


@jit
def reset(s, so):
    """``reset``: no error history, an empty integrator, no measurement (the setpoint is kept)."""
    s[so + Z_ERROR] = 0.0
    s[so + Z_PREV_ERROR] = 0.0
    s[so + Z_TOTAL_ERROR] = 0.0
    s[so + Z_ERROR_DERIVATIVE] = 0.0
    s[so + Z_HAVE_MEASUREMENT] = 0.0


@jit
def at_setpoint(s, so, error_tolerance, error_derivative_tolerance):
    """``at_setpoint``: a setpoint and a measurement given, ``|error| < error_tolerance`` and
    ``|error_derivative| < error_derivative_tolerance`` (strictly; error units and error units per s)."""
    return (s[so + Z_HAVE_SETPOINT] != 0.0 and s[so + Z_HAVE_MEASUREMENT] != 0.0
            and abs(s[so + Z_ERROR]) < error_tolerance
            and abs(s[so + Z_ERROR_DERIVATIVE]) < error_derivative_tolerance)


@jit
def modulus_each(values, minimum, maximum, out):
    """:func:`modulus` of each of ``values`` (1-D) into ``out``."""
    for i in range(values.shape[0]):
        out[i] = modulus(values[i], minimum, maximum)


@jit
def calculate_each(P, S, M, R, has_setpoint, out):
    """:func:`calculate` of each controller: row ``i`` of ``P`` (parameters) and ``S`` (state) with
    measurement ``M[i]`` and setpoint ``R[i]`` (used when ``has_setpoint``); its output into ``out[i]``."""
    for i in range(P.shape[0]):
        out[i] = calculate(P[i], 0, S[i], 0, M[i], R[i], has_setpoint)


@jit
def set_setpoint_each(P, S, R):
    """:func:`set_setpoint` of each controller (rows of ``P`` and ``S``) to ``R[i]``."""
    for i in range(P.shape[0]):
        set_setpoint(P[i], 0, S[i], 0, R[i])


@jit
def reset_each(S):
    """:func:`reset` of each controller's state row."""
    for i in range(S.shape[0]):
        reset(S[i], 0)


@jit
def at_setpoint_each(S, error_tolerance, error_derivative_tolerance, out):
    """:func:`at_setpoint` of each controller's state row into the boolean ``out``."""
    for i in range(S.shape[0]):
        out[i] = at_setpoint(S[i], 0, error_tolerance, error_derivative_tolerance)
