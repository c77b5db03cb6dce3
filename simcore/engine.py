"""The integration loop: continuous systems, periodic zero-order-hold controllers, state events.

Engine loop (what :class:`Simulator` does; ``simulate`` runs it to ``t_end``)::

    t = t0; x = x0; u = initial inputs
    loop:
        run every controller due at t (in the order given), each seeing x(t-)
            and the inputs written by those before it; update the held u
        fire the events whose guards changed sign across that update of u
        t_next = min(next tick, t_end)
        integrate (t, t_next] with u held:
            after each accepted solver step, evaluate every guard; on a sign
            change locate the earliest root on the dense output (Brent, 1e-13 s),
            and fire it and every other event located at that instant: record
            the state before, apply reset and mode switch, record the state
            after; restart the solver there (a terminal event ends the run),
            each fired guard placed on the side its motion is heading (see
            simcore.events); events accumulating within 1e-12 s raise (Zeno)
        t = t_next
        stop after the ticks at t_end

Tick times are integer nanoseconds (:mod:`simcore.clock`); every integration
interval ends exactly on the next tick, so the solver never steps across one and
the held input is a true step. The solver is a scipy ``OdeSolver`` (RK45 by
default; DOP853, RK23, LSODA, Radau, BDF) driven step by step, restarted at
each tick with the step size it last proposed (no initial-step search), which is
cheaper than calling ``solve_ivp`` once per tick (``bench/engine.py``).

Recorded rows (see :class:`~simcore.result.Result`): every accepted step; at each
tick the row before the controllers ran (old inputs) and the row after; at each
event the row before and the row after the reset.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Iterable, Sequence

import numpy as np
from scipy.integrate import DOP853, LSODA, RK23, RK45, BDF, Radau
from scipy.optimize import brentq

from .clock import NS_PER_S, to_ns
from .controller import PeriodicController
from .errors import ConfigError, ConfigTypeError, IntegrationError, NonFiniteError, SimError, as_real, check_finite
from .events import EVENT_TIME_TOLERANCE, KEEP_MODE, EventRecord
from .protocols import check_simulation
from .result import Result
from .system import System
from .units import to_si

__all__ = ["Simulator", "simulate", "METHODS"]

#: Selectable integration methods (scipy OdeSolver classes).
METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853, "LSODA": LSODA, "Radau": Radau, "BDF": BDF}

#: Solvers whose object is moved from interval to interval (see Simulator._solver_at).
_REUSABLE = (RK45, RK23, DOP853)

_TINY = 5e-324  # the smallest positive float: "just on this side of zero"

#: Relative gap, s per s of simulation time, below which successive events count as
#: accumulating (Zeno) when more than MAX_EVENTS_AT_ONE_INSTANT come in a row.
_ZENO_GAP = 1e-12

#: Relative time, s per s, of the probe that tells where a just-fired event's guard is heading.
_PROBE_STEP = 1e-8

#: Interior points of each step at which guards are also sampled (besides the step ends).
EVENT_INTERIOR_POINTS = 3

#: Events allowed in a row, each within the Zeno gap of the last, before the run is declared Zeno.
MAX_EVENTS_AT_ONE_INSTANT = 100

_STIFF_HINT = " If the system is stiff (very fast electrical or contact dynamics), try method='Radau' or 'BDF'."


class _Fired:
    """An event fired at the current restart point: what :meth:`Simulator._restart_sides` needs."""

    __slots__ = ("system", "event", "pre_side", "X_before", "prev_t")

    def __init__(self, system: int, event, pre_side: float, X_before: np.ndarray, prev_t):
        self.system, self.event, self.pre_side, self.X_before = system, event, pre_side, X_before
        self.prev_t = prev_t  # when this same event fired before (None: never)


class Signals(Mapping):
    """Live read-only view of every signal at the simulator's current instant.

    ``signals["arm.angle"]`` reads the state, held input or output of a system at
    the current time. The same object is handed to every controller call and is
    returned by :attr:`Simulator.signals`, so code that keeps a reference to it
    (an FTC hub, robot code between ``advance`` calls) always reads the present.
    """

    def __init__(self, sim: "Simulator"):
        self._sim = sim

    def __getitem__(self, name: str) -> float:
        return self._sim._read_signal(name)

    def __iter__(self):
        return iter(self._sim._signal_index)

    def __len__(self) -> int:
        return len(self._sim._signal_index)

    @property
    def t(self) -> float:
        """Current simulation time, s."""
        return self._sim.t

    def __repr__(self):
        return f"<Signals at t={self._sim.t!r} s: {len(self)} signals>"


class Simulator:
    """A simulation that can be advanced from outside.

    Parameters
    ----------
    systems : System or sequence of System
        The mechanisms simulated together; names must be unique.
    controllers : sequence of PeriodicController
        Run at their ticks in this order.
    t0 : float or Quantity
        Start time, s (resolved to whole nanoseconds).
    x0 : mapping of str to float, optional
        Initial states by ``"system.state"``, overriding ``initial_state()``.
    inputs : mapping of str to float, optional
        Initial held inputs by ``"system.input"``, overriding ``initial_inputs()``.
    method : str
        One of :data:`METHODS`.
    rtol, atol : float
        Solver tolerances (relative, and absolute in each state's SI unit). They
        bound the error the solver estimates on each step, as in ``solve_ivp``; the
        error over a run is typically a few to ten times ``rtol`` for the explicit
        Runge-Kutta methods. LSODA and BDF restart at first order after every tick
        (the held input jumps), so with a fast controller they are less accurate
        for a given tolerance than without one.
    max_step : float or Quantity, optional
        Largest solver step, s.

    Notes
    -----
    ``advance(dt)`` integrates to ``t + dt`` and runs every controller due in
    ``(t, t + dt]`` (and those at ``t0`` on the first call), so advancing in
    chunks that end on ticks gives bit-identically the trajectory of one
    :func:`simulate` call. The engine owns each system's ``mode`` while it runs.
    """

    def __init__(self, systems, controllers: Sequence[PeriodicController] = (), *, t0=0.0,
                 x0: Mapping | None = None, inputs: Mapping | None = None, method: str = "RK45",
                 rtol: float = 1e-8, atol: float = 1e-10, max_step=None):
        systems = _one_or_many("systems", systems, System)
        if not systems:
            raise ConfigError("systems", systems, "at least one System")
        names = [s.name for s in systems]
        if len(set(names)) != len(names):
            raise ConfigError("systems", names, "systems with distinct names")
        controllers = [] if controllers is None else _one_or_many("controllers", controllers, PeriodicController)
        cnames = [c.name for c in controllers]
        if len(set(cnames)) != len(cnames):
            raise ConfigError("controllers", cnames, "controllers with distinct names (tick logs are kept by name)")
        check_simulation(systems, controllers)  # what the engine, battery and field view need of each (protocols)
        if method not in METHODS:
            raise ConfigError("method", method, f"one of {', '.join(METHODS)}")
        for pname, v in (("rtol", rtol), ("atol", atol)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (v > 0 and math.isfinite(v)):
                raise ConfigError(pname, v, "a positive finite number")
        if max_step is None:
            max_step = np.inf
        else:
            max_step = to_si("max_step", max_step, "s") if not isinstance(max_step, float) else max_step
            if not max_step > 0:
                raise ConfigError("max_step", max_step, "None or a positive number of seconds")

        self.systems = systems
        self.controllers = controllers
        self.method = method
        self._solver_cls = METHODS[method]
        self.rtol = float(rtol)
        self.atol = float(atol)
        self.max_step = float(max_step)
        self._t0_ns = to_ns("t0", t0)

        # Layout of the stacked state vector and the per-system input arrays.
        self._slices = []
        offset = 0
        for s in systems:
            n = len(s.state_names)
            self._slices.append(slice(offset, offset + n))
            offset += n
        self._n_states = offset
        self._signal_index: dict[str, tuple[str, int, int]] = {}
        for k, s in enumerate(systems):
            for i, n in enumerate(s.state_names):
                self._signal_index[f"{s.name}.{n}"] = ("x", k, self._slices[k].start + i)
            for i, n in enumerate(s.input_names):
                self._signal_index[f"{s.name}.{n}"] = ("u", k, i)
            for i, n in enumerate(s.output_names):
                self._signal_index[f"{s.name}.{n}"] = ("y", k, i)
        self._input_names = [f"{s.name}.{n}" for s in systems for n in s.input_names]
        self._input_ranges = {f"{s.name}.{n}": s.input_ranges[n] for s in systems
                              for n in s.input_names if n in s.input_ranges}

        self._couplings = []
        coupled = {}
        for s in systems:
            for c in s.couplings(systems):
                for target in c.targets:
                    if self._signal_index.get(target, ("?",))[0] != "u":
                        raise ConfigError("coupling target", target, "an input of a simulated system")
                    coupled[target] = s.name
                self._couplings.append(c)
        self._coupled = coupled

        self._t_ns = self._t0_ns
        self.t = self._t0_ns / NS_PER_S

        # Initial state and inputs.
        X = np.empty(self._n_states)
        self._U = []
        for k, s in enumerate(systems):
            x = np.asarray(s.initial_state(), dtype=float).reshape(-1)
            if x.shape != (len(s.state_names),):
                raise ConfigError(f"{s.name}.initial_state()", x, f"{len(s.state_names)} values")
            for i, v in enumerate(x):
                if not math.isfinite(v):
                    raise ConfigError(f"{s.name}.initial_state()[{s.state_names[i]!r}]", v, "a finite number")
            X[self._slices[k]] = x
            u = np.array(s.initial_inputs(), dtype=float).reshape(-1)
            if u.shape != (len(s.input_names),):
                raise ConfigError(f"{s.name}.initial_inputs()", u, f"{len(s.input_names)} values")
            for i, v in enumerate(u):
                rng = s.input_ranges.get(s.input_names[i], (-math.inf, math.inf))
                if not (math.isfinite(v) and rng[0] <= v <= rng[1]):
                    raise ConfigError(f"{s.name}.initial_inputs()[{s.input_names[i]!r}]", v,
                                      f"a finite number in [{rng[0]}, {rng[1]}]")
            self._U.append(u)
        for name, value in (x0 or {}).items():
            kind = self._signal_index.get(name, ("?",))
            if kind[0] != "x":
                raise ConfigError("x0", name, "a state name, one of " + ", ".join(
                    n for n, v in self._signal_index.items() if v[0] == "x"))
            X[kind[2]] = check_finite(f"x0[{name!r}]", value)
        for name, value in (inputs or {}).items():
            self._write_input(name, value, "inputs")
        self._X = X

        # Controllers' next tick index; the ticks at t0 run on the first advance.
        self._next_k = [0] * len(controllers)
        self._ran_once = [False] * len(controllers)  # on_start runs before a controller's first tick
        self._fired_here: list = []  # see _integrate
        self._zeno_run, self._last_event_t = 0, None
        self._event_last_t: dict = {}  # (system index, id(event)) -> when it last fired
        self._search_from: dict = {}  # (system index, id(event)) -> time its next crossing is sought from
        self._started = False
        self._terminated = False
        self._events_cache: dict[int, tuple] = {}
        self._y_cache: dict[int, tuple] = {}
        self._h_next = None
        self._solver = None
        self._signals = Signals(self)

        # Records.
        self._rec_t: list[float] = []
        self._rec_x: list[np.ndarray] = []
        self._rec_u: list[np.ndarray] = []
        self._rec_modes: list[tuple] = []
        self._ticks = {c.name: [] for c in controllers}
        self._tick_log = {c.name: [] for c in controllers}
        self._events: list[EventRecord] = []
        self._stats = {"nfev": 0, "njev": 0, "nlu": 0, "n_steps": 0, "n_segments": 0, "n_ticks": 0,
                       "n_events": 0}
        self._rhs = self._make_rhs()

    # -- signals -------------------------------------------------------------------------------
    @property
    def signals(self) -> Signals:
        """Live mapping of every ``"system.signal"`` at the current time."""
        return self._signals

    @property
    def terminated(self) -> bool:
        """True once a terminal event has ended the run."""
        return self._terminated

    def _read_signal(self, name: str) -> float:
        try:
            kind, k, i = self._signal_index[name]
        except KeyError:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(self._signal_index)}") from None
        if kind == "x":
            return float(self._X[i])
        if kind == "u":
            if self._couplings:
                self._apply_couplings(self.t, self._X)
            return float(self._U[k][i])
        return float(self._outputs_of(k)[i])

    def _outputs_of(self, k: int) -> np.ndarray:
        # Outputs are cached until the state, an input, or the time changes.
        key = (self.t, self._X.tobytes(), b"".join(u.tobytes() for u in self._U), self.systems[k].mode)
        hit = self._y_cache.get(k)
        if hit is not None and hit[0] == key:
            return hit[1]
        if self._couplings:
            self._apply_couplings(self.t, self._X)
        y = self._eval_outputs(k, self.t, self._X)
        self._y_cache[k] = (key, y)
        return y

    def _eval_outputs(self, k: int, t: float, X: np.ndarray) -> np.ndarray:
        s = self.systems[k]
        try:
            y = np.asarray(s.outputs(t, X[self._slices[k]], self._U[k]), dtype=float).reshape(-1)
        except NonFiniteError as exc:
            raise _with_time(exc, t) from None
        if y.shape != (len(s.output_names),):
            raise ConfigError(f"{s.name}.outputs()", y, f"{len(s.output_names)} values ordered as output_names")
        if not np.all(np.isfinite(y)):
            i = int(np.flatnonzero(~np.isfinite(y))[0])
            raise NonFiniteError("output", f"{s.name}.{s.output_names[i]}", y[i], t)
        return y

    def set_inputs(self, mapping: Mapping[str, float]) -> None:
        """Write held inputs from outside the loop (held until written again).

        Like a controller's write at a tick: a guard that changes sign because of it
        fires at the current time (a block resting on a stop is released when the
        push reverses), and the result gets a row before and after the write.
        """
        if not self._started or self._terminated:
            for name, value in mapping.items():
                self._write_input(name, value, "set_inputs")
            return
        active = self._active_events()
        g_before = self._guards(active, self.t, self._X)
        if not (self._rec_t and self._rec_t[-1] == self.t):
            self._record(self.t, self._X)  # the row before the write (usually the interval's last)
        for name, value in mapping.items():
            self._write_input(name, value, "set_inputs")
        if not self._fire_input_jump_events(active, g_before, self.t):
            self._record(self.t, self._X)

    def _write_input(self, name: str, value, who: str) -> None:
        kind = self._signal_index.get(name)
        if kind is None or kind[0] != "u":
            what = "a state" if kind and kind[0] == "x" else "an output" if kind else "unknown"
            raise ConfigError(f"{who} signal", name,
                              f"an input ({what} given); valid inputs: {', '.join(self._input_names)}")
        if name in getattr(self, "_coupled", {}):
            raise ConfigError(f"{who} signal", name,
                              f"an input not driven by {self._coupled[name]!r} (it is solved continuously)")
        v = as_real(f"{who}[{name!r}]", value)
        if not math.isfinite(v):
            raise NonFiniteError("input", name, value, self.t)
        rng = self._input_ranges.get(name)
        if rng is not None and not rng[0] <= v <= rng[1]:
            raise ConfigError(f"{who}[{name!r}]", value, f"a value in [{rng[0]}, {rng[1]}] (at t={self.t!r} s)")
        self._U[kind[1]][kind[2]] = v

    # -- right-hand side ---------------------------------------------------------------------
    def _apply_couplings(self, t: float, X: np.ndarray) -> None:
        xs = [X[sl] for sl in self._slices]
        for c in self._couplings:
            c.apply(t, xs, self._U)

    def _make_rhs(self):
        systems, slices, U = self.systems, self._slices, self._U
        stats = self._stats

        def nonfinite(t, d):
            i = int(np.flatnonzero(~np.isfinite(d))[0])
            for k, sl in enumerate(slices):
                if sl.start <= i < sl.stop:
                    s = systems[k]
                    raise NonFiniteError("derivative of", f"{s.name}.{s.state_names[i - sl.start]}", d[i], t)

        if len(systems) == 1 and not self._couplings:
            s0, u0 = systems[0], U[0]
            deriv = s0.derivatives

            def rhs(t, X):
                stats["nfev"] += 1
                try:
                    d = np.asarray(deriv(t, X, u0), dtype=float)
                except NonFiniteError as exc:
                    raise _with_time(exc, t) from None
                except Exception as exc:
                    _annotate(exc, t, f"in {s0.name}.derivatives")
                    raise
                if not np.isfinite(d).all():
                    nonfinite(t, d)
                return d
            return rhs

        def rhs(t, X):
            stats["nfev"] += 1
            if self._couplings:
                self._apply_couplings(t, X)
            d = np.empty_like(X)
            try:
                for k, s in enumerate(systems):
                    sl = slices[k]
                    d[sl] = s.derivatives(t, X[sl], U[k])
            except NonFiniteError as exc:
                raise _with_time(exc, t) from None
            except Exception as exc:
                _annotate(exc, t, f"in {s.name}.derivatives")
                raise
            if not np.isfinite(d).all():
                nonfinite(t, d)
            return d
        return rhs

    # -- events ------------------------------------------------------------------------------
    def _active_events(self):
        """[(system index, event)] for the current modes, cached per mode."""
        out = []
        for k, s in enumerate(self.systems):
            key = (k, s.mode)
            try:
                evs = self._events_cache[key]
            except (KeyError, TypeError):
                evs = tuple(s.events())
                try:
                    self._events_cache[key] = evs
                except TypeError:  # an unhashable mode: no caching
                    pass
            out.extend((k, e) for e in evs)
        return out

    def _guards(self, active, t, X):
        if not active:
            return []
        if self._couplings:
            self._apply_couplings(t, X)
        vals = []
        for k, e in active:
            try:
                g = float(e.guard(t, X[self._slices[k]], self._U[k]))
            except NonFiniteError as exc:
                raise _with_time(exc, t) from None
            except Exception as exc:
                _annotate(exc, t, f"in the guard of {self.systems[k].name}:{e.name}")
                raise
            if not math.isfinite(g):
                raise NonFiniteError("guard", f"{self.systems[k].name}:{e.name}", g, t)
            vals.append(g)
        return vals

    def _fire(self, k, event, t, X, at_tick=False) -> np.ndarray:
        """Apply ``event`` of system ``k`` at ``t``: record before/after, return the new stacked state."""
        s = self.systems[k]
        sl = self._slices[k]
        self._record(t, X)
        x_before = X[sl].copy()
        mode_before = s.mode
        if self._couplings:
            self._apply_couplings(t, X)
        X = X.copy()
        if event.reset is not None:
            xn = np.asarray(event.reset(t, x_before.copy(), self._U[k]), dtype=float).reshape(-1)
            if xn.shape != x_before.shape:
                raise ConfigError(f"{s.name}:{event.name} reset", xn, f"{x_before.size} state values")
            if not np.all(np.isfinite(xn)):
                raise NonFiniteError("reset state of", f"{s.name}:{event.name}", xn, t)
            X[sl] = xn
        if event.mode is not KEEP_MODE:
            try:
                s.mode = event.mode(t, X[sl], self._U[k]) if callable(event.mode) else event.mode
            except NonFiniteError as exc:
                raise _with_time(exc, t) from None
        self._events.append(EventRecord(t, event.name, s.name, x_before, X[sl].copy(), mode_before, s.mode,
                                        at_tick))
        self._stats["n_events"] += 1
        self._record(t, X)
        if event.terminal:
            self._terminated = True
        return X

    # -- recording ---------------------------------------------------------------------------
    def _record(self, t: float, X: np.ndarray) -> None:
        # Outputs are not evaluated here: the Result computes them from (t, x, u, mode) on demand.
        if self._couplings:
            self._apply_couplings(t, X)
        self._rec_t.append(t)
        self._rec_x.append(X.copy())
        self._rec_u.append(np.concatenate(self._U) if self._U else np.empty(0))
        self._rec_modes.append(tuple(s.mode for s in self.systems))

    # -- ticks -------------------------------------------------------------------------------
    def _tick_ns(self, i: int) -> int:
        c = self.controllers[i]
        return self._t0_ns + c.offset_ns + self._next_k[i] * c.period_ns

    def _next_tick_ns(self):
        if not self.controllers:
            return None
        return min(self._tick_ns(i) for i in range(len(self.controllers)))

    def _run_ticks(self, t_ns: int, *, initial: bool = False) -> None:
        """Run every controller due at ``t_ns`` (in order), then the events the input jump triggers.

        With ``initial`` (the ticks at t0) no event is checked and nothing is
        recorded: the caller settles the initial modes, then records.
        """
        t = t_ns / NS_PER_S
        active = [] if initial else self._active_events()
        g_before = self._guards(active, t, self._X)
        ran = False
        for i, c in enumerate(self.controllers):
            if self._tick_ns(i) != t_ns:
                continue
            ran = True
            self._next_k[i] += 1
            self._stats["n_ticks"] += 1
            try:
                if not self._ran_once[i]:
                    self._ran_once[i] = True
                    if c.on_start is not None:
                        c.on_start(t, self._signals)
                written = c.fn(t, self._signals)
            except Exception as exc:
                # Robot code's own exception type is kept; it learns when it happened.
                exc.sim_time = t
                if hasattr(exc, "add_note"):
                    exc.add_note(f"raised by controller {c.name!r} at simulation time t={t!r} s")
                raise
            self._ticks[c.name].append(t)
            if written is None:
                written = {}
            if not isinstance(written, Mapping):
                raise ConfigTypeError(f"controller {c.name!r} return value", written,
                                      "a mapping {'system.input': value} or None")
            for name, value in written.items():
                self._write_input(name, value, f"controller {c.name!r}")
            self._tick_log[c.name].append((t, dict(written)))
        if not ran or initial:
            return
        if not self._fire_input_jump_events(active, g_before, t):
            self._record(t, self._X)

    def _fire_input_jump_events(self, active, g_before, t) -> bool:
        """Fire the events whose guards changed sign because held inputs were just written.

        At most one per system (its mode may change, and with it its events). Returns
        True when one fired: its after-row is then the row after the write.
        """
        if not active:
            return False
        g_after = self._guards(active, t, self._X)
        fired_systems = set()
        for (k, e), ga, gb in zip(active, g_before, g_after):
            if k not in fired_systems and e.crosses(ga, gb):
                self._X = self._fire(k, e, t, self._X, at_tick=True)
                fired_systems.add(k)
                if self._terminated:
                    break
        return bool(fired_systems)

    # -- integration -------------------------------------------------------------------------
    def _settle_modes(self) -> None:
        if self._couplings:
            self._apply_couplings(self.t, self._X)
        for k, s in enumerate(self.systems):
            try:
                s.mode = s.initial_mode(self.t, self._X[self._slices[k]].copy(), self._U[k].copy())
            except NonFiniteError as exc:
                raise _with_time(exc, self.t) from None

    def _start(self) -> None:
        """Record the initial row, run the controllers due at t0, settle the modes, record again."""
        self._started = True
        self._settle_modes()
        self._record(self.t, self._X)
        if self._next_tick_ns() == self._t_ns:
            self._run_ticks(self._t_ns, initial=True)
            self._settle_modes()
            self._record(self.t, self._X)

    def _integrate(self, t_end: float) -> None:
        """Integrate from self.t to t_end with the inputs held, handling state events."""
        # Kept on the simulator across calls (an event can land on a tick, the end of a call):
        # the events fired at the current restart point, and the run of events closer than the
        # Zeno gap to the previous one.
        fired_here = self._fired_here
        zeno_run, last_event_t = self._zeno_run, self._last_event_t
        while self.t < t_end and not self._terminated:
            X = self._X
            t = self.t
            h0 = self._h_next
            span = t_end - t
            first_step = min(h0, span, self.max_step) if h0 else None
            solver = self._solver_at(t, X, t_end, first_step)
            self._stats["n_segments"] += 1
            active = self._active_events()
            g_prev = self._guards(active, t, X)
            just_fired, fired_here = fired_here, []
            if just_fired:
                self._restart_sides(active, g_prev, just_fired, t, X)
            event_hit = False
            while solver.status == "running":
                t_old = solver.t
                msg = solver.step()
                if solver.status == "failed":
                    self._collect(solver)
                    raise IntegrationError(f"{self.method} solver failed: {msg}." + _STIFF_HINT, solver.t)
                t_new = solver.t
                y_new = solver.y
                if not np.all(np.isfinite(y_new)):
                    self._collect(solver)
                    raise IntegrationError("the state became non-finite", t_new)
                self._stats["n_steps"] += 1
                if active:
                    g_new = self._guards(active, t_new, y_new)
                    sol = solver.dense_output()
                    roots = sorted((self._locate(active[j], *bracket, sol), j, bracket[1])
                                   for j, bracket in self._brackets(active, g_prev, g_new, sol, t_old, t_new))
                    if self._search_from:  # delays that have run out
                        self._search_from = {key: ts for key, ts in self._search_from.items() if ts > t_new}
                    if roots:
                        te = roots[0][0]
                        x_e = np.asarray(sol(te) if te < t_new else y_new, dtype=float)
                        self._collect(solver)
                        self._h_next = getattr(solver, "h_abs", None) or solver.step_size
                        if last_event_t is not None and te - last_event_t <= _ZENO_GAP * max(1.0, abs(te)):
                            zeno_run += 1
                            if zeno_run > MAX_EVENTS_AT_ONE_INSTANT:
                                k, e = active[roots[0][1]]
                                raise IntegrationError(
                                    f"more than {MAX_EVENTS_AT_ONE_INSTANT} events each within "
                                    f"{_ZENO_GAP:g} s (relative) of the last: the events accumulate (Zeno); "
                                    f"last: {self.systems[k].name}:{e.name}. Give the system a mode that "
                                    "holds it (resting on a stop) instead of a reset that fires again", te)
                        else:
                            zeno_run = 0
                        last_event_t = te
                        self._X, fired_here = self._fire_simultaneous(active, roots, te, x_e)
                        self.t = te
                        event_hit = True
                        break
                    g_prev = g_new
                self._record(t_new, y_new)
            if not event_hit:
                self._collect(solver)
                self._X = solver.y.copy()
                self.t = t_end  # the solver lands exactly on t_bound
                h = getattr(solver, "h_abs", None)
                self._h_next = h if h else solver.step_size
        self._fired_here, self._zeno_run, self._last_event_t = fired_here, zeno_run, last_event_t
        if self._h_next is not None and not (self._h_next > 0 and math.isfinite(self._h_next)):
            self._h_next = None

    def _fire_simultaneous(self, active, roots, te, X):
        """Fire the earliest located event at ``te`` and every other one located at that instant.

        ``roots`` is the sorted list of (time, active index, guard at its bracket start).
        Events whose root is within twice the location tolerance of ``te`` fire too
        if their guard, re-evaluated on the state the earlier resets left, has crossed
        at ``te`` (one that has not yet fires at its own root, just after); so two
        identical elevators hitting their stops at one instant both stop. A terminal
        event ends the run after every event of its instant has fired.
        Returns the new stacked state and the records for :meth:`_restart_sides`.
        """
        X_before = X.copy()
        fired = []
        for tj, j, g_a in roots:
            if tj - te > 2 * EVENT_TIME_TOLERANCE:
                break
            k, e = active[j]
            if fired:
                if not any(e2 is e and k2 == k for k2, e2 in self._active_events()):
                    continue  # an earlier event at this instant changed the mode: no longer armed
                if not e.crosses(g_a, self._guards([(k, e)], te, X)[0]):
                    continue
            X = self._fire(k, e, te, X)
            key = (k, id(e))
            fired.append(_Fired(k, e, 1.0 if g_a > 0 else -1.0, X_before, self._event_last_t.get(key)))
            self._event_last_t[key] = te
        return X, fired  # a terminal one ends the run after all of this instant's events have fired

    def _restart_sides(self, active, g_prev, just_fired, t, X) -> None:
        """Put the guards of events that just fired on the right side of zero for the restart.

        After a reset the guard sits at its root, +-round-off (the located instant is
        within 1e-13 s of the root, on either side). Where it is heading a moment
        later (the sign of the guard after a short second-order probe of the motion)
        decides:

        * back to the side it came from (a bounce): its next crossing is sought from
          the probe's instant on, where the guard is clear of the round-off at the
          root, so a bounce whose whole next arc fits in one solver step is caught;
        * on through, as it came (an event that only counts, or whose reset does not
          change the guard's rate): placed past the root, it does not fire again;
        * on through although the reset changed the guard's rate (a stop whose reset
          does not hold the body), or the same event already fired within the Zeno
          gap (bounces shrunk to round-off): placed before the root, it fires again
          at once, and an endless repetition ends as Zeno.
        """
        for f in just_fired:
            for j, (k, e) in enumerate(active):
                if not (k == f.system and e is f.event):
                    continue
                g0 = g_prev[j]
                self._search_from.pop((k, id(e)), None)  # a delay left from its previous firing
                dt = _PROBE_STEP * max(1.0, abs(t))
                side = self._probe_side(k, e, t, X, dt)
                accumulating = f.prev_t is not None and t - f.prev_t <= _ZENO_GAP * max(1.0, abs(t))
                if side == 0.0:
                    g_prev[j] = f.pre_side * _TINY
                elif side == f.pre_side:  # heading back (a bounce), or reset back before the root
                    if g0 * side <= 0:
                        g_prev[j] = side * _TINY
                        self._search_from[(k, id(e))] = t + dt
                elif e.reset is not None and (accumulating or self._rate_changed(k, e, t, X, f.X_before, dt)):
                    g_prev[j] = f.pre_side * _TINY  # the reset did not hold it: fires again
                else:  # goes on through, as it came
                    g_prev[j] = g0 if g0 * side > 0 else side * _TINY
                break

    def _probe_side(self, k, e, t, X, dt) -> float:
        """Sign of the guard of (system ``k``, event ``e``) ``dt`` after ``t`` from state ``X`` (a Heun step)."""
        f0 = self._rhs(t, X)
        f1 = self._rhs(t + dt, X + dt * f0)
        v = self._guards([(k, e)], t + dt, X + 0.5 * dt * (f0 + f1))[0]
        return 1.0 if v > 0 else -1.0 if v < 0 else 0.0

    def _guard_rate(self, k, e, t, X, dt) -> float:
        """The guard's time derivative at (t, X), by a forward difference over ``dt``."""
        x1 = X + dt * self._rhs(t, X)
        return (self._guards([(k, e)], t + dt, x1)[0] - self._guards([(k, e)], t, X)[0]) / dt

    def _rate_changed(self, k, e, t, X, X_before, dt) -> bool:
        """Whether the reset changed the guard's rate (a reset of a state the guard does not
        move with, such as a counter or an acceleration, leaves it unchanged)."""
        after, before = self._guard_rate(k, e, t, X, dt), self._guard_rate(k, e, t, X_before, dt)
        return abs(after - before) > 1e-6 * max(abs(after), abs(before))

    def _solver_at(self, t: float, X: np.ndarray, t_end: float, first_step):
        """A solver positioned at (t, X), bounded by t_end.

        Explicit Runge-Kutta solvers carry only (t, y, f, h) from step to step, so
        the one solver object is moved to the new interval instead of being built
        again (which re-validates tolerances and costs a call each tick). The
        derivative at the start is re-evaluated: the held input has just changed.
        Implicit and multistep methods keep a history that an input jump makes
        invalid, so they start afresh.
        """
        solver = self._solver
        if solver is not None and first_step is not None:
            solver.t = t
            solver.y = np.array(X, dtype=float)
            solver.t_bound = t_end
            solver.t_old = None
            solver.y_old = None
            solver.h_previous = None
            solver.f = solver.fun(t, solver.y)
            solver.h_abs = first_step
            solver.status = "running"
            return solver
        try:
            solver = self._solver_cls(self._rhs, t, X, t_end, rtol=self.rtol, atol=self.atol,
                                      max_step=self.max_step, first_step=first_step)
        except SimError:
            raise
        except ValueError as exc:
            raise IntegrationError(f"could not start the {self.method} solver: {exc}", t) from exc
        if self._solver_cls in _REUSABLE:
            self._solver = solver
        return solver

    def _collect(self, solver) -> None:
        # nfev is counted by the right-hand side itself (a reused solver's own count runs on).
        if self._solver_cls not in _REUSABLE:
            for key in ("njev", "nlu"):
                self._stats[key] += int(getattr(solver, key, 0))

    def _brackets(self, active, g_prev, g_new, sol, t_old, t_new):
        """Yield (event index, (t_a, g_a, t_b, g_b)): the first sub-interval of the step where each guard crosses.

        Guards are sampled at the step ends and at :data:`EVENT_INTERIOR_POINTS`
        interior points of the dense output, so a guard that crosses twice within
        one step (a ball's whole bounce arc in one large step) is still caught.
        """
        n = EVENT_INTERIOR_POINTS
        ts = [t_old + (t_new - t_old) * (i + 1) / (n + 1) for i in range(n)]
        interior = [self._guards(active, ti, sol(ti)) for ti in ts]
        times = [t_old] + ts + [t_new]
        for j, (k, e) in enumerate(active):
            t_s = self._search_from.get((k, id(e))) if self._search_from else None
            if t_s is not None and t_s > t_old:
                # A bounce's guard just after its restart is within round-off of the root: seek the
                # next crossing from t_s on, where the probe found it clear of the root.
                if t_s >= t_new:
                    continue
                g_s = self._guards([(k, e)], t_s, sol(t_s))[0]
                keep = [i for i in range(n) if ts[i] > t_s]
                tj = [t_s] + [ts[i] for i in keep] + [t_new]
                samples = [g_s] + [interior[i][j] for i in keep] + [g_new[j]]
            else:
                tj = times
                samples = [g_prev[j]] + [row[j] for row in interior] + [g_new[j]]
            for i in range(len(tj) - 1):
                if e.crosses(samples[i], samples[i + 1]):
                    yield j, (tj[i], samples[i], tj[i + 1], samples[i + 1])
                    break

    def _locate(self, item, t_a, g_a, t_b, g_b, sol) -> float:
        """Instant in (t_a, t_b] where the guard of ``item`` = (system, event) crosses zero."""
        if g_b == 0.0:
            return t_b
        k, e = item
        sl, u = self._slices[k], self._U[k]

        def g(s):
            if s == t_a:
                return g_a  # the recorded value: the interpolant may differ by round-off
            if s == t_b:
                return g_b
            x = sol(s)
            if self._couplings:
                self._apply_couplings(s, x)
            return float(e.guard(s, x[sl], u))

        return brentq(g, t_a, t_b, xtol=EVENT_TIME_TOLERANCE, rtol=4 * np.finfo(float).eps)

    def _run_until_ns(self, target_ns: int) -> None:
        if not self._started:
            self._start()
        if self._terminated:
            raise IntegrationError("the run ended at a terminal event; it cannot be advanced", self.t)
        if target_ns < self._t_ns:
            raise ConfigError("t_end", target_ns / NS_PER_S, f"a time not before the current time {self.t!r} s")
        while not self._terminated:
            nxt = self._next_tick_ns()
            seg_end_ns = target_ns if nxt is None else min(nxt, target_ns)
            if seg_end_ns > self._t_ns:
                self._integrate(seg_end_ns / NS_PER_S)
                if self._terminated:
                    return
                self._t_ns = seg_end_ns
                self.t = seg_end_ns / NS_PER_S
            if nxt is not None and nxt == seg_end_ns:
                self._run_ticks(seg_end_ns)
                if self._terminated:
                    return
            if seg_end_ns >= target_ns:
                return

    def advance(self, dt) -> "Simulator":
        """Integrate ``dt`` seconds further, running the controllers due in ``(t, t + dt]``.

        On the first call the controllers due at ``t0`` run first.
        """
        dt_ns = to_ns("dt", dt, nonnegative=True)
        self._run_until_ns(self._t_ns + dt_ns)
        return self

    def run_until(self, t_end) -> "Simulator":
        """Integrate to the absolute time ``t_end`` (s), running the ticks up to and at ``t_end``."""
        self._run_until_ns(to_ns("t_end", t_end))
        return self

    # -- results -----------------------------------------------------------------------------
    def result(self) -> Result:
        """Everything recorded so far, as a :class:`~simcore.result.Result`.

        States and inputs are copied in; each system's outputs are computed from the
        recorded rows when one of them is first read.
        """
        if not self._started:
            self._start()
        n = len(self._rec_t)
        t = np.array(self._rec_t)
        xs = np.array(self._rec_x).reshape(n, self._n_states)
        us = np.array(self._rec_u).reshape(n, -1)
        data, units, lazy = {}, {}, {}
        ucol = 0
        for k, s in enumerate(self.systems):
            for i, name in enumerate(s.state_names):
                data[f"{s.name}.{name}"] = xs[:, self._slices[k].start + i]
            ucols = slice(ucol, ucol + len(s.input_names))
            for i, name in enumerate(s.input_names):
                data[f"{s.name}.{name}"] = us[:, ucol + i]
            ucol = ucols.stop
            if s.output_names:
                modes_k = [m[k] for m in self._rec_modes]
                compute = _OutputColumns(s, t, xs[:, self._slices[k]], us[:, ucols], modes_k)
                for name in s.output_names:
                    lazy[f"{s.name}.{name}"] = compute
            for name, unit in s.units.items():
                units[f"{s.name}.{name}"] = unit
        modes = {s.name: [m[k] for m in self._rec_modes] for k, s in enumerate(self.systems)}
        return Result(t, data, units=units, input_names=self._input_names, lazy=lazy,
                      ticks={k: np.array(v) for k, v in self._ticks.items()},
                      tick_log={k: list(v) for k, v in self._tick_log.items()},
                      events=self._events, stats=dict(self._stats, method=self.method), modes=modes,
                      notes={f"{s.name}.{n}": v for s in self.systems
                             for n, v in getattr(s, "signal_notes", {}).items()})


class _OutputColumns:
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
                try:
                    y[i] = s.outputs(self.t[i], self.x[i], self.u[i])
                except NonFiniteError as exc:
                    raise _with_time(exc, float(self.t[i])) from None
        finally:
            s.mode = saved
        bad = ~np.isfinite(y)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise NonFiniteError("output", f"{s.name}.{s.output_names[j]}", y[i, j], float(self.t[i]))
        return {f"{s.name}.{n}": y[:, j] for j, n in enumerate(s.output_names)}


def _one_or_many(parameter: str, value, cls) -> list:
    """``value`` as a list of ``cls`` instances: one instance, or any iterable of them."""
    if isinstance(value, cls):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise ConfigTypeError(parameter, value, f"a {cls.__name__} or a sequence of {cls.__name__}") from None
    for item in items:
        if not isinstance(item, cls):
            raise ConfigTypeError(parameter, item, f"{cls.__name__} instances")
    return items


def _annotate(exc: BaseException, t: float, where: str) -> None:
    """Tell an exception from model code when and where it happened (its own type is kept)."""
    if not isinstance(exc, SimError) and getattr(exc, "sim_time", None) is None:
        exc.sim_time = t
        if hasattr(exc, "add_note"):
            exc.add_note(f"raised {where} at simulation time t={t!r} s")


def _with_time(exc: NonFiniteError, t: float) -> NonFiniteError:
    """``exc`` at time ``t`` when it was raised without one (model code that does not know the time)."""
    return exc.at(t) if math.isnan(exc.t) else exc


def simulate(systems, t_end, controllers: Iterable[PeriodicController] = (), *, t0=0.0,
             x0: Mapping | None = None, inputs: Mapping | None = None, method: str = "RK45",
             rtol: float = 1e-8, atol: float = 1e-10, max_step=None) -> Result:
    """Simulate ``systems`` from ``t0`` to ``t_end`` under periodic controllers.

    Parameters are those of :class:`Simulator`; ``t_end`` is the final time, s.
    Controllers tick at every ``t0 + offset + k * period <= t_end``, the end
    included. Returns the recorded :class:`~simcore.result.Result`.
    """
    sim = Simulator(systems, controllers, t0=t0, x0=x0, inputs=inputs, method=method, rtol=rtol,
                    atol=atol, max_step=max_step)
    t_end_ns = to_ns("t_end", t_end)
    if t_end_ns < sim._t0_ns:
        raise ConfigError("t_end", t_end, f"a time >= t0={sim.t!r} s")
    sim._run_until_ns(t_end_ns)
    return sim.result()
