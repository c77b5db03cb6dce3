"""WPILib's ``BangBangController`` law in kernel form: ``calculate`` and ``at_setpoint``.

The contract (output 1 below the setpoint, 0 at or above it; ``at_setpoint`` strict, on the last call's
measurement and setpoint) is :mod:`simcore.controllers.bangbang`'s, whose
:class:`~simcore.controllers.BangBangController` keeps its numbers in the two vectors these functions work on:

* parameters ``p`` from offset ``po`` (``Q_*``): the tolerance of ``at_setpoint`` (measurement units);
* state ``s`` from offset ``so`` (``Z_*``): the setpoint and the last measurement (both 0 before any call).

A batch (one controller per variant) is a matrix of parameter rows and one of state rows; the ``*_each``
functions run the scalar functions row by row.
"""
from __future__ import annotations

from .jit import jit

__all__ = ["Q_TOLERANCE", "N_BANGBANG_PARAMETERS", "Z_SETPOINT", "Z_MEASUREMENT", "N_BANGBANG_STATE",
           "calculate", "at_setpoint", "calculate_each", "at_setpoint_each"]

Q_TOLERANCE = 0
N_BANGBANG_PARAMETERS = 1
Z_SETPOINT, Z_MEASUREMENT = range(2)
N_BANGBANG_STATE = 2


@jit
def calculate(s, so, measurement, setpoint, has_setpoint):
    """One ``calculate(measurement[, setpoint])`` (``has_setpoint`` False: the setpoint is kept): 1.0 when
    ``measurement < setpoint``, else 0.0."""
    if has_setpoint:
        s[so + Z_SETPOINT] = setpoint
    s[so + Z_MEASUREMENT] = measurement
    return 1.0 if measurement < s[so + Z_SETPOINT] else 0.0


@jit
def at_setpoint(p, po, s, so):
    """``|setpoint - measurement| < tolerance`` (strictly)."""
    return abs(s[so + Z_SETPOINT] - s[so + Z_MEASUREMENT]) < p[po + Q_TOLERANCE]


@jit
def calculate_each(S, M, R, has_setpoint, out):
    """:func:`calculate` of each controller's state row with measurement ``M[i]`` and setpoint ``R[i]`` (used
    when ``has_setpoint``), into ``out[i]``."""
    for i in range(S.shape[0]):
        out[i] = calculate(S[i], 0, M[i], R[i], has_setpoint)


@jit
def at_setpoint_each(P, S, out):
    """:func:`at_setpoint` of each controller (rows of ``P`` and ``S``) into the boolean ``out``."""
    for i in range(S.shape[0]):
        out[i] = at_setpoint(P[i], 0, S[i], 0)
