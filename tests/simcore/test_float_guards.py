"""Guards sampled on lists of floats (marked with ``simcore.events.on_floats``): the events of the array
path to the bit, at the analytic instants; a guard that cannot take lists, or gives a non-finite value,
is handled by the array path as before."""
import math

import numpy as np
import pytest

from simcore import NonFiniteError, StateEvent, simulate
from simcore.errors import ConfigTypeError
from simcore.event_handler import EventHandler
from simcore.events import on_floats

from _systems import FreeFall


class Ball(FreeFall):
    """The bouncing ball of test_events with its guard declared as taking lists or not."""

    def __init__(self, lists, guard=None):
        super().__init__(1.0, 0.8)
        self.guard = guard or (lambda t, x, u: x[0])
        if lists:
            on_floats(self.guard)

    def events(self):
        return [StateEvent(self.guard, direction=-1, reset=lambda t, x, u: np.array([0.0, -self.e * x[1]]),
                           name="bounce")]


def _bounces(t_end):
    g, e = 9.81, 0.8
    times = [math.sqrt(2.0 / g)]
    v = g * times[0]
    while True:
        v *= e
        if times[-1] + 2 * v / g > t_end:
            return times
        times.append(times[-1] + 2 * v / g)


def _spy(monkeypatch, name):
    """Count the calls of EventHandler.<name>."""
    calls = []
    original = getattr(EventHandler, name)

    def counted(self, *args):
        calls.append(1)
        return original(self, *args)
    monkeypatch.setattr(EventHandler, name, counted)
    return calls


def test_guards_on_lists_fire_where_the_array_path_does_to_the_bit(monkeypatch):
    on_lists, on_arrays = _spy(monkeypatch, "_samples_on_floats"), _spy(monkeypatch, "_samples")
    a = simulate(Ball(True), 4.0, rtol=1e-10, atol=1e-12)
    assert len(on_lists) > 10 and not on_arrays  # the marked guard is sampled on lists, every step
    b = simulate(Ball(False), 4.0, rtol=1e-10, atol=1e-12)
    assert len(on_arrays) > 10
    np.testing.assert_allclose(a.event_times("bounce"), _bounces(4.0), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(a.t, b.t)
    for name in a.names:
        np.testing.assert_array_equal(a[name], b[name])
    assert [e.t for e in a.events] == [e.t for e in b.events]


def test_a_guard_that_cannot_take_lists_falls_back_to_arrays(monkeypatch):
    # Marked, but written with an array method: on a list it raises, and the guards are sampled on
    # arrays instead, from then on (not tried on lists again at every step); the bounces are the same.
    on_lists = _spy(monkeypatch, "_samples_on_floats")
    r = simulate(Ball(True, guard=lambda t, x, u: x[:1].sum()), 4.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.event_times("bounce"), _bounces(4.0), rtol=0, atol=1e-9)
    assert len(on_lists) == 1


def test_a_non_finite_guard_on_lists_is_named():
    ball = Ball(True, guard=lambda t, x, u: x[0] if t < 0.2 else math.nan)
    with pytest.raises(NonFiniteError, match="bounce"):
        simulate(ball, 1.0)


def test_on_floats_marks_functions_only():
    with pytest.raises(ConfigTypeError, match="guard"):
        on_floats(3.0)
    with pytest.raises(ConfigTypeError, match="lambda"):
        on_floats(Ball(True).initial_state)  # a bound method cannot carry the mark
