"""The dispatch over the built-in parts: a simulation's stacked state, inputs and parameters.

A run made of built-in parts is described by a ``table`` (one row per part: :data:`T_KIND`,
:data:`T_X` the part's first state in the stacked state, :data:`T_NX` its number of states,
:data:`T_U` its first input in the stacked inputs, :data:`T_P` its first parameter), the stacked
parameters ``P``, inputs ``U`` and the parts' integer ``modes``. Parts are composed by an integer
kind, not by functions passed around, so that numba's disk cache serves every process; each part's
functions take the stacked arrays with its offsets (views cost more than the arithmetic here).

Outputs are stacked the same way: ``y_offsets[k]`` is part ``k``'s first output in the stacked outputs
(:func:`output_offsets` lays them out; a geared part has :data:`~simcore.kernel.layout.N_OUTPUTS`, the
first outputs of its Python class). :func:`outputs` fills one row, :func:`outputs_of_rows` many rows,
each with its own parameters, inputs, modes, time and state (variants, or recorded rows).

A battery part (:data:`KIND_BATTERY`, at most one) feeds every geared part: :func:`couple` solves its
bus and writes the bus voltage into each geared part's ``bus_voltage`` input and the battery's own
inputs (bus voltage, current), as :class:`simcore.models.battery.Battery`'s coupling does on the Python
path. :func:`derivatives` and the guards that read the inputs solve it first; so does an event's firing
(:mod:`simcore.kernel.advance`), whose new mode reads the inputs.
"""
from __future__ import annotations

import math

import numpy as np

from . import battery, characterized_tank, geared, tank
from .brent import B_X, BRENT_EVALUATE, N_BRENT, brent_next, brent_start
from .jit import jit
from .layout import GUARD_BACKWARD_PUSH, GUARD_FORWARD_PUSH, N_OUTPUTS
from .tank_layout import N_CHARACTERIZED_OUTPUTS, N_TANK_OUTPUTS, TANK_GUARDS_READING_INPUTS

KIND_GEARED = 1
KIND_BATTERY = 2
#: Drivetrains: kinds 10 and up. The physical tank drive (simcore.kernel.tank: a battery's load, modes and events);
#: the characterized one (simcore.kernel.characterized_tank: no modes, no events, no supply current).
KIND_TANK = 10
KIND_CHARACTERIZED_TANK = 11
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
        elif table[k, T_KIND] == KIND_TANK:
            tank.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)
        elif table[k, T_KIND] == KIND_CHARACTERIZED_TANK:
            characterized_tank.derivatives(P, table[k, T_P], X, table[k, T_X], U, table[k, T_U], out)


@jit
def guard(table, P, U, modes, part, code, t, X):
    """Guard ``code`` of part ``part`` at (t, X)."""
    if table[part, T_KIND] == KIND_TANK:
        if code == TANK_GUARDS_READING_INPUTS[0] or code == TANK_GUARDS_READING_INPUTS[1]:
            couple(table, P, U, modes, t, X)  # a breakaway reads the bus voltage
        return tank.guard(P, table[part, T_P], modes[part], code, X, table[part, T_X], U, table[part, T_U])
    if code == GUARD_FORWARD_PUSH or code == GUARD_BACKWARD_PUSH:  # they read the bus voltage
        couple(table, P, U, modes, t, X)
    return geared.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])


def output_offsets(kinds) -> np.ndarray:
    """Each part's first output in the stacked outputs, for parts of kinds ``kinds`` (in table order), and
    after them their total number: an int64 array of ``len(kinds) + 1``."""
    sizes = {KIND_GEARED: N_OUTPUTS, KIND_BATTERY: 0, KIND_CHARACTERIZED_TANK: N_CHARACTERIZED_OUTPUTS,
             KIND_TANK: N_TANK_OUTPUTS}  # (the battery's outputs are its Python class's)
    off = np.zeros(len(kinds) + 1, dtype=np.int64)
    for k, kind in enumerate(kinds):
        off[k + 1] = off[k] + sizes[int(kind)]
    return off


@jit
def outputs(table, P, U, modes, t, X, y_offsets, out):
    """Write every part's outputs at time ``t`` and state ``X`` into ``out`` (part ``k``'s from
    ``y_offsets[k]``)."""
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.outputs(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], t, out, y_offsets[k])
        elif table[k, T_KIND] == KIND_CHARACTERIZED_TANK:
            characterized_tank.outputs(P, table[k, T_P], X, table[k, T_X], U, table[k, T_U], out, y_offsets[k])
        elif table[k, T_KIND] == KIND_TANK:
            tank.outputs(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out, y_offsets[k])


@jit
def outputs_of_rows(table, P, U, modes, T, X, y_offsets, OUT):
    """:func:`outputs` of many rows at once: row ``r`` from its own parameters ``P[r]``, inputs ``U[r]``,
    modes ``modes[r]``, time ``T[r]`` and state ``X[r]``, into ``OUT[r]``. Shapes: ``P (N, n_p)``,
    ``U (N, n_u)``, ``modes (N, n_parts)``, ``T (N,)``, ``X (N, n_x)``, ``OUT (N, n_y)``."""
    for r in range(X.shape[0]):
        outputs(table, P[r], U[r], modes[r], T[r], X[r], y_offsets, OUT[r])


@jit
def outputs_of_variant_rows(table, P, V, U, modes, T, X, y_offsets, OUT):
    """:func:`outputs_of_rows` with the parameters per variant: row ``r`` is variant ``V[r]``'s, whose
    parameters are ``P[V[r]]`` (``P (n_variants, n_p)``; recorded rows need not copy them row by row)."""
    for r in range(X.shape[0]):
        outputs(table, P[V[r]], U[r], modes[r], T[r], X[r], y_offsets, OUT[r])


@jit
def initial_modes(table, P, U, X, out):
    """Every part's mode at the start of many variants at once: variant ``r``'s from ``P[r]``, ``U[r]``,
    ``X[r]`` into ``out[r]`` (``out (N, n_parts)``)."""
    for r in range(X.shape[0]):
        for k in range(table.shape[0]):
            if table[k, T_KIND] == KIND_GEARED:
                out[r, k] = geared.initial_mode(P[r], table[k, T_P], X[r], table[k, T_X], U[r], table[k, T_U])
            elif table[k, T_KIND] == KIND_TANK:
                out[r, k] = tank.initial_mode(P[r], table[k, T_P], X[r], table[k, T_X], U[r], table[k, T_U])
            else:
                out[r, k] = 0


@jit
def _active_events(kind, p, mode, ids):
    if kind == KIND_GEARED:
        return geared.active_events(p, 0, mode, ids)
    if kind == KIND_TANK:
        return tank.active_events(p, 0, mode, ids)
    return 0


def active_events_of(kind, p, mode, ids):
    """The kernel ids of the events a part of ``kind`` with parameters ``p`` arms in mode ``mode`` (``ids``:
    scratch of MAX_ACTIVE integers)."""
    return ids[:_active_events(kind, p, mode, ids)].copy()


@jit
def active_events(table, P, part, mode, ids):
    """The events armed for part ``part`` in ``mode`` (ids into ``ids``); returns their number."""
    if table[part, T_KIND] == KIND_GEARED:
        return geared.active_events(P, table[part, T_P], mode, ids)
    if table[part, T_KIND] == KIND_TANK:
        return tank.active_events(P, table[part, T_P], mode, ids)
    return 0


@jit
def event_guard(table, part, ev_id):
    """The guard code of event ``ev_id`` of part ``part``."""
    if table[part, T_KIND] == KIND_TANK:
        return tank.TANK_GUARD_BASE + ev_id
    return geared.EVENT_GUARD[ev_id]


@jit
def event_direction(table, part, ev_id):
    """The direction of event ``ev_id`` of part ``part`` (+1 upward, -1 downward crossings)."""
    if table[part, T_KIND] == KIND_TANK:
        return 1
    return geared.EVENT_DIRECTION[ev_id]


@jit
def event_has_reset(table, part, ev_id):
    """Whether event ``ev_id`` of part ``part`` resets the state."""
    if table[part, T_KIND] == KIND_TANK:
        return True
    return geared.EVENT_HAS_RESET[ev_id]


@jit
def fire(table, P, U, modes, part, ev_id, X):
    """Apply event ``ev_id`` of part ``part``: its reset to ``X`` (in place); returns the part's mode after it."""
    if table[part, T_KIND] == KIND_TANK:
        return tank.fire(P, table[part, T_P], modes[part], ev_id, X, table[part, T_X], U, table[part, T_U])
    return geared.fire(P, table[part, T_P], ev_id, X, table[part, T_X], U, table[part, T_U])


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
    """The loads' (geared parts' and tanks') total supply current at bus voltage ``v``, A, in the parts' order."""
    total = 0.0
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            total += geared.supply_current(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], v)
        elif table[k, T_KIND] == KIND_TANK:
            total += tank.supply_current_at(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], v)
    return total


@jit
def _is_load(kind):
    return kind == KIND_GEARED or kind == KIND_TANK


@jit
def _bus_from_curves(table, P, U, modes, X, voc, r):
    """The bus when every load gives its supply curve (tanks without current limits; Battery's coupling with
    ``supply_current_curve``): ``(v, current)``, the curve's exact root (:func:`battery.bus_root`)."""
    abc = np.zeros(3)
    own = np.zeros(3)
    breaks = np.empty((2 * table.shape[0], 4))
    nb = 0
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_TANK:
            own[0] = own[1] = own[2] = 0.0
            nb = tank.add_supply_curve(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], own, breaks,
                                       nb)
            for i in range(3):
                abc[i] = abc[i] + own[i]
    if r == 0.0:
        return voc, tank.curve_of(abc, breaks, nb, voc)
    v = battery.bus_root(abc[0], abc[1], abc[2], _descending(breaks, nb), voc, r)
    if math.isnan(v):
        return 0.0, voc / r  # the battery shorted through the bridges
    return v, tank.curve_of(abc, breaks, nb, v)


@jit
def _descending(breaks, nb):
    """Rows ``breaks[:nb]`` sorted from the top, as Python sorts the tuples with ``reverse=True`` (stable): an
    insertion sort of row indices, by scalar comparisons (row copies cost numba much more to compile)."""
    order = np.empty(nb, dtype=np.int64)
    for i in range(nb):
        o = i
        j = i - 1
        while j >= 0 and _row_less(breaks, order[j], o):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = o
    out = np.empty((nb, 4))
    for i in range(nb):
        for c in range(4):
            out[i, c] = breaks[order[i], c]
    return out


@jit
def _row_less(rows, a, b):
    """Whether row ``a`` of ``rows`` sorts before row ``b`` (as tuples)."""
    for c in range(4):
        if rows[a, c] != rows[b, c]:
            return rows[a, c] < rows[b, c]
    return False


@jit
def _solve_bus(table, P, U, modes, X, b):
    """The bus of battery part ``b`` (Battery's coupling, ``_solve`` with loads that give no supply curve):
    a non-finite bus where the loads allow none (the Python path then raises, naming it)."""
    po = table[b, T_P]
    voc, r = P[po + battery.P_VOC], P[po + battery.P_R]
    n_loads = 0
    curves = True  # every load gives its supply curve
    for k in range(table.shape[0]):
        if _is_load(table[k, T_KIND]):
            n_loads += 1
            if table[k, T_KIND] != KIND_TANK or not tank.gives_curve(P, table[k, T_P]):
                curves = False
    if n_loads == 0:
        v, current = voc, 0.0
    elif curves:
        v, current = _bus_from_curves(table, P, U, modes, X, voc, r)
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
        elif table[k, T_KIND] == KIND_TANK:
            U[table[k, T_U] + tank.bus_input(P, table[k, T_P])] = v
    ub = table[b, T_U]
    U[ub] = v
    U[ub + 1] = current


@jit
def couple_rows(table, P, U, modes, T, X):
    """:func:`couple` of many rows at once, each with its own parameters, held inputs (written), modes, time
    and state: ``P (m, n_p)``, ``U (m, n_u)``, ``modes (m, n_parts)``, ``T (m,)``, ``X (m, n_x)``."""
    for r in range(X.shape[0]):
        couple(table, P[r], U[r], modes[r], T[r], X[r])

