"""The drivetrains' share of the parts' dispatch, compiled only into runs that may hold a drivetrain.

numba compiles every function a kernel function may call, whether or not a run takes the branch that calls
it, and the drivetrains' functions are the larger part of the kernel's code. So the part table's integer type
(:mod:`simcore.kernel.parts`) says, at compile time, which kinds a run may hold: a table of
:data:`GEARED_FAMILY_TABLE` integers holds only the geared family (geared parts, the battery, servos), one of
:data:`ANY_KIND_TABLE` integers any kind (:func:`table_dtype` chooses). Each function here dispatches over the
drivetrain kinds (:data:`KIND_TANK`, :data:`KIND_CHARACTERIZED_TANK`, :data:`KIND_MECANUM`,
:data:`KIND_SWERVE`) and is compiled by the table's type
(:func:`simcore.kernel.jit.compiled_by_types`): as written for a table of any kind, as a constant of the same
type for a geared family's table, so an arm's run compiles no drivetrain code. Called from Python, and with
``NUMBA_DISABLE_JIT=1``, each runs as written.

Arguments are :mod:`~simcore.kernel.parts`' (``table``, stacked ``P``, ``U``, ``modes``, ``X``; part
``k``'s offsets in its table row).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from . import characterized_tank, mecanum, swerve, tank
from .battery import bus_root
from .jit import compiled_by_types, jit
from .mecanum_layout import MECANUM_GUARD_BASE
from .swerve_layout import SWERVE_GUARD_BASE
from .tank_layout import TANK_GUARDS_READING_INPUTS

#: Drivetrains: kinds 10 and up. The physical tank drive (simcore.kernel.tank: a battery's load, modes and events);
#: the characterized one (simcore.kernel.characterized_tank: no modes, no events, no supply current).
FIRST_DRIVETRAIN_KIND = 10
KIND_TANK = 10
KIND_CHARACTERIZED_TANK = 11
#: The mecanum drive (simcore.kernel.mecanum, on the chassis core simcore.kernel.chassis: a battery's load, modes
#: and events).
KIND_MECANUM = 12
#: The swerve drive (simcore.kernel.swerve, on the same chassis core, each module's traction direction its steer
#: angle: a battery's load, modes and events).
KIND_SWERVE = 13
#: The part table's integer types: a geared family's table, and one that may hold any kind.
GEARED_FAMILY_TABLE = np.int32
ANY_KIND_TABLE = np.int64
# (the table's columns, as simcore.kernel.parts names them)
_KIND, _X, _NX, _U, _P = 0, 1, 2, 3, 4


def table_dtype(kinds) -> type:
    """The integer type of a part table holding parts of ``kinds``: :data:`ANY_KIND_TABLE` where one is a
    drivetrain, else :data:`GEARED_FAMILY_TABLE`."""
    return ANY_KIND_TABLE if any(int(k) >= FIRST_DRIVETRAIN_KIND for k in kinds) else GEARED_FAMILY_TABLE


_GEARED_FAMILY_TYPE = numba.from_dtype(np.dtype(GEARED_FAMILY_TABLE))  # (numba's type of its integers)


def _for_drivetrains(constant):
    """Compile the decorated dispatch as written where the table may hold a drivetrain, and as ``constant``
    (a function of the same arguments) where it holds the geared family only."""
    def register(fn):
        def choose(table, *args):
            return constant if table.dtype == _GEARED_FAMILY_TYPE else fn
        return compiled_by_types(fn, choose)
    return register


def _nothing(table, P, U, modes, k, X, *rest):
    return None


def _not_a_number(table, P, U, modes, k, X, out):
    # (a drivetrain in a geared family's table, which table_dtype never builds: its derivatives are NaN, which
    # the kernel's checks of every step name, rather than left unwritten)
    for i in range(table[k, _NX]):
        out[table[k, _X] + i] = np.nan


def _zero(table, *rest):
    return 0


def _no_current(table, P, U, modes, X, k, v):
    return 0.0


@_for_drivetrains(_not_a_number)
def derivatives(table, P, U, modes, k, X, out):
    """Write drivetrain part ``k``'s derivatives into ``out`` (the bus already solved into ``U``)."""
    kind, po = table[k, _KIND], table[k, _P]
    if kind == KIND_TANK:
        tank.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)
    elif kind == KIND_CHARACTERIZED_TANK:
        characterized_tank.derivatives(P, po, X, table[k, _X], U, table[k, _U], out)
    elif kind == KIND_MECANUM:
        mecanum.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)
    elif kind == KIND_SWERVE:
        swerve.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)


@_for_drivetrains(_nothing)
def outputs(table, P, U, modes, k, X, t, out, yo):
    """Write drivetrain part ``k``'s outputs into ``out`` from ``yo``."""
    kind, po = table[k, _KIND], table[k, _P]
    if kind == KIND_TANK:
        tank.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)
    elif kind == KIND_CHARACTERIZED_TANK:
        characterized_tank.outputs(P, po, X, table[k, _X], U, table[k, _U], out, yo)
    elif kind == KIND_MECANUM:
        mecanum.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)
    elif kind == KIND_SWERVE:
        swerve.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)


@jit(internal=True)
def reads_inputs(table, k, code):
    """Whether guard ``code`` of drivetrain part ``k`` reads the inputs (so the bus is solved before it)."""
    if table[k, _KIND] == KIND_MECANUM:
        return code < MECANUM_GUARD_BASE + 4  # (the four breakaways)
    if table[k, _KIND] == KIND_SWERVE:
        return code < SWERVE_GUARD_BASE + 4  # (the four breakaways)
    return table[k, _KIND] == KIND_TANK and (code == TANK_GUARDS_READING_INPUTS[0]
                                             or code == TANK_GUARDS_READING_INPUTS[1])


@_for_drivetrains(lambda table, P, U, modes, k, code, X: 0.0)
def guard(table, P, U, modes, k, code, X):
    """Guard ``code`` of drivetrain part ``k`` at state ``X``."""
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.guard(P, table[k, _P], modes[k], code, X, table[k, _X], U, table[k, _U])
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.guard(P, table[k, _P], modes[k], code, X, table[k, _X], U, table[k, _U])
    return tank.guard(P, table[k, _P], modes[k], code, X, table[k, _X], U, table[k, _U])


@_for_drivetrains(_zero)
def initial_mode(table, P, U, k, X):
    """Drivetrain part ``k``'s mode at the start (the characterized tank's is 0: it has none)."""
    if table[k, _KIND] == KIND_TANK:
        return tank.initial_mode(P, table[k, _P], X, table[k, _X], U, table[k, _U])
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.initial_mode(P, table[k, _P], X, table[k, _X], U, table[k, _U])
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.initial_mode(P, table[k, _P], X, table[k, _X], U, table[k, _U])
    return 0


@_for_drivetrains(_zero)
def active_events(table, P, k, mode, ids):
    """The events drivetrain part ``k`` arms in ``mode`` (ids into ``ids``); returns their number."""
    if table[k, _KIND] == KIND_TANK:
        return tank.active_events(P, table[k, _P], mode, ids)
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.active_events(P, table[k, _P], mode, ids)
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.active_events(P, table[k, _P], mode, ids)
    return 0


def active_events_of_kind(kind, p, mode, ids) -> int:
    """:func:`active_events` of a drivetrain of ``kind`` with parameters ``p`` alone (from Python)."""
    if kind == KIND_TANK:
        return tank.active_events(p, 0, mode, ids)
    if kind == KIND_MECANUM:
        return mecanum.active_events(p, 0, mode, ids)
    if kind == KIND_SWERVE:
        return swerve.active_events(p, 0, mode, ids)
    return 0


@_for_drivetrains(lambda table, P, U, modes, k, ev_id, X: 0)
def fire(table, P, U, modes, k, ev_id, X):
    """Apply event ``ev_id`` of drivetrain part ``k`` (a reset of ``X`` in place); return its mode after it."""
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.fire(P, table[k, _P], modes[k], ev_id, X, table[k, _X], U, table[k, _U])
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.fire(P, table[k, _P], modes[k], ev_id, X, table[k, _X], U, table[k, _U])
    return tank.fire(P, table[k, _P], modes[k], ev_id, X, table[k, _X], U, table[k, _U])


# -- the battery's loads -------------------------------------------------------------------------------------------
@jit(internal=True)
def is_load(kind):
    """Whether a drivetrain of ``kind`` draws from the battery."""
    return kind == KIND_TANK or kind == KIND_MECANUM or kind == KIND_SWERVE


@_for_drivetrains(_no_current)
def supply_current(table, P, U, modes, X, k, v):
    """Drivetrain part ``k``'s supply current at bus voltage ``v``, A (0 for one that is no load)."""
    if table[k, _KIND] == KIND_TANK:
        return tank.supply_current_at(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], v)
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.supply_current_at(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], v)
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.supply_current_at(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], v)
    return 0.0


@_for_drivetrains(lambda table, P, k: False)
def gives_curve(table, P, k):
    """Whether drivetrain part ``k`` (a load) gives its supply current as a curve of the bus voltage."""
    if table[k, _KIND] == KIND_MECANUM:
        return mecanum.gives_curve(P, table[k, _P])
    if table[k, _KIND] == KIND_SWERVE:
        return swerve.gives_curve(P, table[k, _P])
    return table[k, _KIND] == KIND_TANK and tank.gives_curve(P, table[k, _P])


@_for_drivetrains(lambda table, P, U, modes, X, v: None)
def write_bus(table, P, U, modes, X, v):
    """Write bus voltage ``v`` into every drivetrain load's ``bus_voltage`` input."""
    for k in range(table.shape[0]):
        if table[k, _KIND] == KIND_TANK:
            U[table[k, _U] + tank.bus_input(P, table[k, _P])] = v
        elif table[k, _KIND] == KIND_MECANUM:
            U[table[k, _U] + mecanum.bus_input(P, table[k, _P])] = v
        elif table[k, _KIND] == KIND_SWERVE:
            U[table[k, _U] + swerve.bus_input(P, table[k, _P])] = v


@_for_drivetrains(lambda table, P, U, modes, X, voc, r: (voc, 0.0))
def bus_from_curves(table, P, U, modes, X, voc, r):
    """The bus when every load gives its supply curve (tanks without current limits; Battery's coupling with
    ``supply_current_curve``): ``(v, current)``, the curve's exact root (:func:`battery.bus_root`)."""
    abc = np.zeros(3)
    own = np.zeros(3)
    breaks = np.empty((8 * table.shape[0], 4))  # (a drivetrain's breakpoints: two a tank, four a mecanum, eight a
    #                                              swerve)
    nb = 0
    for k in range(table.shape[0]):
        if table[k, _KIND] == KIND_TANK:
            own[0] = own[1] = own[2] = 0.0
            nb = tank.add_supply_curve(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], own, breaks,
                                       nb)
            for i in range(3):
                abc[i] = abc[i] + own[i]
        elif table[k, _KIND] == KIND_MECANUM:
            own[0] = own[1] = own[2] = 0.0
            nb = mecanum.add_supply_curve(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], own,
                                          breaks, nb)
            for i in range(3):
                abc[i] = abc[i] + own[i]
        elif table[k, _KIND] == KIND_SWERVE:
            own[0] = own[1] = own[2] = 0.0
            nb = swerve.add_supply_curve(P, table[k, _P], modes[k], X, table[k, _X], U, table[k, _U], own, breaks,
                                         nb)
            for i in range(3):
                abc[i] = abc[i] + own[i]
    if r == 0.0:
        return voc, tank.curve_of(abc, breaks, nb, voc)
    v = bus_root(abc[0], abc[1], abc[2], _descending(breaks, nb), voc, r)
    if math.isnan(v):
        return 0.0, voc / r  # the battery shorted through the bridges
    return v, tank.curve_of(abc, breaks, nb, v)


@jit(internal=True)
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


@jit(internal=True)
def _row_less(rows, a, b):
    """Whether row ``a`` of ``rows`` sorts before row ``b`` (as tuples)."""
    for c in range(4):
        if rows[a, c] != rows[b, c]:
            return rows[a, c] < rows[b, c]
    return False
