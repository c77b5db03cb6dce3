"""`BatchResult`: the recorded trajectories of a batch of variants (``simcore.simulate_batch``).

What is kept, per variant, is what ``simulate`` keeps for one run: every accepted step, the
rows before and after each tick, the rows before and after each event (``record="ticks"``
drops the step rows inside the intervals). Rows are stored in blocks as they are produced
(one block per round of steps, per tick, per event firing), each with the variants it
holds; a variant's rows are those of every block that names it, in block order. Where the
loops tick in the kernel, a block holds every row a kernel call made (several rows of a
variant, in order, the variants in order) and each row's epoch (the tick whose inputs it
was held at).

States and modes are stored; held inputs are stored once per tick (the values the
controllers wrote); coupled inputs (a battery's bus voltage) and outputs are computed
from the stored rows when asked, with the same batched physics that produced them.

Views:

* ``batch.at_ticks(signal, controller)`` -> ``(N, n_ticks)``: each variant's value right
  after each tick of that controller (right-continuous, as ``Result.sample`` at a tick);
* ``batch.final(signal)`` -> ``(N,)``: the value at each variant's last row;
* ``batch[k]`` -> the :class:`~simcore.result.Result` of variant ``k`` alone, with the
  same rows, signals, ticks, tick log, events and modes its own ``simulate`` records;
* ``batch.padded(signal)`` -> ``(t, y, counts)``, ``(N, R)``: every variant's rows, the
  shorter ones padded by repeating their last row (a zero-width repeat, which no
  figure of :mod:`simcore.testing` counts); what the vectorized metrics read.
"""
from __future__ import annotations

import numpy as np

from .errors import ConfigError, ConfigTypeError
from .events import EventRecord
from .result import Result

__all__ = ["BatchResult"]


class _Recorder:
    """Collects the blocks of rows, the ticks and the events while a batch runs."""

    def __init__(self, batch):
        self.b = batch
        # (variant ids (a kernel call's block: each variant's first row, see _row_ids), t (scalar or per row),
        # X (nx, m), modes (n_sys, m) int16 (a kernel call's block: int8 where they fit), epoch (there each row's))
        self.blocks = []
        self.epochs = [[list(rows) for rows in batch.U]]  # held input rows after each tick (shared arrays)
        self.instants = []  # (t, controller names that ran)
        self.post = []  # (X, modes) right after each tick instant
        self.ticks = {c.name: [] for c in batch.controllers}
        self.tick_log = {c.name: [] for c in batch.controllers}
        self.events = []
        self.counts = np.zeros(batch.n, dtype=np.int64)  # rows recorded of each variant so far
        self.brownout_rows = []  # (variants, index of the row after a disabling battery's event, t_off or nan)
        # The instants whose loops ticked in the kernel: (first epoch, their times, the first block of rows).
        self.kernel_stretches = []

    def rows(self, idx, t, X, modes, local=False, copy=True, epochs=None):
        """A block of rows: variants ``idx`` at times ``t`` with states ``X`` (their columns when
        ``local``, else the batch's whole state); ``copy=False`` when ``t`` and ``X`` are the caller's
        own fresh arrays, never written again; ``epochs``: each row's epoch (loops ticking in the kernel:
        the block holds several rows of a variant, variant by variant in order, each variant's rows in order,
        held at different ticks' inputs; ``idx`` is then each variant's number of rows, ``(N,)``, and ``modes``
        the rows' own, (systems, rows)), else the last (and at most one row of a variant)."""
        if epochs is not None:  # (a kernel call's block: stored as each variant's first row, see _row_ids)
            if not len(t):
                return
            self.blocks.append((np.concatenate(([0], np.cumsum(idx))), np.array(t, dtype=float) if copy else t,
                                np.array(X) if copy else X, modes, epochs))
            self.counts += idx
            return
        every = idx is self.b.every  # every variant in order: copies rather than gathers
        idx = np.asarray(idx, dtype=np.int32)
        if not len(idx):
            return
        if local:
            Xc = np.array(X) if copy else X
        else:
            Xc = X.copy() if every else X.take(idx, axis=1)
        if getattr(t, "ndim", 0) != 0:  # per-row times (np.ndim's wrapper costs more than the block)
            t = np.array(t, dtype=float) if copy else t
        # (np.array of the rows is np.stack's result without its Python wrappers; one system's is its row)
        if len(modes) == 1:
            mc = (modes[0].copy() if every else modes[0].take(idx))[None]
        else:
            mc = (np.array(modes) if every else np.array([m.take(idx) for m in modes])) if modes \
                else np.zeros((0, len(idx)), dtype=np.int16)
        self.blocks.append((idx, t, Xc, mc, len(self.epochs) - 1))
        self.counts[idx] += 1  # (a block holds at most one row of a variant)

    def tick(self, t, ran):
        self.epochs.append([list(rows) for rows in self.b.U])
        self.instants.append((t, [name for name, _ in ran]))
        for name, logged in ran:
            self.ticks[name].append((t, len(self.epochs) - 1))
            self.tick_log[name].append(logged)

    def tick_rows(self, idx, t, Y, modes):
        """The rows right after a tick instant (variants ``idx`` of the batch's state ``Y``), and the
        snapshot of every variant's state and modes there (what ``at_ticks`` reads)."""
        self.rows(idx, t, Y, modes)
        if idx is self.b.every:  # that block holds every variant as they are: the snapshot shares it (never written)
            _, _, X, mc, _ = self.blocks[-1]
            snapshot = (X, list(mc))
        else:
            snapshot = (Y.copy(), [m.copy() for m in modes])
        # with the number of blocks so far: an event the next interval locates at the tick instant
        # records its rows after this snapshot (see BatchResult._at_instant)
        self.post.append(snapshot + (len(self.blocks),))

    def kernel_ticks(self, first_epoch, times, first_block):
        """The instants ``times`` (s), epochs ``first_epoch`` on, ticked in the kernel (their epochs recorded by
        :meth:`tick`), whose rows are the blocks from ``first_block`` on: the state right after each is read
        from those rows when asked (:meth:`BatchResult._at_instant`)."""
        self.kernel_stretches.append((first_epoch, np.asarray(times, dtype=float), first_block))
        self.post.extend([None] * len(times))

    def event(self, e, cols, te, x_before, x_after, mode_before, mode_after, at_tick):
        self.events.append((e, np.asarray(cols), np.array(te, dtype=float), x_before, x_after, mode_before,
                            mode_after, at_tick))

    def result(self) -> "BatchResult":
        return BatchResult(self)


class BatchResult:
    """The variants of one :func:`simcore.simulate_batch` run (see the module docstring).

    Attributes
    ----------
    n : int
        Number of variants.
    params : dict of str to ndarray or pint.Quantity
        The batch parameters, ``"<name>.<parameter>"`` -> ``(n,)``: plain numbers as a float
        array (SI, as given); a Quantity, or a list of them, as given (the run used each in
        the parameter's SI unit).
    n_steps : ndarray of int
        Accepted solver steps of each variant.
    stiff_at : ndarray of float
        The time, s, at which each variant was first found stiff (its RK45 steps limited by
        stability: where its own ``simulate(..., method="RK45")`` warns), nan for a variant
        never found stiff; ``~np.isnan(stiff_at)`` are the variants the run's
        :class:`~simcore.StiffnessWarning` names.

    Notes
    -----
    A BatchResult keeps its run (the batched models and controllers, closures among them), so the
    standard ``pickle`` cannot send it between processes (a ``ProcessPoolExecutor`` future of one
    fails); cloudpickle, which Dask uses, can. From a process pool, return the arrays you need
    (``at_ticks``, ``final``, ``step_info``'s fields) or variants' Results (``batch[k]``, which
    pickle); ``simcore.sweep(..., batch=True)`` does that for you.
    """

    @staticmethod
    def _recorder(batch) -> _Recorder:
        return _Recorder(batch)

    def __init__(self, rec: _Recorder):
        b = rec.b
        self._b, self._rec = b, rec
        self.n = b.n
        self.n_steps = b.n_steps.copy()
        self.stiff_at = b.stiff_at.copy()
        self.params = {f"{owner}.{k}": v for owner, p in getattr(b, "params", {}).items() for k, v in p.items()}
        self._final = (b.T.copy(), b.Y.copy(), [m.copy() for m in b.modes], len(rec.epochs) - 1)
        self.units = {}
        for s in b.systems:
            for name, unit in s.units.items():
                self.units[f"{s.name}.{name}"] = unit
        self.input_names = [f"{s.name}.{nm}" for s in b.systems for nm in s.input_names]

    @property
    def stiffness_message(self) -> str | None:
        """The text of the run's :class:`~simcore.StiffnessWarning` (variants numbered 0 to n - 1 in
        this batch), None when no variant was found stiff."""
        return self._b.stiffness_warning()

    # -- names -------------------------------------------------------------------------------
    @property
    def names(self) -> list:
        """Every signal name, ``"system.signal"``."""
        return list(self._b.signal_index)

    def __contains__(self, name) -> bool:
        return name in self._b.signal_index

    def unit(self, name: str) -> str:
        """Unit string of a signal ('' for dimensionless)."""
        self._kind(name)
        return self.units.get(name, "")

    def _kind(self, name):
        try:
            return self._b.signal_index[name]
        except (KeyError, TypeError):
            raise ConfigError("signal", name, f"one of the signals: {', '.join(self._b.signal_index)}") from None

    @property
    def controller_names(self) -> list:
        return list(self._rec.ticks)

    def _ticks_of(self, controller_name):
        try:
            return self._rec.ticks[controller_name]
        except KeyError:
            raise ConfigError("controller_name", controller_name,
                              f"one of the controllers: {', '.join(self._rec.ticks)}") from None

    def tick_times(self, controller_name: str) -> np.ndarray:
        """Tick times (s) of the named controller, shared by every variant."""
        return np.array([t for t, _ in self._ticks_of(controller_name)], dtype=float)

    # -- evaluation of any signal on stored rows ------------------------------------------------
    def _held(self, k, i, ids, epochs):
        E = self._rec.epochs
        if np.ndim(epochs) == 0:
            return E[int(epochs)][k][i][ids]
        out = np.empty(len(ids))
        for ep in np.unique(epochs):
            sel = epochs == ep
            out[sel] = E[int(ep)][k][i][ids[sel]]
        return out

    def _inputs(self, ids, X, modes, epochs, t):
        """(view, xs, us) of rows: held inputs from their epochs, coupled ones solved."""
        b = self._b
        from .batch import BatchView

        held = [np.stack([self._held(k, i, ids, epochs) for i in range(len(s.input_names))])
                if s.input_names else np.zeros((0, len(ids))) for k, s in enumerate(b.systems)]
        view = BatchView.assembled(b, ids, [s.take(ids) for s in b.systems], held, [np.asarray(m) for m in modes])
        xs, us = view.inputs(t, X)
        return view, xs, us

    def _evaluate(self, name, ids, t, X, modes, epochs):
        kind, k, i = self._kind(name)
        if kind == "x":
            return np.array(X[i], dtype=float)
        if kind == "u" and not self._b.coupled:
            return self._held(k, i, ids, epochs)
        view, xs, us = self._inputs(ids, X, modes, epochs, t)
        if kind == "u":
            return np.array(us[k][i])
        return np.array(view.systems[k].outputs(t, xs[k], us[k], view.modes[k])[i])

    # -- views -------------------------------------------------------------------------------
    def at_ticks(self, signal: str, controller_name: str) -> np.ndarray:
        """``(N, n_ticks)``: each variant's ``signal`` right after each tick of ``controller_name``."""
        ticks = self._ticks_of(controller_name)
        self._kind(signal)
        ids = np.arange(self.n)
        cols = []
        for t, epoch in ticks:
            X, modes = self._at_instant(t, epoch)
            cols.append(self._evaluate(signal, ids, t, X, modes, epoch))
        return np.stack(cols, axis=1) if cols else np.zeros((self.n, 0))

    def _at_instant(self, t, epoch):
        """Every variant's state and modes at its last row at the tick instant ``t`` (epoch ``epoch``):
        the snapshot after the tick, overridden by the rows of events that the next interval
        located at ``t`` itself (as ``Result.sample`` takes the last row at ``t``)."""
        cache = self.__dict__.setdefault("_instants", {})
        if epoch not in cache and self._rec.post[epoch - 1] is None:
            self._kernel_instants(cache)
        if epoch not in cache:
            X, modes, start = self._rec.post[epoch - 1]
            later = []
            for idx, tb, Xb, mb, ep in self._rec.blocks[start:]:
                if np.ndim(ep) == 0 and ep != epoch:
                    break
                if np.ndim(ep) != 0:  # (rows of loops ticking in the kernel: each variant's last of this epoch at t)
                    idx = _row_ids(idx)
                    j = _last_of_each(idx, np.flatnonzero((ep == epoch) & (tb == t)))
                else:
                    j = (np.arange(len(idx)) if tb == t else np.zeros(0, dtype=int)) if np.ndim(tb) == 0 \
                        else np.flatnonzero(tb == t)
                if len(j):
                    later.append((idx.take(j), Xb.take(j, axis=1), mb.take(j, axis=1)))
            if later:
                X, modes = X.copy(), [m.copy() for m in modes]
                for idx, Xb, mb in later:  # in block order: the last row at t wins
                    X[:, idx] = Xb
                    for k, m in enumerate(modes):
                        m[idx] = mb[k]
            cache[epoch] = (X, modes)
        return cache[epoch]

    def _kernel_instants(self, cache) -> None:
        """Into ``cache``, for every instant whose loops ticked in the kernel, every variant's state and modes at
        its last row at that instant after the tick (the rows of its epoch there, in block order)."""
        b = self._b
        for first, times, start in self._rec.kernel_stretches:
            m = len(times)
            X = np.empty((m, b.nx, self.n))
            M = np.zeros((m, len(b.systems), self.n), dtype=np.int16)
            for idx, tb, Xb, mb, ep in self._rec.blocks[start:]:
                if np.ndim(ep) == 0:
                    continue
                idx = _row_ids(idx)
                e = ep.astype(np.int64) - first
                j = np.flatnonzero((e >= 0) & (tb == times[np.clip(e, 0, m - 1)]))
                j = _last_of_each(idx * (m + 1) + e, j)  # (each variant's last row of each epoch)
                X[e[j], :, idx[j]] = Xb[:, j].T  # (later blocks win)
                M[e[j], :, idx[j]] = mb[:, j].T
            for e in range(m):
                cache[first + e] = (X[e], list(M[e]))

    def final(self, signal: str) -> np.ndarray:
        """``(N,)``: the value of ``signal`` at each variant's last row."""
        T, Y, modes, epoch = self._final
        return self._evaluate(signal, np.arange(self.n), T, Y, modes, epoch)

    def _rows_of(self, k):
        ts, xs, ms, eps = [], [], [], []
        for idx, t, X, m, epoch in self._rec.blocks:
            if np.ndim(epoch) == 0:
                j = np.searchsorted(idx, k)
                if j < len(idx) and idx[j] == k:
                    ts.append(np.full(1, t) if np.ndim(t) == 0 else t[j:j + 1])
                    xs.append(X[:, j:j + 1])
                    ms.append(m[:, j:j + 1])
                    eps.append(np.full(1, epoch))
            else:  # (a kernel call's block: the variant's rows, from its first to the next variant's)
                j, j2 = idx[k], idx[k + 1]
                if j2 > j:
                    ts.append(t[j:j2])
                    xs.append(X[:, j:j2])
                    ms.append(m[:, j:j2])
                    eps.append(epoch[j:j2])
        return (np.concatenate(ts).astype(float), np.concatenate(xs, axis=1),
                np.concatenate(ms, axis=1).astype(np.int64), np.concatenate(eps).astype(np.int64))

    def padded(self, signal: str):
        """``(t, y, counts)``: every variant's rows of ``signal`` as ``(N, R)`` arrays, each variant's
        last row repeated up to length R, and each variant's number of rows ``(N,)``."""
        self._kind(signal)
        ids_l, t_l, y_l = [], [], []
        for idx, t, X, m, epoch in self._rec.blocks:
            idx = idx if np.ndim(epoch) == 0 else _row_ids(idx)
            tt = np.full(len(idx), t) if np.ndim(t) == 0 else t
            ids_l.append(idx)
            t_l.append(tt)
            y_l.append(self._evaluate(signal, idx.astype(np.int64), tt, X, m.astype(np.int64), epoch))
        ids = np.concatenate(ids_l)
        order = np.argsort(ids, kind="stable")
        ids, t, y = ids[order], np.concatenate(t_l)[order], np.concatenate(y_l)[order]
        counts = np.bincount(ids, minlength=self.n)
        R = int(counts.max())
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        pos = np.arange(R)[None, :]
        src = starts[:, None] + np.minimum(pos, counts[:, None] - 1)
        return t[src], y[src], counts

    def event_counts(self, name: str | None = None) -> np.ndarray:
        """``(N,)``: how many events (all, or those called ``name``) each variant recorded.

        Raises ConfigTypeError for a ``name`` that is neither None nor a string, ConfigError for one
        that no system of the batch has (a misspelt stop would otherwise read as "no variant hit
        it"); an event that exists but never fired counts zeros."""
        if name is not None and not isinstance(name, str):  # not an unknown name: the wrong kind of thing
            raise ConfigTypeError("name", name, "None or an event name (str)")
        if name is not None:
            known = list(dict.fromkeys(ev.name for _, _, ev in self._b.kinds))
            if name not in known:
                raise ConfigError("name", name, "None or an event of the batch's systems: "
                                                + (", ".join(known) or "none (they have no events)"))
        counts = np.zeros(self.n, dtype=np.int64)
        for e, cols, *_ in self._rec.events:
            if name is None or self._b.kinds[e][2].name == name:
                np.add.at(counts, cols, 1)
        return counts

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        """The variants' Results in order (``for result in batch``)."""
        return (self[k] for k in range(self.n))

    def __getitem__(self, k) -> Result:
        """The :class:`~simcore.result.Result` of variant ``k`` (0 <= k < n; negative counts from the end).

        Raises ConfigTypeError for an index that is not an integer, IndexError (as a sequence
        does) for one out of range.

        Its ``stats`` hold ``n_steps`` (the variant's accepted steps), ``n_events``, ``n_ticks``,
        ``method`` ("RK45") and ``record`` ("all" or "ticks", as given to ``simulate_batch``). A
        serial Result's work counters are absent because the batch does not count them per
        variant: ``nfev``, ``njev``, ``nlu`` (every right-hand side evaluation covers many
        variants at once, rejected attempts included), ``n_segments`` and
        ``intervals_by_method`` (the batch integrates every variant's intervals together, with
        one method). ``dropped`` likewise stays zero: under ``record="ticks"`` the batch does not
        count the step rows it left out."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise ConfigTypeError("variant", k, f"an integer index in [0, {self.n})")
        if not -self.n <= k < self.n:
            raise IndexError(f"variant={k!r}: expected an integer index in [0, {self.n}) (or from -{self.n} back)")
        k = int(k) % self.n
        b = self._b
        t, X, M, epochs = self._rows_of(k)
        ids = np.full(len(t), k)
        view, xs, us = self._inputs(ids, X, M, epochs, t)
        data, lazy = {}, {}
        for j, s in enumerate(b.systems):
            for i, name in enumerate(s.state_names):
                data[f"{s.name}.{name}"] = xs[j][i].copy()
            for i, name in enumerate(s.input_names):
                data[f"{s.name}.{name}"] = np.array(us[j][i], dtype=float)
            if s.output_names:
                compute = _Outputs(view, j, t, xs, us)
                for name in s.output_names:
                    lazy[f"{s.name}.{name}"] = compute
        ticks = {c: np.array([tt for tt, _ in v]) for c, v in self._rec.ticks.items()}
        tick_log = {c: [(tt, {name: float(arr[k]) for name, arr in logged.items()})
                        for (tt, _), logged in zip(self._rec.ticks[c], self._rec.tick_log[c])]
                    for c in self._rec.ticks}
        events = []
        for e, cols, te, xb, xa, mb, ma, at_tick in self._rec.events:
            j = np.flatnonzero(cols == k)
            if not len(j):
                continue
            j = int(j[0])
            ks, _, ev = b.kinds[e]
            s = b.systems[ks]
            named = not hasattr(s, "mode_names")  # (a part that names its modes itself: below, in time order)
            events.append(EventRecord(float(te[j]), ev.name, s.name, xb[:, j].copy(), xa[:, j].copy(),
                                      s.MODES[mb[j]] if named else int(mb[j]), s.MODES[ma[j]] if named else int(ma[j]),
                                      at_tick))
        events.sort(key=lambda r: r.t)  # blocks are chronological per variant; keep the event log so too
        switches = [(int(r[i]), float(o[i])) for cols, r, o in self._rec.brownout_rows
                    for i in np.flatnonzero(cols == k)]
        modes = {s.name: s.mode_names(M[j], [e for e in events if e.system == s.name], switches)
                 if hasattr(s, "mode_names") else [s.MODES[c] for c in M[j]] for j, s in enumerate(b.systems)}
        stats = {"n_steps": int(self.n_steps[k]), "n_events": len(events),
                 "n_ticks": sum(len(v) for v in self._rec.ticks.values()), "method": "RK45",
                 "record": b.record}
        return Result(t, data, units=self.units, input_names=self.input_names, lazy=lazy, ticks=ticks,
                      tick_log=tick_log, events=events, stats=stats, modes=modes)

    def __repr__(self):
        return f"<BatchResult {self.n} variants, {len(self._rec.blocks)} row blocks, signals {', '.join(self.names)}>"


def _row_ids(first_rows) -> np.ndarray:
    """The variant of each row of a kernel call's block, from each variant's first row there (and the end)."""
    return np.repeat(np.arange(len(first_rows) - 1), np.diff(first_rows))


def _last_of_each(keys, j) -> np.ndarray:
    """Of the positions ``j`` (ascending) into ``keys`` (sorted: equal keys adjacent), those of each key's last."""
    if len(j) < 2:
        return j
    k = keys[j]
    return j[np.append(k[1:] != k[:-1], True)]


class _Outputs:
    """Every output column of one system of a variant's Result, computed once from its rows."""

    def __init__(self, view, k, t, xs, us):
        self.view, self.k, self.t, self.xs, self.us = view, k, t, xs, us

    def __call__(self):
        s = self.view.systems[self.k]
        y = s.outputs(self.t, self.xs[self.k], self.us[self.k], self.view.modes[self.k])
        return {f"{s.name}.{nm}": np.array(y[i], dtype=float) for i, nm in enumerate(s.output_names)}
