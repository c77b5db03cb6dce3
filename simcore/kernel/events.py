"""The event search over one accepted step, in kernel form: pure functions.

Semantics are :mod:`simcore.events`'s (half-open intervals, directions) and the search is
:mod:`simcore.event_handler`'s, whose docstring is the contract: every armed guard is sampled at the
step's end and at interior points of the dense output, the first sub-interval where each guard
crosses in its direction is bracketed, and the root is located by Brent's method to
``EVENT_TIME_TOLERANCE`` (:func:`brent_root`, the algorithm of scipy's ``brentq``, step for step,
so a root located here is the one the Python search locates).
"""
from __future__ import annotations

import math

import numpy as np

from .brent import B_X, BRENT_EVALUATE, N_BRENT, brent_next, brent_start
from .jit import jit
from .dopri5 import dense_state
from .parts import guard

#: scipy's brentq defaults the engine uses: at most this many iterations, relative tolerance 4 eps.
BRENT_MAX_ITERATIONS = 100
BRENT_RTOL = 4 * 2.220446049250313e-16


@jit
def crosses(g_a, g_b, direction):
    """Whether a guard going from ``g_a`` to ``g_b`` fires an event of ``direction`` (half-open at ``g_a``)."""
    if g_a < 0.0 and g_b >= 0.0:
        return direction >= 0
    if g_a > 0.0 and g_b <= 0.0:
        return direction <= 0
    return False


@jit(internal=True)
def guard_on_dense(table, P, U, modes, part, code, t_old, h, y_old, Q, s, work):
    """Guard ``code`` of ``part`` at time ``s`` inside the step, on its dense output."""
    dense_state(t_old, h, y_old, Q, s, work)
    return guard(table, P, U, modes, part, code, s, work)


@jit(allocates=True)
def brent_root(table, P, U, modes, part, code, t_old, h, y_old, Q, xa, fa, xb, fb, xtol, work):
    """The instant in ``(xa, xb]`` where the guard crosses zero (scipy's ``brentq``, with the values at
    the bracket's ends given: the interpolant may differ from them by round-off there)."""
    s = np.empty(N_BRENT)
    status = brent_start(s, xa, xb, xtol, BRENT_RTOL, BRENT_MAX_ITERATIONS)
    while status == BRENT_EVALUATE:
        x = s[B_X]
        if x == xa:
            f = fa
        elif x == xb:
            f = fb
        else:
            f = guard_on_dense(table, P, U, modes, part, code, t_old, h, y_old, Q, x, work)
        status = brent_next(s, f)
    return s[B_X]
