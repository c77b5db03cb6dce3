"""One integration segment of a run made of built-in parts, compiled: steps, stiffness count, event search.

The Python engine (:class:`simcore.engine.Simulator`) owns the run: ticks, controllers, firing events
(resets, mode switches, records), restart sides and the Zeno bound. Between two of those moments it
calls :func:`integrate_segment`, which does what its per-step loop does, without returning to
Python: Dormand-Prince steps (:mod:`simcore.kernel.dopri5`), the stiffness count of
``method="auto"`` (:mod:`simcore.solvers`' rule), the sampling of every armed guard and the location
of the roots (:mod:`simcore.kernel.events`), and the recording of each accepted step. It returns
with a status: the segment reached its end; a root was located (the engine fires it); ``"auto"``
switches method; the row buffer is full or a stiffness warning is due (the engine resumes it); or
something failed (the engine raises the named error, evaluating again in Python what failed).

The scalars carried in and out are in the float array ``state`` (``S_*`` indices).
"""
from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .dopri5 import (ERROR_EXPONENT, MAX_FACTOR, MIN_FACTOR, SAFETY, STIFF_W, attempt, dense_coefficients,
                     dense_state, initial_step, interior_state, stage_state, stiffness_ratio)
from .events import brent_root, crosses, guard_on_dense
from .parts import derivatives, guards

#: Events are located to this, s (simcore.events.EVENT_TIME_TOLERANCE; checked equal by the tests).
EVENT_TIME_TOLERANCE = 1e-13

from .layout import (DONE, EVENT, F_ARMED, F_AUTO, F_DETECT, F_KEEP, F_START, NONFINITE_DERIVATIVE,  # noqa: E402
                     NONFINITE_GUARD, NONFINITE_STATE, PAUSE, R_BOUNDARY, R_CLEAR_AFTER, R_MIN_EXPLICIT,
                     R_SKIP_STEPS, R_STIFF_STEPS, S_BAD_INDEX, S_BAD_T, S_CALM, S_DROPPED, S_H, S_NFEV,
                     S_NROOTS, S_NROWS, S_NSTEPS, S_SPAN, S_STEPS_HERE, S_STIFF, S_SWITCH_DUE, S_T, S_T_END,
                     S_T_NEW, S_TE, S_WARN_DUE, STEP_TOO_SMALL, SWITCH, WARN_STIFF, RS_N_TICKS)


@jit(internal=True)
def _all_finite(v):
    for x in v:
        if not math.isfinite(x):
            return False
    return True


@jit(internal=True)
def _all_finite_row(K, s):
    for i in range(K.shape[1]):
        if not math.isfinite(K[s, i]):
            return False
    return True


@jit(internal=True)
def evaluate_start(table, P, U, modes, t, y, f0, state):
    """f(t, y) into ``f0`` (the derivative at a restart: the held inputs may just have jumped)."""
    derivatives(table, P, U, modes, t, y, f0)
    state[S_NFEV] += 1
    if not _all_finite(f0):
        state[S_BAD_T] = t
        return False
    return True


@jit(internal=True)
def choose_first_step(table, P, U, modes, y, f0, rtol, atol, max_step, state, work, y1):
    """scipy's initial step from (t, y) towards the segment's end (one evaluation)."""
    h = initial_step(table, P, U, modes, state[S_T], y, f0, state[S_T_END], max_step, rtol, atol, work, y1)
    state[S_NFEV] += 1
    state[S_H] = h


@jit(internal=True)
def record_row(rows_t, rows_y, rows_m, state, t, X, modes):
    """Append the row ``(t, X, modes)`` to the buffers (``state`` the variant's run state, ``RS_*``)."""
    r = int(state[S_NROWS])
    rows_t[r] = t
    for i in range(X.shape[0]):
        rows_y[r, i] = X[i]
    for k in range(modes.shape[0]):
        rows_m[r, k] = modes[k]
    if rows_m.shape[1] > modes.shape[0]:  # and the ticks run in the kernel so far (its held inputs)
        rows_m[r, modes.shape[0]] = int(state[RS_N_TICKS])
    state[S_NROWS] = r + 1


@jit(internal=True, forceinline=True)
def integrate_segment(table, P, U, modes, y, f0, rtol, atol, max_step, flags, stiff_rule, state,
                      m_ev, ev_part, ev_code, ev_dir, g_prev, search_from, fractions, weights,
                      rows_t, rows_y, roots_t, roots_j, roots_ga, x_e, bad_x, K, Q, rows_m,
                      y_new, work, tmp, f_s, samples, ts, tj, vals):
    """Integrate from ``state[S_T]`` towards ``state[S_T_END]`` with the inputs held.

    ``y`` (n,) is the state at ``state[S_T]`` and ``f0`` the derivative there (evaluated by
    :func:`evaluate_start`); both are advanced in place. ``state[S_H]`` is the step to try. Armed
    events ``j < m_ev`` are ``(ev_part[j], ev_code[j], ev_dir[j])`` with their guards ``g_prev[j]`` at the
    start and ``search_from[j]`` (NaN for none: a bounce's next crossing is sought from there);
    ``fractions`` (m,) are the interior sample points (the last is 1, the step's end) and
    ``weights`` (m, 6) their dense-output weights. Rows of accepted steps go to ``rows_t``,
    ``rows_y`` (with ``flags[F_KEEP]``) from ``state[S_NROWS]`` on. Returns a status; with
    :data:`EVENT`, ``roots_*`` hold ``state[S_NROOTS]`` located roots (time, event, guard at the
    bracket start) and ``x_e`` the state at the earliest, ``state[S_TE]``; ``state[S_T_NEW]`` the
    step's end.
    """
    n = y.shape[0]
    n_frac = fractions.shape[0]
    # Scratch from the caller, made once per chunk of variants (nothing allocated or sliced per call): the
    # state-length vectors ``y_new``, ``work``, ``tmp``, ``f_s``; ``samples`` (at least m_ev, n_frac); ``ts``
    # (n_frac); ``tj``, ``vals`` (n_frac + 2).
    t_bound = state[S_T_END]
    cap = rows_t.shape[0]
    if flags[F_START]:
        flags[F_START] = False
        if not evaluate_start(table, P, U, modes, state[S_T], y, f0, state):
            for i in range(n):
                bad_x[i] = y[i]
            return NONFINITE_DERIVATIVE
        if state[S_H] == 0.0:
            choose_first_step(table, P, U, modes, y, f0, rtol, atol, max_step, state, work, tmp)
    while True:
        t = state[S_T]
        if t >= t_bound:
            return DONE
        # Pause while the buffer can still take this step's row and, should it end at events, their rows.
        if state[S_NROWS] + 2 * m_ev + 2 >= cap:
            return PAUSE
        # -- one accepted step (DormandPrince.step) --
        min_step = 10.0 * abs(np.nextafter(t, math.inf) - t)
        h_abs = state[S_H]
        if h_abs > max_step:
            h_abs = max_step
        elif h_abs < min_step:
            h_abs = min_step
        rejected = False
        factor = 1.0
        t_new = t
        h = 0.0
        for i in range(n):
            K[0, i] = f0[i]
        while True:
            if h_abs < min_step:
                return STEP_TOO_SMALL
            t_new = t + h_abs
            if t_new > t_bound:
                t_new = t_bound
            h = t_new - t
            err = attempt(table, P, U, modes, t, h, y, K, y_new, rtol, atol, tmp, f_s)
            state[S_NFEV] += 6
            # A non-finite stage makes the error norm non-finite (every stage reaches it through the next
            # stages' states): only then are the stages searched.
            for s in range(1, 7 if not math.isfinite(err) else 1):
                if not _all_finite_row(K, s):
                    # The failing evaluation, for the engine to evaluate again in Python (which names it).
                    state[S_BAD_T] = stage_state(s, t, h, y, K, y_new, bad_x)
                    state[S_BAD_INDEX] = s
                    return NONFINITE_DERIVATIVE
            if err < 1.0:
                if err == 0.0:
                    factor = MAX_FACTOR
                else:
                    factor = min(MAX_FACTOR, SAFETY * err ** ERROR_EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                break
            grow = SAFETY * err ** ERROR_EXPONENT
            h_abs = h * (grow if grow > MIN_FACTOR else MIN_FACTOR)  # a NaN norm shrinks the step (as scipy)
            rejected = True
        state[S_H] = h * factor
        state[S_T_NEW] = t_new
        if not _all_finite(y_new):
            state[S_BAD_T] = t_new
            return NONFINITE_STATE
        state[S_NSTEPS] += 1
        # -- the stiffness count (Integrator.after_step) --
        state[S_STEPS_HERE] += 1
        if flags[F_DETECT] and state[S_STEPS_HERE] > stiff_rule[R_SKIP_STEPS] and not (
                flags[F_AUTO] and not state[S_SPAN] >= stiff_rule[R_MIN_EXPLICIT] * (t_new - t)):
            if stiffness_ratio(K, STIFF_W) > stiff_rule[R_BOUNDARY]:
                state[S_STIFF] += 1
                state[S_CALM] = 0
                if state[S_STIFF] >= stiff_rule[R_STIFF_STEPS]:
                    state[S_STIFF] = 0
                    if flags[F_AUTO]:
                        state[S_SWITCH_DUE] = 1.0
                    else:
                        state[S_WARN_DUE] = 1.0
            else:
                state[S_CALM] += 1
                if state[S_CALM] >= stiff_rule[R_CLEAR_AFTER]:
                    state[S_STIFF] = 0
        # -- the event search (EventHandler.step) --
        if flags[F_ARMED] and m_ev > 0:
            span = t_new - t
            for i in range(n_frac - 1):
                ts[i] = t + span * fractions[i]
            ts[n_frac - 1] = t_new
            for i in range(n_frac - 1):
                interior_state(y, h, K, weights, i, work)
                guards(table, P, U, modes, m_ev, ev_part, ev_code, ts[i], work, samples, i)
            guards(table, P, U, modes, m_ev, ev_part, ev_code, t_new, y_new, samples, n_frac - 1)
            for j in range(m_ev):
                for i in range(n_frac):
                    if not math.isfinite(samples[j, i]):
                        state[S_BAD_T] = ts[i]
                        state[S_BAD_INDEX] = j
                        if i == n_frac - 1:
                            for q in range(n):
                                bad_x[q] = y_new[q]
                        else:
                            interior_state(y, h, K, weights, i, bad_x)
                        return NONFINITE_GUARD
            n_roots = 0
            have_q = False
            for j in range(m_ev):
                t_s = search_from[j]
                found = False
                if not math.isnan(t_s) and t_s > t:
                    if t_s >= t_new:
                        continue
                    if not have_q:
                        dense_coefficients(K, Q)
                        have_q = True
                    g_s = guard_on_dense(table, P, U, modes, ev_part[j], ev_code[j], t, h, y, Q, t_s, work)
                    c = 0
                    tj[c] = t_s
                    vals[c] = g_s
                    c += 1
                    for i in range(n_frac - 1):
                        if ts[i] > t_s:
                            tj[c] = ts[i]
                            vals[c] = samples[j, i]
                            c += 1
                    tj[c] = t_new
                    vals[c] = samples[j, n_frac - 1]
                    c += 1
                else:
                    g0 = g_prev[j]
                    lo = samples[j, 0]
                    hi = samples[j, 0]
                    for i in range(1, n_frac):
                        lo = min(lo, samples[j, i])
                        hi = max(hi, samples[j, i])
                    if (g0 > 0.0 and lo > 0.0) or (g0 < 0.0 and hi < 0.0):
                        continue
                    tj[0] = t
                    vals[0] = g0
                    for i in range(n_frac):
                        tj[i + 1] = ts[i]
                        vals[i + 1] = samples[j, i]
                    c = n_frac + 1
                for i in range(c - 1):
                    if crosses(vals[i], vals[i + 1], ev_dir[j]):
                        if not have_q:
                            dense_coefficients(K, Q)
                            have_q = True
                        if vals[i + 1] == 0.0:
                            root = tj[i + 1]
                        else:
                            root = brent_root(table, P, U, modes, ev_part[j], ev_code[j], t, h, y, Q, tj[i], vals[i],
                                              tj[i + 1], vals[i + 1], EVENT_TIME_TOLERANCE, work)
                        roots_t[n_roots] = root
                        roots_j[n_roots] = j
                        roots_ga[n_roots] = vals[i]
                        n_roots += 1
                        found = True
                        break
                if found:
                    continue
            if n_roots > 0:
                te = roots_t[0]
                for r in range(1, n_roots):
                    if roots_t[r] < te:
                        te = roots_t[r]
                state[S_TE] = te
                state[S_NROOTS] = n_roots
                # The state at the earliest root: the interpolant, or the step's end exactly.
                if te < t_new:
                    dense_state(t, h, y, Q, te, x_e)
                else:
                    for i in range(n):
                        x_e[i] = y_new[i]
                return EVENT  # the engine fires from x_e at te and restarts there
            for j in range(m_ev):
                g_prev[j] = samples[j, n_frac - 1]
        # -- accept --
        for i in range(n):
            y[i] = y_new[i]
            f0[i] = K[6, i]
        state[S_T] = t_new
        if flags[F_KEEP]:
            record_row(rows_t, rows_y, rows_m, state, t_new, y_new, modes)
        elif t_new < t_bound:
            state[S_DROPPED] += 1
        if t_new < t_bound:
            if state[S_SWITCH_DUE] != 0.0:
                return SWITCH
            if state[S_WARN_DUE] != 0.0:
                return WARN_STIFF
