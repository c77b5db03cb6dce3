"""The engine's compiled segments: what :class:`~simcore.engine.Simulator` hands the kernel, and takes back.

A simulation whose systems are all built-in parts with a kernel form (``system.kernel_form()`` is
not None: the flywheel, arm, elevator and hub motor without a Python load), without couplings (a
battery), stepped by ``RK45`` (or ``"auto"`` while it is on RK45), integrates each segment in
:func:`simcore.kernel.segment.integrate_segment` instead of the per-step Python loop. Everything
else stays in the engine: ticks, controllers, firing events (resets, mode switches, records, the
restart sides, the Zeno bound), the recorder. The kernel reproduces the Python loop's arithmetic
(its Dormand-Prince adds the stages in :mod:`simcore.dopri5`'s order, its guards and root finder
are the Python ones' in kernel form), so the two paths give the same rows to the bit; the tests
compare them.

numba is imported here: this module is imported only when a simulation can use it.
"""
from __future__ import annotations

import numpy as np

from .event_handler import _SAMPLE_FRACTIONS
from .kernel import segment as ks
from .kernel.dopri5 import check_tableau, interior_weights
from .kernel.parts import T_KIND, T_NX, T_P, T_U, T_X
from .solvers import (MIN_EXPLICIT_STEPS, STABILITY_BOUNDARY, STIFF_CLEAR_AFTER, STIFF_HINT, STIFF_METHOD,
                      STIFF_SKIP_STEPS, STIFF_STEPS, StiffnessWarning)

__all__ = ["CompiledSegments", "compiled_segments"]

#: Rows of accepted steps the kernel keeps before handing them over (it resumes after).
ROW_BUFFER = 4096

_FRACTIONS = np.array(_SAMPLE_FRACTIONS, dtype=float)
_WEIGHTS = interior_weights(_SAMPLE_FRACTIONS)
_STIFF_RULE = np.array([STABILITY_BOUNDARY["RK45"], STIFF_STEPS, STIFF_CLEAR_AFTER, STIFF_SKIP_STEPS,
                        MIN_EXPLICIT_STEPS], dtype=float)


def compiled_segments(simulator) -> "CompiledSegments | None":
    """The compiled segments of ``simulator``'s run, or None when a part has no kernel form."""
    lay = simulator._layout
    if lay.couplings or simulator.method not in ("auto", "RK45") or check_tableau() is not None:
        return None
    forms = []
    for s in lay.systems:
        form = getattr(s, "kernel_form", None)
        form = form() if callable(form) else None
        if form is None:
            return None
        forms.append(form)
    return CompiledSegments(simulator, forms)


class CompiledSegments:
    """The kernel's view of one simulation: the parts table, the parameters, and per-segment buffers."""

    def __init__(self, simulator, forms):
        lay = simulator._layout
        self.sim = simulator
        self.layout = lay
        n_parts = len(forms)
        table = np.zeros((n_parts, 5), dtype=np.int64)
        p_off, u_off = 0, 0
        self._mode_index = []
        for k, (kind, params, mode_names) in enumerate(forms):
            sl = lay.slices[k]
            table[k, T_KIND], table[k, T_X], table[k, T_NX] = kind, sl.start, sl.stop - sl.start
            table[k, T_U], table[k, T_P] = u_off, p_off
            u_off += len(lay.U[k])
            p_off += len(params)
            self._mode_index.append({name: i for i, name in enumerate(mode_names)})
        self.table = table
        self.P = np.concatenate([np.asarray(f[1], dtype=float) for f in forms]) if forms else np.empty(0)
        self.U = np.zeros(u_off)
        self.modes = np.zeros(n_parts, dtype=np.int64)
        n = lay.n_states
        self.n = n
        self.rows_t = np.empty(ROW_BUFFER)
        self.rows_y = np.empty((ROW_BUFFER, n))
        self.K = np.empty((7, n))
        self.Q = np.empty((4, n))
        self.f0 = np.empty(n)
        self.work = np.empty(n)
        self.x_e = np.empty(n)
        self.bad_x = np.empty(n)
        self.state = np.zeros(ks.N_STATE)
        self.flags = np.zeros(5, dtype=np.bool_)
        self.nfev = 0
        self._armed_arrays = (None, None)  # (the active list they were built for, (part, code, direction))

    def _load_inputs_and_modes(self):
        lay = self.layout
        off = 0
        for k, u in enumerate(lay.U):
            m = len(u)
            self.U[off:off + m] = u
            off += m
            self.modes[k] = self._mode_index[k][lay.systems[k].mode]

    def _events(self, ev):
        """The armed events as kernel arrays, with their guards' restart values and search times."""
        active = ev.active
        m = len(active)
        built_for, arrays = self._armed_arrays
        if built_for is not active:  # the handler keeps one list per set of modes
            arrays = (np.array([k for k, _ in active], dtype=np.int64),
                      np.array([e.kernel_guard for _, e in active], dtype=np.int64),
                      np.array([e.direction for _, e in active], dtype=np.int64),
                      np.empty(m), np.empty(max(m, 1)), np.empty(max(m, 1), np.int64), np.empty(max(m, 1)))
            self._armed_arrays = (active, arrays)
        part, code, direction, search_from, roots_t, roots_j, roots_ga = arrays
        search_from.fill(np.nan)
        sf = ev._sf
        if sf:
            for j, (k, e) in enumerate(active):
                t_s = sf.get((k, id(e)))
                if t_s is not None:
                    search_from[j] = t_s
        return part, code, direction, np.array(ev.g_prev, dtype=float), search_from, roots_t, roots_j, roots_ga

    def segment(self, t_end: float) -> None:
        """:meth:`Simulator._segment` with the steps in the kernel (same contract, same rows)."""
        sim = self.sim
        t, X = sim.t, sim._X
        integ, ev, rec, lay = sim._integrator, sim._events, sim._rec, self.layout
        stats = sim._stats
        snapshot = integ.snapshot()
        modes_before = sim._modes()
        held, keep, stage = lay.held, rec.keeps_steps, rec.stager()
        nfev_before = self.nfev
        try:
            first_step = integ.kernel_start(t, t_end)
            stats["n_segments"] += 1
            self._load_inputs_and_modes()
            state, flags = self.state, self.flags
            state[:] = 0.0
            state[ks.S_T], state[ks.S_T_END] = t, t_end
            state[ks.S_STIFF], state[ks.S_CALM] = integ._stiff, integ._calm
            state[ks.S_SPAN] = t_end - t
            flags[ks.F_AUTO] = integ.method == "auto"
            flags[ks.F_DETECT] = integ._detect is not None
            flags[ks.F_KEEP] = keep
            flags[ks.F_START] = True
            y = np.array(X, dtype=float)
            args = (self.table, self.P, self.U, self.modes)
            state[ks.S_H] = 0.0 if first_step is None else first_step  # 0: scipy's rule chooses it
            armed = ev.begin(t, X)
            flags[ks.F_ARMED] = armed
            part, code, direction, g_prev, search_from, roots_t, roots_j, roots_ga = (
                self._events(ev) if armed else _UNARMED)
            while True:
                state[ks.S_NROWS] = 0
                status = ks.integrate_segment(*args, y, self.f0, integ.rtol, integ.atol, integ.max_step, flags,
                                              _STIFF_RULE, state, part, code, direction, g_prev, search_from,
                                              _FRACTIONS, _WEIGHTS, self.rows_t, self.rows_y, roots_t, roots_j,
                                              roots_ga, self.x_e, self.bad_x, self.K, self.Q)
                n_rows = int(state[ks.S_NROWS])
                if keep and n_rows:
                    h = held(0.0, y)
                    rows_y = self.rows_y[:n_rows].copy()
                    for r in range(n_rows):
                        stage((float(self.rows_t[r]), rows_y[r], h))
                if state[ks.S_WARN_DUE]:
                    state[ks.S_WARN_DUE] = 0.0
                    flags[ks.F_DETECT] = False
                    integ.stiffness_warning(state[ks.S_T_NEW])
                if status == ks.PAUSE or status == ks.WARN_STIFF:
                    continue
                break
            if status in (ks.STEP_TOO_SMALL, ks.NONFINITE_STATE, ks.NONFINITE_DERIVATIVE, ks.NONFINITE_GUARD):
                raise _OnPythonPath
            n_steps = int(state[ks.S_NSTEPS])
            stats["n_steps"] += n_steps
            self.nfev += int(state[ks.S_NFEV])
            if not keep:  # the Python loop counts every step it leaves with the solver still running
                rec.dropped["rows"] += n_steps - (0 if status == ks.SWITCH else 1)
            integ.kernel_finish(float(state[ks.S_H]), state[ks.S_STIFF], state[ks.S_CALM],
                                bool(state[ks.S_SWITCH_DUE]))
            if status == ks.EVENT:
                n_roots = int(state[ks.S_NROOTS])
                roots = sorted((float(roots_t[r]), int(roots_j[r]), float(roots_ga[r])) for r in range(n_roots))
                hit = (float(state[ks.S_TE]), self.x_e.copy(), roots, float(state[ks.S_T_NEW]))
                sim._X = ev.fire(hit, sim._fire)
                sim.t = hit[0]
                rec.commit(sim.t)
                return
            t_reached = float(state[ks.S_T])
            if status == ks.SWITCH:
                if not keep:
                    rec.row(t_reached, y, held(t_reached, y))
                sim._X, sim.t = y, t_reached
                ev.g_prev = list(g_prev)
                ev.end_segment(t_reached, y)
                rec.commit(t_reached)
                return
            sim._X = y
            sim.t = t_end
            if armed:
                ev.g_prev = list(g_prev)
            ev.end_segment(t_end, y)
            if not keep:
                rec.row(t_end, y, held(t_end, y))
            rec.commit(t_end)
            return
        except BaseException as exc:
            rec.rollback()
            integ.restore(snapshot)
            sim._restore_modes(modes_before)
            sim._X, sim.t, sim._terminated = X, t, False
            self.nfev = nfev_before
            if not isinstance(exc, _OnPythonPath):
                raise
        # A failure (a non-finite value, a step too small): the same segment on the Python path, which
        # takes the same steps and raises the error naming the signal, guard or time.
        sim._segment_on_python(t_end)


_UNARMED = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), np.empty(0),
            np.empty(1), np.empty(1, np.int64), np.empty(1))


class _OnPythonPath(Exception):
    """The segment is to be integrated again on the Python path (which names what failed)."""
