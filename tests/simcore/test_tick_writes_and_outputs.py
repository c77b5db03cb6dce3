"""What a tick's writes and a system's outputs leave behind: a controller's writes are checked and applied one by
one, in the order it returned them (a refused one names itself and leaves those before it written, those after it
not); an output row a model returns is copied, so a model that refills one array keeps every row's own values; a list
of outputs is checked as any other row."""
from __future__ import annotations

import math

import numpy as np
import pytest

from simcore import ConfigError, PeriodicController, Simulator, System, simulate
from simcore.errors import ConfigTypeError, NonFiniteError


class ThreeInputs(System):
    """x' = a + b + c, each input in [-1, 1]."""

    def __init__(self):
        super().__init__("s", ["x"], ["a", "b", "c"], [])
        self.input_ranges = {"a": (-1.0, 1.0), "b": (-1.0, 1.0), "c": (-1.0, 1.0)}

    def derivatives(self, t, x, u):
        return np.array([u[0] + u[1] + u[2]])


def test_a_refused_write_names_itself_and_leaves_the_writes_before_it_done_and_those_after_it_not():
    def writes(t, s):
        return {"s.a": 0.5, "s.b": 2.0, "s.c": 0.7}  # b is out of its range

    sim = Simulator(ThreeInputs(), [PeriodicController(0.1, writes, name="p")])
    with pytest.raises(ConfigError, match=r"controller 'p'\['s\.b'\].*2\.0.*\[-1\.0, 1\.0\]"):
        sim.advance(0.0)
    assert (sim.signals["s.a"], sim.signals["s.b"], sim.signals["s.c"]) == (0.5, 0.0, 0.0)


class RefilledOutputs(System):
    """x' = 1 (x = t from 0); its outputs ``2 x`` and ``x + 1`` returned in one array it refills at every call."""

    def __init__(self):
        super().__init__("r", ["x"], [], ["double", "plus_one"])
        self._row = np.empty(2)

    def derivatives(self, t, x, u):
        return np.array([1.0])

    def outputs(self, t, x, u):
        self._row[0], self._row[1] = 2.0 * x[0], x[0] + 1.0
        return self._row


def test_outputs_returned_in_a_refilled_array_keep_each_rows_own_values():
    res = simulate(RefilledOutputs(), 1.0, [PeriodicController(0.25, lambda t, s: None, name="tick")])
    x = res["r.x"]
    np.testing.assert_allclose(x, res.t, rtol=0, atol=1e-12)  # x = t
    assert np.array_equal(res["r.double"], 2.0 * x)
    assert np.array_equal(res["r.plus_one"], x + 1.0)
    # The live view too: a read, then the model refilling its array, leaves the first value read as it was.
    sim = Simulator(RefilledOutputs(), [])
    sim.advance(0.5)
    x_first, first = sim.signals["r.x"], sim.signals["r.double"]
    sim.advance(0.25)
    x_then, then = sim.signals["r.x"], sim.signals["r.double"]
    assert x_then > x_first + 0.2
    assert (first, then) == (2.0 * x_first, 2.0 * x_then)


class ListOutputs(System):
    """x' = 1; its two outputs whatever list ``returned(x)`` gives."""

    def __init__(self, returned):
        super().__init__("l", ["x"], [], ["first", "second"])
        self.returned = returned

    def derivatives(self, t, x, u):
        return np.array([1.0])

    def outputs(self, t, x, u):
        return self.returned(x)


def test_outputs_as_a_list_of_floats_are_those_floats_even_where_their_sum_overflows():
    res = simulate(ListOutputs(lambda x: [float(x[0]), 1e308 + float(x[0])]), 0.5)
    assert np.array_equal(res["l.first"], res["l.x"])
    assert np.array_equal(res["l.second"], 1e308 + res["l.x"])
    huge = simulate(ListOutputs(lambda x: [1e308, 1e308]), 0.1)
    assert np.all(huge["l.first"] == 1e308) and np.all(huge["l.second"] == 1e308)  # finite, though 2e308 is not


@pytest.mark.parametrize("returned, error, match", [
    (lambda x: [1.0], ConfigError, r"l\.outputs\(\).*2 real numbers ordered as \('first', 'second'\)"),
    (lambda x: [1.0, "2.0"], ConfigTypeError, r"l\.outputs\(\)"),
    (lambda x: [1.0, 1j], ConfigTypeError, r"not complex"),
    (lambda x: [1.0, math.inf], NonFiniteError, r"l\.second"),
    (lambda x: [math.nan, 1.0], NonFiniteError, r"l\.first"),
])
def test_a_wrong_list_of_outputs_names_the_system_and_what_was_wrong(returned, error, match):
    res = simulate(ListOutputs(returned), 0.1)
    with pytest.raises(error, match=match):
        res["l.first"]


def test_a_write_that_repeats_the_held_values_keeps_them_and_one_that_changes_the_sign_of_zero_is_recorded():
    # A controller writes the same values tick after tick, then -0.0 where 0.0 was: the recorded inputs follow the
    # writes bit for bit (IEEE 754 tells -0.0 from 0.0; x' = a + b + c integrates either to the same x).
    def writes(t, s):
        zero = -0.0 if t >= 0.3 - 1e-12 else 0.0
        return {"s.a": 0.5, "s.b": zero, "s.c": 0.25}

    r = simulate(ThreeInputs(), 0.5, [PeriodicController(0.1, writes, name="w")])
    after = r.t >= 0.3
    assert np.all(r["s.a"][1:] == 0.5) and np.all(r["s.c"][1:] == 0.25)  # (row 0: before the writes at t0)
    b = r["s.b"]
    assert np.all(b == 0.0)
    # Rows at the tick of 0.3 s: the one before the write holds +0.0, the ones after it -0.0.
    assert not np.any(np.signbit(b[~after]))
    assert np.signbit(b[after][1:]).all() and not np.signbit(b[after][0])
    assert r.final("s.x") == pytest.approx(0.75 * 0.5, rel=1e-12)
