"""The event handler: one object that owns the search for state events during a run.

Semantics are those of :mod:`simcore.events`; this module is how they are carried
out. For each integration segment (a restart point up to the next tick, event or
method switch):

1. :meth:`EventHandler.begin` arms the guards of the events active in the current
   modes at the restart point, placing each guard that fired there on the side its
   motion is heading (:meth:`EventHandler._restart_sides`).
2. After every accepted solver step, :meth:`EventHandler.step` samples every guard
   at the step's end and at :data:`EVENT_INTERIOR_POINTS` interior points of the
   solver's dense output (one vectorized interpolation), brackets the first sign
   change of each guard in its direction, and locates each root by Brent's method
   to :data:`~simcore.events.EVENT_TIME_TOLERANCE`.
3. :meth:`EventHandler.fire` fires the earliest root and every other one located at
   that instant (each re-checked on the state the earlier resets left), after the
   Zeno check, and remembers what fired for the next restart.

The handler's search state (what fired at the restart point, when each event last
fired, the instants from which a bounce's next crossing is sought, the run of
events within the Zeno gap) changes only when a segment completes
(:meth:`EventHandler.end_segment`) or an event fires, so a segment interrupted by
an exception can be integrated again and gives the same events.

The handler needs of the simulation only its :class:`~simcore.signals.SignalLayout`
(systems, slices, held inputs, couplings), the right-hand side (for the short probe
of where a just-fired guard is heading) and a callback that applies one event; it
is tested alone against analytic guards and an exact dense output.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .errors import IntegrationError, NonFiniteError
from .events import EVENT_TIME_TOLERANCE
from .signals import annotate, with_time

__all__ = ["EventHandler", "EVENT_INTERIOR_POINTS", "JUST_OFF_ZERO", "MAX_EVENTS_AT_ONE_INSTANT", "PROBE_STEP",
           "ZENO_GAP"]

#: A guard value just off zero on the side its sign gives (the smallest positive double): where a
#: just-fired guard is put so that the next sign change is a true crossing.
JUST_OFF_ZERO = 5e-324

#: Relative gap, s per s of simulation time, below which successive events count as
#: accumulating (Zeno) when more than MAX_EVENTS_AT_ONE_INSTANT come in a row.
ZENO_GAP = 1e-12

#: Relative time, s per s, of the probe that tells where a just-fired event's guard is heading.
PROBE_STEP = 1e-8

#: Interior points of each step at which guards are also sampled (besides the step ends).
EVENT_INTERIOR_POINTS = 3

#: Vectorized guards are checked against point-by-point calls again every this many sampled steps.
_REVERIFY_EVERY = 64

#: Events allowed in a row, each within the Zeno gap of the last, before the run is declared Zeno.
MAX_EVENTS_AT_ONE_INSTANT = 100

#: Interior sample points as fractions of a step, and with the step's end.
_FRACTIONS = [(i + 1) / (EVENT_INTERIOR_POINTS + 1) for i in range(EVENT_INTERIOR_POINTS)]
_SAMPLE_FRACTIONS = tuple(_FRACTIONS) + (1.0,)


def _block_values(g, t_arr, x, u):
    """Guard ``g`` called once on all the instants ``t_arr`` (states ``x``, one column each): a list
    of floats, or None when the call fails or does not return one value per instant.

    When the system has as many states as there are instants, a duplicate of the last column is
    added (and its value dropped), so that a matrix product with the state (``s @ w``) raises
    instead of returning one value per state, which would pass for one per instant.
    """
    m = len(t_arr)
    if x.shape[0] == m:
        x = np.concatenate([x, x[:, -1:]], axis=1)
        t_arr = np.append(t_arr, t_arr[-1])
    try:
        arr = np.asarray(g(t_arr, x, u), dtype=float)
    except Exception:
        return None
    if arr.shape != (len(t_arr),):
        return None
    return arr.tolist() if len(t_arr) == m else arr[:m].tolist()


def _per_instant(g, ts, x, u):
    """Guard ``g`` called at each instant of ``ts`` (states ``x``, one column each): a list of floats, or
    None when a call fails (then the checked path calls it again and names the error). The unchecked
    loop of a step's samples; a non-finite value is left to the caller to check once for them all."""
    try:
        return [float(g(t, x[:, i], u)) for i, t in enumerate(ts)]
    except Exception:
        return None


def zeno_error(system: str, event: str, t: float) -> IntegrationError:
    """The error of events accumulating at ``t`` (Zeno), the last one ``system:event`` (the Python path's and
    the compiled kernel's)."""
    return IntegrationError(
        f"more than {MAX_EVENTS_AT_ONE_INSTANT} events each within {ZENO_GAP:g} s (relative) of the "
        f"last: the events accumulate (Zeno); last: {system}:{event}. Give the "
        "system a mode that holds it (resting on a stop) instead of a reset that fires again", t)


class _Fired:
    """An event fired at the current restart point: what :meth:`EventHandler._restart_sides` needs."""

    __slots__ = ("system", "event", "pre_side", "X_before", "prev_t")

    def __init__(self, system: int, event, pre_side: float, X_before: np.ndarray, prev_t):
        self.system, self.event, self.pre_side, self.X_before = system, event, pre_side, X_before
        self.prev_t = prev_t  # when this same event fired before (None: never)


class EventHandler:
    """Guard sampling, root location, simultaneous firing, restart sides and Zeno detection.

    Parameters
    ----------
    layout : SignalLayout
        Supplies ``systems``, ``slices``, ``U`` and ``couplings``.
    rhs : callable ``rhs(t, X) -> dX/dt``
        The stacked right-hand side (used by the restart probe).
    """

    def __init__(self, layout, rhs):
        self.layout = layout
        self.rhs = rhs
        self._cache: dict = {}
        self._vectorizable: dict = {}  # event -> whether its guard takes arrays (decided by _verified)
        self._block_steps = 0  # steps sampled so far: the vectorized guards are re-verified every _REVERIFY_EVERY
        self._active_modes, self._active_list = None, []  # the last modes seen, and their events
        # Committed search state.
        self.fired_here: list = []  # the events fired at the current restart point
        self.zeno_run = 0
        self.last_event_t = None
        self.event_last_t: dict = {}  # (system index, id(event)) -> when it last fired
        self.search_from: dict = {}  # (system index, id(event)) -> time its next crossing is sought from
        # The segment's state.
        self.active: list = []
        self.g_prev: list = []
        self._fns: list = []  # (guard, slice, inputs) of every active event, for the per-step evaluation
        self._float_fns = None  # (guard, system index, slice or None) when every active guard takes lists
        self._not_on_floats: set = set()  # events whose marked guard failed on lists: sampled on arrays
        self._sf = self.search_from
        self._last_guards = None  # (t, X, active, values) of the last guards at a tick, reused by begin
        self._end = None  # (t, X, active, values) where the last segment ended, reused by the tick there

    # -- guards ------------------------------------------------------------------------------------------
    def active_events(self) -> list:
        """[(system index, event)] for the current modes, cached per mode."""
        modes = tuple(s.mode for s in self.layout.systems)
        if modes == self._active_modes:
            return self._active_list
        out = []
        for k, s in enumerate(self.layout.systems):
            key = (k, s.mode)
            try:
                evs = self._cache[key]
            except (KeyError, TypeError):
                evs = tuple(s.events())
                try:
                    self._cache[key] = evs
                except TypeError:  # an unhashable mode: no caching
                    pass
            out.extend((k, e) for e in evs)
        self._active_modes, self._active_list = modes, out
        return out

    def guards_before_writes(self, active, t, X) -> list:
        """The guards at a tick, before its writes: the values the segment that ended there computed,
        when it ended at this instant and state with these events, else evaluated afresh."""
        end = self._end
        if end is not None and end[0] == t and end[1] is X and end[2] == active:
            return list(end[3])
        return self.guards(active, t, X, "tick")

    def guards(self, active, t, X, when: str = "event search") -> list:
        """Every guard of ``active`` at (t, X), as floats, checked finite."""
        if not active:
            return []
        lay = self.layout
        if lay.couplings:
            lay.apply_couplings(t, X)
        slices, U = lay.slices, lay.U
        vals = []
        for k, e in active:
            try:
                g = float(e.guard(t, X[slices[k]], U[k]))
            except NonFiniteError as exc:
                raise with_time(exc, t) from None
            except Exception as exc:
                annotate(exc, t, f"in the guard of {lay.systems[k].name}:{e.name}", when)
                raise
            if not math.isfinite(g):
                raise NonFiniteError("guard", f"{lay.systems[k].name}:{e.name}", g, float(t))
            vals.append(g)
        return vals

    def _values(self, t, X) -> list:
        """Every armed guard at (t, X): the per-step fast path of :meth:`guards`."""
        lay = self.layout
        if lay.couplings:
            lay.apply_couplings(t, X)
        try:
            vals = [float(g(t, X[sl], u)) for g, sl, u in self._fns]
        except Exception:
            vals = None
        if vals is None or not math.isfinite(sum(vals)):
            return self.guards(self.active, t, X)  # raises the named error (or an overflowing sum passes)
        return vals

    # -- one segment --------------------------------------------------------------------------------------
    def begin(self, t: float, X: np.ndarray) -> bool:
        """Arm the guards for a segment from (t, X). Returns whether any event is active."""
        self.active = active = self.active_events()
        self._sf = self.search_from
        if not active:
            self.g_prev = []
            return False
        lay = self.layout
        self._fns = [(e.guard, lay.slices[k], lay.U[k]) for k, e in active]
        whole = len(lay.systems) == 1
        lists = not lay.couplings and all(getattr(e.guard, "takes_floats", False)
                                          and e not in self._not_on_floats for _, e in active)
        self._float_fns = [(e.guard, k, None if whole else lay.slices[k]) for k, e in active] if lists else None
        last = self._last_guards
        if last is not None and last[0] == t and last[1] is X and last[2] == active:
            self.g_prev = list(last[3])  # the tick's guards after its writes: same instant, state and inputs
        else:
            self.g_prev = self._values(t, X)
        if self.fired_here:
            self._sf = dict(self.search_from)
            self._restart_sides(active, self.g_prev, self.fired_here, t, X, self._sf)
        return True

    def end_segment(self, t_end: float, X_end: np.ndarray) -> None:
        """The segment reached ``t_end`` (state ``X_end``) without an event: commit its search state."""
        self._end = (t_end, X_end, self.active, self.g_prev)
        self.fired_here = []
        self.search_from = {key: ts for key, ts in self._sf.items() if ts > t_end} if self._sf else {}

    def step(self, t_old: float, t_new: float, y_new: np.ndarray, interior_states, dense_output,
             interior_lists=None):
        """Look for guard crossings in the accepted step ``(t_old, t_new]``.

        ``interior_states(fractions)`` returns the states at those fractions of the step
        as columns (one vectorized interpolation); ``dense_output()`` the step's
        interpolant ``sol`` (``sol(t)`` a state), built only when a root is to be
        located; ``interior_lists(fractions)``, when the solver has it, the same states
        as lists of floats (the last fraction, 1, the step's end exactly), on which
        guards that take lists (:func:`simcore.events.on_floats`) are sampled. Returns None, or
        ``(te, x_e, roots, t_new)`` for :meth:`fire`: the earliest located instant, the
        state there, and every root located in the step as sorted ``(time, active
        index, guard at its bracket start)``.
        """
        span = t_new - t_old
        ts = [t_old + span * f for f in _FRACTIONS] + [t_new]
        samples = None
        if interior_lists is not None and self._float_fns is not None:
            samples = self._samples_on_floats(ts, interior_lists(_SAMPLE_FRACTIONS))
        if samples is None:
            Xb = interior_states(_SAMPLE_FRACTIONS)
            Xb[:, -1] = y_new  # the step's end exactly, not its interpolant
            samples = self._samples(ts, Xb)
        brackets = list(self._brackets(samples, ts, dense_output, t_old, t_new))
        if not brackets:
            self.g_prev = [v[-1] for v in samples]
            return None
        sol = dense_output()
        roots = sorted((self._locate(self.active[j], *bracket, sol), j, bracket[1]) for j, bracket in brackets)
        te = roots[0][0]
        x_e = np.asarray(sol(te) if te < t_new else y_new, dtype=float)
        return te, x_e, roots, t_new

    def _samples(self, ts, Xb) -> list:
        """Every armed guard at the instants ``ts`` (states ``Xb``, one column each): per event, a list.

        A guard written with numpy element-wise operations is called once with all the
        instants (``t`` an array, ``x`` a block of columns). Whether it may be is
        decided by :meth:`_verified` on a block whose columns all differ, so a guard
        that mixes columns (``s @ w``, ``np.linalg.norm(x[1:])``) does not pass by
        coincidence (a body at rest), and is re-checked every :data:`_REVERIFY_EVERY` sampled steps;
        a guard that fails or differs (a reduction, a Python ``if`` or ``math`` call
        on the state) is called point by point. The block never has as many columns
        as the system has states (a duplicate column is added), so a matrix product
        with the state cannot be mistaken for an element-wise result. Couplings make
        the inputs depend on the state, so with couplings every guard is called point
        by point.
        """
        m = len(ts)
        lay = self.layout
        if lay.couplings:
            rows = [self._values(ts[i], Xb[:, i]) for i in range(m)]
            return [list(col) for col in zip(*rows)]
        t_arr = None
        out = []
        vectorizable = self._vectorizable
        reverify = self._block_steps % _REVERIFY_EVERY == 0
        self._block_steps += 1
        for j, (g, sl, u) in enumerate(self._fns):
            e = self.active[j][1]
            vals = None
            ok = vectorizable.get(e)
            if ok is not False:
                if t_arr is None:
                    t_arr = np.array(ts)
                if ok is None or reverify:
                    ok = vectorizable[e] = self._verified(g, u, t_arr, Xb[sl])
                if ok:
                    x = Xb[sl]
                    if x.shape[0] == m:
                        vals = _block_values(g, t_arr, x, u)
                    else:  # _block_values inlined: the common case, on every step
                        try:
                            arr = np.asarray(g(t_arr, x, u), dtype=float)
                            vals = arr.tolist() if arr.shape == (m,) else None
                        except Exception:
                            pass
            if vals is None:
                vals = _per_instant(g, ts, Xb[sl], u)
            if vals is None or not math.isfinite(sum(vals)):
                vals = [self._one(j, ts[i], Xb[:, i]) for i in range(m)]  # names the failing or non-finite one
            out.append(vals)
        return out

    def _samples_on_floats(self, ts, columns):
        """:meth:`_samples` for guards that take lists (every armed one, no couplings), called at each
        instant on ``columns`` (one state list per instant); None when a value is not finite or a guard
        fails (then :meth:`_samples` evaluates them on arrays, naming what is wrong; a guard that fails
        on lists is sampled on arrays from then on)."""
        inputs = [u.tolist() for u in self.layout.U]
        out = []
        for j, (g, k, sl) in enumerate(self._float_fns):
            u = inputs[k]
            try:
                if sl is None:
                    vals = [float(g(t, x, u)) for t, x in zip(ts, columns)]
                else:
                    vals = [float(g(t, x[sl], u)) for t, x in zip(ts, columns)]
            except Exception:
                self._not_on_floats.add(self.active[j][1])
                self._float_fns = None
                return None
            if not math.isfinite(sum(vals)):
                return None
            out.append(vals)
        return out

    @staticmethod
    def _verified(g, u, t_arr, x) -> bool:
        """Whether guard ``g`` called on a block gives, column by column, what it gives called at each
        column alone, on a block whose columns differ in every state and in time.

        The block is the step's samples ``x`` with each state moved by a distinct small amount per
        column (a body at rest has identical columns, on which a guard that mixes columns would
        agree by coincidence); the values found here are not used otherwise.
        """
        n, m = x.shape
        spread = 1e-3 * (1.0 + np.abs(x)) * (1.0 + 0.618 * np.arange(n))[:, None]
        probe = x + spread * np.arange(1, m + 1)
        t_probe = t_arr + 1e-3 * (1.0 + abs(t_arr[0])) * np.arange(m)
        with np.errstate(all="ignore"):  # a probe state outside the guard's domain only means "no"
            vals = _block_values(g, t_probe, probe, u)
            if vals is None:
                return False
            for i in range(m):
                try:
                    b = float(g(float(t_probe[i]), probe[:, i].copy(), u))
                except Exception:
                    return False
                a = vals[i]
                if not (a == b or abs(a - b) <= 1e-13 * max(abs(a), abs(b))):
                    return False
        return True

    def _one(self, j: int, t, x) -> float:
        """Armed guard ``j`` at one instant, checked."""
        return self.guards([self.active[j]], t, x)[0]

    def _brackets(self, samples, ts, dense_output, t_old, t_new):
        """Yield (event index, (t_a, g_a, t_b, g_b)): the first sub-interval of the step where each guard crosses.

        ``samples[j]`` holds guard ``j`` at the interior instants ``ts[:-1]`` and at the
        step's end ``ts[-1]``, so a guard that crosses twice within one step (a ball's
        whole bounce arc in one large step) is still caught.
        """
        g_prev, sf = self.g_prev, self._sf
        times = [t_old] + ts
        n = len(ts) - 1
        for j, (k, e) in enumerate(self.active):
            g_j = samples[j]
            t_s = sf.get((k, id(e))) if sf else None
            if t_s is not None and t_s > t_old:
                # A bounce's guard just after its restart is within round-off of the root: seek the
                # next crossing from t_s on, where the probe found it clear of the root.
                if t_s >= t_new:
                    continue
                g_s = self.guards([(k, e)], t_s, dense_output()(t_s))[0]
                keep = [i for i in range(n) if ts[i] > t_s]
                tj = [t_s] + [ts[i] for i in keep] + [t_new]
                vals = [g_s] + [g_j[i] for i in keep] + [g_j[-1]]
            else:
                g0 = g_prev[j]
                if (g0 > 0.0 and min(g_j) > 0.0) or (g0 < 0.0 and max(g_j) < 0.0):
                    continue  # one strict sign throughout: no crossing (the common case, decided at once)
                tj = times
                vals = [g0] + g_j
            for i in range(len(tj) - 1):
                if e.crosses(vals[i], vals[i + 1]):
                    yield j, (tj[i], vals[i], tj[i + 1], vals[i + 1])
                    break

    def _locate(self, item, t_a, g_a, t_b, g_b, sol) -> float:
        """Instant in (t_a, t_b] where the guard of ``item`` = (system, event) crosses zero."""
        if g_b == 0.0:
            return t_b
        k, e = item
        lay = self.layout
        sl, u = lay.slices[k], lay.U[k]

        def g(s):
            if s == t_a:
                return g_a  # the recorded value: the interpolant may differ by round-off
            if s == t_b:
                return g_b
            x = sol(s)
            if lay.couplings:
                lay.apply_couplings(s, x)
            return float(e.guard(s, x[sl], u))

        return brentq(g, t_a, t_b, xtol=EVENT_TIME_TOLERANCE, rtol=4 * np.finfo(float).eps)

    # -- firing -------------------------------------------------------------------------------------------
    def fire(self, hit, fire_one) -> np.ndarray:
        """Fire the located events of ``hit`` (from :meth:`step`); returns the state after them.

        ``fire_one(k, event, t, X, at_tick)`` applies one event and returns the new
        stacked state (the engine records, resets and switches the mode there).
        Raises IntegrationError when the events accumulate (Zeno).
        """
        te, x_e, roots, t_new = hit
        zeno_run, last = self.zeno_run, self.last_event_t
        if last is not None and te - last <= ZENO_GAP * max(1.0, abs(te)):
            zeno_run += 1
            if zeno_run > MAX_EVENTS_AT_ONE_INSTANT:
                k, e = self.active[roots[0][1]]
                raise zeno_error(self.layout.systems[k].name, e.name, te)
        else:
            zeno_run = 0
        X, fired = self._fire_simultaneous(self.active, roots, te, x_e, fire_one)
        self.zeno_run, self.last_event_t = zeno_run, te
        for f in fired:
            self.event_last_t[(f.system, id(f.event))] = te
        self.fired_here = fired
        self.search_from = {key: ts for key, ts in self._sf.items() if ts > t_new} if self._sf else {}
        return X

    def _fire_simultaneous(self, active, roots, te, X, fire_one):
        """Fire the earliest located event at ``te`` and every other one located at that instant.

        Events whose root is within twice the location tolerance of ``te`` fire too
        if their guard, re-evaluated on the state the earlier resets left, has crossed
        at ``te`` (one that has not yet fires at its own root, just after); so two
        identical elevators hitting their stops at one instant both stop. A terminal
        event ends the run after every event of its instant has fired.
        """
        X_before = X.copy()
        fired = []
        for tj, j, g_a in roots:
            if tj - te > 2 * EVENT_TIME_TOLERANCE:
                break
            k, e = active[j]
            if fired:
                if not any(e2 is e and k2 == k for k2, e2 in self.active_events()):
                    continue  # an earlier event at this instant changed the mode: no longer armed
                if not e.crosses(g_a, self.guards([(k, e)], te, X)[0]):
                    continue
            X = fire_one(k, e, te, X, False)
            fired.append(_Fired(k, e, 1.0 if g_a > 0 else -1.0, X_before, self.event_last_t.get((k, id(e)))))
        return X, fired

    def fire_input_jumps(self, active, g_before, t, X, fire_one):
        """Fire the events whose guards changed sign because held inputs were just written.

        At most one per system (its mode may change, and with it its events). Returns
        ``(X, fired)``: the state after, and whether one fired (its after-row is then
        the row after the write).
        """
        if not active:
            return X, False
        g_after = self.guards(active, t, X, "tick")
        self._last_guards = (t, X, active, g_after)
        fired_systems = set()
        for (k, e), ga, gb in zip(active, g_before, g_after):
            if k not in fired_systems and e.crosses(ga, gb):
                X = fire_one(k, e, t, X, True)
                fired_systems.add(k)
                if e.terminal:
                    break
        return X, bool(fired_systems)

    # -- restart sides --------------------------------------------------------------------------------------
    def _restart_sides(self, active, g_prev, just_fired, t, X, sf) -> None:
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
                sf.pop((k, id(e)), None)  # a delay left from its previous firing
                dt = PROBE_STEP * max(1.0, abs(t))
                side = self._probe_side(k, e, t, X, dt)
                accumulating = f.prev_t is not None and t - f.prev_t <= ZENO_GAP * max(1.0, abs(t))
                if side == 0.0:
                    g_prev[j] = f.pre_side * JUST_OFF_ZERO
                elif side == f.pre_side:  # heading back (a bounce), or reset back before the root
                    if g0 * side <= 0:
                        g_prev[j] = side * JUST_OFF_ZERO
                        sf[(k, id(e))] = t + dt
                elif e.reset is not None and (accumulating or self._rate_changed(k, e, t, X, f.X_before, dt)):
                    g_prev[j] = f.pre_side * JUST_OFF_ZERO  # the reset did not hold it: fires again
                else:  # goes on through, as it came
                    g_prev[j] = g0 if g0 * side > 0 else side * JUST_OFF_ZERO
                break

    def _probe_side(self, k, e, t, X, dt) -> float:
        """Sign of the guard of (system ``k``, event ``e``) ``dt`` after ``t`` from state ``X`` (a Heun step)."""
        f0 = self.rhs(t, X)
        f1 = self.rhs(t + dt, X + dt * f0)
        v = self.guards([(k, e)], t + dt, X + 0.5 * dt * (f0 + f1))[0]
        return 1.0 if v > 0 else -1.0 if v < 0 else 0.0

    def _guard_rate(self, k, e, t, X, dt) -> float:
        """The guard's time derivative at (t, X), by a forward difference over ``dt``."""
        x1 = X + dt * self.rhs(t, X)
        return (self.guards([(k, e)], t + dt, x1)[0] - self.guards([(k, e)], t, X)[0]) / dt

    def _rate_changed(self, k, e, t, X, X_before, dt) -> bool:
        """Whether the reset changed the guard's rate (a reset of a state the guard does not
        move with, such as a counter or an acceleration, leaves it unchanged)."""
        after, before = self._guard_rate(k, e, t, X, dt), self._guard_rate(k, e, t, X_before, dt)
        return abs(after - before) > 1e-6 * max(abs(after), abs(before))
