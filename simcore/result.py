"""`Result`: the recorded trajectory of a simulation.

The time grid holds every accepted solver step, every controller tick, and every
event instant. At a tick the grid holds two rows at the same time: the end of the
interval with the old inputs, then the row after the controllers wrote (inputs are
right-continuous step signals). An event instant likewise appears twice: before
and after its reset. ``result.t`` is therefore non-decreasing, not strictly
increasing; :meth:`Result.sample` resolves duplicates by taking the later row.

Values are plain numpy arrays aligned with ``result.t``; :meth:`Result.quantity`
attaches the unit.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import ConfigError, ConfigTypeError

__all__ = ["Result"]


class Result:
    """Recorded signals of a run.

    Parameters
    ----------
    t : array of float
        Time grid, s (non-decreasing).
    data : mapping of str to array
        Every signal by ``"system.signal"``, aligned with ``t``.
    units : mapping of str to str, optional
        Unit of each signal (pint-parsable).
    input_names : iterable of str, optional
        Signals that are held inputs (plotted as steps).
    ticks : mapping of str to array, optional
        Tick times of each controller, s.
    events : list of EventRecord, optional
    stats : mapping, optional
        Solver statistics (``nfev``, ``njev``, ``nlu``, ``n_steps``, ...).
    modes : mapping of str to list, optional
        Discrete mode of each system at every row.
    dropped : mapping of str to int, optional
        What the run's ``record=`` policy left out: ``"rows"`` (solver steps, or
        rows older than the window), ``"ticks"`` and ``"events"`` (older than the
        window). All zero under ``record="all"``.
    notes : mapping of str to str, optional
        A short note on a signal, shown in plot legends (``"total of 2 motors"``);
        from each system's ``signal_notes``.
    records : mapping of str to object, optional
        What a controller kept of the run beyond the inputs it wrote, by
        controller name: the ``run_record()`` of each controller that has one
        (an FTC op mode's telemetry), taken when the Result was made.
    """

    def __init__(self, t, data: Mapping[str, np.ndarray], *, units: Mapping[str, str] | None = None,
                 input_names: Iterable[str] = (), ticks: Mapping[str, np.ndarray] | None = None,
                 events: Sequence | None = None, stats: Mapping | None = None,
                 modes: Mapping[str, list] | None = None, tick_log: Mapping[str, list] | None = None,
                 lazy: Mapping[str, object] | None = None, dropped: Mapping[str, int] | None = None,
                 notes: Mapping[str, str] | None = None, records: Mapping[str, object] | None = None):
        self.t = np.asarray(t, dtype=float)
        # name -> callable returning {name: column} for a group of signals computed on first access.
        self._lazy = dict(lazy or {})
        self._data = {}
        for k, v in data.items():
            arr = np.asarray(v, dtype=float)
            if arr.shape[0] != self.t.shape[0]:
                raise ConfigError(f"data[{k!r}]", f"<{arr.shape[0]} rows>", f"{self.t.shape[0]} rows, as t")
            self._data[k] = arr
        self.units = dict(units or {})
        self.input_names = frozenset(input_names)
        self._ticks = {k: np.asarray(v, dtype=float) for k, v in (ticks or {}).items()}
        self._tick_log = dict(tick_log or {})
        self.events = list(events or [])
        self.stats = dict(stats or {})
        self.modes = dict(modes or {})
        self.notes = dict(notes or {})
        #: Controller name -> that controller's ``run_record()`` (see ``records`` above).
        self.records = dict(records or {})
        #: What was not kept (``record=``): counts of ``"rows"``, ``"ticks"``, ``"events"``.
        self.dropped = {"rows": 0, "ticks": 0, "events": 0, **(dropped or {})}

    @classmethod
    def from_arrays(cls, t, signals: Mapping[str, np.ndarray], units: Mapping[str, str] | None = None,
                    **kwargs) -> "Result":
        """Build a Result from plain arrays (for analytic references and tests)."""
        return cls(t, signals, units=units, **kwargs)

    # -- access ------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Every recorded signal name, ``"system.signal"``."""
        return list(self._data) + [n for n in self._lazy if n not in self._data]

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._data[name]
        except KeyError:
            pass
        compute = self._lazy.get(name)
        if compute is None:
            raise KeyError(f"no signal {name!r}; recorded signals: {', '.join(self.names)}") from None
        for key, column in compute().items():
            self._data[key] = column
            self._lazy.pop(key, None)
        return self._data[name]

    def __contains__(self, name) -> bool:
        return name in self._data or name in self._lazy

    def __getstate__(self):
        # Materialize computed-on-demand columns so a pickled Result stands alone.
        for name in list(self._lazy):
            self[name]
        for name in list(self._tick_log):  # (and tick logs still held as the kernel's records)
            self.tick_log(name)
        return self.__dict__

    def __len__(self) -> int:
        return self.t.shape[0]

    def unit(self, name: str) -> str:
        """Unit string of a signal ('' for dimensionless)."""
        self[name]
        return self.units.get(name, "")

    def quantity(self, name: str):
        """The signal as a pint Quantity array in its unit."""
        from .units import Q_

        return Q_(self[name], self.unit(name) or "dimensionless")

    @property
    def controller_names(self) -> list[str]:
        """Names of the controllers whose ticks were recorded, in the order given."""
        return list(self._ticks)

    def ticks(self, controller_name: str) -> np.ndarray:
        """Tick times (s) of the named controller."""
        try:
            return self._ticks[controller_name]
        except KeyError:
            raise KeyError(f"no controller {controller_name!r}; controllers: {', '.join(self._ticks)}") from None

    def tick_log(self, controller_name: str) -> list:
        """``(t, written)`` per tick of the named controller: what it wrote at each tick."""
        self.ticks(controller_name)
        log = self._tick_log.get(controller_name, [])
        if type(log) is not list:  # (kept as the kernel's records until read: simcore.recorder.TickLog)
            log = self._tick_log[controller_name] = log.entries()
        return log

    def event_times(self, name: str | None = None) -> np.ndarray:
        """Instants of the recorded events (all, or those called ``name``)."""
        return np.array([e.t for e in self.events if name is None or e.name == name], dtype=float)

    def sample(self, name: str, times) -> np.ndarray:
        """Values of a signal at given times.

        Linear interpolation between grid rows; at a time that appears twice (a
        tick or event) the later row is taken (right-continuous). Times outside
        the grid raise.
        """
        try:
            times = np.asarray(times, dtype=float)
        except (TypeError, ValueError):
            raise ConfigTypeError("times", times, "times in s (numbers)") from None
        if not np.all(np.isfinite(times)):
            raise ConfigError("times", times, "finite times in s")
        if times.size and (times.min() < self.t[0] or times.max() > self.t[-1]):
            raise ConfigError("times", f"[{times.min()}, {times.max()}]",
                              f"times within the result's span [{self.t[0]}, {self.t[-1]}]")
        y = self[name]
        # side="right" puts a duplicated instant on its later row.
        idx = np.searchsorted(self.t, times, side="right") - 1
        idx = np.clip(idx, 0, len(self.t) - 1)
        nxt = np.clip(idx + 1, 0, len(self.t) - 1)
        t0, t1 = self.t[idx], self.t[nxt]
        dt = t1 - t0
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(dt > 0, (times - t0) / np.where(dt > 0, dt, 1.0), 0.0)
        if name in self.input_names:
            return y[idx].copy()
        return y[idx] + w * (y[nxt] - y[idx])

    def final(self, name: str) -> float:
        """Value of a signal at the last row."""
        return float(self[name][-1])

    # -- export (log files: simcore.logs) ------------------------------------------------------
    def to_csv(self, path, names: Sequence[str] | None = None, *, layout: str = "simcore") -> None:
        """Write the time grid and the chosen signals (all by default) to a CSV file.

        ``layout="simcore"`` (default): the header row is ``t [s]`` then
        ``name [unit]`` for each signal. ``layout="advantagescope"``: the header
        AdvantageScope's CSV reader accepts, ``Timestamp`` then ``/system/signal``
        keys (no units; see :mod:`simcore.logs`).
        """
        from .logs import write_csv

        write_csv(self, path, names, layout=layout)

    def to_wpilog(self, path, names: Sequence[str] | None = None) -> None:
        """Write the chosen signals (all by default) to a WPILOG file for AdvantageScope.

        One ``double`` entry ``/system/signal`` per signal with its unit in the
        entry metadata, every row kept (t = 0 included), the exact times and the
        modes alongside; :func:`simcore.logs.read_wpilog` reads it back to the same
        Result. Needs robotpy-wpiutil (``pip install "simcore[wpilog]"``); see
        :mod:`simcore.logs`.
        """
        from .logs import write_wpilog

        write_wpilog(self, path, names)

    def plot(self, *names: str, events: bool = True, title: str | None = None):
        """Plot signals against time, one axes per unit, and return the Figure.

        Inputs (held by controllers) are drawn as steps; recorded events are
        marked with dotted vertical lines when ``events`` is true. Without
        names, the first six non-input signals (the title says how many more
        there are).
        """
        from .plotting import plot_result

        return plot_result(self, names, events=events, title=title)

    def __repr__(self):
        dropped = ", ".join(f"{n} {k}" for k, n in self.dropped.items() if n)
        return f"<Result {len(self.t)} rows over [{self.t[0] if len(self.t) else '?'}, " \
               f"{self.t[-1] if len(self.t) else '?'}] s, {len(self._data)} signals, {len(self.events)} events" \
               + (f"; not kept (record={self.stats.get('record')!r}): {dropped}" if dropped else "") + ">"
