"""A run of built-in parts in the compiled kernel: its state, and what it hands back.

:class:`CompiledRun` holds, for each variant (its arrays have a variant axis, as the kernel's
functions do: :mod:`simcore.kernel.advance`), what the kernel needs to advance it: state, held
inputs, parameters, modes, the carried step size and stiffness count, the event search's state
(restart values, search delays, last firings, the Zeno run), and buffers for the rows and event
records it produces. :meth:`CompiledRun.advance_single` runs the kernel to the next tick, handing
the buffers over whenever one fills; :meth:`CompiledRun.input_jumps_single` fires the events a
tick's writes trigger.

:class:`simcore.engine.Simulator` uses it (one variant) for a simulation made only of built-in parts.
:func:`simcore.simulate_batch` uses it with one variant per parameter set (:meth:`CompiledRun.advance`,
:meth:`CompiledRun.input_jumps`, and :meth:`CompiledRun.advance_ticking` where its loops tick in the kernel):
the same kernel, so a variant is its own serial run.

numba is imported here: this module is imported only when a simulation can use it.
"""
from __future__ import annotations

import math
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .event_handler import _SAMPLE_FRACTIONS, JUST_OFF_ZERO, MAX_EVENTS_AT_ONE_INSTANT, PROBE_STEP, ZENO_GAP
from .kernel import advance as ka
from .kernel import layout as kl
from .kernel import ticks as kt
from .dopri5 import check_tableau
from .kernel.dopri5 import interior_weights
from .kernel import battery as kb
from .kernel.parts import (KIND_BATTERY, KIND_MECANUM, KIND_SWERVE, KIND_TANK, T_KIND, T_NX, T_P, T_U, T_X,
                           brownout_slots, table_of)
from .solvers import MIN_EXPLICIT_STEPS, STABILITY_BOUNDARY, STIFF_CLEAR_AFTER, STIFF_SKIP_STEPS, STIFF_STEPS

__all__ = ["CompiledRun", "kernel_forms", "ROW_BUFFER", "BATCH_ROW_BUFFER", "EVENT_BUFFER"]

#: Rows of each variant the kernel keeps before handing them over (it pauses, then resumes); at least what
#: one step can make.
ROW_BUFFER = 1024
#: The same for each variant of a batch of several, whose buffers are N times as large: a variant makes a
#: few rows per tick interval, and a fuller one pauses and is resumed.
BATCH_ROW_BUFFER = 64
#: Event records of each variant likewise.
EVENT_BUFFER = 64
#: Variants per chunk when a batch is spread over threads.
CHUNK = 256


def usable_cores() -> int:
    """The processor cores this process may run on (its affinity where the system reports it)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


_POOL = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The threads every batch's chunks run on, one per usable core, made at the first large batch and
    shared by all (batches run at once share the cores rather than each taking all of them)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=usable_cores(), thread_name_prefix="simcore-kernel")
        return _POOL


FRACTIONS = np.array(_SAMPLE_FRACTIONS, dtype=float)
WEIGHTS = interior_weights(_SAMPLE_FRACTIONS)
STIFF_RULE = np.array([STABILITY_BOUNDARY["RK45"], STIFF_STEPS, STIFF_CLEAR_AFTER, STIFF_SKIP_STEPS,
                       MIN_EXPLICIT_STEPS], dtype=float)

assert (ka.JUST_OFF_ZERO, ka.ZENO_GAP, ka.PROBE_STEP, ka.MAX_EVENTS_AT_ONE_INSTANT) == (
    JUST_OFF_ZERO, ZENO_GAP, PROBE_STEP, MAX_EVENTS_AT_ONE_INSTANT), "the kernel's event constants are the engine's"


def kernel_forms(systems):
    """Each system's ``kernel_form()``, or None when one has none (or scipy's RK45 tableau changed)."""
    if check_tableau() is not None:
        return None
    forms = []
    for s in systems:
        form = getattr(s, "kernel_form", None)
        form = form() if callable(form) else None
        if form is None:
            return None
        forms.append(form)
    if disabling_battery_beside_a_tank(forms):
        return None  # (its brownout holds back the geared parts' commands only: the Python path models it)
    return forms


def disabling_battery_beside_a_tank(forms) -> bool:
    """Whether ``forms`` hold a Battery that disables the outputs on a brownout and a tank, mecanum or swerve
    drive: the kernel's brownout holds back the geared parts' motor commands, not a drivetrain's."""
    return (any(int(f[0]) in (KIND_TANK, KIND_MECANUM, KIND_SWERVE) for f in forms)
            and any(_disables(kind, params) for kind, params, _ in forms))


def _disables(kind, params) -> bool:
    """Whether a part of ``kind`` with ``params`` (one row, or one per variant) is a Battery that disables the
    outputs on a brownout."""
    return kind == KIND_BATTERY and bool(np.any(np.asarray(params)[..., kb.P_DISABLE] != 0.0))


class CompiledRun:
    """The kernel's state of ``n_variants`` variants of one run (see the module docstring).

    Parameters
    ----------
    forms : list
        Each system's ``(kind, parameters, mode names)``; ``parameters`` (n_p,) or, per variant, (N, n_p).
    slices : list of slice
        Each system's states in the stacked state.
    n_inputs : list of int
        Each system's number of inputs.
    n_variants : int
    rtol, atol, max_step : float
    method : str
        ``"auto"`` or ``"RK45"``.
    keep_steps : bool
        Whether every accepted step is recorded (else only the rows at events and interval ends).
    """

    def __init__(self, forms, slices, n_inputs, n_variants, *, rtol, atol, max_step, method, keep_steps,
                 loops=None):
        N = n_variants
        n_parts = len(forms)
        table = np.zeros((n_parts, 5), dtype=np.int64)
        p_off, u_off = 0, 0
        for k, (kind, params, _) in enumerate(forms):
            sl = slices[k]
            table[k, T_KIND], table[k, T_X], table[k, T_NX] = kind, sl.start, sl.stop - sl.start
            table[k, T_U], table[k, T_P] = u_off, p_off
            u_off += n_inputs[k]
            p_off += np.shape(params)[-1]
        self.table = table_of(table)  # (its integer type tells numba which kinds to compile)
        self.mode_names = [f[2] for f in forms]
        self.mode_codes = [{name: i for i, name in enumerate(f[2])} for f in forms]
        # The loops ticking in the kernel (simcore.kernel.ticks): their table, their parameters after the parts'.
        CT, loop_params, n_cs = loops if loops is not None else (np.zeros((0, kt.N_LOOP_FIELDS), np.int64),
                                                                 np.zeros(0), 0)
        self.CT = np.array(CT, dtype=np.int64)
        self.CT[:, kt.C_P] += p_off
        self.P = np.empty((N, p_off + np.shape(loop_params)[-1]))
        for k, (_, params, _) in enumerate(forms):
            self.P[:, table[k, T_P]:table[k, T_P] + np.shape(params)[-1]] = params
        self.P[:, p_off:] = loop_params
        n = slices[-1].stop if slices else 0
        self.N, self.n, self.n_parts = N, n, n_parts
        # A battery that disables the outputs keeps its run state after the inputs (brownout_slots).
        self.brownout_part = next((k for k, (kind, params, _) in enumerate(forms) if _disables(kind, params)), None)
        self.n_u = u_off
        u_off += brownout_slots(n_parts) if self.brownout_part is not None else 0
        A = kl.MAX_ACTIVE * max(n_parts, 1)
        n_p = max(n_parts, 1)
        # The run's state in one float and one integer block (so that a snapshot is two copies), viewed as:
        floats = {"X": (n,), "U": (u_off,), "F0": (n,), "RS": (kl.N_RUN_STATE,), "G_PREV": (A,),
                  "SEARCH": (n_p, kl.N_EVENTS), "LAST_T": (n_p, kl.N_EVENTS), "FIRED": (A, 4), "X_BEFORE": (n,),
                  "CS": (n_cs,)}
        ints = {"modes": (n_parts,), "ACTIVE": (A, 4), "TICKS": (len(self.CT),)}
        assert tuple(floats) == kl.FLOAT_BLOCK and tuple(ints) == kl.INT_BLOCK  # the kernel's layout
        self._floats = _block(self, floats, N, float)
        self._ints = _block(self, ints, N, np.int64)
        self._snap = None  # (snapshot's buffers, made at the first)
        self.RS0 = self.RS[0]  # (variant 0's run state: one view for the single run's per-tick reads)
        self.SEARCH[...] = np.nan
        self.U[:, self.n_u:] = np.nan  # outputs on, nothing held back
        # (variant 0's state, systems' inputs and modes: views made once for the single run's per-tick copies;
        # restore writes into the blocks, so they stay valid)
        self.X0, self.U0, self.modes0 = self.X[0], self.U[0, :self.n_u], self.modes[0]
        self.X0_bytes, self.U0_bytes = memoryview(self.X0), memoryview(self.U0)  # (to copy into, as buffers)
        self.LAST_T[...] = np.nan
        self.RS[:, kl.RS_LAST_EVENT_T] = np.nan
        self.RS[:, kl.RS_DETECT] = 1.0 if (method == "auto" or method in STABILITY_BOUNDARY) else 0.0
        self.RS[:, kl.RS_WARN_T] = np.nan
        self._u_before = np.empty((1, u_off))  # (inputs_before's buffer)
        nx_max = int(table[:, T_NX].max()) if n_parts else 0
        # The kernel goes on only while the buffers can take a step's worst case (every armed event firing,
        # two rows and a record each, and the step's row): never smaller than that, or it could not go on.
        rows = max(ROW_BUFFER if N == 1 else min(ROW_BUFFER, BATCH_ROW_BUFFER), 2 * A + 3)
        records = max(EVENT_BUFFER if N == 1 else min(EVENT_BUFFER, BATCH_ROW_BUFFER // 4), A + 1)
        # (an instant the loops tick at makes two rows at least, the step's ending there and the one after the
        # ticks, and a tick record per loop at most: sized so, the tick records are never the first to fill)
        tick_rows = rows // 2 * len(self.CT)
        # What the kernel hands back in one float and one integer block, viewed as: each row's time and state;
        # the event records and their states before and after; the state where a failure was found; (time, loop,
        # values) of each tick (its writes in the order of the loop's commanded inputs, NaN after them); each
        # row's modes and how many of the kernel's ticks came before it (the inputs it was held at); the status.
        out_floats = {"ROWS_T": (rows,), "ROWS_Y": (rows, n), "EVR_F": (records, kl.N_EVENT_FIELDS),
                      "EVR_X": (records, 2, nx_max), "BAD_X": (n,), "TICK_ROWS": (tick_rows, 2 + kt.MAX_WRITES)}
        out_ints = {"ROWS_M": (rows, n_parts + 1), "STATUS": ()}
        assert tuple(out_floats) == kl.OUT_FLOAT_BLOCK and tuple(out_ints) == kl.OUT_INT_BLOCK  # the kernel's layout
        self._out_floats = _block(self, out_floats, N, float)
        self._out_ints = _block(self, out_ints, N, np.int64)
        self.flags = np.zeros(kl.N_FLAGS, dtype=np.bool_)
        self.flags[kl.F_AUTO] = method == "auto"
        self.flags[kl.F_KEEP] = keep_steps
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        m = len(FRACTIONS)
        self.consts = np.empty(kl.K_FRACTIONS + 7 * m)
        self.consts[[kl.K_RTOL, kl.K_ATOL, kl.K_MAX_STEP]] = rtol, atol, max_step
        self.consts[kl.K_STIFF_RULE:kl.K_STIFF_RULE + 5] = STIFF_RULE
        self.consts[[kl.K_N, kl.K_NX_MAX, kl.K_ROWS, kl.K_RECORDS, kl.K_TICK_ROWS, kl.K_N_FRACTIONS]] = (
            n, nx_max, rows, records, tick_rows, m)
        self.consts[kl.K_FRACTIONS:kl.K_FRACTIONS + m] = FRACTIONS
        self.consts[kl.K_FRACTIONS + m:] = WEIGHTS.ravel()
        # What every advance passes the kernel (the arrays are fixed for the run; their contents change), and the
        # scratch of each call that may run at once: one per thread of the pool (a batch's chunks), and the first
        # for the calls made on the caller's thread.
        self._advance_args = (self.table, self.P, self._floats, self._ints, self.consts, self.flags,
                              self._out_floats, self._out_ints, self.CT)
        n_cs_kernel = max((int(c[kt.C_S] + c[kt.C_STATE_SIZE]) for c in self.CT), default=0)  # (as the kernel counts)
        sizes = kl.scratch_sizes(n, A, m, u_off, n_cs_kernel, len(self.CT), kt.MAX_WRITES)
        slots = 1 if N <= CHUNK else usable_cores()
        self._scratch = [(np.zeros(sizes[0]), np.zeros(sizes[1], dtype=np.int64), np.zeros(sizes[2], dtype=np.bool_))
                         for _ in range(slots)]
        self._free_scratch = queue.SimpleQueue()
        for slot in self._scratch:
            self._free_scratch.put(slot)
        self._single = (0, 1) + self._advance_args + self._scratch[0]  # (variant 0's advance, made once)

    # -- state in and out ------------------------------------------------------------------------------
    def set_modes(self, v, names):
        """Variant ``v``'s modes from the systems' mode names (a disabling battery's ``("browned_out", t)``
        also sets when its outputs went off)."""
        for k, name in enumerate(names):
            if k == self.brownout_part:
                browned_out = isinstance(name, tuple)
                self.U[v, self.n_u] = name[1] if browned_out else np.nan
                name = name[0] if browned_out else name
            self.modes[v, k] = self.mode_codes[k][name]

    def mode_name(self, k, code, t_off=np.nan):
        """Part ``k``'s mode name for ``code`` (a disabling battery's browned-out mode with ``t_off``, when its
        outputs went off)."""
        name = self.mode_names[k][int(code)]
        if k == self.brownout_part and code == kb.MODE_BROWNED_OUT:
            return (name, float(t_off))
        return name

    def t_off(self, v) -> float:
        """When variant ``v``'s outputs went off, s (NaN: no disabling battery, or they are on)."""
        return float(self.U[v, self.n_u]) if self.brownout_part is not None else np.nan

    def inputs_before(self, inputs) -> np.ndarray:
        """Variant 0's ``U`` (1, n) with the systems' inputs ``inputs`` (n_u,) and its run state now, for
        :meth:`input_jumps_single` (one buffer, overwritten at each call)."""
        buf = self._u_before
        buf[0, :self.n_u] = inputs
        buf[0, self.n_u:] = self.U[0, self.n_u:]
        return buf

    def with_run_state(self, v, inputs) -> np.ndarray:
        """The systems' inputs ``inputs`` (n_u,) followed by variant ``v``'s run state, as the kernel's ``U``."""
        return np.concatenate([inputs, self.U[v, self.n_u:]])

    def held_commands(self, v) -> dict:
        """Variant ``v``'s motor commands held back by a disabling battery: ``(part, 0) -> value`` (a geared
        part's command is its first input; NaN: nothing held), as the battery's coupling keeps them."""
        if self.brownout_part is None:
            return {}
        return {(k, 0): float(self.U[v, self.n_u + 1 + k]) for k in range(self.n_parts)
                if self.table[k, T_KIND] != KIND_BATTERY}

    def hold_commands(self, v, held: dict) -> None:
        """Variant ``v``'s held-back commands from ``held`` (as :meth:`held_commands` gives them)."""
        if self.brownout_part is None:
            return
        for k in range(self.n_parts):
            if self.table[k, T_KIND] != KIND_BATTERY:
                self.U[v, self.n_u + 1 + k] = held.get((k, 0), np.nan)

    def brownout_times(self, v, n_rows, n_events, t_off):
        """When the outputs went off (s, NaN while on) at each of variant ``v``'s ``n_rows`` buffered rows, and
        before and after each of its ``n_events`` buffered events, from ``t_off`` at the first: the battery's
        events set it from the row after them (``E_ROW``). Returns ``(rows, before, after, t_off at the end)``."""
        rows, before, after = np.full(n_rows, t_off), np.empty(n_events), np.empty(n_events)
        for e in range(n_events):
            rec = self.EVR_F[v, e]
            before[e] = t_off
            if int(rec[kl.E_PART]) == self.brownout_part:
                t_off = rec[kl.E_T] if rec[kl.E_MODE_AFTER] == kb.MODE_BROWNED_OUT else np.nan
                rows[int(rec[kl.E_ROW]):] = t_off
            after[e] = t_off
        return rows, before, after, t_off

    def snapshot(self):
        """Everything an interrupted advance may have changed (for :meth:`restore`): copies into two buffers made
        once, so a snapshot holds until the next one is taken (the engine restores only the last it took)."""
        if self._snap is None:
            snap = (np.empty_like(self._floats), np.empty_like(self._ints))
            # (bytes copied by memoryviews: a few times quicker than numpy's copy of arrays this small)
            self._snap = snap, [memoryview(a).cast("B") for a in (*snap, self._floats, self._ints)]
        snap, (to_f, to_i, from_f, from_i) = self._snap
        to_f[:] = from_f
        to_i[:] = from_i
        return snap

    def restore(self, snap) -> None:
        self._floats[...] = snap[0]
        self._ints[...] = snap[1]

    # -- the kernel ------------------------------------------------------------------------------------
    def advance_single(self, t_end: float, sink) -> int:
        """Advance variant 0 to ``t_end``; ``sink(n_rows, n_events)`` takes its buffered rows and events
        whenever the buffer fills, and at the end. Returns the kernel's status."""
        status, args = self.STATUS, self._single
        self.RS0[kl.S_T_END] = t_end
        while True:
            status[0] = kl.DONE
            ka.advance_chunk(*args)
            self._empty_buffers(sink)
            code = int(status[0])
            if code != kl.PAUSE:
                return code

    def advance_ticking_single(self, sink) -> int:
        """Advance variant 0 from ``RS[RS_T_NS]`` towards ``RS[RS_TARGET_NS]`` with its loops ticking in the kernel
        (:func:`simcore.kernel.advance.advance_ticking`) until the target or a full buffer (status PAUSE: call
        again to go on); ``sink(n_rows, n_events, n_ticks)`` takes the buffered rows, event records and tick
        records. Returns the status."""
        status = self.STATUS
        RS = self.RS
        self.flags[kl.F_TICKING] = True
        try:
            status[0] = kl.DONE
            ka.advance_chunk(*self._single)
        finally:
            self.flags[kl.F_TICKING] = False
        n_rows, n_ev, n_ticks = int(RS[0, kl.S_NROWS]), int(RS[0, kl.RS_N_EV_RECORDS]), int(RS[0, kl.RS_N_TICK_RECORDS])
        if n_rows or n_ev or n_ticks:
            sink(n_rows, n_ev, n_ticks)
            RS[0, kl.S_NROWS] = 0
            RS[0, kl.RS_N_EV_RECORDS] = 0
            RS[0, kl.RS_N_TICK_RECORDS] = 0
        return int(status[0])

    def input_jumps_single(self, t: float, U_before: np.ndarray, sink, quiet_row: bool = True) -> int:
        """Fire variant 0's events that the writes at tick ``t`` trigger (``U_before``: the inputs before
        them), and (with ``quiet_row``) record the row after the writes when none fired; ``sink`` as
        :meth:`advance_single`'s. Without ``quiet_row``, a call that fires nothing changes nothing of the run
        but the failure fields (``S_BAD_*``, ``BAD_X``) and leaves nothing for ``sink``."""
        ka.input_jumps_chunk(0, 1, self.table, self.P, self._floats, self._ints, U_before, t, self.consts,
                             self._out_floats, self._out_ints, self.CT, *self._scratch[0], quiet_row)
        self._empty_buffers(sink)
        return int(self.STATUS[0])

    def _empty_buffers(self, sink) -> None:
        """Hand variant 0's buffered rows and event records to ``sink`` and empty the buffers."""
        RS = self.RS0
        n_rows, n_ev = int(RS[kl.S_NROWS]), int(RS[kl.RS_N_EV_RECORDS])
        if n_rows or n_ev:
            sink(n_rows, n_ev)
            RS[kl.S_NROWS] = 0
            RS[kl.RS_N_EV_RECORDS] = 0

    # -- many variants ---------------------------------------------------------------------------------
    def _run(self, fn, args, variants=None, after=()):
        """``fn(v0, v1, *args, *scratch, *after)`` over contiguous runs of ``variants`` (sorted indices; None: every
        variant), in chunks on threads when there are many, each call with scratch that no other running call
        has."""
        spans = [(0, self.N)] if variants is None else _spans(variants)
        count = self.N if variants is None else len(variants)
        if count <= CHUNK or usable_cores() == 1 or len(self._scratch) == 1:
            for v0, v1 in spans:
                fn(v0, v1, *args, *self._scratch[0], *after)
            return
        pieces = []
        for v0, v1 in spans:
            pieces.extend((a, min(a + CHUNK, v1)) for a in range(v0, v1, CHUNK))
        free = self._free_scratch

        def chunk(a, b):
            slot = free.get()  # (a slot per pool thread when the run was made: a wait only if the pool grew since)
            try:
                fn(a, b, *args, *slot, *after)
            finally:
                free.put(slot)

        futures = [_pool().submit(chunk, a, b) for a, b in pieces]
        for f in futures:
            f.result()

    def advance(self, t_end: float, drain) -> np.ndarray:
        """Advance every variant to ``t_end``; ``drain(n_rows, n_events)`` (each (N,)) takes the buffered rows
        and events of every variant whenever some variant's buffer is full, and at the end. Returns the
        statuses (N,)."""
        self.RS[:, kl.S_T_END] = t_end
        self.STATUS[:] = kl.DONE
        self._run(ka.advance_chunk, self._advance_args)
        while True:
            self._drain(drain)
            paused = np.flatnonzero(self.STATUS == kl.PAUSE)
            if not len(paused):
                return self.STATUS
            self.STATUS[paused] = kl.DONE
            self._run(ka.advance_chunk, self._advance_args, paused)

    def input_jumps(self, t: float, U_before: np.ndarray, drain, variants=None) -> np.ndarray:
        """Fire, for each of ``variants`` (indices, sorted; None: every one), the events the writes at tick ``t``
        trigger (``U_before`` (N, n_u): the inputs before them); the rows after the writes are the caller's.
        Returns the statuses (N,)."""
        self.STATUS[:] = kl.DONE
        self._run(ka.input_jumps_chunk, (self.table, self.P, self._floats, self._ints, U_before, t, self.consts,
                                         self._out_floats, self._out_ints, self.CT), variants, (False,))
        self._drain(drain)
        return self.STATUS

    def advance_ticking(self, drain) -> np.ndarray:
        """Advance every variant from ``RS[:, RS_T_NS]`` to ``RS[:, RS_TARGET_NS]`` with its loops ticking in the
        kernel (:func:`simcore.kernel.advance.advance_ticking`), the ticks at the target included;
        ``drain(n_rows, n_events, n_ticks)`` (each (N,)) takes every variant's buffered rows, event records and
        tick records whenever some variant's buffer is full, and at the end. Returns the statuses (N,)."""
        self.STATUS[:] = kl.DONE
        self.flags[kl.F_TICKING] = True
        try:
            self._run(ka.advance_chunk, self._advance_args)
            while True:
                RS = self.RS
                n_ticks = RS[:, kl.RS_N_TICK_RECORDS].astype(np.int64)
                n_rows, n_ev = RS[:, kl.S_NROWS].astype(np.int64), RS[:, kl.RS_N_EV_RECORDS].astype(np.int64)
                drain(n_rows, n_ev, n_ticks)
                RS[:, kl.S_NROWS] = 0
                RS[:, kl.RS_N_EV_RECORDS] = 0
                RS[:, kl.RS_N_TICK_RECORDS] = 0
                paused = np.flatnonzero(self.STATUS == kl.PAUSE)
                if not len(paused):
                    return self.STATUS
                self.STATUS[paused] = kl.DONE
                self._run(ka.advance_chunk, self._advance_args, paused)
        finally:
            self.flags[kl.F_TICKING] = False

    def _drain(self, drain) -> None:
        RS = self.RS
        n_rows = RS[:, kl.S_NROWS].astype(np.int64)
        n_ev = RS[:, kl.RS_N_EV_RECORDS].astype(np.int64)
        if n_rows.max() or n_ev.max():
            drain(n_rows, n_ev)
            RS[:, kl.S_NROWS] = 0
            RS[:, kl.RS_N_EV_RECORDS] = 0


def _spans(variants):
    """Contiguous runs ``(v0, v1)`` of the sorted indices ``variants``."""
    if not len(variants):
        return []
    breaks = np.flatnonzero(np.diff(variants) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [len(variants)]])
    return [(int(variants[a]), int(variants[b - 1]) + 1) for a, b in zip(starts, ends)]


def _block(owner, shapes: dict, N: int, dtype) -> np.ndarray:
    """One (N, total) array holding every per-variant array of ``shapes``; each set on ``owner`` as a
    view of shape (N, *shape)."""
    sizes = {name: math.prod(shape) for name, shape in shapes.items()}  # (math.prod: numpy's costs microseconds a call)
    block = np.zeros((N, sum(sizes.values())), dtype=dtype)
    off = 0
    for name, shape in shapes.items():
        view = block[:, off:off + sizes[name]].reshape((N,) + tuple(shape))
        setattr(owner, name, view)
        off += sizes[name]
    return block
