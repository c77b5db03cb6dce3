"""The dispatch over the built-in parts: a simulation's stacked state, inputs and parameters.

A run made of built-in parts is described by a ``table`` (one row per part: :data:`T_KIND`,
:data:`T_X` the part's first state in the stacked state, :data:`T_NX` its number of states,
:data:`T_U` its first input in the stacked inputs, :data:`T_P` its first parameter), the stacked
parameters ``P``, inputs ``U`` and the parts' integer ``modes``. Parts are composed by an integer
kind, not by functions passed around, so that numba's disk cache serves every process; each part's
functions take the stacked arrays with its offsets (views cost more than the arithmetic here).

A battery part (:data:`KIND_BATTERY`, at most one) feeds every geared part: :func:`couple` solves its
bus and writes the bus voltage into each geared part's ``bus_voltage`` input and the battery's own
inputs (bus voltage, current), as :class:`simcore.models.battery.Battery`'s coupling does on the Python
path. :func:`derivatives` and the guards that read the inputs solve it first; so does an event's firing
(:mod:`simcore.kernel.advance`), whose new mode reads the inputs.
"""
from __future__ import annotations

import numpy as np

from . import battery, geared
from .brent import B_X, BRENT_EVALUATE, N_BRENT, brent_next, brent_start
from .jit import jit
from .layout import GUARD_BACKWARD_PUSH, GUARD_FORWARD_PUSH

KIND_GEARED = 1
KIND_BATTERY = 2
T_KIND, T_X, T_NX, T_U, T_P = range(5)
#: A geared part's ``bus_voltage`` input (its third).
GEARED_BUS_INPUT = 2


@jit
def derivatives(table, P, U, modes, t, X, out):
    """Write the stacked dX/dt at time ``t`` into ``out``."""
    couple(table, P, U, modes, t, X)
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)


@jit
def guard(table, P, U, modes, part, code, t, X):
    """Guard ``code`` of part ``part`` at (t, X)."""
    if code == GUARD_FORWARD_PUSH or code == GUARD_BACKWARD_PUSH:  # they read the bus voltage
        couple(table, P, U, modes, t, X)
    return geared.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])


@jit
def active_events(table, P, part, mode, ids):
    """The events armed for part ``part`` in ``mode`` (ids into ``ids``); returns their number."""
    if table[part, T_KIND] == KIND_GEARED:
        return geared.active_events(P, table[part, T_P], mode, ids)
    return 0


# -- the battery's bus -----------------------------------------------------------------------------------
@jit
def couple(table, P, U, modes, t, X):
    """Solve the battery's bus at (t, X) with the held inputs and write it into ``U`` (nothing without a
    battery)."""
    for b in range(table.shape[0]):
        if table[b, T_KIND] == KIND_BATTERY:
            _solve_bus(table, P, U, modes, X, b)
            return


@jit
def _load_current(table, P, U, modes, X, v):
    """The geared parts' total supply current at bus voltage ``v``, A, in the parts' order."""
    total = 0.0
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            total += geared.supply_current(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], v)
    return total


@jit
def _solve_bus(table, P, U, modes, X, b):
    """The bus of battery part ``b`` (Battery's coupling, ``_solve`` with loads that give no supply curve):
    a non-finite bus where the loads allow none (the Python path then raises, naming it)."""
    po = table[b, T_P]
    voc, r = P[po + battery.P_VOC], P[po + battery.P_R]
    n_loads = 0
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            n_loads += 1
    if n_loads == 0:
        v, current = voc, 0.0
    elif r == 0.0:
        v = voc
        current = _load_current(table, P, U, modes, X, voc)
    else:
        s = np.empty(battery.N_SEARCH)
        status = battery.search_start(s, voc, r)
        while status == battery.SEARCH_EVALUATE:
            status = battery.search_next(s, _load_current(table, P, U, modes, X, s[battery.S_V]))
        if status == battery.SEARCH_BRACKETED:
            bs = np.empty(N_BRENT)
            st = brent_start(bs, s[battery.S_V], s[battery.S_UPPER], battery.BUS_XTOL, battery.BUS_RTOL,
                             battery.BUS_MAX_ITERATIONS)
            while st == BRENT_EVALUATE:
                x = bs[B_X]
                st = brent_next(bs, x - voc + r * _load_current(table, P, U, modes, X, x))
            v = bs[B_X]
            current = _load_current(table, P, U, modes, X, v)
        elif status == battery.SEARCH_ROOT:
            v = s[battery.S_V]
            current = _load_current(table, P, U, modes, X, v)
        elif status == battery.SEARCH_COLLAPSED:
            v, current = 0.0, voc / r  # the battery shorted through the bridges
        else:
            v, current = np.nan, np.nan
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            U[table[k, T_U] + GEARED_BUS_INPUT] = v
    ub = table[b, T_U]
    U[ub] = v
    U[ub + 1] = current
