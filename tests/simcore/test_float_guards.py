"""Guards sampled on lists of floats (``StateEvent(on_floats=True)``): the events of the array path to
the bit, at the analytic instants; a guard that cannot take lists, or gives a non-finite value, is
handled by the array path as before."""
import math

import numpy as np
import pytest

from simcore import NonFiniteError, StateEvent, simulate
from simcore.errors import ConfigTypeError

from _systems import FreeFall


class Ball(FreeFall):
    """The bouncing ball of test_events with its guard declared as taking lists or not."""

    def __init__(self, on_floats, guard=None):
        super().__init__(1.0, 0.8)
        self.on_floats = on_floats
        self.guard = guard or (lambda t, x, u: x[0])

    def events(self):
        return [StateEvent(self.guard, direction=-1, reset=lambda t, x, u: np.array([0.0, -self.e * x[1]]),
                           name="bounce", on_floats=self.on_floats)]


def _bounces(t_end):
    g, e = 9.81, 0.8
    times = [math.sqrt(2.0 / g)]
    v = g * times[0]
    while True:
        v *= e
        if times[-1] + 2 * v / g > t_end:
            return times
        times.append(times[-1] + 2 * v / g)


def test_guards_on_lists_fire_where_the_array_path_does_to_the_bit():
    a, b = simulate(Ball(True), 4.0, rtol=1e-10, atol=1e-12), simulate(Ball(False), 4.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.event_times("bounce"), _bounces(4.0), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(a.t, b.t)
    for name in a.names:
        np.testing.assert_array_equal(a[name], b[name])
    assert [e.t for e in a.events] == [e.t for e in b.events]


def test_a_guard_that_cannot_take_lists_falls_back_to_arrays():
    # Declared on_floats, but written with an array operation: on a list it raises, and the step's
    # guards are sampled on arrays instead; the bounces are the same.
    w = np.array([1.0, 0.0])
    r = simulate(Ball(True, guard=lambda t, x, u: x @ w), 4.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.event_times("bounce"), _bounces(4.0), rtol=0, atol=1e-9)


def test_a_non_finite_guard_on_lists_is_named():
    ball = Ball(True, guard=lambda t, x, u: x[0] if t < 0.2 else math.nan)
    with pytest.raises(NonFiniteError, match="bounce"):
        simulate(ball, 1.0)


def test_on_floats_must_be_a_flag():
    with pytest.raises(ConfigTypeError, match="on_floats"):
        StateEvent(lambda t, x, u: x[0], on_floats="yes")
