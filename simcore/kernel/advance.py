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

from .borrowed import borrowed, keep_alive
from .jit import jit
from .layout import (N_RUN_STATE, A_CODE, A_DIR, A_ID, A_PART, DONE, E_AT_TICK, E_ID, E_MODE_AFTER, E_MODE_BEFORE,
                     E_PART, E_ROW, E_T, EVENT, F_ARMED, F_DETECT, F_KEEP, F_START, F_TICKING, FD_ID, FD_PART,
                     FD_PRE_SIDE, FD_PREV_T, NONFINITE_GUARD, PAUSE, RS_DETECT,
                     RS_IN_SEGMENT, RS_LAST_EVENT_T, RS_N_ACTIVE, RS_N_EV_RECORDS, RS_N_EVENTS, RS_N_FIRED,
                     RS_N_SEGMENTS, RS_WARN_T, RS_ZENO_EVENT, RS_ZENO_RUN, S_BAD_INDEX, S_BAD_T, S_H, S_NFEV, S_NROOTS,
                     S_NROWS, S_SPAN, S_STEPS_HERE, S_SWITCH_DUE, S_T, S_T_END, S_T_NEW, S_TE, S_WARN_DUE, SWITCH,
                     WARN_STIFF, ZENO, MAX_ACTIVE, N_EVENTS, RS_N_TICK_RECORDS, RS_N_TICKS, RS_T_NS, RS_TARGET_NS,
                     TICK_REFUSED)
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


@jit(internal=True)
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


@jit
def advance_ticking(CT, table, P, U, modes, X, F0, rs, active, g_prev, search, last_t, fired, X_before, CS, ticks,
                    tick_rows, rtol, atol, max_step, flags, stiff_rule, fractions, weights,
                    rows_t, rows_y, rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags,
                    part_a, code_a, dir_a, roots_j, ids, sf_a, g_a, roots_t, roots_ga, x_e,
                    y_new, work, tmp, f_s, samples, ts, tj, vals, U_before, cs_before, written, g_before, g_after,
                    done):
    """With ``flags[F_TICKING]``: advance one variant from ``rs[RS_T_NS]`` to ``rs[RS_TARGET_NS]`` (integer ns),
    running the loops of ``CT`` (:mod:`simcore.kernel.ticks`) at their ticks on the way, the ticks at the
    target included: what :class:`simcore.engine.Simulator` does from one call of ``advance`` to its end, with
    the loops in the kernel. Each tick's writes go to ``tick_rows`` (time, loop, value) and fire the events
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
                if not math.isnan(written[c]):
                    tick_rows[r, 0] = t
                    tick_rows[r, 1] = c
                    tick_rows[r, 2] = written[c]
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


@jit(allocates=True)
def advance_chunk(v0, v1, table, P, FLOATS, INTS, rtol, atol, max_step, flags, stiff_rule, fractions, weights,
                  ROWS_T, ROWS_Y, ROWS_M, EVR_F, EVR_X, BAD_X, STATUS, CT, TICK_ROWS):
    """:func:`advance_one` for variants ``v0 <= v < v1``, statuses into ``STATUS`` (:func:`advance_ticking`,
    with the loops of ``CT`` and their records into ``TICK_ROWS``, when ``flags[F_TICKING]``).

    Each variant's state is its row of ``FLOATS`` and of ``INTS`` (laid out as :data:`FLOAT_BLOCK` and
    :data:`INT_BLOCK` say) and its parameters its row of ``P``; its rows and event records go to its rows
    of the buffers. The chunk copies a variant's rows into arrays of its own, advances it there and
    copies them back: views of the shared arrays would touch their reference counts (atomic operations on
    one cache line that every thread shares) a few dozen times per variant. Variants share nothing, so
    several chunks run on several threads at once (the GIL released) with the same results.
    """
    n_parts = table.shape[0]
    n = ROWS_Y.shape[2]
    n_p = max(n_parts, 1)
    A = MAX_ACTIVE * n_p
    n_frac = fractions.shape[0]
    n_c = CT.shape[0]
    n_cs = 0
    for c in range(n_c):
        n_cs = max(n_cs, CT[c, kt.C_S] + kt.pid.N_PID_STATE)
    nu = FLOATS.shape[1] - (3 * n + N_RUN_STATE + A + 2 * n_p * N_EVENTS + 4 * A + n_cs)
    fl = np.empty(FLOATS.shape[1])
    il = np.empty(INTS.shape[1], dtype=np.int64)
    p = np.empty(P.shape[1])
    # The variant's arrays, views of ``fl`` and ``il`` made once (FLOAT_BLOCK's and INT_BLOCK's order).
    o = 0
    X = fl[o:o + n]
    o += n
    U = fl[o:o + nu]
    o += nu
    F0 = fl[o:o + n]
    o += n
    rs = fl[o:o + N_RUN_STATE]
    o += N_RUN_STATE
    g_prev = fl[o:o + A]
    o += A
    search = fl[o:o + n_p * N_EVENTS].reshape((n_p, N_EVENTS))
    o += n_p * N_EVENTS
    last_t = fl[o:o + n_p * N_EVENTS].reshape((n_p, N_EVENTS))
    o += n_p * N_EVENTS
    fired = fl[o:o + 4 * A].reshape((A, 4))
    o += 4 * A
    X_before = fl[o:o + n]
    o += n
    CS = fl[o:o + n_cs]
    modes = il[0:n_parts]
    active = il[n_parts:n_parts + 4 * A].reshape((A, 4))
    ticks = il[n_parts + 4 * A:n_parts + 4 * A + n_c]
    TR = TICK_ROWS.shape[1]
    tick_rows = np.empty((TR, 3))
    U_before = np.empty(nu)
    cs_before = np.empty(n_cs)
    written = np.empty(n_c)
    g_before = np.empty(A)
    g_after = np.empty(A)
    done = np.empty(n_p, dtype=np.bool_)
    R = ROWS_T.shape[1]
    E = EVR_F.shape[1]
    rows_t = np.empty(R)
    rows_y = np.empty((R, n))
    rows_m = np.empty((R, ROWS_M.shape[2]), dtype=np.int64)
    evr_f = np.empty((E, EVR_F.shape[2]))
    evr_x = np.empty((E, 2, EVR_X.shape[3]))
    bad_x = np.empty(n)
    # Scratch.
    K = np.empty((7, n))
    Q = np.empty((4, n))
    seg_flags = np.empty(flags.shape[0], dtype=np.bool_)
    part_a = np.empty(A, dtype=np.int64)
    code_a = np.empty(A, dtype=np.int64)
    dir_a = np.empty(A, dtype=np.int64)
    roots_j = np.empty(A + 1, dtype=np.int64)
    ids = np.empty(MAX_ACTIVE, dtype=np.int64)
    sf_a = np.empty(A)
    g_a = np.empty(A)
    roots_t = np.empty(A + 1)
    roots_ga = np.empty(A + 1)
    x_e = np.empty(n)
    y_new = np.empty(n)
    work = np.empty(n)
    tmp = np.empty(n)
    f_s = np.empty(n)
    samples = np.empty((A, n_frac))
    ts = np.empty(n_frac)
    tj = np.empty(n_frac + 2)
    vals = np.empty(n_frac + 2)
    # What advance_one works on, without reference counting (simcore.kernel.borrowed): all held above.
    b_table, b_p, b_U, b_modes, b_X, b_F0 = borrowed(table), borrowed(p), borrowed(U), borrowed(modes), borrowed(X), \
        borrowed(F0)
    b_rs, b_active, b_g_prev, b_search, b_last_t = borrowed(rs), borrowed(active), borrowed(g_prev), \
        borrowed(search), borrowed(last_t)
    b_fired, b_X_before, b_flags, b_stiff_rule = borrowed(fired), borrowed(X_before), borrowed(flags), \
        borrowed(stiff_rule)
    b_fractions, b_weights, b_rows_t, b_rows_y, b_rows_m = borrowed(fractions), borrowed(weights), \
        borrowed(rows_t), borrowed(rows_y), borrowed(rows_m)
    b_evr_f, b_evr_x, b_bad_x, b_K, b_Q, b_seg_flags = borrowed(evr_f), borrowed(evr_x), borrowed(bad_x), \
        borrowed(K), borrowed(Q), borrowed(seg_flags)
    b_part_a, b_code_a, b_dir_a, b_roots_j, b_ids = borrowed(part_a), borrowed(code_a), borrowed(dir_a), \
        borrowed(roots_j), borrowed(ids)
    b_sf_a, b_g_a, b_roots_t, b_roots_ga, b_x_e = borrowed(sf_a), borrowed(g_a), borrowed(roots_t), \
        borrowed(roots_ga), borrowed(x_e)
    b_y_new, b_work, b_tmp, b_f_s, b_samples = borrowed(y_new), borrowed(work), borrowed(tmp), borrowed(f_s), \
        borrowed(samples)
    b_ts, b_tj, b_vals = borrowed(ts), borrowed(tj), borrowed(vals)
    b_CS, b_ticks, b_tick_rows, b_U_before, b_cs_before, b_written = borrowed(CS), borrowed(ticks), \
        borrowed(tick_rows), borrowed(U_before), borrowed(cs_before), borrowed(written)
    b_g_before, b_g_after, b_done, b_CT = borrowed(g_before), borrowed(g_after), borrowed(done), borrowed(CT)
    ticking = flags[F_TICKING]
    for v in range(v0, v1):
        for i in range(fl.shape[0]):
            fl[i] = FLOATS[v, i]
        for i in range(il.shape[0]):
            il[i] = INTS[v, i]
        for i in range(p.shape[0]):
            p[i] = P[v, i]
        r0 = int(rs[S_NROWS])
        e0 = int(rs[RS_N_EV_RECORDS])
        k0 = int(rs[RS_N_TICK_RECORDS])
        if ticking:
            status = advance_ticking(b_CT, b_table, b_p, b_U, b_modes, b_X, b_F0, b_rs, b_active, b_g_prev, b_search,
                                     b_last_t, b_fired, b_X_before, b_CS, b_ticks, b_tick_rows, rtol, atol, max_step,
                                     b_flags, b_stiff_rule, b_fractions, b_weights, b_rows_t, b_rows_y, b_rows_m,
                                     b_evr_f, b_evr_x, b_bad_x, b_K, b_Q, b_seg_flags, b_part_a, b_code_a, b_dir_a,
                                     b_roots_j, b_ids, b_sf_a, b_g_a, b_roots_t, b_roots_ga, b_x_e, b_y_new, b_work,
                                     b_tmp, b_f_s, b_samples, b_ts, b_tj, b_vals, b_U_before, b_cs_before, b_written,
                                     b_g_before, b_g_after, b_done)
        else:  # (directly: a call through advance_ticking passes its fifty arrays once more per variant)
            status = advance_one(b_table, b_p, b_U, b_modes, b_X, b_F0, b_rs, b_active, b_g_prev, b_search,
                                 b_last_t, b_fired, b_X_before, rtol, atol, max_step, b_flags, b_stiff_rule,
                                 b_fractions, b_weights, b_rows_t, b_rows_y, b_rows_m, b_evr_f, b_evr_x, b_bad_x,
                                 b_K, b_Q, b_seg_flags, b_part_a, b_code_a, b_dir_a, b_roots_j, b_ids, b_sf_a,
                                 b_g_a, b_roots_t, b_roots_ga, b_x_e, b_y_new, b_work, b_tmp, b_f_s, b_samples, b_ts,
                                 b_tj, b_vals)
        STATUS[v] = status
        for i in range(fl.shape[0]):
            FLOATS[v, i] = fl[i]
        for i in range(il.shape[0]):
            INTS[v, i] = il[i]
        for r in range(r0, int(rs[S_NROWS])):
            ROWS_T[v, r] = rows_t[r]
            for i in range(n):
                ROWS_Y[v, r, i] = rows_y[r, i]
            for k in range(rows_m.shape[1]):
                ROWS_M[v, r, k] = rows_m[r, k]
        for e in range(e0, int(rs[RS_N_EV_RECORDS])):
            for i in range(evr_f.shape[1]):
                EVR_F[v, e, i] = evr_f[e, i]
            for a in range(2):
                for i in range(evr_x.shape[2]):
                    EVR_X[v, e, a, i] = evr_x[e, a, i]
        for r in range(k0, int(rs[RS_N_TICK_RECORDS])):
            for i in range(3):
                TICK_ROWS[v, r, i] = tick_rows[r, i]
        if status != DONE and status != PAUSE and status != SWITCH:
            for i in range(n):
                BAD_X[v, i] = bad_x[i]
    # The arrays borrowed above are freed only after this (numba frees an array after its variable's last use).
    keep_alive((fl, il, p, rows_t, rows_y, rows_m, evr_f, evr_x, bad_x, K, Q, seg_flags, part_a, code_a, dir_a,
                roots_j, ids, sf_a, g_a, roots_t, roots_ga, x_e, y_new, work, tmp, f_s, samples, ts, tj, vals,
                table, flags, stiff_rule, fractions, weights, tick_rows, U_before, cs_before, written, g_before,
                g_after, done, CT))


@jit(allocates=True)
def input_jumps_chunk(v0, v1, table, P, U_before, U_after, modes, t, X, RS, ROWS_T, ROWS_Y, ROWS_M, EVR_F,
                      EVR_X, BAD_X, STATUS, quiet_row):
    """:func:`input_jumps` for variants ``v0 <= v < v1``."""
    A = geared.MAX_ACTIVE * max(table.shape[0], 1)
    active = np.empty((A, 4), dtype=np.int64)
    ids = np.empty(geared.MAX_ACTIVE, dtype=np.int64)
    g_before = np.empty(A)
    g_after = np.empty(A)
    done = np.empty(max(table.shape[0], 1), dtype=np.bool_)
    for v in range(v0, v1):
        STATUS[v] = input_jumps(table, P[v], U_before[v], U_after[v], modes[v], t, X[v], RS[v], ROWS_T[v],
                                ROWS_Y[v], ROWS_M[v], EVR_F[v], EVR_X[v], BAD_X[v], quiet_row, active, ids,
                                g_before, g_after, done)


