"""State events against analytic solutions: bouncing ball impact times, directions, simultaneous
and accumulating events, resting on a stop, restarts at a root, input-jump events."""
import math

import numpy as np
import pytest

from simcore import IntegrationError, PeriodicController, StateEvent, System, simulate, Simulator

from _systems import FreeFall


@pytest.mark.parametrize("method", ["RK45", "DOP853", "LSODA", "Radau"])
def test_bouncing_ball_hits_at_analytic_times(method):
    g, e, h0 = 9.81, 0.8, 1.0
    r = simulate(FreeFall(h0, e), 4.0, method=method, rtol=1e-10, atol=1e-12)
    t1 = math.sqrt(2 * h0 / g)
    times, v = [t1], g * t1
    while True:
        v *= e
        nxt = times[-1] + 2 * v / g
        if nxt > 4.0:
            break
        times.append(nxt)
    got = r.event_times("bounce")
    assert len(got) == len(times)
    np.testing.assert_allclose(got, times, rtol=0, atol=1e-9)
    # Each event instant appears twice: before (falling) and after (rising) the reset.
    for ev in r.events:
        rows = np.flatnonzero(r.t == ev.t)
        assert len(rows) == 2
        assert r["ball.v"][rows[0]] < 0 < r["ball.v"][rows[1]]


def test_event_directions_and_terminal():
    class Osc(System):
        def __init__(self, direction):
            super().__init__("osc", ["x", "v"])
            self.direction = direction

        def initial_state(self):
            return np.array([1.0, 0.0])

        def derivatives(self, t, x, u):
            return np.array([x[1], -x[0]])

        def events(self):
            return [StateEvent(lambda t, x, u: x[0], direction=self.direction, name="zero")]

    r = simulate(Osc(-1), 10.0, rtol=1e-10, atol=1e-12)  # cos t falls through 0 at pi/2, 5pi/2
    np.testing.assert_allclose(r.event_times(), [math.pi / 2, 5 * math.pi / 2], atol=1e-9)
    r = simulate(Osc(+1), 10.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.event_times(), [3 * math.pi / 2], atol=1e-9)  # 7 pi / 2 > 10
    r = simulate(Osc(0), 10.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.event_times(), [math.pi / 2, 3 * math.pi / 2, 5 * math.pi / 2], atol=1e-9)

    class Stop(Osc):
        def events(self):
            return [StateEvent(lambda t, x, u: x[0], direction=-1, terminal=True, name="end")]

    r = simulate(Stop(-1), 10.0, rtol=1e-10, atol=1e-12)
    assert r.t[-1] == pytest.approx(math.pi / 2, abs=1e-9)


def _bounce_times(h0, e, t_end, g=9.81):
    """Analytic impact instants of a ball dropped from h0 with restitution e, up to t_end."""
    times, v = [math.sqrt(2 * h0 / g)], math.sqrt(2 * g * h0)
    while True:
        v *= e
        nxt = times[-1] + 2 * v / g
        if nxt > t_end:
            return np.array(times)
        times.append(nxt)


class NamedBall(FreeFall):
    """A FreeFall with its own name and a chosen event direction (the reset keeps h at its root)."""

    def __init__(self, name, direction=-1, e=0.8):
        super().__init__(1.0, e)
        self.name, self.direction = name, direction

    def events(self):
        return [StateEvent(lambda t, x, u: x[0], direction=self.direction, name="bounce",
                           reset=lambda t, x, u: np.array([x[0], -self.e * x[1]]))]


def test_two_systems_hitting_at_the_same_instant_both_fire():
    # Identical balls reach the floor at bit-identical instants: both bounce every time.
    r = simulate([NamedBall("a"), NamedBall("b")], 2.0)
    ref = _bounce_times(1.0, 0.8, 2.0)
    for name in ("a", "b"):
        np.testing.assert_allclose([ev.t for ev in r.events if ev.system == name], ref, atol=1e-9)
    np.testing.assert_array_equal(r["a.h"], r["b.h"])
    assert r.final("a.h") > 0


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau"])
def test_an_either_direction_event_keeps_firing_after_its_reset(method):
    # direction=0: after the bounce the guard sits at -2e-16; the next landing, inside one long step
    # of the default tolerances, must still be found.
    r = simulate(NamedBall("ball", direction=0), 3.0, method=method)
    np.testing.assert_allclose(r.event_times(), _bounce_times(1.0, 0.8, 3.0), atol=1e-8)


def test_accumulating_bounces_end_as_zeno_at_the_zeno_time():
    g, e, h0 = 9.81, 0.8, 1.0
    t_zeno = math.sqrt(2 * h0 / g) * (1 + 2 * e / (1 - e))  # first fall plus the geometric series of arcs
    with pytest.raises(IntegrationError, match="Zeno") as ei:
        simulate(NamedBall("ball"), 6.0)
    assert ei.value.t == pytest.approx(t_zeno, abs=1e-6)
    # the same with a 1 kHz controller cutting the run into 1 ms intervals
    fast = PeriodicController(0.001, lambda t, s: None, name="fast")
    with pytest.raises(IntegrationError, match="Zeno") as ei:
        simulate(NamedBall("ball"), 6.0, [fast])
    assert ei.value.t == pytest.approx(t_zeno, abs=1e-6)
    r = simulate(NamedBall("ball"), 3.0, [fast])
    np.testing.assert_allclose(r.event_times(), _bounce_times(h0, e, 3.0, g), atol=1e-9)


@pytest.mark.parametrize("method, rtol, atol", [("RK45", 1e-8, 1e-10), ("DOP853", 1e-10, 1e-12),
                                                ("RK23", 1e-8, 1e-10), ("Radau", 1e-8, 1e-10)])
@pytest.mark.parametrize("t_end", [0.8, 1.3, 2.0, 5.0])
def test_short_bounces_whose_reset_keeps_the_guard_at_round_off_are_all_caught(method, rtol, atol, t_end):
    # e = 0.3: arcs shrink fast, so a whole arc can fit in one solver step right after the restart,
    # where the guard is still within round-off of its root. No false Zeno before the Zeno time, and
    # every bounce at its analytic instant.
    e, g = 0.3, 9.81
    t_zeno = math.sqrt(2 / g) * (1 + 2 * e / (1 - e))
    try:
        r = simulate(NamedBall("ball", e=e), t_end, method=method, rtol=rtol, atol=atol)
        got = r.event_times()
    except IntegrationError as exc:
        assert exc.t == pytest.approx(t_zeno, abs=1e-6)
        return
    ref = _bounce_times(1.0, e, t_end)
    np.testing.assert_allclose(got, ref, atol=1e-8)


def test_a_reset_that_leaves_the_guard_rate_alone_fires_once():
    class Car(System):  # passes a marker at x = 0 and is then told to accelerate (a changes, not v)
        def __init__(self):
            super().__init__("car", ["x", "v", "a"])

        def initial_state(self):
            return np.array([-1.0, 1.0, 0.0])

        def derivatives(self, t, x, u):
            return np.array([x[1], x[2], 0.0])

        def events(self):
            return [StateEvent(lambda t, x, u: x[0], direction=1, name="marker",
                               reset=lambda t, x, u: np.array([x[0], x[1], 100.0]))]

    for method in ("RK45", "DOP853", "Radau", "LSODA"):
        r = simulate(Car(), 3.0, method=method)
        np.testing.assert_allclose(r.event_times(), [1.0], atol=1e-9)


class Counter(System):
    """x' = 1 from -c: the guard x crosses 0 at t = c, and the reset counts in n."""

    def __init__(self, name, c, terminal_first=None):
        super().__init__(name, ["x", "n"])
        self.c, self.terminal_first = c, terminal_first

    def initial_state(self):
        return np.array([-self.c, 0.0])

    def derivatives(self, t, x, u):
        return np.array([1.0, 0.0])

    def events(self):
        count = StateEvent(lambda t, x, u: x[0], direction=1, name="count",
                           reset=lambda t, x, u: np.array([x[0], x[1] + 1.0]))
        if self.terminal_first is None:
            return [count]
        stop = StateEvent(lambda t, x, u: x[0], direction=1, name="stop", terminal=True)
        return [stop, count] if self.terminal_first else [count, stop]


@pytest.mark.parametrize("d", [1e-15, 1e-13, 9e-13, 1e-10])
def test_counting_events_a_hair_apart_in_two_systems_each_fire_once(d):
    r = simulate([Counter("a", 1.0), Counter("b", 1.0 + d)], 3.0)
    assert r.final("a.n") == 1.0 and r.final("b.n") == 1.0


@pytest.mark.parametrize("terminal_first", [True, False])
def test_a_terminal_event_lets_the_other_events_of_its_instant_fire(terminal_first):
    r = simulate(Counter("s", 1.0, terminal_first=terminal_first), 3.0)
    assert sorted(ev.name for ev in r.events) == ["count", "stop"]
    assert r.final("s.n") == 1.0 and r.t[-1] == pytest.approx(1.0, abs=1e-12)


def test_a_reset_that_does_not_hold_a_pushed_block_ends_as_zeno_not_through_the_wall():
    class Pushed(System):
        def __init__(self):
            super().__init__("blk", ["x", "v"], ["force"])

        def initial_inputs(self):
            return np.array([2.0])

        def derivatives(self, t, x, u):
            return np.array([x[1], u[0]])

        def events(self):  # no mode to hold it: each reset to rest is pushed straight back in
            return [StateEvent(lambda t, x, u: x[0] - 1.0, direction=1, name="wall",
                               reset=lambda t, x, u: np.array([1.0, 0.0]))]

    with pytest.raises(IntegrationError, match="Zeno") as ei:
        simulate(Pushed(), 3.0)
    assert ei.value.t == pytest.approx(1.0, abs=1e-9)  # x = t^2 reaches the wall at t = 1


def test_a_pass_through_event_fires_once_and_two_events_at_one_instant_both_fire():
    class Counted(NamedBall):
        def events(self):
            return [StateEvent(lambda t, x, u: x[0] - 0.5, direction=-1, name="half"),
                    StateEvent(lambda t, x, u: x[0], direction=-1, name="floor_count"),
                    StateEvent(lambda t, x, u: x[0], direction=-1, name="bounce",
                               reset=lambda t, x, u: np.array([x[0], -self.e * x[1]]))]

    r = simulate(Counted("ball"), 1.5)
    ref = _bounce_times(1.0, 0.8, 1.5)
    np.testing.assert_allclose(r.event_times("floor_count"), ref, atol=1e-9)
    np.testing.assert_allclose(r.event_times("bounce"), ref, atol=1e-9)
    # h = 0.5 on the way down: at sqrt(2 * 0.5 / g), then on each later descent through 0.5 m
    half = r.event_times("half")
    assert half[0] == pytest.approx(math.sqrt(1.0 / 9.81), abs=1e-9)
    v1 = 0.8 * math.sqrt(2 * 9.81)  # first rebound speed: apex 0.64 m, so it falls through 0.5 m again
    t_apex = ref[0] + v1 / 9.81
    assert half[1] == pytest.approx(t_apex + math.sqrt(2 * (v1 ** 2 / (2 * 9.81) - 0.5) / 9.81), abs=1e-9)


class Block(System):
    """A unit mass pushed by a held force against a wall at x = 1, with a 'resting' mode."""

    def __init__(self):
        super().__init__("block", ["x", "v"], ["force"])

    def initial_mode(self, t, x, u):
        return "free"

    def derivatives(self, t, x, u):
        if self.mode == "resting":
            return np.zeros(2)
        return np.array([x[1], u[0]])

    def events(self):
        if self.mode == "resting":
            return [StateEvent(lambda t, x, u: -u[0], direction=+1, mode="free", name="release")]
        return [StateEvent(lambda t, x, u: x[0] - 1.0, direction=+1, name="hit",
                           reset=lambda t, x, u: np.array([1.0, 0.0]),
                           mode=lambda t, x, u: "resting" if u[0] >= 0 else "free")]


def test_block_rests_on_stop_without_chattering_and_leaves_when_push_reverses():
    push = PeriodicController(0.01, lambda t, s: {"block.force": 2.0 if t < 3.0 else -1.0}, name="push")
    r = simulate(Block(), 5.0, [push], rtol=1e-10, atol=1e-12)
    names = [e.name for e in r.events]
    assert names == ["hit", "release"]
    hit, release = r.events
    assert hit.t == pytest.approx(1.0, abs=1e-9)  # x = t^2 reaches 1 at t = 1
    assert release.t == 3.0 and release.at_tick  # exactly at the tick where the push reverses
    resting = (r.t > hit.t) & (r.t < release.t)
    assert np.all(r["block.x"][resting] == 1.0) and np.all(r["block.v"][resting] == 0.0)
    # Bounded work while resting: no more solver steps than one per tick interval.
    assert r.stats["n_steps"] < 2 * 501
    after = r.t > 3.0
    np.testing.assert_allclose(r["block.x"][after], 1.0 - 0.5 * (r.t[after] - 3.0) ** 2, atol=1e-9)


def test_restart_at_a_root_does_not_retrigger():
    class Grazing(System):
        def __init__(self):
            super().__init__("g", ["x"])

        def derivatives(self, t, x, u):
            return np.array([1.0])

        def events(self):
            # Reset leaves the guard exactly at its root: half-open semantics must not fire again.
            return [StateEvent(lambda t, x, u: x[0] - 0.5, direction=+1,
                               reset=lambda t, x, u: np.array([0.5]), name="graze")]

    r = simulate(Grazing(), 1.0, rtol=1e-10, atol=1e-12)
    assert len(r.events) == 1


def test_set_inputs_between_advances_fires_input_jump_events():
    sim = Simulator(Block(), rtol=1e-10, atol=1e-12)
    sim.set_inputs({"block.force": 2.0})
    sim.advance(2.0)  # x = t^2 hits the wall at t = 1 and rests there
    assert [e.name for e in sim.result().events] == ["hit"]
    sim.set_inputs({"block.force": -1.0})  # the push reverses between advances, at t = 2
    sim.advance(1.0)
    r = sim.result()
    release = r.events[-1]
    assert release.name == "release" and release.t == 2.0 and release.at_tick
    assert r.final("block.x") == pytest.approx(1.0 - 0.5 * 1.0 ** 2, abs=1e-9)
    # The write shows as two rows at t = 2: the old input, then the new.
    rows = np.flatnonzero(r.t == 2.0)
    assert r["block.force"][rows[0]] == 2.0 and r["block.force"][rows[-1]] == -1.0


class _Puck(System):
    """A 2-D point mass (x, y, vx, vy), 1 kg, pushed by forces (fx, fy): four states, as many as
    the guard samples of a step."""

    def __init__(self, guard):
        super().__init__("puck", ["x", "y", "vx", "vy"], ["fx", "fy"])
        self._guard = guard

    def derivatives(self, t, s, u):
        return np.array([s[2], s[3], u[0], u[1]])

    def events(self):
        return [StateEvent(self._guard, direction=1, name="line", terminal=True)]


@pytest.mark.parametrize("method", ["auto", "DOP853", "Radau"])
def test_a_matrix_product_guard_on_four_states_fires_where_the_line_is_crossed(method):
    # Review finding 1: s @ w on a (4, 4) block of samples returned rows, not columns, and was
    # accepted because the check ran while the puck was at rest. At rest until 0.5 s, then pushed
    # at 2 N: x = (t - 0.5)^2 reaches 1 at t = 1.5.
    w = np.array([1.0, 0.0, 0.0, 0.0])
    push = PeriodicController(0.02, lambda t, sig: {"puck.fx": 0.0 if t < 0.5 else 2.0}, name="push")
    r = simulate(_Puck(lambda t, s, u: s @ w - 1.0), 5.0, [push], method=method)
    assert len(r.events) == 1 and not r.events[0].at_tick
    assert r.events[0].t == pytest.approx(1.5, abs=1e-7)
    assert r.events[0].x_after[0] == pytest.approx(1.0, abs=1e-7)


def test_a_guard_reducing_over_the_state_block_is_called_point_by_point():
    # Review finding 1: np.linalg.norm(x[1:]) of a block is one number for all the instants. With
    # a = t and b = 0.5 (t - 0.5) from 0.5 s on, a - 1 - |b| = 0.5 t - 0.75 crosses at t = 1.5.
    class P(System):
        def __init__(self):
            super().__init__("p", ["a", "b"], ["db"])

        def derivatives(self, t, x, u):
            return np.array([1.0, u[0]])

        def events(self):
            return [StateEvent(lambda t, x, u: x[0] - 1.0 - np.linalg.norm(x[1:]), direction=1,
                               name="reach", terminal=True)]

    ctl = PeriodicController(0.25, lambda t, s: {"p.db": 0.0 if t < 0.5 else 0.5}, name="c")
    r = simulate(P(), 10.0, [ctl], max_step=0.05)
    assert len(r.events) == 1 and not r.events[0].at_tick
    assert r.events[0].t == pytest.approx(1.5, abs=1e-9)
