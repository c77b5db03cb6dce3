"""The event handler alone: analytic guards on an exact dense output, no solver and no simulator.

The "trajectory" is known in closed form; the fake dense output interpolates it exactly, so
every located instant can be compared with the analytic root to the location tolerance.
"""
import math

import numpy as np
import pytest

from simcore import IntegrationError, StateEvent
from simcore.event_handler import MAX_EVENTS_AT_ONE_INSTANT, EventHandler
from simcore.events import EVENT_TIME_TOLERANCE


class _System:
    """What the handler reads of a system: a name, a mode and the events of that mode."""

    def __init__(self, events, name="s"):
        self.name, self.mode, self._events = name, None, events

    def events(self):
        return self._events


class _Layout:
    """One system whose state is the whole stacked vector; no inputs, no couplings."""

    def __init__(self, *systems, n=1):
        self.systems = list(systems)
        self.slices = [slice(0, n)] * len(systems)
        self.U = [np.zeros(0)] * len(systems)
        self.couplings = []


def _exact(path):
    """(interior_states, dense_output) factories for one step of the trajectory ``path(t) -> state``."""
    def for_step(t_old, t_new):
        def interior(fractions):
            return np.column_stack([path(t_old + (t_new - t_old) * f) for f in fractions])

        def sol(t):
            t = np.asarray(t, dtype=float)
            return path(float(t)) if t.ndim == 0 else np.column_stack([path(s) for s in t])
        return interior, lambda: sol
    return for_step


def _run(handler, path, t0, t1, n_steps):
    """Step the handler along ``path`` from t0 to t1 in equal steps; return the first hit or None."""
    for_step = _exact(path)
    handler.begin(t0, path(t0))
    ts = np.linspace(t0, t1, n_steps + 1)
    for a, b in zip(ts[:-1], ts[1:]):
        interior, dense = for_step(a, b)
        hit = handler.step(a, b, path(b), interior, dense)
        if hit is not None:
            return hit
    return None


def _no_rhs(t, x):
    raise AssertionError("the probe is only used after an event fired")


def test_a_linear_guard_is_located_at_its_analytic_root():
    ev = StateEvent(lambda t, x, u: x[0] - 0.5, direction=1, name="half")
    h = EventHandler(_Layout(_System([ev])), _no_rhs)
    hit = _run(h, lambda t: np.array([t * t]), 0.0, 1.0, 4)  # x = t^2 crosses 0.5 at sqrt(0.5)
    assert hit is not None
    te, x_e, roots, _ = hit
    assert te == pytest.approx(math.sqrt(0.5), abs=EVENT_TIME_TOLERANCE * 10)
    assert x_e[0] == pytest.approx(0.5, abs=1e-12)
    assert [j for _, j, _ in roots] == [0]


def test_two_crossings_inside_one_step_are_caught_by_the_interior_samples():
    # g = (t - 0.3)(t - 0.6): positive at both ends of the single step [0, 1], negative between.
    ev = StateEvent(lambda t, x, u: (x[0] - 0.3) * (x[0] - 0.6), direction=-1, name="dip")
    h = EventHandler(_Layout(_System([ev])), _no_rhs)
    hit = _run(h, lambda t: np.array([t]), 0.0, 1.0, 1)
    assert hit is not None and hit[0] == pytest.approx(0.3, abs=1e-12)


def test_direction_filters_crossings_and_a_guard_zero_at_the_start_does_not_fire():
    rising = StateEvent(lambda t, x, u: math.cos(x[0]), direction=1, name="rising")
    h = EventHandler(_Layout(_System([rising])), _no_rhs)
    # cos falls through zero at pi/2 (ignored: rising only) and rises through it at 3 pi/2.
    hit = _run(h, lambda t: np.array([t]), 0.0, 5.0, 10)
    assert hit[0] == pytest.approx(1.5 * math.pi, abs=1e-12)
    # Half-open: a guard exactly zero at the start of the interval does not fire there.
    at_zero = StateEvent(lambda t, x, u: x[0], direction=0, name="zero")
    h = EventHandler(_Layout(_System([at_zero])), _no_rhs)
    assert _run(h, lambda t: np.array([t]), 0.0, 1.0, 3) is None


def test_simultaneous_roots_in_two_systems_both_fire_in_order():
    a = StateEvent(lambda t, x, u: x[0] - 0.25, direction=1, name="a")
    b = StateEvent(lambda t, x, u: 0.25 - x[0], direction=-1, name="b")
    lay = _Layout(_System([a], "one"), _System([b], "two"))
    h = EventHandler(lay, _no_rhs)
    hit = _run(h, lambda t: np.array([t]), 0.0, 1.0, 2)
    fired = []

    def fire_one(k, e, t, X, at_tick):
        fired.append((k, e.name, t, at_tick))
        return X

    h.fire(hit, fire_one)
    assert [(k, name) for k, name, _, _ in fired] == [(0, "a"), (1, "b")]
    assert all(t == pytest.approx(0.25, abs=1e-12) and not tick for _, _, t, tick in fired)
    assert len(h.fired_here) == 2


def test_an_input_jump_fires_at_most_one_event_per_system():
    first = StateEvent(lambda t, x, u: x[0], direction=1, name="first")
    second = StateEvent(lambda t, x, u: x[0], direction=1, name="second")
    h = EventHandler(_Layout(_System([first, second])), _no_rhs)
    active = h.active_events()
    fired = []
    X, any_fired = h.fire_input_jumps(active, [-1.0, -1.0], 0.5, np.array([1.0]),
                                      lambda k, e, t, X, at_tick: fired.append((e.name, at_tick)) or X)
    assert any_fired and fired == [("first", True)]


def test_a_bounce_is_sought_again_from_the_probe_instant():
    # A ball at its floor with velocity reversed: x' = v, v' = -g. After the reset the guard h sits
    # at 0; the probe sees it heading back up, and the next landing, 2 v / g later, is found.
    g, v0 = 9.81, 3.0
    bounce = StateEvent(lambda t, x, u: x[0], direction=-1, name="bounce",
                        reset=lambda t, x, u: np.array([x[0], -x[1]]))
    lay = _Layout(_System([bounce]), n=2)
    h = EventHandler(lay, lambda t, x: np.array([x[1], -g]))
    def arc(t, t_land=1.0):  # falling onto the floor at t = 1 with speed v0
        s = t - t_land
        return np.array([-v0 * s - 0.5 * g * s * s, -v0 - g * s])

    hit = _run(h, arc, 0.5, 1.5, 3)
    assert hit[0] == pytest.approx(1.0, abs=1e-12)
    h.fire(hit, lambda k, e, t, X, at_tick: np.array([0.0, v0]))

    def rebound(t):
        s = t - 1.0
        return np.array([v0 * s - 0.5 * g * s * s, v0 - g * s])

    hit = _run(h, rebound, hit[0], 2.0, 1)  # the whole arc inside one step
    assert hit is not None and hit[0] == pytest.approx(1.0 + 2 * v0 / g, abs=1e-12)


def test_events_accumulating_at_one_instant_end_as_zeno():
    wall = StateEvent(lambda t, x, u: x[0] - 1.0, direction=1, name="wall")
    h = EventHandler(_Layout(_System([wall])), _no_rhs)
    hit = (1.0, np.array([1.0]), [(1.0, 0, -1.0)], 1.0)
    h.active = h.active_events()
    with pytest.raises(IntegrationError, match="Zeno") as ei:
        for _ in range(MAX_EVENTS_AT_ONE_INSTANT + 2):
            h.fire(hit, lambda k, e, t, X, at_tick: X)
    assert ei.value.t == 1.0 and "s:wall" in str(ei.value)


def test_a_guard_that_is_not_element_wise_is_called_point_by_point():
    # math.cos refuses arrays: the guard is called at each sample instant and still located.
    ev = StateEvent(lambda t, x, u: math.cos(x[0]), direction=-1, name="cos")
    vec = StateEvent(lambda t, x, u: x[0] - 1.0, direction=1, name="one")
    h = EventHandler(_Layout(_System([ev, vec])), _no_rhs)
    hit = _run(h, lambda t: np.array([t]), 0.0, 2.0, 2)
    assert hit[0] == pytest.approx(1.0, abs=1e-12)  # "one" first
    assert h._vectorizable[ev] is False and h._vectorizable[vec] is True
