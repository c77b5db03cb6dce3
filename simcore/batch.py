"""Many parameter variants in one integration, each with exactly the semantics of its own ``simulate``.

``simulate_batch(systems, t_end, controllers, params={"arm.mass": masses, "loop.kp": gains})``
runs ``N`` variants of one simulation: the same systems and controllers, with some
parameters given as arrays of length ``N``. Each variant gets what its own
``simulate(..., method="RK45")`` would give it (to round-off in the Runge-Kutta stage sums):

* **Step control per variant.** The integrator is scipy's RK45 written over columns
  (:mod:`simcore.batch_rk`): every variant has its own step size, its own error test and its
  own rejections, and carries its step size from tick to tick as the serial engine does.
* **Ticks are shared** (one clock), so at each tick every controller runs once, vectorized
  over the variants, reading ``(N,)`` arrays and writing ``(N,)`` arrays.
* **Events per variant.** After each accepted step of a variant its guards are sampled at the
  step ends and three interior points of its dense output, a crossing is located by bisection
  on the dense output to :data:`~simcore.events.EVENT_TIME_TOLERANCE`, and the event fires
  for that variant alone: simultaneous events, the restart sides of a just-fired guard
  (probe, search delay, re-fire), input-jump events at ticks and the Zeno guard follow
  :mod:`simcore.engine` rule for rule.
* **Modes per variant**, as integer codes into each batched system's ``MODES``.

The loop (between two ticks; ``running`` is the variants not yet at the tick)::

    restart every variant at the tick: f = rhs(t, x), h = min(carried h, span, max_step)
    while any variant is running:
        S = the running variants; one RK45 attempt for each column of S
        rejected columns shrink their step; accepted ones advance and record a row
        accepted columns whose guards crossed: locate, fire, restart at the event
        columns that reached the tick stop running
    run the controllers due at the tick (vectorized); fire the input-jump events

Per-variant Python loops: none. The loops are over rounds of attempts (until the slowest
variant reaches the tick), Runge-Kutta stages, event kinds and bisection iterations; each
operation is an array operation over the variants concerned, and a round works on the
running variants only (gathered by index), so a variant that needs many steps does not make
the others pay for them.

What batches. A system batches when it has a ``batched(params, n, xp)`` method returning its
physics over columns (see :mod:`simcore.models.batched` for the contract and the models that
have it: Flywheel, Arm, Elevator, Battery); a controller when it has a ``batched`` attribute
(:func:`simcore.controllers.control_loop`'s loops with a PIDController or an element-wise
callable; any PeriodicController whose function is written element-wise, marked with
:func:`elementwise`). Anything else raises, naming itself.

Array module. The kernel uses only operations numpy shares with the array API standard,
through the namespace ``xp`` (numpy). Moving it to a GPU array module (CuPy, torch, JAX)
would change: the physics and tableau arrays allocated with that module; the in-place
scatters ``a[idx] = v`` (JAX needs ``a.at[idx].set(v)``); the rounds' ``if mask.any()`` tests,
which synchronise the device once per round (a GPU version would rather step a fixed number
of attempts between checks); and the recorder, which would copy rows to the host in blocks.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from . import batch_rk
from .batch_result import BatchResult
from .clock import NS_PER_S, to_ns
from .controller import PeriodicController
from .engine import Simulator
from .errors import ConfigError, ConfigTypeError, IntegrationError, NonFiniteError
from .events import EVENT_TIME_TOLERANCE

__all__ = ["simulate_batch", "elementwise", "BatchResult"]

_TINY = 5e-324
_ZENO_GAP = 1e-12
_PROBE_STEP = 1e-8
_INTERIOR = 3
_MAX_EVENTS_AT_ONE_INSTANT = 100
P = batch_rk.P  # the dense-output matrix of RK45


def elementwise(controller: PeriodicController) -> PeriodicController:
    """Mark ``controller`` as written element-wise, so that a batch may run it.

    In a batch its function is called once per tick with signals that are ``(N,)`` arrays
    and must return values that are ``(N,)`` arrays or scalars (numpy arithmetic, ``np.clip``
    rather than ``min``/``max``). Returns the same controller.
    """
    if not isinstance(controller, PeriodicController):
        raise ConfigTypeError("controller", controller, "a PeriodicController")
    controller.batched = lambda params, n, xp=np: _Elementwise(controller, params)
    return controller


class _Elementwise:
    def __init__(self, controller, params):
        if params:
            raise ConfigError(f"params[{controller.name + '.' + next(iter(params))!r}]", next(iter(params)),
                              f"no parameter: controller {controller.name!r} is a plain element-wise function")
        self.c = controller

    def start(self, t, signals):
        if self.c.on_start is not None:
            self.c.on_start(t, signals)

    def tick(self, t, signals):
        return self.c.fn(t, signals)


def _rows(rows, m):
    """The held-input rows of one system as an (n_inputs, m) array."""
    out = np.empty((len(rows), m))
    for i, r in enumerate(rows):
        out[i] = r
    return out


def _crosses(ga, gb, direction):
    rising = (ga < 0.0) & (gb >= 0.0)
    falling = (ga > 0.0) & (gb <= 0.0)
    if direction > 0:
        return rising
    if direction < 0:
        return falling
    return rising | falling


class _View:
    """The batch restricted to some variants: their physics, held inputs and modes."""

    def __init__(self, batch, idx):
        self.batch, self.idx = batch, idx
        if idx is None:
            self.systems = batch.systems
            self.U = [_rows(u, batch.n) for u in batch.U]
            self.modes = [m.copy() for m in batch.modes]
            self.m = batch.n
        else:
            self.systems = [s.take(idx) for s in batch.systems]
            self.U = [_rows([r[idx] for r in u], len(idx)) for u in batch.U]
            self.modes = [m[idx] for m in batch.modes]
            self.m = len(idx)
        self.couplings = [c for s in self.systems for c in s.couplings(self.systems)] if batch.coupled else []

    def sub(self, cols) -> "_View":
        """A view of the columns ``cols`` (indices into this view)."""
        new = object.__new__(_View)
        new.batch = self.batch
        new.idx = (cols if self.idx is None else self.idx[cols])
        new.systems = [s.take(cols) for s in self.systems]
        new.U = [u[:, cols] for u in self.U]
        new.modes = [m[cols] for m in self.modes]
        new.m = len(cols)
        new.couplings = [c for s in new.systems for c in s.couplings(new.systems)] if self.batch.coupled else []
        return new

    def variant(self, j) -> int:
        return int(j if self.idx is None else self.idx[j])

    def inputs(self, t, Y):
        xs = [Y[sl] for sl in self.batch.slices]
        if self.couplings:
            us = [u.copy() for u in self.U]
            for c in self.couplings:
                c.apply(t, self.systems, xs, us, self.modes)
            return xs, us
        return xs, self.U

    def rhs(self, t, Y):
        xs, us = self.inputs(t, Y)
        parts = [s.derivatives(t, xs[k], us[k], self.modes[k]) for k, s in enumerate(self.systems)]
        d = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        if not np.isfinite(d).all():
            i, j = np.argwhere(~np.isfinite(d))[0]
            k, name = self.batch.state_owner[i]
            tj = float(t if np.ndim(t) == 0 else t[j])
            raise NonFiniteError("derivative of", f"{name} (variant {self.variant(j)})", d[i, j], tj)
        return d

    def outputs(self, k, t, Y):
        xs, us = self.inputs(t, Y)
        return self.systems[k].outputs(t, xs[k], us[k], self.modes[k])

    def active(self):
        """(n_kinds, m) bool: each event kind armed in each column's current mode."""
        b = self.batch
        if not b.kinds:
            return np.zeros((0, self.m), dtype=bool)
        out = np.empty((len(b.kinds), self.m), dtype=bool)
        for e, (k, j, ev) in enumerate(b.kinds):
            out[e] = ev.active[self.modes[k]]
        return out

    def guards(self, t, Y, needed=None):
        """(n_kinds, m) guard values; kinds not ``needed`` (bool per kind) are left at 0."""
        b = self.batch
        out = np.zeros((len(b.kinds), self.m))
        if not b.kinds:
            return out
        want = [e for e in range(len(b.kinds)) if needed is None or needed[e]]
        if any(b.kinds[e][2].reads_inputs for e in want):
            xs, us = self.inputs(t, Y)
        else:  # guards of the state alone: no coupled inputs to solve
            xs, us = [Y[sl] for sl in b.slices], self.U
        for e in want:
            k, j, _ = b.kinds[e]
            out[e] = b.kinds[e][2].guard(self.systems[k], t, xs[k], us[k], self.modes[k])
        return out

    def guard(self, e, t, Y):
        k, j, ev = self.batch.kinds[e]
        xs, us = self.inputs(t, Y) if ev.reads_inputs else ([Y[sl] for sl in self.batch.slices], self.U)
        return ev.guard(self.systems[k], t, xs[k], us[k], self.modes[k])


class _Batch:
    """One batch run: the state of every variant and the loop of :func:`simulate_batch`."""

    def __init__(self, systems, controllers, params, n, t0_ns, x0, inputs, rtol, atol, max_step, record, xp):
        self.params = params
        self.n, self.rtol, self.atol, self.max_step, self.record, self.xp = n, rtol, atol, max_step, record, xp
        self.controllers = controllers
        self.systems = []
        for s in systems:
            make = getattr(s, "batched", None)
            if make is None:
                raise ConfigTypeError("systems", s, f"a system that can batch; {type(s).__name__} {s.name!r} "
                                                    "cannot (it has no batched physics)")
            self.systems.append(make(params.get(s.name, {}), n, xp))
        self.bcontrollers = []
        for c in controllers:
            make = getattr(c, "batched", None)
            if make is None:
                raise ConfigTypeError("controllers", c, f"a controller that can batch; controller {c.name!r} cannot "
                                                        "(a plain PeriodicController runs one variant's Python: use "
                                                        "control_loop, or simcore.batch.elementwise for a function "
                                                        "written element-wise)")
            self.bcontrollers.append(make(params.get(c.name, {}), n, xp))
        self.slices, off = [], 0
        self.state_owner = []
        for s in self.systems:
            self.slices.append(slice(off, off + len(s.state_names)))
            off += len(s.state_names)
            self.state_owner += [(len(self.slices) - 1, f"{s.name}.{nm}") for nm in s.state_names]
        self.nx = off
        self.signal_index = {}
        for k, s in enumerate(self.systems):
            for i, nm in enumerate(s.state_names):
                self.signal_index[f"{s.name}.{nm}"] = ("x", k, self.slices[k].start + i)
            for i, nm in enumerate(s.input_names):
                self.signal_index[f"{s.name}.{nm}"] = ("u", k, i)
            for i, nm in enumerate(s.output_names):
                self.signal_index[f"{s.name}.{nm}"] = ("y", k, i)
        self.coupled_names = {}
        for s in self.systems:
            for c in s.couplings(self.systems):
                for name in c.targets:
                    self.coupled_names[name] = s.name
        self.coupled = bool(self.coupled_names)
        self.kinds = [(k, j, ev) for k, s in enumerate(self.systems) for j, ev in enumerate(s.events)]
        nk = len(self.kinds)

        # Initial state and inputs (held input rows are never written in place: a write replaces the row).
        self.t_ns = t0_ns
        self.t = t0_ns / NS_PER_S
        Y = np.concatenate([s.initial_state() for s in self.systems], axis=0) if self.nx else np.zeros((0, n))
        self.U = [[row.copy() for row in s.initial_inputs()] for s in self.systems]
        for name, value in (x0 or {}).items():
            kind = self.signal_index.get(name, ("?",))
            if kind[0] != "x":
                raise ConfigError("x0", name, "a state name, one of " + ", ".join(
                    nm for nm, v in self.signal_index.items() if v[0] == "x"))
            Y[kind[2]] = self._column(f"x0[{name!r}]", value)
        for name, value in (inputs or {}).items():
            self._write(name, value, "inputs")
        self.Y = Y
        self.modes = [np.zeros(n, dtype=np.int8) for _ in self.systems]
        self.T = np.full(n, self.t)
        self.F = np.zeros((self.nx, n))
        self.H = np.full(n, np.nan)  # carried step size; nan: none yet (scipy's initial step)
        self.live = np.ones(n, dtype=bool)
        self.g_prev = np.zeros((nk, n))
        self.search_from = np.full((nk, n), -np.inf)
        self.searching = False  # whether any search delay is pending (most steps have none)
        self.event_last_t = np.full((nk, n), np.nan)
        self.zeno_run = np.zeros(n, dtype=np.int64)
        self.last_event_t = np.full(n, np.nan)
        # Events fired at an interval's very end, whose restart sides are set at the next start.
        self.pending = np.zeros((nk, n), dtype=bool)
        self.pending_side = np.zeros((nk, n))
        self.pending_prev = np.full((nk, n), np.nan)
        self.pending_xb = np.zeros((self.nx, n))
        self.started = [False] * len(controllers)
        self.n_steps = np.zeros(n, dtype=np.int64)
        self.res = BatchResult._recorder(self)

    # -- inputs ------------------------------------------------------------------------------
    def _column(self, label, value):
        try:
            v = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ConfigTypeError(label, value, "a number or an array of one number per variant") from None
        if v.ndim == 0:
            v = np.full(self.n, float(v))
        elif v.shape != (self.n,):
            raise ConfigError(label, f"<array of shape {v.shape}>", f"a number or an array of shape ({self.n},)")
        if not np.isfinite(v).all():
            j = int(np.flatnonzero(~np.isfinite(v))[0])
            raise NonFiniteError("value of", f"{label} (variant {j})", v[j], self.t)
        return v

    def _write(self, name, value, who):
        kind = self.signal_index.get(name)
        if kind is None or kind[0] != "u":
            valid = [nm for nm, v in self.signal_index.items() if v[0] == "u"]
            raise ConfigError(f"{who} signal", name, f"an input; valid inputs: {', '.join(valid)}")
        if name in self.coupled_names:
            raise ConfigError(f"{who} signal", name,
                              f"an input not driven by {self.coupled_names[name]!r} (it is solved continuously)")
        v = self._column(f"{who}[{name!r}]", value)
        s = self.systems[kind[1]]
        rng = s.input_ranges.get(s.input_names[kind[2]])
        if rng is not None and not (np.all(v >= rng[0]) and np.all(v <= rng[1])):
            j = int(np.flatnonzero((v < rng[0]) | (v > rng[1]))[0])
            raise ConfigError(f"{who}[{name!r}] (variant {j})", v[j], f"a value in [{rng[0]}, {rng[1]}] "
                                                                   f"(at t={self.t!r} s)")
        self.U[kind[1]][kind[2]] = v

    # -- modes ------------------------------------------------------------------------------
    def _settle_modes(self):
        view = _View(self, None)
        xs, us = view.inputs(self.t, self.Y)
        for k, s in enumerate(self.systems):
            self.modes[k] = np.asarray(s.initial_mode(self.t, xs[k], us[k]), dtype=np.int8)

    # -- ticks ------------------------------------------------------------------------------
    def _schedule(self, t_end_ns):
        """Every tick instant in [t0, t_end], ns, with the controllers due there in their order."""
        due = {}
        for i, c in enumerate(self.controllers):
            for t_ns in range(self.t_ns + c.offset_ns, t_end_ns + 1, c.period_ns):
                due.setdefault(t_ns, []).append(i)
        return sorted(due.items())

    def _run_ticks(self, t_ns, due, initial=False):
        t = t_ns / NS_PER_S
        full = _View(self, None)
        live = self.live
        if not initial and self.kinds:
            active = full.active() & live
            g_before = full.guards(t, self.Y, active.any(axis=1))
        signals = BatchSignals(self, t)
        ran = []
        for i in due:
            c, bc = self.controllers[i], self.bcontrollers[i]
            try:
                if not self.started[i]:
                    self.started[i] = True
                    bc.start(t, signals)
                written = bc.tick(t, signals)
            except Exception as exc:
                exc.sim_time = t
                if hasattr(exc, "add_note"):
                    exc.add_note(f"raised by controller {c.name!r} at simulation time t={t!r} s (in a batch)")
                raise
            if written is None:
                written = {}
            if not isinstance(written, Mapping):
                raise ConfigTypeError(f"controller {c.name!r} return value", written,
                                      "a mapping {'system.input': value} or None")
            logged = {}
            for name, value in written.items():
                self._write(name, value, f"controller {c.name!r}")
                kind = self.signal_index[name]
                logged[name] = self.U[kind[1]][kind[2]]
            signals.invalidate()
            ran.append((c.name, logged))
        self.res.tick(t, ran)
        if initial:
            return
        fired_any = np.zeros(self.n, dtype=bool)
        if self.kinds:
            full = _View(self, None)
            g_after = full.guards(t, self.Y, active.any(axis=1))
            for k in range(len(self.systems)):
                done = np.zeros(self.n, dtype=bool)
                for e, (kk, j, ev) in enumerate(self.kinds):
                    if kk != k:
                        continue
                    fire = active[e] & ~done & _crosses(g_before[e], g_after[e], ev.direction)
                    if fire.any():
                        cols = np.flatnonzero(fire)
                        self.Y[:, cols] = self._fire(e, cols, np.full(len(cols), t), self.Y[:, cols], at_tick=True)
                        done |= fire
                fired_any |= done
        quiet = live & ~fired_any
        self.res.rows(np.flatnonzero(quiet), t, self.Y, self.modes)
        self.res.after_tick(self.Y, self.modes)

    # -- events -------------------------------------------------------------------------------
    def _fire(self, e, cols, te, X, at_tick=False):
        """Fire event kind ``e`` for the variants ``cols`` at times ``te``: rows before/after, reset, mode."""
        k, j, _ = self.kinds[e]
        view = _View(self, cols)
        ev = self.kinds[e][2]
        s = view.systems[k]
        sl = self.slices[k]
        self.res.rows(cols, te, X, self.modes, local=True)
        xs, us = view.inputs(te, X)
        x_before = X[sl].copy()
        mode_before = self.modes[k][cols].copy()
        X = X.copy()
        if ev.reset is not None:
            xn = ev.reset(s, te, xs[k], us[k], view.modes[k])
            if not np.isfinite(xn).all():
                jj = int(np.argwhere(~np.isfinite(xn))[0][1])
                raise NonFiniteError("reset state of", f"{self.systems[k].name}:{ev.name} (variant {cols[jj]})",
                                     xn[:, jj], float(te[jj]))
            X[sl] = xn
        if ev.new_mode is not None:
            self.modes[k][cols] = np.asarray(ev.new_mode(s, te, X[sl], us[k], view.modes[k]), dtype=np.int8)
        self.res.event(e, cols, te, x_before, X[sl].copy(), mode_before, self.modes[k][cols].copy(), at_tick)
        self.res.rows(cols, te, X, self.modes, local=True)
        if ev.terminal:
            self.live[cols] = False
        return X

    def _locate(self, e, view, cols, t_a, g_a, t_b, g_b, t_old, h, y_old, Q):
        """Bisection on the dense output of columns ``cols`` for the root of kind ``e`` in (t_a, t_b], to
        :data:`EVENT_TIME_TOLERANCE` (the serial engine uses Brent's method to the same tolerance)."""
        lo, hi = t_a.copy(), t_b.copy()
        glo = g_a.copy()
        direct = g_b == 0.0
        width = float(np.max(hi - lo)) if len(lo) else 0.0
        n_iter = max(0, int(math.ceil(math.log2(max(width, EVENT_TIME_TOLERANCE) / EVENT_TIME_TOLERANCE))) + 1)
        sub = view.sub(cols)
        for _ in range(n_iter):
            mid = 0.5 * (lo + hi)
            x = batch_rk.dense(t_old, h, y_old, Q, mid)
            gm = sub.guard(e, mid, x)
            crossed = np.where(glo < 0.0, gm >= 0.0, gm <= 0.0)
            lo, glo = np.where(crossed, lo, mid), np.where(crossed, glo, gm)
            hi = np.where(crossed, mid, hi)
        # The last instant on the side the guard comes from: a state at the event never lies past
        # its guard (a stop's before-row is not beyond the stop), within the tolerance of the root.
        return np.where(direct, t_b, lo)

    def _events_in_step(self, view, cols, t_old, t_new, y_old, y_new, K):
        """Guards of the accepted columns ``cols`` of ``view``: returns (sub-view, hit, roots, g_a),
        roots and g_a as (n_kinds, m) arrays (inf: no root) or None when nothing crossed."""
        sub = view.sub(cols) if len(cols) != view.m else view
        active = sub.active()
        needed = active.any(axis=1)
        want = np.flatnonzero(needed)
        if not len(want):
            return sub, np.zeros(sub.m, dtype=bool), None, None
        h = t_new - t_old
        glob = sub.idx if sub.idx is not None else np.arange(self.n)
        rows = np.ix_(want, glob)
        g_new = sub.guards(t_new, y_new, needed)[want]
        g_prev = self.g_prev[rows]
        search = self.search_from[rows] if self.searching else np.full(g_new.shape, -np.inf)
        hits = self._crossings(sub, active[want], want, g_prev, g_new, search, t_old, t_new, h, y_old, K)
        if self.searching:  # search delays that have run out (the serial engine drops them after each step)
            cols_all = np.ix_(np.arange(len(self.kinds)), glob)
            pending = self.search_from[cols_all]
            self.search_from[cols_all] = np.where(pending > t_new, pending, -np.inf)
            self.searching = bool(np.isfinite(self.search_from).any())
        self.g_prev[rows] = np.where(active[want], g_new, g_prev)
        if hits is None:
            return sub, np.zeros(sub.m, dtype=bool), None, None
        c, roots_c, g_as_c = hits
        nk = len(self.kinds)
        roots, g_as = np.full((nk, sub.m), np.inf), np.zeros((nk, sub.m))
        roots[np.ix_(want, c)], g_as[np.ix_(want, c)] = roots_c, g_as_c
        return sub, np.isfinite(roots).any(axis=0), roots, g_as

    def _crossings(self, sub, active, want, g_prev, g_new, search, t_old, t_new, h, y_old, K):
        """Roots of the armed guards within the step: (columns, roots, g_a) of the columns that may cross.

        Arrays have one row per kind of ``want``. A guard that is a state minus a constant cannot
        change sign in a step whose dense output stays farther from the constant than the
        polynomial can move (|h| sum_j |Q_j|, Q = K^T P its coefficients): such columns
        have no root, and their interior samples (which could not show a sign change) are not
        computed. The others are sampled as the serial engine samples them.
        """
        maybe = active.copy()
        reach = {}
        for w, e in enumerate(want):
            k, _, ev = self.kinds[e]
            if ev.linear is None:
                continue
            i = self.slices[k].start + ev.linear[0]
            if i not in reach:  # |h| sum_j |Q_ij|: how far the dense output of state i can move in the step
                reach[i] = np.abs(h) * sum(np.abs(sum(P[s, j] * K[s, i] for s in range(P.shape[0]) if P[s, j] != 0.0))
                                           for j in range(P.shape[1]))
            g0 = y_old[i] - ev.linear[1]
            margin = 1e-9 * (np.abs(g0) + reach[i] + abs(ev.linear[1]))
            side = np.sign(g0)
            clear = (np.abs(g0) > reach[i] + margin) & (np.sign(g_prev[w]) == side) & (np.sign(g_new[w]) == side)
            maybe[w] &= ~(clear & (search[w] <= t_old))
        c = np.flatnonzero(maybe.any(axis=0))
        if not len(c):
            return None
        if len(c) != sub.m:
            sub, active = sub.sub(c), active[:, c]
            g_prev, g_new, search = g_prev[:, c], g_new[:, c], search[:, c]
            t_old, t_new, h, y_old, K = t_old[c], t_new[c], h[c], y_old[:, c], K[:, :, c]
        Q = batch_rk.dense_q(K)
        needed = np.zeros(len(self.kinds), dtype=bool)
        needed[want] = True
        ts = [t_old + (t_new - t_old) * (i + 1) / (_INTERIOR + 1) for i in range(_INTERIOR)]
        interior = [sub.guards(ti, batch_rk.dense(t_old, h, y_old, Q, ti), needed)[want] for ti in ts]
        roots = np.full((len(want), sub.m), np.inf)
        g_as = np.zeros((len(want), sub.m))
        # Samples of every armed guard: (5 instants, kinds, columns); a search delay replaces the start.
        times = np.broadcast_to(np.stack([t_old] + ts + [t_new])[:, None, :], (_INTERIOR + 2, len(want), sub.m))
        G = np.stack([g_prev] + interior + [g_new])
        delayed = active & (search > t_old)
        skip = delayed & (search >= t_new)
        use = delayed & ~skip
        if use.any():
            times = times.copy()
            for w, e in enumerate(want):
                d = np.flatnonzero(use[w])
                if not len(d):
                    continue
                t_s = search[w, d]
                g_s = sub.sub(d).guard(e, t_s, batch_rk.dense(t_old[d], h[d], y_old[:, d], Q[:, :, d], t_s))
                times[0, w, d], G[0, w, d] = t_s, g_s
                for i in range(_INTERIOR):  # interior points before the delay repeat the delayed sample
                    before = d[ts[i][d] <= t_s]
                    times[i + 1, w, before], G[i + 1, w, before] = times[i, w, before], G[i, w, before]
        direction = np.array([self.kinds[e][2].direction for e in want], dtype=float)[None, :, None]
        ga, gb = G[:-1], G[1:]
        rising, falling = (ga < 0.0) & (gb >= 0.0), (ga > 0.0) & (gb <= 0.0)
        cross = ((rising & (direction >= 0)) | (falling & (direction <= 0))) & (active & ~skip)[None]
        found = cross.any(axis=0)
        if found.any():
            first = np.argmax(cross, axis=0)[None]
            pick = lambda a: np.take_along_axis(a, first, axis=0)[0]  # noqa: E731
            ta, g_a, tb, g_b = pick(times[:-1]), pick(ga), pick(times[1:]), pick(gb)
            for w, e in enumerate(want):
                f = np.flatnonzero(found[w])
                if len(f):
                    roots[w, f] = self._locate(e, sub, f, ta[w, f], g_a[w, f], tb[w, f], g_b[w, f], t_old[f], h[f],
                                               y_old[:, f], Q[:, :, f])
                    g_as[w, f] = g_a[w, f]
        return c, roots, g_as

    def _fire_step_events(self, sub, hit, roots, g_as, t_old, t_new, y_old, y_new, K):
        """Fire, for every column with a root, the earliest event and those at its instant; returns
        (global columns, te, state after, fired-kind records)."""
        h_cols = np.flatnonzero(hit)
        glob = sub.idx[h_cols] if sub.idx is not None else h_cols
        R = roots[:, h_cols]
        te = R.min(axis=0)
        tn = t_new[h_cols]
        Q = batch_rk.dense_q(K[:, :, h_cols])
        x_e = np.where(te < tn, batch_rk.dense(t_old[h_cols], (t_new - t_old)[h_cols], y_old[:, h_cols], Q, te),
                       y_new[:, h_cols])
        # Zeno: events accumulating within the gap, more than the limit in a row.
        last = self.last_event_t[glob]
        close = np.isfinite(last) & (te - last <= _ZENO_GAP * np.maximum(1.0, np.abs(te)))
        self.zeno_run[glob] = np.where(close, self.zeno_run[glob] + 1, 0)
        if np.any(self.zeno_run[glob] > _MAX_EVENTS_AT_ONE_INSTANT):
            j = int(np.flatnonzero(self.zeno_run[glob] > _MAX_EVENTS_AT_ONE_INSTANT)[0])
            e = int(np.argmin(R[:, j]))
            k, _, ev = self.kinds[e]
            raise IntegrationError(f"variant {glob[j]}: more than {_MAX_EVENTS_AT_ONE_INSTANT} events each within "
                                   f"{_ZENO_GAP:g} s (relative) of the last: the events accumulate (Zeno); last: "
                                   f"{self.systems[k].name}:{ev.name}", float(te[j]))
        self.last_event_t[glob] = te
        X_before = x_e.copy()
        X = x_e
        order = np.argsort(R, axis=0, kind="stable")
        nk = len(self.kinds)
        fired = np.zeros((nk, len(glob)), dtype=bool)
        pre_side = np.zeros((nk, len(glob)))
        prev_t = np.full((nk, len(glob)), np.nan)
        ga_h = g_as[:, h_cols]
        for r in range(nk):
            kr = order[r]
            tr = R[kr, np.arange(len(glob))]
            cand = np.isfinite(tr) & (tr - te <= 2 * EVENT_TIME_TOLERANCE)
            if not cand.any():
                break
            for e in np.unique(kr[cand]):
                cols = np.flatnonzero(cand & (kr == e))
                if r > 0:
                    view = _View(self, glob[cols])
                    armed = view.active()[e]
                    still = armed & _crosses(ga_h[e, cols], view.guard(e, te[cols], X[:, cols]),
                                             self.kinds[e][2].direction)
                    cols = cols[still]
                    if not len(cols):
                        continue
                X[:, cols] = self._fire(e, glob[cols], te[cols], X[:, cols])
                fired[e, cols] = True
                pre_side[e, cols] = np.where(ga_h[e, cols] > 0, 1.0, -1.0)
                prev_t[e, cols] = self.event_last_t[e, glob[cols]]
                self.event_last_t[e, glob[cols]] = te[cols]
        return glob, te, X, (fired, pre_side, prev_t, X_before)

    def _restart_sides(self, glob, t, X, fired, pre_side, prev_t, X_before):
        """Engine._restart_sides for the columns ``glob`` restarting at times ``t`` from states ``X``."""
        view = _View(self, glob)
        active = view.active()
        for e in range(len(self.kinds)):
            c = np.flatnonzero(fired[e] & active[e])
            if not len(c):
                continue
            v = view.sub(c) if len(c) != view.m else view
            g_cols = glob[c]
            tc, Xc = t[c], X[:, c]
            g0 = self.g_prev[e, g_cols]
            self.search_from[e, g_cols] = -np.inf
            dt = _PROBE_STEP * np.maximum(1.0, np.abs(tc))
            f0 = v.rhs(tc, Xc)
            f1 = v.rhs(tc + dt, Xc + dt * f0)
            probe = v.guard(e, tc + dt, Xc + 0.5 * dt * (f0 + f1))
            side = np.where(probe > 0, 1.0, np.where(probe < 0, -1.0, 0.0))
            ps = pre_side[e, c]
            pt = prev_t[e, c]
            accumulating = np.isfinite(pt) & (tc - pt <= _ZENO_GAP * np.maximum(1.0, np.abs(tc)))
            new = g0.copy()
            zero = side == 0.0
            new = np.where(zero, ps * _TINY, new)
            back = ~zero & (side == ps)
            flip = back & (g0 * side <= 0)
            new = np.where(flip, side * _TINY, new)
            self.search_from[e, g_cols[flip]] = (tc + dt)[flip]
            self.searching = self.searching or bool(flip.any())
            through = ~zero & ~back
            refire = np.zeros(len(c), dtype=bool)
            if self.kinds[e][2].reset is not None and through.any():
                def rate(Xs):
                    x1 = Xs + dt * v.rhs(tc, Xs)
                    return (v.guard(e, tc + dt, x1) - v.guard(e, tc, Xs)) / dt
                after, before = rate(Xc), rate(X_before[:, c])
                changed = np.abs(after - before) > 1e-6 * np.maximum(np.abs(after), np.abs(before))
                refire = through & (accumulating | changed)
            new = np.where(refire, ps * _TINY, new)
            on = through & ~refire
            new = np.where(on, np.where(g0 * side > 0, g0, side * _TINY), new)
            self.g_prev[e, g_cols] = new

    # -- integration ----------------------------------------------------------------------------
    def _restart(self, glob, t, t_end, fired=None):
        """Start a segment for the variants ``glob`` at times ``t``: derivative, first step, guards, sides."""
        view = _View(self, glob)
        y = self.Y[:, glob]
        f = view.rhs(t, y)
        self.F[:, glob] = f
        h0 = self.H[glob]
        carried = np.isfinite(h0) & (h0 > 0)
        h = np.minimum(np.minimum(h0, t_end - t), self.max_step)
        if not carried.all():
            first = batch_rk.initial_step(view.rhs, t, y, f, t_end, self.max_step, rtol=self.rtol, atol=self.atol)
            h = np.where(carried, h, first)
        self.H[glob] = h
        if self.kinds:
            active = view.active()
            self.g_prev[:, glob] = np.where(active, view.guards(t, y, active.any(axis=1)), self.g_prev[:, glob])
            if fired is not None and fired[0].any():
                self._restart_sides(glob, t, y, *fired)

    def _integrate(self, t_end):
        glob = np.flatnonzero(self.live)
        if not len(glob):
            return
        pend = self.pending[:, glob]
        fired = None
        if pend.any():
            fired = (pend, self.pending_side[:, glob], self.pending_prev[:, glob], self.pending_xb[:, glob])
            self.pending[:, glob] = False
        self._restart(glob, self.T[glob], t_end, fired)
        running = self.live.copy()
        fresh = np.ones(self.n, dtype=bool)
        rejected = np.zeros(self.n, dtype=bool)
        while running.any():
            S = np.flatnonzero(running)
            full = len(S) == self.n
            sel = slice(None) if full else S  # a round of every variant reads the arrays as they are
            view = _View(self, None if full else S)
            t, y, f, h = self.T[S], self.Y[:, sel], self.F[:, sel], self.H[S]
            ms = batch_rk.min_step(t)
            fr = fresh[S]
            h = np.where(fr, np.where(h > self.max_step, self.max_step, np.where(h < ms, ms, h)), h)
            if np.any(h < ms):
                j = int(np.flatnonzero(h < ms)[0])
                raise IntegrationError(f"RK45 solver failed for variant {S[j]}: Required step size is less than "
                                       f"spacing between numbers.", float(t[j]))
            acc, t_new, y_new, f_new, K, h_next = batch_rk.attempt(
                view.rhs, t, y, f, h, t_end, rejected[S], rtol=self.rtol, atol=self.atol)
            self.H[sel] = h_next
            rejected[sel] = ~acc
            fresh[sel] = acc
            if not acc.any():
                continue
            a = np.flatnonzero(acc)
            every = len(a) == len(S)
            aa = slice(None) if every else a
            if not np.isfinite(y_new[:, aa]).all():
                j = a[int(np.argwhere(~np.isfinite(y_new[:, a]))[0][1])]
                raise IntegrationError(f"the state of variant {S[j]} became non-finite", float(t_new[j]))
            A = S[a]
            self.n_steps[A] += 1
            hit = np.zeros(len(a), dtype=bool)
            if self.kinds:
                t_a, tn_a, y_a, yn_a, K_a = t[aa], t_new[aa], y[:, aa], y_new[:, aa], K[:, :, aa]
                sub, hit, roots, g_as = self._events_in_step(view, a, t_a, tn_a, y_a, yn_a, K_a)
                if hit.any():
                    glob_e, te, X, fired = self._fire_step_events(sub, hit, roots, g_as, t_a, tn_a, y_a, yn_a, K_a)
                    self.T[glob_e] = te
                    self.Y[:, glob_e] = X
                    done = (te >= t_end) | ~self.live[glob_e]
                    running[glob_e[done]] = False
                    if done.any():
                        d = np.flatnonzero(done)
                        self.pending[:, glob_e[d]] = fired[0][:, d]
                        self.pending_side[:, glob_e[d]] = fired[1][:, d]
                        self.pending_prev[:, glob_e[d]] = fired[2][:, d]
                        self.pending_xb[:, glob_e[d]] = fired[3][:, d]
                    go = np.flatnonzero(~done)
                    if len(go):
                        self._restart(glob_e[go], te[go], t_end, tuple(x[..., go] for x in fired))
            quiet = a[~hit]
            if len(quiet):
                Q = S[quiet]
                qs = slice(None) if full and len(quiet) == self.n else Q
                qq = slice(None) if len(quiet) == len(S) else quiet
                tq, yq = t_new[qq], y_new[:, qq]
                self.T[qs] = tq
                self.Y[:, qs] = yq
                self.F[:, qs] = f_new[:, qq]
                end = tq >= t_end
                if self.record == "all":
                    self.res.rows(Q, tq, yq, self.modes, local=True)
                elif end.any():  # record="ticks": only the row that ends the interval (the row before the tick)
                    self.res.rows(Q[end], tq[end], yq[:, end], self.modes, local=True)
                running[Q[end]] = False

    # -- the run ------------------------------------------------------------------------------
    def run(self, t_end_ns):
        schedule = self._schedule(t_end_ns)
        self._settle_modes()
        self.res.rows(np.arange(self.n), self.t, self.Y, self.modes)
        if schedule and schedule[0][0] == self.t_ns:
            self._run_ticks(self.t_ns, schedule.pop(0)[1], initial=True)
            self._settle_modes()
            self.res.rows(np.arange(self.n), self.t, self.Y, self.modes)
            self.res.after_tick(self.Y, self.modes)
        for t_ns, due in schedule + [(t_end_ns, None)]:
            if not self.live.any():
                break
            if t_ns > self.t_ns:
                self._integrate(t_ns / NS_PER_S)
                self.t_ns, self.t = t_ns, t_ns / NS_PER_S
            if due is not None:
                self._run_ticks(t_ns, due)
        return self.res.result()


class BatchSignals(Mapping):
    """Every signal of every variant at a tick, as ``(N,)`` arrays (what batched controllers read)."""

    def __init__(self, batch: _Batch, t: float):
        self._b, self.t, self.n = batch, t, batch.n
        self._outputs = {}
        self._coupled = None

    def invalidate(self):
        self._outputs.clear()
        self._coupled = None

    def __getitem__(self, name):
        b = self._b
        try:
            kind, k, i = b.signal_index[name]
        except KeyError:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(b.signal_index)}") from None
        if kind == "x":
            return b.Y[i].copy()
        if kind == "u":
            if b.coupled:
                if self._coupled is None:
                    self._coupled = _View(b, None).inputs(self.t, b.Y)[1]
                return self._coupled[k][i].copy()
            return b.U[k][i].copy()
        if k not in self._outputs:
            self._outputs[k] = _View(b, None).outputs(k, self.t, b.Y)
        return self._outputs[k][i].copy()

    def __iter__(self):
        return iter(self._b.signal_index)

    def __len__(self):
        return len(self._b.signal_index)


def _split_params(params, systems, controllers):
    if not isinstance(params, Mapping) or not params:
        raise ConfigError("params", params, "a non-empty mapping '<system or controller>.<parameter>' -> 1-D array")
    owners = {s.name: s for s in systems}
    owners.update({c.name: c for c in controllers})
    routed, n, first = {}, None, None
    for key, value in params.items():
        if not isinstance(key, str) or "." not in key:
            raise ConfigError("params", key, "keys '<system or controller name>.<parameter>'")
        owner, _, pname = key.partition(".")
        if owner not in owners:
            raise ConfigError(f"params[{key!r}]", owner, f"the name of a system or controller: {', '.join(owners)}")
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ConfigTypeError(f"params[{key!r}]", value, "a 1-D array of numbers") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ConfigError(f"params[{key!r}]", f"<array of shape {arr.shape}>", "a non-empty 1-D array")
        if n is None:
            n, first = arr.size, key
        elif arr.size != n:
            raise ConfigError(f"params[{key!r}]", f"<array of length {arr.size}>",
                              f"length {n}, as params[{first!r}] (one value per variant)")
        if not np.isfinite(arr).all():
            j = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ConfigError(f"params[{key!r}][{j}]", arr[j], "a finite number")
        routed.setdefault(owner, {})[pname] = arr
    return routed, n


def simulate_batch(systems, t_end, controllers=(), *, params, t0=0.0, x0=None, inputs=None, rtol=1e-8,
                   atol=1e-10, max_step=None, record="all") -> BatchResult:
    """Simulate ``N`` parameter variants of ``systems`` under ``controllers`` in one integration.

    Parameters
    ----------
    systems, t_end, controllers, t0, rtol, atol, max_step
        As :func:`simcore.simulate` (the method is RK45).
    params : mapping of str to 1-D array-like
        ``"<system or controller name>.<parameter>"`` -> one value per variant, every array
        of the same length ``N`` (e.g. ``{"arm.mass": masses, "pid.kp": gains}``). See
        :mod:`simcore.models.batched` and :mod:`simcore.controllers.batched` for the
        parameters each part takes.
    x0, inputs : mapping of str to float or (N,) array, optional
        Initial states and held inputs, one value for all variants or one per variant.
    record : {"all", "ticks"}
        ``"all"`` (default) keeps every accepted step of every variant, as ``simulate`` does;
        ``"ticks"`` keeps only the rows at ticks and events (far less memory; the per-variant
        Results and metrics then see those rows only).

    Returns
    -------
    BatchResult

    Raises
    ------
    ConfigError
        A params key that names no system or controller, a parameter the part does not
        have, arrays of different lengths, or a part that cannot batch (naming it).
    """
    # The serial engine's own checks of the parts and the tolerances (x0 and inputs may be per variant
    # here, so they are checked below instead).
    serial = Simulator(systems, controllers, t0=t0, method="RK45", rtol=rtol, atol=atol, max_step=max_step)
    systems, controllers = serial.systems, serial.controllers
    names, cnames = [s.name for s in systems], [c.name for c in controllers]
    if set(cnames) & set(names):
        raise ConfigError("controllers", cnames, "controller names distinct from the system names (params are "
                                                 "addressed by name)")
    rtol, atol, max_step = serial.rtol, serial.atol, serial.max_step
    if record not in ("all", "ticks"):
        raise ConfigError("record", record, "'all' or 'ticks'")
    routed, n = _split_params(params, systems, controllers)
    t0_ns = to_ns("t0", t0)
    t_end_ns = to_ns("t_end", t_end)
    if t_end_ns < t0_ns:
        raise ConfigError("t_end", t_end, f"a time >= t0={t0_ns / NS_PER_S!r} s")
    batch = _Batch(systems, controllers, routed, n, t0_ns, x0, inputs, float(rtol), float(atol), float(max_step),
                   record, np)
    return batch.run(t_end_ns)
