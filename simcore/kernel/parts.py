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

The table's integer type says which kinds it may hold, so that numba compiles for an arm's run no drivetrain
code (:mod:`simcore.kernel.drivetrains`): build it with :func:`table_of` (``int32``: the geared family alone;
a type per drivetrain family beside it; ``int64``: any kind).

A battery part (:data:`KIND_BATTERY`, at most one) feeds every geared part: :func:`couple` solves its
bus and writes the bus voltage into each geared part's ``bus_voltage`` input and the battery's own
inputs (bus voltage, current), as :class:`simcore.models.battery.Battery`'s coupling does on the Python
path. :func:`derivatives` and the guards that read the inputs solve it first; so does an event's firing
(:mod:`simcore.kernel.advance`), whose new mode reads the inputs.

A battery that disables the outputs on a brownout (``brownout_behaviour="disable"``) has two modes and two
events (:mod:`simcore.kernel.battery`); its run state, when the outputs went off and each geared part's
command held back, follows the inputs in ``U`` (:func:`brownout_slots`), so it travels with them through
every function here. :func:`couple` holds the commands back (or gives them back) before it solves the bus;
:func:`event_of` and :func:`fire` serve every part's events.

A servo part (:data:`KIND_SERVO`, :mod:`simcore.kernel.servo`) is a geared mechanism driven by its own
electronics from its own inputs (pulse width, PWM on, rail voltage): its events are the geared ones, its
outputs the geared ones and then its two own (:data:`~simcore.kernel.layout.N_SERVO_OUTPUTS` in all), and
it is no load of the battery (its rail is the hub's).
"""
from __future__ import annotations

import numpy as np

from . import battery, drivetrains, geared, servo
from .brent import B_X, BRENT_EVALUATE, N_BRENT, brent_next, brent_start
from .drivetrains import (FIRST_DRIVETRAIN_KIND, KIND_CHARACTERIZED_TANK, KIND_MECANUM, KIND_SWERVE, KIND_TANK,
                          table_dtype, table_of)
from .jit import jit
from .layout import (GUARD_BACKWARD_PUSH, GUARD_BROWNOUT, GUARD_FORWARD_PUSH, GUARD_RECOVERY, GUARDS_READING_INPUTS,
                     N_OUTPUTS, N_SERVO_OUTPUTS)
from .mecanum_layout import EV_MECANUM_LEAVE_WALL, EV_MECANUM_WALL, MECANUM_GUARD_BASE, N_MECANUM_OUTPUTS
from .swerve_layout import EV_SWERVE_LEAVE_WALL, EV_SWERVE_WALL, N_SWERVE_OUTPUTS, SWERVE_GUARD_BASE
from .tank_layout import N_CHARACTERIZED_OUTPUTS, N_TANK_OUTPUTS, TANK_GUARD_BASE

KIND_GEARED = 1
KIND_BATTERY = 2
#: A servo (:mod:`simcore.kernel.servo`): a geared mechanism driven by its own electronics, on its own rail (no
#: battery's load).
KIND_SERVO = 3
# Drivetrains (kinds FIRST_DRIVETRAIN_KIND and up) are dispatched by simcore.kernel.drivetrains.
T_KIND, T_X, T_NX, T_U, T_P = range(5)
#: A geared part's ``bus_voltage`` input (its third).
GEARED_BUS_INPUT = 2


# (inlined into its callers: LLVM would not inline it, its arguments being many arrays, and a call
# per evaluation costs about a tenth of an advance)
@jit(forceinline=True)
def derivatives(table, P, U, modes, t, X, out):
    """Write the stacked dX/dt at time ``t`` into ``out``."""
    couple(table, P, U, modes, t, X)
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)
        elif table[k, T_KIND] == KIND_SERVO:
            servo.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)
        elif table[k, T_KIND] >= FIRST_DRIVETRAIN_KIND:
            drivetrains.derivatives(table, P, U, modes, k, X, out)


#: Indexed by guard code: whether it reads the held inputs (GUARDS_READING_INPUTS; guard codes are unique across the
#: kinds, small non-negative integers). A table, not a loop over the tuple: every tick asks it of each armed guard.
READS_INPUTS = np.zeros(max(GUARDS_READING_INPUTS) + 1, dtype=np.bool_)
READS_INPUTS[list(GUARDS_READING_INPUTS)] = True


@jit(internal=True, forceinline=True)
def reads_inputs(code):
    """Whether guard ``code`` reads the held inputs (one of GUARDS_READING_INPUTS)."""
    return 0 <= code < READS_INPUTS.shape[0] and READS_INPUTS[code]


@jit
def guard(table, P, U, modes, part, code, t, X):
    """Guard ``code`` of part ``part`` at (t, X)."""
    if table[part, T_KIND] >= FIRST_DRIVETRAIN_KIND:
        if reads_inputs(code):
            couple(table, P, U, modes, t, X)  # (a drivetrain's breakaway reads the bus voltage)
        return drivetrains.guard(table, P, U, modes, part, code, X)
    if code == GUARD_FORWARD_PUSH or code == GUARD_BACKWARD_PUSH:  # they read the bus voltage
        couple(table, P, U, modes, t, X)
    elif code == GUARD_BROWNOUT or code == GUARD_RECOVERY:
        couple(table, P, U, modes, t, X)
        return battery_guard(table, P, U, part, code, t)
    if table[part, T_KIND] == KIND_SERVO:
        return servo.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])
    return geared.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])


@jit(internal=True)
def guards(table, P, U, modes, m, ev_part, ev_code, t, X, out, col):
    """:func:`guard` of each armed event ``j < m`` (part ``ev_part[j]``, code ``ev_code[j]``) at (t, X) into
    ``out[j, col]``, in their order, with the same bits and the inputs left as the calls one by one leave them;
    but consecutive guards of one drivetrain share one evaluation of it (and one solve of the bus, where one of
    them reads the inputs): a swerve's four traction guards cost one evaluation, not four."""
    j = 0
    while j < m:
        part = ev_part[j]
        e = j + 1
        if table[part, T_KIND] >= FIRST_DRIVETRAIN_KIND:
            while e < m and ev_part[e] == part:
                e += 1
        if table[part, T_KIND] == KIND_GEARED and not reads_inputs(ev_code[j]):
            # (what guard does for it, inlined: a stop's or a velocity guard, sampled a few times every step; guard
            # itself is called from many places, each of which would compile its own copy)
            out[j, col] = geared.guard(P, table[part, T_P], ev_code[j], X, table[part, T_X], U, table[part, T_U])
        elif e == j + 1:
            out[j, col] = guard(table, P, U, modes, part, ev_code[j], t, X)
        else:
            for i in range(j, e):
                if reads_inputs(ev_code[i]):
                    couple(table, P, U, modes, t, X)  # (the bus each of them would solve first: the same)
                    break
            drivetrains.guards(table, P, U, modes, part, ev_code, j, e, X, out, col)
        j = e


def output_offsets(kinds) -> np.ndarray:
    """Each part's first output in the stacked outputs, for parts of kinds ``kinds`` (in table order), and
    after them their total number: an int64 array of ``len(kinds) + 1``."""
    sizes = {KIND_GEARED: N_OUTPUTS, KIND_BATTERY: 0, KIND_SERVO: N_SERVO_OUTPUTS,
             KIND_CHARACTERIZED_TANK: N_CHARACTERIZED_OUTPUTS, KIND_TANK: N_TANK_OUTPUTS,
             KIND_MECANUM: N_MECANUM_OUTPUTS, KIND_SWERVE: N_SWERVE_OUTPUTS}
    # (the battery's outputs are its Python class's)
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
        elif table[k, T_KIND] == KIND_SERVO:
            servo.outputs(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], t, out, y_offsets[k])
        elif table[k, T_KIND] >= FIRST_DRIVETRAIN_KIND:
            drivetrains.outputs(table, P, U, modes, k, X, t, out, y_offsets[k])


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
            elif table[k, T_KIND] == KIND_SERVO:
                out[r, k] = servo.initial_mode(P[r], table[k, T_P], X[r], table[k, T_X], U[r], table[k, T_U])
            elif table[k, T_KIND] >= FIRST_DRIVETRAIN_KIND:
                out[r, k] = drivetrains.initial_mode(table, P[r], U[r], k, X[r])


@jit
def _active_events(kind, p, mode, ids):
    if kind == KIND_GEARED or kind == KIND_SERVO:  # (a servo's events are the geared mechanism's)
        return geared.active_events(p, 0, mode, ids)
    if kind == KIND_BATTERY:
        return battery.active_events(p, 0, mode, ids)
    return 0


def active_events_of(kind, p, mode, ids):
    """The kernel ids of the events a part of ``kind`` with parameters ``p`` arms in mode ``mode`` (``ids``:
    scratch of MAX_ACTIVE integers)."""
    if kind >= FIRST_DRIVETRAIN_KIND:
        return ids[:drivetrains.active_events_of_kind(kind, p, mode, ids)].copy()
    return ids[:_active_events(kind, p, mode, ids)].copy()


@jit
def active_events(table, P, part, mode, ids):
    """The events armed for part ``part`` in ``mode`` (ids into ``ids``); returns their number."""
    if table[part, T_KIND] == KIND_GEARED or table[part, T_KIND] == KIND_SERVO:
        return geared.active_events(P, table[part, T_P], mode, ids)
    if table[part, T_KIND] == KIND_BATTERY:
        return battery.active_events(P, table[part, T_P], mode, ids)
    if table[part, T_KIND] >= FIRST_DRIVETRAIN_KIND:
        return drivetrains.active_events(table, P, part, mode, ids)
    return 0


# -- the battery's bus -----------------------------------------------------------------------------------
# (inlined into its callers: LLVM would not inline it, its arguments being many arrays, and a call
# per evaluation costs about a tenth of an advance)
@jit(forceinline=True)
def couple(table, P, U, modes, t, X):
    """Solve the battery's bus at (t, X) with the held inputs and write it into ``U`` (nothing without a
    battery)."""
    for b in range(table.shape[0]):
        if table[b, T_KIND] == KIND_BATTERY:
            if P[table[b, T_P] + battery.P_DISABLE] != 0.0:
                _hold_or_restore_commands(table, U, 1.0 if modes[b] == battery.MODE_BROWNED_OUT else 0.0)
            _solve_bus(table, P, U, modes, X, b)
            return


@jit(internal=True)
def _load_current(table, P, U, modes, X, v):
    """The loads' (geared parts' and tanks') total supply current at bus voltage ``v``, A, in the parts' order."""
    total = 0.0
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            total += geared.supply_current(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], v)
        elif table[k, T_KIND] >= FIRST_DRIVETRAIN_KIND:
            total += drivetrains.supply_current(table, P, U, modes, X, k, v)
    return total


@jit(internal=True)
def _is_load(kind):
    return kind == KIND_GEARED or drivetrains.is_load(kind)


@jit(internal=True, allocates=True)
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
            if not drivetrains.gives_curve(table, P, k):
                curves = False
    if n_loads == 0:
        v, current = voc, 0.0
    elif curves:
        v, current = drivetrains.bus_from_curves(table, P, U, modes, X, voc, r)
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
    drivetrains.write_bus(table, P, U, modes, X, v)
    ub = table[b, T_U]
    U[ub] = v
    U[ub + 1] = current


@jit
def couple_rows(table, P, U, modes, T, X):
    """:func:`couple` of many rows at once, each with its own parameters, held inputs (written), modes, time
    and state: ``P (m, n_p)``, ``U (m, n_u)``, ``modes (m, n_parts)``, ``T (m,)``, ``X (m, n_x)``."""
    for r in range(X.shape[0]):
        couple(table, P[r], U[r], modes[r], T[r], X[r])



# -- the events of every part; a disabling battery's run state ---------------------------------------------
@jit(internal=True)
def event_of(table, part, ev_id):
    """``(guard code, direction, whether it resets the state)`` of event ``ev_id`` of part ``part``."""
    if table[part, T_KIND] == KIND_BATTERY:
        return battery.EVENT_GUARD[ev_id], battery.EVENT_DIRECTION[ev_id], battery.EVENT_HAS_RESET[ev_id]
    if table[part, T_KIND] == KIND_TANK:  # (every tank event is an upward crossing with a reset)
        return TANK_GUARD_BASE + ev_id, 1, True
    if table[part, T_KIND] == KIND_MECANUM:  # (its traction events too; a wall's is a downward crossing with a
        # reset, the impact; a leave_wall's a downward crossing without)
        return (MECANUM_GUARD_BASE + ev_id, 1 if ev_id < EV_MECANUM_WALL else -1,
                ev_id < EV_MECANUM_LEAVE_WALL)
    if table[part, T_KIND] == KIND_SWERVE:  # (as the mecanum's)
        return (SWERVE_GUARD_BASE + ev_id, 1 if ev_id < EV_SWERVE_WALL else -1, ev_id < EV_SWERVE_LEAVE_WALL)
    return geared.EVENT_GUARD[ev_id], geared.EVENT_DIRECTION[ev_id], geared.EVENT_HAS_RESET[ev_id]


@jit
def fire(table, P, U, modes, part, ev_id, t, X):
    """Apply event ``ev_id`` of part ``part`` at ``t`` (a reset of ``X`` in place, the bus solved before it);
    return the part's mode after it."""
    if table[part, T_KIND] == KIND_BATTERY:
        return _fire_battery(table, P, U, modes, part, ev_id, t, X)
    if table[part, T_KIND] == KIND_SERVO:
        return servo.fire(P, table[part, T_P], ev_id, X, table[part, T_X], U, table[part, T_U])
    if table[part, T_KIND] >= FIRST_DRIVETRAIN_KIND:
        return drivetrains.fire(table, P, U, modes, part, ev_id, X)
    return geared.fire(P, table[part, T_P], ev_id, X, table[part, T_X], U, table[part, T_U])


def brownout_slots(n_parts: int) -> int:
    """How many slots a disabling battery's run state takes at the end of the stacked inputs ``U``: when its
    outputs went off (s), then each part's held-back motor command (NaN: none), in the parts' order."""
    return 1 + n_parts


@jit(internal=True)
def _brownout_start(table, U):
    """The first slot of the run state (:func:`brownout_slots`) in ``U``."""
    return U.shape[0] - 1 - table.shape[0]


@jit(internal=True)
def _hold_or_restore_commands(table, U, browned_out):
    """Every geared part's motor command (its first input) held back while ``browned_out`` (1.0; a float, as
    numba compiles a function once per literal boolean), else given back (:func:`simcore.kernel.battery.held_back`,
    :func:`~simcore.kernel.battery.restored`)."""
    s0 = _brownout_start(table, U) + 1
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            c = table[k, T_U]
            if browned_out:
                U[c], U[s0 + k] = battery.held_back(U[c], U[s0 + k])
            elif not np.isnan(U[s0 + k]):
                U[c] = battery.restored(U[c], U[s0 + k])
                U[s0 + k] = np.nan


@jit(internal=True)
def battery_guard(table, P, U, b, code, t):
    """Guard ``code`` of battery part ``b`` at ``t``, on the bus already solved into ``U``."""
    po = table[b, T_P]
    v = U[table[b, T_U]]
    if code == GUARD_BROWNOUT:
        return battery.brownout_guard(v, P[po + battery.P_BROWNOUT])
    return battery.recovery_guard(t, U[_brownout_start(table, U)], P[po + battery.P_RECOVERY_TIME], v,
                                  P[po + battery.P_RECOVERY_VOLTAGE])


@jit(internal=True, allocates=True)
def _fire_battery(table, P, U, modes, b, ev_id, t, X):
    """The outputs go off (brownout); or come back (recovery) unless the bus with the held commands restored
    would be below the threshold, when they stay off from ``t`` on."""
    s0 = _brownout_start(table, U)
    if ev_id == battery.EV_RECOVERY:
        trial = U.copy()
        for k in range(table.shape[0]):
            if table[k, T_KIND] == KIND_GEARED:
                trial[table[k, T_U]] = battery.restored(trial[table[k, T_U]], trial[s0 + 1 + k])
        _solve_bus(table, P, trial, modes, X, b)
        if not battery.stays_browned_out(trial[table[b, T_U]], P[table[b, T_P] + battery.P_BROWNOUT]):
            _hold_or_restore_commands(table, U, 0.0)  # at once, as the Python path's row after the event does
            return battery.MODE_NORMAL
    U[s0] = t
    _hold_or_restore_commands(table, U, 1.0)
    return battery.MODE_BROWNED_OUT
