"""The advance of the variants of a run of built-in parts from their time to the next tick, compiled.

:func:`advance_chunk` advances each variant ``v`` of a range (its own state ``X[v]``, inputs ``U[v]``,
parameters ``P[v]``, modes, step size, stiffness count and event search state) from its time to
``t_end``; variants share nothing (no reduction across them), so a variant's result does not depend
on the others. :class:`simcore.engine.Simulator` runs one variant with it, ``simulate_batch`` many
(:class:`simcore.compiled_run.CompiledRun`). Per variant it does what the Python path of the engine does between two
ticks: segments of Dormand-Prince steps
(:func:`simcore.kernel.segment.integrate_segment`), and at each located event the firing with the
semantics of :mod:`simcore.event_handler` (simultaneous events, resets and mode switches of the
built-in parts, the Zeno bound, the restart sides of a just-fired guard: the Heun probe, the search
delay of a bounce, the re-fire of a reset that did not hold). :func:`input_jumps` fires the events a
tick's writes trigger. Rows and event records go to per-variant buffers; a variant whose buffer is
full pauses at a step boundary and is resumed by the next call.

Per-variant scalars are in ``RS[v]`` (the ``S_*`` slots of :mod:`simcore.kernel.segment` and the
``RS_*`` slots below).
"""
from __future__ import annotations

import math

import numpy as np

from . import geared, ticks as kt

from .borrowed import borrowed, keep_alive, shaped
from .jit import jit
from .layout import (K_ATOL, K_FRACTIONS, K_MAX_STEP, K_N, K_N_FRACTIONS, K_NX_MAX, K_RECORDS, K_ROWS, K_RTOL,
                     K_STIFF_RULE, K_TICK_ROWS, N_EVENT_FIELDS, N_FLAGS, scratch_sizes, N_RUN_STATE, A_CODE, A_DIR,
                     A_ID, A_PART, DONE, E_AT_TICK, E_ID, E_MODE_AFTER, E_MODE_BEFORE, E_PART, E_ROW, E_T, EVENT,
                     F_ARMED, F_DETECT, F_KEEP, F_START, F_TICKING, FD_ID, FD_PART, FD_PRE_SIDE, FD_PREV_T,
                     NONFINITE_GUARD, PAUSE, RS_DETECT, RS_IN_SEGMENT, RS_LAST_EVENT_T, RS_N_ACTIVE, RS_N_EV_RECORDS,
                     RS_N_EVENTS, RS_N_FIRED, RS_N_SEGMENTS, RS_WARN_T, RS_ZENO_EVENT, RS_ZENO_RUN, S_BAD_INDEX,
                     S_BAD_T, S_H, S_NFEV, S_NROOTS, S_NROWS, S_SPAN, S_STEPS_HERE, S_SWITCH_DUE, S_T, S_T_END,
                     S_T_NEW, S_TE, S_WARN_DUE, SWITCH, WARN_STIFF, ZENO, MAX_ACTIVE, N_EVENTS, RS_N_TICK_RECORDS,
                     RS_N_TICKS, RS_T_NS, RS_TARGET_NS, TICK_REFUSED)
from .events import crosses
from .parts import T_NX, T_X, active_events, couple, derivatives, event_of, fire, guard, reads_inputs
from .segment import integrate_segment, record_row

# -- the event rules' constants (simcore.event_handler; the tests check they are the same) ------------------
JUST_OFF_ZERO = 5e-324
ZENO_GAP = 1e-12
PROBE_STEP = 1e-8
MAX_EVENTS_AT_ONE_INSTANT = 100
TWICE_TOLERANCE = 2e-13

@jit(internal=True)
def _load_active(table, P, modes, active, ids):
    """The events armed in the current modes, in the engine's order (by part, then the mode's list);
    ``ids`` scratch of MAX_ACTIVE integers."""
    n = 0
    for k in range(table.shape[0]):
        m = active_events(table, P, k, modes[k], ids)
        for i in range(m):
            active[n, A_PART] = k
            active[n, A_ID] = ids[i]
            active[n, A_CODE], active[n, A_DIR], _ = event_of(table, k, ids[i])
            n += 1
    return n


@jit(internal=True)
def _is_active(active, n_active, part, ev_id):
    for j in range(n_active):
        if active[j, A_PART] == part and active[j, A_ID] == ev_id:
            return j
    return -1


@jit(allocates=True)
def _probe_side(table, P, U, modes, part, code, t, X, dt):
    """Sign of the guard ``dt`` after ``t`` from ``X`` (a Heun step of the stacked right-hand side)."""
    n = X.shape[0]
    f0 = np.empty(n)
    f1 = np.empty(n)
    x1 = np.empty(n)
    derivatives(table, P, U, modes, t, X, f0)
    for i in range(n):
        x1[i] = X[i] + dt * f0[i]
    derivatives(table, P, U, modes, t + dt, x1, f1)
    half = 0.5 * dt
    for i in range(n):
        x1[i] = X[i] + half * (f0[i] + f1[i])
    v = guard(table, P, U, modes, part, code, t + dt, x1)
    return 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)


@jit(allocates=True)
def _guard_rate(table, P, U, modes, part, code, t, X, dt):
    n = X.shape[0]
    f0 = np.empty(n)
    x1 = np.empty(n)
    derivatives(table, P, U, modes, t, X, f0)
    for i in range(n):
        x1[i] = X[i] + dt * f0[i]
    return (guard(table, P, U, modes, part, code, t + dt, x1) - guard(table, P, U, modes, part, code, t, X)) / dt


@jit
def _restart_sides(table, P, U, modes, t, X, active, n_active, g_prev, fired, n_fired, X_before, search, rs):
    """EventHandler._restart_sides: the just-fired guards placed on the side their motion heads to."""
    for f in range(n_fired):
        part = int(fired[f, FD_PART])
        ev_id = int(fired[f, FD_ID])
        j = _is_active(active, n_active, part, ev_id)
        if j < 0:
            continue
        code = active[j, A_CODE]
        g0 = g_prev[j]
        search[part, ev_id] = np.nan
        dt = PROBE_STEP * max(1.0, abs(t))
        side = _probe_side(table, P, U, modes, part, code, t, X, dt)
        rs[S_NFEV] += 2  # the probe's evaluations count, as the engine's
        prev_t = fired[f, FD_PREV_T]
        accumulating = (not math.isnan(prev_t)) and t - prev_t <= ZENO_GAP * max(1.0, abs(t))
        pre_side = fired[f, FD_PRE_SIDE]
        if side == 0.0:
            g_prev[j] = pre_side * JUST_OFF_ZERO
        elif side == pre_side:
            if g0 * side <= 0:
                g_prev[j] = side * JUST_OFF_ZERO
                search[part, ev_id] = t + dt
        else:
            changed = False
            if event_of(table, part, ev_id)[2] and not accumulating:
                after = _guard_rate(table, P, U, modes, part, code, t, X, dt)
                before = _guard_rate(table, P, U, modes, part, code, t, X_before, dt)
                rs[S_NFEV] += 2
                changed = abs(after - before) > 1e-6 * max(abs(after), abs(before))
            if event_of(table, part, ev_id)[2] and (accumulating or changed):
                g_prev[j] = pre_side * JUST_OFF_ZERO
            else:
                g_prev[j] = g0 if g0 * side > 0 else side * JUST_OFF_ZERO


@jit(internal=True)
def _fire_one(table, P, U, modes, part, ev_id, t, X, at_tick, rows_t, rows_y, rows_m, rs, evr_f, evr_x):
    """Apply event ``ev_id`` of ``part`` at ``t``: rows before and after, its record, its reset and mode
    (``at_tick``: 1.0 for an event a tick's writes fired, else 0.0; a float, as numba compiles a function once
    per literal boolean it is called with)."""
    record_row(rows_t, rows_y, rows_m, rs, t, X, modes)
    x0 = table[part, T_X]
    nx = table[part, T_NX]
    e = int(rs[RS_N_EV_RECORDS])
    evr_f[e, E_T] = t
    evr_f[e, E_PART] = part
    evr_f[e, E_ID] = ev_id
    evr_f[e, E_MODE_BEFORE] = modes[part]
    evr_f[e, E_AT_TICK] = at_tick
    for i in range(nx):
        evr_x[e, 0, i] = X[x0 + i]
    couple(table, P, U, modes, t, X)  # the bus before the reset: the new mode reads it
    new_mode = fire(table, P, U, modes, part, ev_id, t, X)
    modes[part] = new_mode
    evr_f[e, E_MODE_AFTER] = new_mode
    evr_f[e, E_ROW] = rs[S_NROWS]  # the row recorded below
    for i in range(nx):
        evr_x[e, 1, i] = X[x0 + i]
    rs[RS_N_EV_RECORDS] = e + 1
    rs[RS_N_EVENTS] += 1
    record_row(rows_t, rows_y, rows_m, rs, t, X, modes)


@jit(internal=True)
def _room(rs, rows_t, evr_f, n_active):
    """Whether the buffers can take a segment's worst case beyond a full step buffer: every armed event
    firing (two rows and a record each) plus one step row."""
    return (rs[S_NROWS] + 2 * n_active + 2 < rows_t.shape[0]) and (rs[RS_N_EV_RECORDS] + n_active < evr_f.shape[0])


# (advance_one, advance_ticking and integrate_segment are inlined into advance_chunk, their one caller there: a call
# passes some forty arrays, each as its fields, and these run once or twice per tick and variant)
@jit(internal=True, forceinline=True)
def advance_one(table, P, U, modes, X, F0, rs, active, g_prev, search, last_t, fired, X_before,
                rtol, atol, max_step, flags, stiff_rule, fractions, weights,
                rows_t, rows_y, rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags,
                part_a, code_a, dir_a, roots_j, ids, sf_a, g_a, roots_t, roots_ga, x_e,
                y_new, work, tmp, f_s, samples, ts, tj, vals):
    """Advance one variant from ``rs[S_T]`` to ``rs[S_T_END]`` (see the module docstring). Returns a status:
    DONE; SWITCH ("auto" found it stiff: the engine integrates on from ``rs[S_T]`` with its implicit
    method); PAUSE (a buffer is full: flush it and call again); ZENO; or a failure of
    :mod:`simcore.kernel.segment` (``rs[S_BAD_T]`` and ``bad_x`` say where). The arguments from ``K`` on
    are scratch, made by :func:`advance_chunk` once for all its variants."""
    n = X.shape[0]
    A = active.shape[0]
    for i in range(flags.shape[0]):
        seg_flags[i] = flags[i]
    t_end = rs[S_T_END]
    keep = flags[F_KEEP]
    while True:
        if rs[RS_IN_SEGMENT] == 0.0:
            if rs[S_T] >= t_end:
                return DONE
            if not _room(rs, rows_t, evr_f, A):
                return PAUSE  # before the segment begins: its start (f0, the restart sides) is made in one call
            # -- begin a segment (Integrator.start, EventHandler.begin) --
            t = rs[S_T]
            rs[RS_N_SEGMENTS] += 1
            rs[S_STEPS_HERE] = 0.0
            rs[S_SPAN] = t_end - t
            rs[S_SWITCH_DUE] = 0.0
            if rs[S_H] > 0.0:
                rs[S_H] = min(rs[S_H], t_end - t, max_step)
            n_active = _load_active(table, P, modes, active, ids)
            rs[RS_N_ACTIVE] = n_active
            for j in range(n_active):
                g_prev[j] = guard(table, P, U, modes, active[j, A_PART], active[j, A_CODE], t, X)
                if not math.isfinite(g_prev[j]):
                    rs[S_BAD_T] = t
                    rs[S_BAD_INDEX] = j
                    for i in range(n):
                        bad_x[i] = X[i]
                    return NONFINITE_GUARD
            if rs[RS_N_FIRED] > 0:
                _restart_sides(table, P, U, modes, t, X, active, n_active, g_prev, fired,
                               int(rs[RS_N_FIRED]), X_before, search, rs)
            seg_flags[F_START] = True
            rs[RS_IN_SEGMENT] = 1.0
        n_active = int(rs[RS_N_ACTIVE])
        for j in range(n_active):
            part_a[j] = active[j, A_PART]
            code_a[j] = active[j, A_CODE]
            dir_a[j] = active[j, A_DIR]
            sf_a[j] = search[active[j, A_PART], active[j, A_ID]]
            g_a[j] = g_prev[j]
        seg_flags[F_ARMED] = n_active > 0
        seg_flags[F_DETECT] = rs[RS_DETECT] != 0.0
        if not _room(rs, rows_t, evr_f, A):
            return PAUSE
        status = integrate_segment(table, P, U, modes, X, F0, rtol, atol, max_step, seg_flags, stiff_rule, rs,
                                   n_active, part_a, code_a, dir_a, g_a, sf_a, fractions, weights, rows_t, rows_y,
                                   roots_t, roots_j, roots_ga, x_e, bad_x, K, Q, rows_m, y_new, work, tmp, f_s,
                                   samples, ts, tj, vals)
        for j in range(n_active):
            g_prev[j] = g_a[j]
        if rs[S_WARN_DUE] != 0.0:  # a forced RK45 found stiff: the engine warns once
            rs[S_WARN_DUE] = 0.0
            rs[RS_DETECT] = 0.0
            rs[RS_WARN_T] = rs[S_T_NEW]
        if status == PAUSE or status == WARN_STIFF:
            continue
        if status == DONE or status == SWITCH:
            # EventHandler.end_segment: nothing fired here any more; delays that end before it go.
            rs[RS_IN_SEGMENT] = 0.0
            rs[RS_N_FIRED] = 0.0
            _drop_searches_before(search, rs[S_T])
            if not keep:
                record_row(rows_t, rows_y, rows_m, rs, rs[S_T], X, modes)  # the interval's end
            if status == SWITCH or rs[S_SWITCH_DUE] != 0.0:
                return SWITCH
            continue
        if status != EVENT:
            return status
        # -- an event (EventHandler.fire) --
        rs[RS_IN_SEGMENT] = 0.0
        te = rs[S_TE]
        last = rs[RS_LAST_EVENT_T]
        n_roots = int(rs[S_NROOTS])
        _sort_roots(roots_t, roots_j, roots_ga, n_roots)
        if not math.isnan(last) and te - last <= ZENO_GAP * max(1.0, abs(te)):
            rs[RS_ZENO_RUN] += 1
            if rs[RS_ZENO_RUN] > MAX_EVENTS_AT_ONE_INSTANT:
                j0 = roots_j[0]
                rs[RS_ZENO_EVENT] = active[j0, A_PART] * geared.N_EVENTS + active[j0, A_ID]
                rs[S_BAD_T] = te
                return ZENO
        else:
            rs[RS_ZENO_RUN] = 0
        for i in range(n):
            X[i] = x_e[i]
            X_before[i] = x_e[i]
        n_fired = 0
        for r in range(n_roots):
            t_root = roots_t[r]
            j = roots_j[r]
            ga = roots_ga[r]
            if t_root - te > TWICE_TOLERANCE:
                break
            part = active[j, A_PART]
            ev_id = active[j, A_ID]
            if n_fired > 0:
                # An earlier event at this instant changed the mode (no longer armed), or it has not crossed.
                if not _armed_in_mode(table, P, modes, part, ev_id, ids):
                    continue
                if not crosses(ga, guard(table, P, U, modes, part, active[j, A_CODE], te, X), active[j, A_DIR]):
                    continue
            _fire_one(table, P, U, modes, part, ev_id, te, X, 0.0, rows_t, rows_y, rows_m, rs, evr_f, evr_x)
            fired[n_fired, FD_PART] = part
            fired[n_fired, FD_ID] = ev_id
            fired[n_fired, FD_PRE_SIDE] = 1.0 if ga > 0 else -1.0
            fired[n_fired, FD_PREV_T] = last_t[part, ev_id]
            n_fired += 1
        rs[RS_LAST_EVENT_T] = te
        for f in range(n_fired):
            last_t[int(fired[f, FD_PART]), int(fired[f, FD_ID])] = te
        rs[RS_N_FIRED] = n_fired
        _drop_searches_before(search, rs[S_T_NEW])
        rs[S_T] = te
        if rs[S_SWITCH_DUE] != 0.0:
            return SWITCH


@jit(internal=True)
def _armed_in_mode(table, P, modes, part, ev_id, ids):
    m = active_events(table, P, part, modes[part], ids)
    for i in range(m):
        if ids[i] == ev_id:
            return True
    return False


@jit(internal=True)
def _drop_searches_before(search, t):
    for a in range(search.shape[0]):
        for b in range(search.shape[1]):
            if not (search[a, b] > t):
                search[a, b] = np.nan


@jit(internal=True)
def _sort_roots(roots_t, roots_j, roots_ga, n):
    """Sort the first ``n`` roots in place by (time, event index, guard at the bracket start), as Python sorts
    tuples (a stable insertion sort: no array made, so that its caller needs no reference counting)."""
    for i in range(1, n):
        t, j, g = roots_t[i], roots_j[i], roots_ga[i]
        k = i - 1
        while k >= 0 and _before(t, j, g, roots_t[k], roots_j[k], roots_ga[k]):
            roots_t[k + 1], roots_j[k + 1], roots_ga[k + 1] = roots_t[k], roots_j[k], roots_ga[k]
            k -= 1
        roots_t[k + 1], roots_j[k + 1], roots_ga[k + 1] = t, j, g


@jit(internal=True)
def _before(t1, j1, g1, t2, j2, g2):
    if t1 != t2:
        return t1 < t2
    if j1 != j2:
        return j1 < j2
    return g1 < g2


@jit
def input_jumps(table, P, U_before, U_after, modes, t, X, rs, rows_t, rows_y, rows_m, evr_f, evr_x,
                bad_x, quiet_row, active, ids, g_before, g_after, done):
    """EventHandler.fire_input_jumps at a tick: fire the events whose guards the writes moved across zero,
    at most one per part (its mode may change, and with it its events), on the guards before and after the
    writes; then (with ``quiet_row``) the row after the writes when none fired. Returns DONE, or
    NONFINITE_GUARD."""
    n_active = _load_active(table, P, modes, active, ids)
    fired = False
    if n_active > 0:
        for j in range(n_active):
            g_before[j] = guard(table, P, U_before, modes, active[j, A_PART], active[j, A_CODE], t, X)
            g_after[j] = guard(table, P, U_after, modes, active[j, A_PART], active[j, A_CODE], t, X)
            if not (math.isfinite(g_before[j]) and math.isfinite(g_after[j])):
                rs[S_BAD_T] = t
                rs[S_BAD_INDEX] = j
                for i in range(X.shape[0]):
                    bad_x[i] = X[i]
                return NONFINITE_GUARD
        for k in range(table.shape[0]):
            done[k] = False
        for j in range(n_active):
            k = active[j, A_PART]
            if not done[k] and crosses(g_before[j], g_after[j], active[j, A_DIR]):
                _fire_one(table, P, U_after, modes, k, active[j, A_ID], t, X, 1.0, rows_t, rows_y, rows_m, rs,
                          evr_f, evr_x)
                done[k] = True
                fired = True
    if quiet_row and not fired:
        record_row(rows_t, rows_y, rows_m, rs, t, X, modes)
    return DONE


@jit(forceinline=True)
def advance_ticking(CT, table, P, U, modes, X, F0, rs, active, g_prev, search, last_t, fired, X_before, CS, ticks,
                    tick_rows, rtol, atol, max_step, flags, stiff_rule, fractions, weights,
                    rows_t, rows_y, rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags,
                    part_a, code_a, dir_a, roots_j, ids, sf_a, g_a, roots_t, roots_ga, x_e,
                    y_new, work, tmp, f_s, samples, ts, tj, vals, U_before, cs_before, written, g_before, g_after,
                    done):
    """With ``flags[F_TICKING]``: advance one variant from ``rs[RS_T_NS]`` to ``rs[RS_TARGET_NS]`` (integer ns),
    running the loops of ``CT`` (:mod:`simcore.kernel.ticks`) at their ticks on the way, the ticks at the
    target included: what :class:`simcore.engine.Simulator` does from one call of ``advance`` to its end, with
    the loops in the kernel. Each tick's writes go to ``tick_rows`` (time, loop, values) and fire the events
    they trigger, with the row after them. Returns :func:`advance_one`'s statuses, or TICK_REFUSED (a loop's
    write was refused at ``rs[RS_T_NS]``, or a controller ticking in Python is due there: nothing of that tick
    ran). Without it: :func:`advance_one` to ``rs[S_T_END]``."""
    ticking = flags[F_TICKING]
    target_ns = int(rs[RS_TARGET_NS]) if ticking else 0
    n_parts = table.shape[0]
    while True:
        # (one call of advance_one, for both kinds of advance: numba compiles it into each of its callers)
        next_ns = -1
        integrate = True
        if ticking:
            now_ns = int(rs[RS_T_NS])
            next_ns = kt.next_tick_ns(CT, ticks)
            end_ns = target_ns if (next_ns < 0 or next_ns > target_ns) else next_ns
            integrate = end_ns > now_ns
            if integrate:
                rs[S_T_END] = end_ns / 1e9
        if integrate:
            status = advance_one(table, P, U, modes, X, F0, rs, active, g_prev, search, last_t, fired, X_before,
                                 rtol, atol, max_step, flags, stiff_rule, fractions, weights, rows_t, rows_y,
                                 rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags, part_a, code_a, dir_a, roots_j,
                                 ids, sf_a, g_a, roots_t, roots_ga, x_e, y_new, work, tmp, f_s, samples, ts, tj,
                                 vals)
            if status != DONE or not ticking:
                return status
            rs[RS_T_NS] = end_ns
            rs[S_T] = end_ns / 1e9
        if end_ns == next_ns:
            # The tick: room for its records, the rows of the events its writes may fire and the row after.
            if not (rs[S_NROWS] + 2 * n_parts + 2 < rows_t.shape[0]
                    and rs[RS_N_EV_RECORDS] + n_parts < evr_f.shape[0]
                    and rs[RS_N_TICK_RECORDS] + CT.shape[0] <= tick_rows.shape[0]):
                return PAUSE
            t = end_ns / 1e9
            if not kt.tick(CT, P, CS, ticks, end_ns, X, U, U_before, cs_before, written):
                return TICK_REFUSED
            r = int(rs[RS_N_TICK_RECORDS])
            for c in range(CT.shape[0]):
                if not math.isnan(written[c, 0]):
                    tick_rows[r, 0] = t
                    tick_rows[r, 1] = c
                    for w in range(kt.MAX_WRITES):
                        tick_rows[r, 2 + w] = written[c, w]
                    r += 1
                    rs[RS_N_TICKS] += 1
            rs[RS_N_TICK_RECORDS] = r
            if _armed_guard_reads_inputs(table, P, modes, ids):
                status = input_jumps(table, P, U_before, U, modes, t, X, rs, rows_t, rows_y, rows_m, evr_f, evr_x,
                                     bad_x, True, active, ids, g_before, g_after, done)
                if status != DONE:
                    return status
            else:  # (no armed guard reads the held inputs: the writes move none across zero; the row after them)
                record_row(rows_t, rows_y, rows_m, rs, t, X, modes)
        if end_ns >= target_ns:
            return DONE


@jit(internal=True)
def _armed_guard_reads_inputs(table, P, modes, ids):
    """Whether a guard armed in the current modes reads the held inputs (one of GUARDS_READING_INPUTS: a tick's
    writes can move only these across zero, as the engine's rule for its own ticks says)."""
    for k in range(table.shape[0]):
        for i in range(active_events(table, P, k, modes[k], ids)):
            if reads_inputs(event_of(table, k, ids[i])[0]):
                return True
    return False


@jit(allocates=True, forceinline=True)
def _cut(buffer, o, size):
    """The ``size`` elements of ``buffer`` from ``o`` on, and the offset after them."""
    return buffer[o:o + size], o + size


@jit(allocates=True, forceinline=True)
def _variant(FLOATS, INTS, P, OUT_F, OUT_I, v, consts, n_parts, nu, n_cs, n_c):
    """Variant ``v``'s arrays: views of its rows of the run's blocks (``FLOATS``, ``INTS``: :data:`FLOAT_BLOCK`'s
    and :data:`INT_BLOCK`'s order; ``OUT_F``, ``OUT_I``: :data:`OUT_FLOAT_BLOCK`'s and :data:`OUT_INT_BLOCK`'s),
    its parameters, and its row of ``OUT_I`` (the status last). Views of borrowed arrays, counted by nobody."""
    n_p = max(n_parts, 1)
    A = MAX_ACTIVE * n_p
    n = int(consts[K_N])
    nx_max = int(consts[K_NX_MAX])
    R = int(consts[K_ROWS])
    E = int(consts[K_RECORDS])
    TR = int(consts[K_TICK_ROWS])
    fl = FLOATS[v]
    il = INTS[v]
    of = OUT_F[v]
    oi = OUT_I[v]
    o = 0
    X, o = _cut(fl, o, n)
    U, o = _cut(fl, o, nu)
    F0, o = _cut(fl, o, n)
    rs, o = _cut(fl, o, N_RUN_STATE)
    g_prev, o = _cut(fl, o, A)
    search_flat, o = _cut(fl, o, n_p * N_EVENTS)
    search = shaped(search_flat, (n_p, N_EVENTS))
    last_t_flat, o = _cut(fl, o, n_p * N_EVENTS)
    last_t = shaped(last_t_flat, (n_p, N_EVENTS))
    fired_flat, o = _cut(fl, o, 4 * A)
    fired = shaped(fired_flat, (A, 4))
    X_before, o = _cut(fl, o, n)
    CS = fl[o:o + n_cs]
    modes = il[0:n_parts]
    active = shaped(il[n_parts:n_parts + 4 * A], (A, 4))
    ticks = il[n_parts + 4 * A:n_parts + 4 * A + n_c]
    o = 0
    rows_t, o = _cut(of, o, R)
    rows_y_flat, o = _cut(of, o, R * n)
    rows_y = shaped(rows_y_flat, (R, n))
    evr_f_flat, o = _cut(of, o, E * N_EVENT_FIELDS)
    evr_f = shaped(evr_f_flat, (E, N_EVENT_FIELDS))
    evr_x_flat, o = _cut(of, o, E * 2 * nx_max)
    evr_x = shaped(evr_x_flat, (E, 2, nx_max))
    bad_x, o = _cut(of, o, n)
    tick_rows = shaped(of[o:o + TR * (2 + kt.MAX_WRITES)], (TR, 2 + kt.MAX_WRITES))
    rows_m = shaped(oi[0:R * (n_parts + 1)], (R, n_parts + 1))
    return (X, U, F0, rs, g_prev, search, last_t, fired, X_before, CS, modes, active, ticks, P[v], rows_t, rows_y,
            rows_m, evr_f, evr_x, bad_x, tick_rows, oi)


@jit(internal=True)
def _nu(FLOATS, consts, n_parts, CT):
    """The width of a variant's held inputs (its run state included) and of its loops' states, from its float block."""
    n = int(consts[K_N])
    n_p = max(n_parts, 1)
    A = MAX_ACTIVE * n_p
    n_cs = 0
    for c in range(CT.shape[0]):
        n_cs = max(n_cs, CT[c, kt.C_S] + CT[c, kt.C_STATE_SIZE])
    return FLOATS.shape[1] - (3 * n + N_RUN_STATE + A + 2 * n_p * N_EVENTS + 4 * A + n_cs), n_cs


_scratch_sizes = jit(internal=True)(scratch_sizes)


@jit(allocates=True)
def advance_chunk(v0, v1, table, P, FLOATS, INTS, consts, flags, OUT_F, OUT_I, CT, scratch_f, scratch_i, scratch_b):
    """:func:`advance_one` for variants ``v0 <= v < v1``, statuses into their rows of ``OUT_I``
    (:func:`advance_ticking`, with the loops of ``CT`` and their records, when ``flags[F_TICKING]``).

    Each variant's state is its row of ``FLOATS`` and of ``INTS`` (laid out as :data:`FLOAT_BLOCK` and
    :data:`INT_BLOCK` say), its parameters its row of ``P``, its rows, event records and status its rows of
    ``OUT_F`` and ``OUT_I`` (:data:`OUT_FLOAT_BLOCK`, :data:`OUT_INT_BLOCK`); ``consts`` holds the run's
    constants and sizes (the ``K_*`` slots). The advance works on views of those rows made without reference
    counts (:mod:`simcore.kernel.borrowed`: counting a view of a shared array is an atomic operation on one
    cache line that every thread shares). ``scratch_f``, ``scratch_i`` and ``scratch_b`` are this call's
    scratch (:func:`simcore.kernel.layout.scratch_sizes`), made once by the caller: its content does not carry
    from one variant to the next (every part of it is written before it is read), and two calls running at
    once on several threads (the GIL released) are handed scratch of their own, so the results are the same
    whatever the threads.
    """
    n_parts = table.shape[0]
    n_p = max(n_parts, 1)
    A = MAX_ACTIVE * n_p
    n = int(consts[K_N])
    n_frac = int(consts[K_N_FRACTIONS])
    rtol, atol, max_step = consts[K_RTOL], consts[K_ATOL], consts[K_MAX_STEP]
    n_c = CT.shape[0]
    nu, n_cs = _nu(FLOATS, consts, n_parts, CT)
    # The run's arrays without reference counts; every view of them below has none either.
    b_consts, b_table, b_CT, b_flags = borrowed(consts), borrowed(table), borrowed(CT), borrowed(flags)
    b_P, b_FLOATS, b_INTS, b_OUT_F, b_OUT_I = borrowed(P), borrowed(FLOATS), borrowed(INTS), borrowed(OUT_F), \
        borrowed(OUT_I)
    sf, si, sb = borrowed(scratch_f), borrowed(scratch_i), borrowed(scratch_b)
    stiff_rule = b_consts[K_STIFF_RULE:K_STIFF_RULE + 5]
    fractions = b_consts[K_FRACTIONS:K_FRACTIONS + n_frac]
    weights = shaped(b_consts[K_FRACTIONS + n_frac:K_FRACTIONS + 7 * n_frac], (n_frac, 6))
    # The scratch, carved in scratch_sizes' order.
    o = 0
    K_flat, o = _cut(sf, o, 7 * n)
    K = shaped(K_flat, (7, n))
    Q_flat, o = _cut(sf, o, 4 * n)
    Q = shaped(Q_flat, (4, n))
    x_e, o = _cut(sf, o, n)
    y_new, o = _cut(sf, o, n)
    work, o = _cut(sf, o, n)
    tmp, o = _cut(sf, o, n)
    f_s, o = _cut(sf, o, n)
    sf_a, o = _cut(sf, o, A)
    g_a, o = _cut(sf, o, A)
    g_before, o = _cut(sf, o, A)
    g_after, o = _cut(sf, o, A)
    roots_t, o = _cut(sf, o, A + 1)
    roots_ga, o = _cut(sf, o, A + 1)
    samples_flat, o = _cut(sf, o, A * n_frac)
    samples = shaped(samples_flat, (A, n_frac))
    ts, o = _cut(sf, o, n_frac)
    tj, o = _cut(sf, o, n_frac + 2)
    vals, o = _cut(sf, o, n_frac + 2)
    U_before, o = _cut(sf, o, nu)
    cs_before, o = _cut(sf, o, n_cs)
    written_flat, o = _cut(sf, o, n_c * kt.MAX_WRITES)
    written = shaped(written_flat, (n_c, kt.MAX_WRITES))
    part_a = si[0:A]
    code_a = si[A:2 * A]
    dir_a = si[2 * A:3 * A]
    roots_j = si[3 * A:4 * A + 1]
    ids = si[4 * A + 1:4 * A + 1 + MAX_ACTIVE]
    seg_flags = sb[0:N_FLAGS]
    done = sb[N_FLAGS:N_FLAGS + n_p]
    sizes = _scratch_sizes(n, A, n_frac, nu, n_cs, n_c, kt.MAX_WRITES)
    if (o > sizes[0] or sizes[0] > scratch_f.shape[0] or sizes[1] > scratch_i.shape[0]
            or sizes[2] > scratch_b.shape[0]):
        raise ValueError("advance_chunk: scratch smaller than scratch_sizes says, or carved beyond it")
    for v in range(v0, v1):
        (X, U, F0, rs, g_prev, search, last_t, fired, X_before, CS, modes, active, ticks, p, rows_t, rows_y, rows_m,
         evr_f, evr_x, bad_x, tick_rows, oi) = _variant(b_FLOATS, b_INTS, b_P, b_OUT_F, b_OUT_I, v, consts, n_parts,
                                                        nu, n_cs, n_c)
        # (advance_ticking runs advance_one alone without flags[F_TICKING]; both are inlined here, one copy)
        status = advance_ticking(b_CT, b_table, p, U, modes, X, F0, rs, active, g_prev, search, last_t, fired,
                                 X_before, CS, ticks, tick_rows, rtol, atol, max_step, b_flags, stiff_rule,
                                 fractions, weights, rows_t, rows_y, rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags,
                                 part_a, code_a, dir_a, roots_j, ids, sf_a, g_a, roots_t, roots_ga, x_e, y_new,
                                 work, tmp, f_s, samples, ts, tj, vals, U_before, cs_before, written, g_before,
                                 g_after, done)
        oi[oi.shape[0] - 1] = status
    # The arrays borrowed above are the caller's, alive to the end of the call (named here for the test that checks
    # every borrowed array lives to the end).
    keep_alive((consts, table, CT, flags, P, FLOATS, INTS, OUT_F, OUT_I, scratch_f, scratch_i, scratch_b))


@jit(allocates=True)
def input_jumps_chunk(v0, v1, table, P, FLOATS, INTS, U_before, t, consts, OUT_F, OUT_I, CT, scratch_f, scratch_i,
                      scratch_b, quiet_row):
    """:func:`input_jumps` for variants ``v0 <= v < v1`` (``U_before`` (N, inputs): each variant's inputs before
    the writes; the run's arrays and the scratch as :func:`advance_chunk`'s)."""
    n_parts = table.shape[0]
    n_p = max(n_parts, 1)
    A = MAX_ACTIVE * n_p
    nu, n_cs = _nu(FLOATS, consts, n_parts, CT)
    b_table, b_P, b_FLOATS, b_INTS, b_OUT_F, b_OUT_I = borrowed(table), borrowed(P), borrowed(FLOATS), \
        borrowed(INTS), borrowed(OUT_F), borrowed(OUT_I)
    b_U_before, sf, si, sb = borrowed(U_before), borrowed(scratch_f), borrowed(scratch_i), borrowed(scratch_b)
    sizes = _scratch_sizes(int(consts[K_N]), A, int(consts[K_N_FRACTIONS]), nu, n_cs, CT.shape[0], kt.MAX_WRITES)
    if 2 * A > sizes[0] or 4 * A + MAX_ACTIVE > sizes[1] or n_p > sizes[2] or sizes[0] > scratch_f.shape[0] \
            or sizes[1] > scratch_i.shape[0] or sizes[2] > scratch_b.shape[0]:
        raise ValueError("input_jumps_chunk: scratch smaller than scratch_sizes says")
    g_before = sf[0:A]
    g_after = sf[A:2 * A]
    active = shaped(si[0:4 * A], (A, 4))
    ids = si[4 * A:4 * A + MAX_ACTIVE]
    done = sb[0:n_p]
    for v in range(v0, v1):
        (X, U, _f0, rs, _gp, _se, _lt, _fi, _xb, _cs, modes, _ac, _tk, p, rows_t, rows_y, rows_m, evr_f, evr_x, bad_x,
         _tr, oi) = _variant(b_FLOATS, b_INTS, b_P, b_OUT_F, b_OUT_I, v, consts, n_parts, nu, n_cs, CT.shape[0])
        oi[oi.shape[0] - 1] = input_jumps(b_table, p, b_U_before[v], U, modes, t, X, rs, rows_t, rows_y, rows_m,
                                          evr_f, evr_x, bad_x, quiet_row, active, ids, g_before, g_after, done)
    keep_alive((table, P, FLOATS, INTS, OUT_F, OUT_I, U_before, scratch_f, scratch_i, scratch_b))
