"""The dispatch over the built-in parts: a simulation's stacked state, inputs and parameters.

A run made of built-in parts is described by a ``table`` (one row per part: :data:`T_KIND`,
:data:`T_X` the part's first state in the stacked state, :data:`T_NX` its number of states,
:data:`T_U` its first input in the stacked inputs, :data:`T_P` its first parameter), the stacked
parameters ``P``, inputs ``U`` and the parts' integer ``modes``. Parts are composed by an integer
kind, not by functions passed around, so that numba's disk cache serves every process; each part's
functions take the stacked arrays with its offsets (views cost more than the arithmetic here).
"""
from __future__ import annotations

from . import geared
from .jit import jit

KIND_GEARED = 1
T_KIND, T_X, T_NX, T_U, T_P = range(5)


@jit
def derivatives(table, P, U, modes, t, X, out):
    """Write the stacked dX/dt at time ``t`` into ``out``."""
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)


@jit
def guard(table, P, U, part, code, t, X):
    """Guard ``code`` of part ``part`` at (t, X)."""
    return geared.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])
