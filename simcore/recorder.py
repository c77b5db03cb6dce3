"""The recorder: what a run keeps of its trajectory, and the Result built from it.

``record=`` (on :func:`~simcore.engine.simulate` and :class:`~simcore.engine.Simulator`):

``"all"`` (default)
    Every accepted solver step, both rows of every tick (before and after the
    controllers wrote) and of every event (before and after the reset).
``"ticks"``
    The rows at ticks and events only (the end of each integration interval, the
    row after each tick, the rows before and after each event, the start, and one
    where ``method="auto"`` switches method): at most two rows per tick plus two per
    event and one per switch.
``"none"``
    No rows: :meth:`Recorder.result` holds one row, the present state, with the
    latest tick (time and log entry) of each controller and every event, so memory
    does not grow with simulated time however fast the controllers run.
a number of seconds ``w``
    A rolling window: the rows, ticks, tick logs and events of the last ``w``
    seconds, so memory is bounded however long the run.

:attr:`Result.dropped` (and ``Result.stats["record"]``) say what was left out.

A row is ``(t, X, held)``: the time, the stacked state (the solver's own array,
never written afterwards, so it is kept by reference) and the snapshot of inputs
and modes, which consecutive rows share until an input is written or a mode
switches. Rows the compiled kernel hands over many at a time may be kept as one
block (:meth:`Recorder.rows_block`: their times, states and inputs as arrays, each
row's modes), which the result reads as the rows it holds. Rows are staged while a
segment is integrated and kept only when it completes (:meth:`Recorder.commit`), so
an integration interrupted by an exception leaves no partial rows behind
(:meth:`Recorder.rollback`).

Output columns are computed from the kept rows when one of them is first read
(:class:`OutputColumns`).
"""
from __future__ import annotations

import math
import numbers
from collections import deque
from itertools import repeat
from operator import itemgetter

import numpy as np

from .errors import ConfigError, ConfigTypeError, NonFiniteError
from .result import Result
from .signals import output_row, with_time

__all__ = ["Recorder", "OutputColumns", "RECORD_POLICIES", "check_record"]

#: The named ``record=`` policies (a positive number of seconds is a rolling window).
RECORD_POLICIES = ("all", "ticks", "none")

_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)

#: Shortest rolling window, s: the clock's resolution.
_SHORTEST_WINDOW = 1e-9


def check_record(record):
    """``record`` as a policy name or a window length in s, or a ConfigError naming it."""
    if isinstance(record, str):
        if record in RECORD_POLICIES:
            return record
        raise ConfigError("record", record, "'all', 'ticks', 'none' or a window length in seconds")
    if isinstance(record, bool):
        raise ConfigTypeError("record", record, "'all', 'ticks', 'none' or a window length in seconds")
    from .units import to_si

    if isinstance(record, numbers.Real):
        w = float(record)  # to_si refuses NaN and infinity as a wrong kind of value, not as a wrong window
    else:
        try:
            w = to_si("record", record, "s")
        except ConfigError:
            raise ConfigTypeError("record", record, "'all', 'ticks', 'none' or a window length in seconds") from None
    if not (w >= _SHORTEST_WINDOW and math.isfinite(w)):
        raise ConfigError("record", record, f"a finite window length of at least {_SHORTEST_WINDOW:g} s "
                          "(the clock's resolution)")
    return float(w)


class Recorder:
    """Rows, tick logs and events of one run, kept as ``record=`` says.

    Parameters
    ----------
    record : str or float
        Checked by :func:`check_record`.
    controller_names : list of str
    """

    def __init__(self, record, controller_names):
        self.policy = record
        self.window = record if isinstance(record, float) else None
        #: Whether every accepted solver step is a row.
        self.keeps_steps = record == "all" or self.window is not None
        self._keeps_rows = record != "none"
        self._rows: deque = deque()  # (t, X, held) per kept row, or a _Block of rows kept together
        self._pending: list = []
        self._pending_events: list = []
        self._last_t = None
        last_only = 1 if record == "none" else None
        self.ticks = {c: deque(maxlen=last_only) for c in controller_names}
        self.tick_log = {c: deque(maxlen=last_only) for c in controller_names}
        self.events: deque = deque()
        self.dropped = {"rows": 0, "ticks": 0, "events": 0}
        # Blocks are kept where every row is kept as it came (no window forgets part of one).
        self._blocks_kept = self._keeps_rows and self.window is None

    # -- rows --------------------------------------------------------------------------------------------
    def row(self, t: float, X: np.ndarray, held) -> None:
        """Stage a row (kept at the next :meth:`commit`)."""
        self._pending.append((t, X, held))

    def stager(self):
        """``stage(row)`` for ``(t, X, held)`` tuples: :meth:`row` without the call (the per-step path)."""
        return self._pending.append

    def pending_rows(self) -> list:
        """The staged rows, a list of ``(t, X, held)`` a caller may extend (the block path of :meth:`stager`)."""
        return self._pending

    def rows_block(self, T: list, Y: np.ndarray, U: np.ndarray, modes: list) -> None:
        """Stage ``len(T)`` rows at once: times ``T``, states ``Y`` (one row each), held inputs ``U`` (one row
        each, or one row (n_u,) for all), each row's modes ``modes`` (a tuple of every system's), the arrays
        written by no one afterwards. Kept as one block where the policy keeps every row as it came, else as
        rows."""
        if self._blocks_kept:
            self._pending.append(_Block(T, Y, U, modes))
        elif U.ndim == 1:
            self._pending.extend(zip(T, Y, repeat((U, modes[0]), len(T)) if len(set(modes)) == 1 else
                                     zip(repeat(U), modes)))
        else:
            self._pending.extend(zip(T, Y, zip(U, modes)))

    def event(self, record) -> None:
        """Stage a fired event's record (kept at the next :meth:`commit`)."""
        self._pending_events.append(record)

    def tick(self, controller: str, t: float, written: dict) -> None:
        """A controller completed its tick at ``t`` and wrote ``written``."""
        ticks = self.ticks[controller]
        if ticks.maxlen is not None and len(ticks) == ticks.maxlen:
            self.dropped["ticks"] += 1  # "none": the tick it replaces
        ticks.append(t)
        self.tick_log[controller].append((t, written))

    def ticks_done(self, controller: str, entries) -> None:
        """:meth:`tick` for each ``(t, written)`` of ``entries``, in order."""
        ticks = self.ticks[controller]
        if ticks.maxlen is not None:
            self.dropped["ticks"] += max(0, len(ticks) + len(entries) - ticks.maxlen)
        ticks.extend([t for t, _ in entries])
        self.tick_log[controller].extend(entries)

    def kernel_ticks(self, controller: str, records: np.ndarray, commanded) -> None:
        """:meth:`ticks_done` for a loop's ticks in one kernel call: ``records`` the kernel's tick records of that
        loop, rows ``(t, loop, writes...)``, its writes to the inputs ``commanded`` in their order. Where every
        tick is kept, their log entries are made when the log is read (a tick log of many small dicts, made
        per tick, costs the garbage collector's passes over them too)."""
        ticks = self.ticks[controller]
        if ticks.maxlen is None and self.window is None:
            ticks.extend(records[:, 0].tolist())
            self.tick_log[controller].append(_KernelTicks(records, tuple(commanded)))
        else:
            self.ticks_done(controller, _KernelTicks(records, tuple(commanded)).entries())

    def skipped_step(self) -> None:
        """A solver step that this policy does not keep."""
        self.dropped["rows"] += 1

    def last_t(self):
        """Time of the last row staged or kept (also under ``"none"``), or None."""
        if self._pending:
            return _last_time(self._pending[-1])
        return self._last_t

    def commit(self, now: float) -> None:
        """Keep the staged rows; a window then forgets what is older than ``now - window``."""
        pending = self._pending
        if pending:
            self._last_t = _last_time(pending[-1])
            if self._keeps_rows:
                self._rows.extend(pending)
            else:
                self.dropped["rows"] += len(pending)
            pending.clear()  # the same list: a stager bound to it stays valid
        if self._pending_events:
            self.events.extend(self._pending_events)
            self._pending_events = []
        if self.window is not None:
            self._forget_before(now - self.window)

    def rollback(self) -> None:
        """Drop the staged rows and events (the segment that made them did not complete)."""
        self._pending.clear()
        self._pending_events = []

    def _forget_before(self, cutoff: float) -> None:
        rows = self._rows
        while len(rows) > 1 and rows[0][0] < cutoff:
            rows.popleft()
            self.dropped["rows"] += 1
        for name, ticks in self.ticks.items():
            log = self.tick_log[name]
            while ticks and ticks[0] < cutoff:
                ticks.popleft()
                log.popleft()
                self.dropped["ticks"] += 1
        while self.events and self.events[0].t < cutoff:
            self.events.popleft()
            self.dropped["events"] += 1

    # -- the result ---------------------------------------------------------------------------------------
    def result(self, layout, now: float, X: np.ndarray, stats: dict) -> Result:
        """Everything kept, as a :class:`Result` (under ``"none"``: the present row only)."""
        rows = self._rows if self._keeps_rows and self._rows else [(now, X, layout.held(now, X))]
        t, xs, us, modes_rows = _columns(rows, layout.n_states, sum(map(len, layout.U)))
        data, lazy = {}, {}
        ucol = 0
        for k, s in enumerate(layout.systems):
            sl = layout.slices[k]
            for i, name in enumerate(s.state_names):
                data[f"{s.name}.{name}"] = xs[:, sl.start + i]
            ucols = slice(ucol, ucol + len(s.input_names))
            for i, name in enumerate(s.input_names):
                data[f"{s.name}.{name}"] = us[:, ucol + i]
            ucol = ucols.stop
            if s.output_names:
                compute = OutputColumns(s, t, xs[:, sl], us[:, ucols], [m[k] for m in modes_rows])
                for name in s.output_names:
                    lazy[f"{s.name}.{name}"] = compute
        modes = {s.name: [m[k] for m in modes_rows] for k, s in enumerate(layout.systems)}
        stats = dict(stats, record=self.policy)
        return Result(t, data, units=dict(layout.units), input_names=layout.input_names, lazy=lazy,
                      ticks={k: np.array(v, dtype=float) for k, v in self.ticks.items()},
                      tick_log={k: TickLog(v) if any(type(e) is _KernelTicks for e in v) else list(v)
                                for k, v in self.tick_log.items()},
                      events=list(self.events), stats=stats, modes=modes, dropped=dict(self.dropped),
                      notes={f"{s.name}.{n}": v for s in layout.systems
                             for n, v in getattr(s, "signal_notes", {}).items()})


class _KernelTicks:
    """A loop's ticks in one kernel call (:meth:`Recorder.kernel_ticks`): the records and the inputs written."""

    __slots__ = ("records", "commanded")

    def __init__(self, records: np.ndarray, commanded: tuple):
        self.records, self.commanded = records, commanded

    def entries(self) -> list:
        """The ticks as tick-log entries, ``(t, {input: value})`` each."""
        rows = self.records.tolist()
        if len(self.commanded) == 1:  # (a dict display: several times quicker than dict(zip(...)))
            a, = self.commanded
            return [(row[0], {a: row[2]}) for row in rows]
        if len(self.commanded) == 2:
            a, b = self.commanded
            return [(row[0], {a: row[2], b: row[3]}) for row in rows]
        return [(row[0], dict(zip(self.commanded, row[2:]))) for row in rows]


class TickLog:
    """A tick log holding some of its ticks as the kernel's records, made into ``(t, written)`` entries when
    :meth:`simcore.result.Result.tick_log` first reads it."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)

    def entries(self) -> list:
        out = []
        for e in self.items:
            if type(e) is _KernelTicks:
                out.extend(e.entries())
            else:
                out.append(e)
        return out


class _Block:
    """Rows kept together (:meth:`Recorder.rows_block`): times (list), states (n, nx), inputs (n, n_u) or one
    row (n_u,) for all, each row's modes (list)."""

    __slots__ = ("T", "Y", "U", "modes")

    def __init__(self, T, Y, U, modes):
        self.T, self.Y, self.U, self.modes = T, Y, U, modes


def _last_time(entry) -> float:
    """The time of the last row of a kept entry (a row, or a block of them)."""
    return entry.T[-1] if type(entry) is _Block else entry[0]


def _held_columns(helds, n_u: int):
    """``(inputs (n, n_u), modes list)`` of rows' snapshots ``helds``."""
    # Consecutive rows share their snapshot of inputs and modes: convert each snapshot once (by identity;
    # the rows hold every snapshot, so no id is reused while this runs).
    ids = list(map(id, helds))
    slot = {key: i for i, key in enumerate(dict.fromkeys(ids))}
    snapshots = list(dict(zip(ids, helds)).values())  # (in order of first appearance, as slot numbers them)
    which = list(map(slot.__getitem__, ids))
    us = np.array([h[0] for h in snapshots], dtype=float).reshape(len(snapshots), n_u)[which]
    return us, list(map(_second, helds))


def _columns(rows, n_states: int, n_u: int):
    """``(t, states, inputs, modes)`` of kept entries (rows and blocks, in order): times (n,), states
    (n, n_states), inputs (n, n_u), a list of each row's modes."""
    if not any(type(e) is _Block for e in rows):
        n = len(rows)
        t = np.fromiter(map(_first, rows), dtype=float, count=n)
        xs = (np.concatenate(list(map(_second, rows))) if n_states else np.empty(0)).reshape(n, n_states)
        return (t, xs) + _held_columns(list(map(_third, rows)), n_u)
    ts, xs, us, modes = [], [], [], []
    run = []  # consecutive rows between blocks

    def rows_in():
        ts.extend(map(_first, run))
        xs.append(np.reshape(list(map(_second, run)), (len(run), n_states)))
        u, m = _held_columns(list(map(_third, run)), n_u)
        us.append(u)
        modes.extend(m)

    for e in rows:
        if type(e) is _Block:
            if run:
                rows_in()
                run = []
            n = len(e.T)
            ts.extend(e.T)
            xs.append(e.Y.reshape(n, n_states))
            us.append(np.broadcast_to(e.U, (n, n_u)) if e.U.ndim == 1 else e.U.reshape(n, n_u))
            modes.extend(e.modes)
        else:
            run.append(e)
    if run:
        rows_in()
    return np.array(ts, dtype=float), np.concatenate(xs), np.concatenate(us).astype(float, copy=False), modes


class OutputColumns:
    """Computes every output column of one system from its recorded rows, once."""

    def __init__(self, system, t, x, u, modes):
        self.system, self.t, self.x, self.u, self.modes = system, t, x, u, modes

    def __call__(self) -> dict:
        s = self.system
        saved = s.mode
        y = np.empty((len(self.t), len(s.output_names)))
        try:
            for i in range(len(self.t)):
                s.mode = self.modes[i]
                t = float(self.t[i])
                try:
                    y[i] = output_row(s, s.outputs(t, self.x[i], self.u[i]), t)
                except NonFiniteError as exc:
                    raise with_time(exc, t) from None
        finally:
            s.mode = saved
        return {f"{s.name}.{n}": y[:, j] for j, n in enumerate(s.output_names)}
