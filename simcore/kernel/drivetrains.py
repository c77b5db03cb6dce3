"""The drivetrains' share of the parts' dispatch, compiled only into runs that may hold a drivetrain.

numba compiles every function a kernel function may call, whether or not a run takes the branch that calls
it, and the drivetrains' functions are the larger part of the kernel's code. So the part table's integer type
(:mod:`simcore.kernel.parts`) says, at compile time, which kinds a run may hold: a table of
:data:`GEARED_FAMILY_TABLE` integers holds only the geared family (geared parts, the battery, servos); one of
:data:`TANK_FAMILY_TABLE`, :data:`MECANUM_FAMILY_TABLE` or :data:`SWERVE_FAMILY_TABLE` integers one drivetrain
family beside it; one of :data:`ANY_KIND_TABLE` integers any kind (:func:`table_of` builds a table in its type).
Each function here dispatches over the drivetrain kinds (:data:`KIND_TANK`, :data:`KIND_CHARACTERIZED_TANK`,
:data:`KIND_MECANUM`, :data:`KIND_SWERVE`) and is compiled by the table's type
(:func:`simcore.kernel.jit.compiled_by_types`): for a family's table with the other families' branches pruned
(:func:`_dispatch`), for a geared family's table as a constant of the same type, so an arm's run compiles no
drivetrain code and a mecanum's no tank or swerve code. Called from Python, and with ``NUMBA_DISABLE_JIT=1``,
each runs as written for any kind.

Arguments are :mod:`~simcore.kernel.parts`' (``table``, stacked ``P``, ``U``, ``modes``, ``X``; part
``k``'s offsets in its table row).
"""
from __future__ import annotations

import math
from types import SimpleNamespace as types_namespace

import numba
import numpy as np

from . import characterized_tank, mecanum, swerve, tank
from .battery import bus_root, curve_at
from .jit import compiled_by_types, scratch, scratch_2d
from .jit import jit_allocating as jit  # (the bus and the breakpoints make scratch arrays)

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
#: The part table's integer type says which kinds a run may hold (numba compiles the dispatch for it, pruning
#: the other kinds' code): the geared family alone; one drivetrain family beside it (the tanks, the mecanum, the
#: swerve); or any kind. Small types serve small tables only (:func:`table_of`).
GEARED_FAMILY_TABLE = np.int32
TANK_FAMILY_TABLE = np.int16
MECANUM_FAMILY_TABLE = np.uint16
SWERVE_FAMILY_TABLE = np.uint32
ANY_KIND_TABLE = np.int64
#: The bus's breakpoints are stack scratch for a table of at most STACK_PARTS parts (eight per drive at most).
STACK_PARTS = 8
STACK_BREAKS = 8 * STACK_PARTS
_FAMILY_TABLE_OF_KIND = {KIND_TANK: TANK_FAMILY_TABLE, KIND_CHARACTERIZED_TANK: TANK_FAMILY_TABLE,
                         KIND_MECANUM: MECANUM_FAMILY_TABLE, KIND_SWERVE: SWERVE_FAMILY_TABLE}
# (the table's columns, as simcore.kernel.parts names them)
_KIND, _X, _NX, _U, _P = 0, 1, 2, 3, 4


def table_dtype(kinds) -> type:
    """The integer type of a part table holding parts of ``kinds``: :data:`GEARED_FAMILY_TABLE` without a
    drivetrain, the family's type with drivetrains of one family, else :data:`ANY_KIND_TABLE`."""
    families = {_FAMILY_TABLE_OF_KIND[int(k)] for k in kinds if int(k) >= FIRST_DRIVETRAIN_KIND}
    if not families:
        return GEARED_FAMILY_TABLE
    return families.pop() if len(families) == 1 else ANY_KIND_TABLE


def table_of(rows) -> np.ndarray:
    """The part table of ``rows`` (per part: kind, first state, number of states, first input, first parameter) in
    its integer type (:func:`table_dtype`; :data:`ANY_KIND_TABLE` where an offset passes the type's range)."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, 5)
    dtype = table_dtype(rows[:, _KIND])
    if rows.size and rows.max() > np.iinfo(dtype).max:
        dtype = ANY_KIND_TABLE
    return np.ascontiguousarray(rows.astype(dtype))


def _numba_type(dtype):
    return numba.from_dtype(np.dtype(dtype))


def _dispatch(tanks, mecanums, swerves):
    """The drivetrain dispatch for a table that may hold the drivetrain families flagged: each flag is a constant
    of these functions, so numba prunes the branches of the families not flagged and compiles none of their
    code."""

    def derivatives(table, P, U, modes, k, X, out):
        """Write drivetrain part ``k``'s derivatives into ``out`` (the bus already solved into ``U``)."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                tank.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)
            elif kind == KIND_CHARACTERIZED_TANK:
                characterized_tank.derivatives(P, po, X, table[k, _X], U, table[k, _U], out)
        if mecanums:
            if kind == KIND_MECANUM:
                mecanum.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)
        if swerves:
            if kind == KIND_SWERVE:
                swerve.derivatives(P, po, modes[k], X, table[k, _X], U, table[k, _U], out)

    def outputs(table, P, U, modes, k, X, t, out, yo):
        """Write drivetrain part ``k``'s outputs into ``out`` from ``yo``."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                tank.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)
            elif kind == KIND_CHARACTERIZED_TANK:
                characterized_tank.outputs(P, po, X, table[k, _X], U, table[k, _U], out, yo)
        if mecanums:
            if kind == KIND_MECANUM:
                mecanum.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)
        if swerves:
            if kind == KIND_SWERVE:
                swerve.outputs(P, po, modes[k], X, table[k, _X], U, table[k, _U], out, yo)

    def guard(table, P, U, modes, k, code, X):
        """Guard ``code`` of drivetrain part ``k`` at state ``X``."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.guard(P, po, modes[k], code, X, table[k, _X], U, table[k, _U])
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.guard(P, po, modes[k], code, X, table[k, _X], U, table[k, _U])
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.guard(P, po, modes[k], code, X, table[k, _X], U, table[k, _U])
        return math.nan  # (no drivetrain arms an event it has not)

    def guards(table, P, U, modes, k, codes, j0, j1, X, out, col):
        """Guards ``codes[j0:j1]`` of drivetrain part ``k`` at state ``X`` into ``out[j, col]``, each :func:`guard`'s
        value, the drive evaluated once for them all."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                for j in range(j0, j1):
                    out[j, col] = tank.guard(P, po, modes[k], codes[j], X, table[k, _X], U, table[k, _U])
                return
        if mecanums:
            if kind == KIND_MECANUM:
                mecanum.guards(P, po, modes[k], codes, j0, j1, X, table[k, _X], U, table[k, _U], out, col)
                return
        if swerves:
            if kind == KIND_SWERVE:
                swerve.guards(P, po, modes[k], codes, j0, j1, X, table[k, _X], U, table[k, _U], out, col)
                return
        for j in range(j0, j1):
            out[j, col] = math.nan  # (no drivetrain arms an event it has not)

    def initial_mode(table, P, U, k, X):
        """Drivetrain part ``k``'s mode at the start (the characterized tank's is 0: it has none)."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.initial_mode(P, po, X, table[k, _X], U, table[k, _U])
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.initial_mode(P, po, X, table[k, _X], U, table[k, _U])
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.initial_mode(P, po, X, table[k, _X], U, table[k, _U])
        return 0

    def active_events(table, P, k, mode, ids):
        """The events drivetrain part ``k`` arms in ``mode`` (ids into ``ids``); returns their number."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.active_events(P, po, mode, ids)
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.active_events(P, po, mode, ids)
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.active_events(P, po, mode, ids)
        return 0

    def fire(table, P, U, modes, k, ev_id, X):
        """Apply event ``ev_id`` of drivetrain part ``k`` (a reset of ``X`` in place); return its mode after it."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.fire(P, po, modes[k], ev_id, X, table[k, _X], U, table[k, _U])
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.fire(P, po, modes[k], ev_id, X, table[k, _X], U, table[k, _U])
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.fire(P, po, modes[k], ev_id, X, table[k, _X], U, table[k, _U])
        return modes[k]  # (no drivetrain fires an event it has not)

    def supply_current(table, P, U, modes, X, k, v):
        """Drivetrain part ``k``'s supply current at bus voltage ``v``, A (0 for one that is no load)."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.supply_current_at(P, po, modes[k], X, table[k, _X], U, table[k, _U], v)
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.supply_current_at(P, po, modes[k], X, table[k, _X], U, table[k, _U], v)
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.supply_current_at(P, po, modes[k], X, table[k, _X], U, table[k, _U], v)
        return 0.0

    def gives_curve(table, P, k):
        """Whether drivetrain part ``k`` (a load) gives its supply current as a curve of the bus voltage."""
        kind, po = table[k, _KIND], table[k, _P]
        if tanks:
            if kind == KIND_TANK:
                return tank.gives_curve(P, po)
        if mecanums:
            if kind == KIND_MECANUM:
                return mecanum.gives_curve(P, po)
        if swerves:
            if kind == KIND_SWERVE:
                return swerve.gives_curve(P, po)
        return False

    def write_bus(table, P, U, modes, X, v):
        """Write bus voltage ``v`` into every drivetrain load's ``bus_voltage`` input."""
        for k in range(table.shape[0]):
            kind, po = table[k, _KIND], table[k, _P]
            if tanks:
                if kind == KIND_TANK:
                    U[table[k, _U] + tank.bus_input(P, po)] = v
            if mecanums:
                if kind == KIND_MECANUM:
                    U[table[k, _U] + mecanum.bus_input(P, po)] = v
            if swerves:
                if kind == KIND_SWERVE:
                    U[table[k, _U] + swerve.bus_input(P, po)] = v

    def bus_from_curves(table, P, U, modes, X, voc, r):
        """The bus when every load gives its supply curve (drives without current limits; Battery's coupling with
        ``supply_current_curve``): ``(v, current)``, the curve's exact root (:func:`battery.bus_root`)."""
        abc = scratch(3)
        abc[0] = abc[1] = abc[2] = 0.0
        own = scratch(3)
        # (a drive's breakpoints: two a tank, four a mecanum, eight a swerve; on the stack for a table of a few
        # parts, as a robot's is)
        if table.shape[0] <= STACK_PARTS:
            breaks, ordered = scratch_2d(STACK_BREAKS, 4), scratch_2d(STACK_BREAKS, 4)
        else:
            breaks, ordered = np.empty((8 * table.shape[0], 4)), np.empty((8 * table.shape[0], 4))
        nb = 0
        for k in range(table.shape[0]):
            kind, po, xo, uo = table[k, _KIND], table[k, _P], table[k, _X], table[k, _U]
            own[0] = own[1] = own[2] = 0.0
            if tanks:
                if kind == KIND_TANK:
                    nb = tank.add_supply_curve(P, po, modes[k], X, xo, U, uo, own, breaks, nb)
            if mecanums:
                if kind == KIND_MECANUM:
                    nb = mecanum.add_supply_curve(P, po, modes[k], X, xo, U, uo, own, breaks, nb)
            if swerves:
                if kind == KIND_SWERVE:
                    nb = swerve.add_supply_curve(P, po, modes[k], X, xo, U, uo, own, breaks, nb)
            for i in range(3):
                abc[i] = abc[i] + own[i]
        if r == 0.0:
            return voc, curve_at(abc[0], abc[1], abc[2], breaks[:nb], voc)
        _descending(breaks, nb, ordered)
        v = bus_root(abc[0], abc[1], abc[2], ordered[:nb], voc, r)
        if math.isnan(v):
            return 0.0, voc / r  # the battery shorted through the bridges
        return v, curve_at(abc[0], abc[1], abc[2], breaks[:nb], v)

    return types_namespace(derivatives=derivatives, outputs=outputs, guard=guard, guards=guards,
                           initial_mode=initial_mode, active_events=active_events, fire=fire,
                           supply_current=supply_current, gives_curve=gives_curve, write_bus=write_bus,
                           bus_from_curves=bus_from_curves)


def _not_a_number(table, P, U, modes, k, X, out):
    # (a drivetrain in a geared family's table, which table_of never builds: its derivatives are NaN, which the
    # kernel's checks of every step name, rather than left unwritten)
    for i in range(table[k, _NX]):
        out[table[k, _X] + i] = np.nan


def _nothing(table, *rest):
    return None


def _zero(table, *rest):
    return 0


#: What the dispatch compiles to in a geared family's table (no drivetrain there).
_GEARED_FAMILY = types_namespace(
    derivatives=_not_a_number, outputs=_nothing, guard=lambda table, P, U, modes, k, code, X: 0.0,
    guards=_nothing,
    initial_mode=_zero, active_events=_zero, fire=lambda table, P, U, modes, k, ev_id, X: 0,
    supply_current=lambda table, P, U, modes, X, k, v: 0.0, gives_curve=lambda table, P, k: False,
    write_bus=_nothing, bus_from_curves=lambda table, P, U, modes, X, voc, r: (voc, 0.0))
_ANY_KIND = _dispatch(True, True, True)
_BY_TABLE_TYPE = {_numba_type(GEARED_FAMILY_TABLE): _GEARED_FAMILY,
                  _numba_type(TANK_FAMILY_TABLE): _dispatch(True, False, False),
                  _numba_type(MECANUM_FAMILY_TABLE): _dispatch(False, True, False),
                  _numba_type(SWERVE_FAMILY_TABLE): _dispatch(False, False, True)}


def _compiled_by_table(name):
    """The any-kind dispatch function ``name``, compiled by the table's type (:data:`_BY_TABLE_TYPE`)."""
    fn = getattr(_ANY_KIND, name)

    def choose(table, *args):
        family = _BY_TABLE_TYPE.get(table.dtype)
        return fn if family is None else getattr(family, name)
    return compiled_by_types(fn, choose)


derivatives = _compiled_by_table("derivatives")
outputs = _compiled_by_table("outputs")
guard = _compiled_by_table("guard")
guards = _compiled_by_table("guards")
initial_mode = _compiled_by_table("initial_mode")
active_events = _compiled_by_table("active_events")
fire = _compiled_by_table("fire")
supply_current = _compiled_by_table("supply_current")
gives_curve = _compiled_by_table("gives_curve")
write_bus = _compiled_by_table("write_bus")
bus_from_curves = _compiled_by_table("bus_from_curves")


def active_events_of_kind(kind, p, mode, ids) -> int:
    """:func:`active_events` of a drivetrain of ``kind`` with parameters ``p`` alone (from Python)."""
    if kind == KIND_TANK:
        return tank.active_events(p, 0, mode, ids)
    if kind == KIND_MECANUM:
        return mecanum.active_events(p, 0, mode, ids)
    if kind == KIND_SWERVE:
        return swerve.active_events(p, 0, mode, ids)
    return 0


@jit(internal=True)
def is_load(kind):
    """Whether a drivetrain of ``kind`` draws from the battery."""
    return kind == KIND_TANK or kind == KIND_MECANUM or kind == KIND_SWERVE


@jit(internal=True)
def _descending(breaks, nb, out):
    """Rows ``breaks[:nb]`` into ``out[:nb]`` sorted from the top, as Python sorts the tuples with
    ``reverse=True`` (stable): an insertion sort by scalar comparisons (row copies cost numba much more to
    compile)."""
    for i in range(nb):
        j = i - 1
        while j >= 0 and _rows_less(out, j, breaks, i):
            for c in range(4):
                out[j + 1, c] = out[j, c]
            j -= 1
        for c in range(4):
            out[j + 1, c] = breaks[i, c]


@jit(internal=True)
def _rows_less(a, i, b, k):
    """Whether row ``i`` of ``a`` sorts before row ``k`` of ``b`` (as tuples)."""
    for c in range(4):
        if a[i, c] != b[k, c]:
            return a[i, c] < b[k, c]
    return False
