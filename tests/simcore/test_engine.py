"""The engine against analytic solutions: exponential step, exact ZOH discretization,
clock semantics, bouncing ball impact times, resting on a stop, determinism, advance()."""
import math

import numpy as np
import pytest
from scipy.linalg import expm

import simcore.models as models
import simcore
from simcore.models.motors import NEO
from simcore import IntegrationError, PeriodicController, StateEvent, System, simulate, Simulator

METHODS = ["RK45", "DOP853", "LSODA", "Radau", "BDF", "RK23"]


# -- 1. flywheel step against the analytic exponential ------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_flywheel_step_matches_exponential(method):
    G, J, V = 3.0, 0.004, 12.0
    fw = models.Flywheel(NEO, G, J)
    r = simulate(fw, 0.3, inputs={"flywheel.voltage": V}, method=method, rtol=1e-10, atol=1e-12)
    # J dw/dt = G Kt (V - G w / Kv) / R, with R, Kt, Kv from the datasheet values directly.
    R = 12.0 / 105.0
    Kt = 2.6 / 105.0
    Kv = (5676 * 2 * math.pi / 60) / (12.0 - R * 1.8)
    tau = J * R * Kv / (G * G * Kt)
    w_ss = V * Kv / G
    expected = w_ss * (1.0 - np.exp(-r.t / tau))
    assert r.t[-1] == 0.3
    np.testing.assert_allclose(r["flywheel.velocity"], expected, rtol=1e-7, atol=1e-7 * w_ss)
    angle = w_ss * (r.t - tau * (1.0 - np.exp(-r.t / tau)))
    np.testing.assert_allclose(r["flywheel.angle"], angle, rtol=1e-7, atol=1e-7 * w_ss * tau)


# -- 2. exact zero-order-hold discretization ------------------------------------------------------
class TwoStatePlant(System):
    """x' = A x + B u, a lightly damped oscillator."""

    A = np.array([[0.0, 1.0], [-40.0, -1.5]])
    B = np.array([[0.0], [2.0]])

    def __init__(self):
        super().__init__("plant", ["p", "v"], ["u"], ["y"])

    def initial_state(self):
        return np.array([1.0, -0.5])

    def derivatives(self, t, x, u):
        return self.A @ x + self.B[:, 0] * u[0]

    def outputs(self, t, x, u):
        return (x[0] + 0.1 * u[0],)


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau"])
def test_proportional_controller_matches_exact_zoh(method):
    T = 0.02
    K = np.array([3.0, 0.4])
    pc = PeriodicController(T, lambda t, s: {"plant.u": -(K[0] * s["plant.p"] + K[1] * s["plant.v"])}, name="p")
    r = simulate(TwoStatePlant(), 2.0, [pc], method=method, rtol=1e-12, atol=1e-14)
    # Exact discretization from the block matrix exponential of [[A, B], [0, 0]] T.
    M = np.zeros((3, 3))
    M[:2, :2], M[:2, 2:] = TwoStatePlant.A, TwoStatePlant.B
    E = expm(M * T)
    Ad, Bd = E[:2, :2], E[:2, 2:]
    x = np.array([1.0, -0.5])
    expected = [x]
    for _ in range(100):
        u = -(K @ x)
        x = Ad @ x + Bd[:, 0] * u
        expected.append(x)
    expected = np.array(expected)
    ticks = r.ticks("p")
    assert len(ticks) == 101
    got = np.column_stack([r.sample("plant.p", ticks), r.sample("plant.v", ticks)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    # The held input is a true step: constant between ticks, equal to what the controller wrote.
    written = np.array([w["plant.u"] for _, w in r.tick_log("p")])
    mid = ticks[:-1] + T / 2
    np.testing.assert_array_equal(r.sample("plant.u", mid), written[:-1])


def test_solver_lands_on_every_tick_and_never_crosses_one():
    pc = PeriodicController(0.01, lambda t, s: {"plant.u": math.sin(7 * t)}, name="c")
    r = simulate(TwoStatePlant(), 0.5, [pc], rtol=1e-6, atol=1e-9)
    ticks = r.ticks("c")
    for tk in ticks:
        assert np.count_nonzero(r.t == tk) >= 2  # the interval's end with old inputs, then the new row
    # Between two consecutive rows the input never changes unless the row pair is a tick.
    u = r["plant.u"]
    changes = np.flatnonzero(np.diff(u) != 0)
    assert set(r.t[changes + 1]) <= set(ticks)


# -- 3. clock ------------------------------------------------------------------------------------
def test_200hz_over_5s_gives_1001_calls_at_exact_times():
    calls = []
    pc = PeriodicController(1 / 200, lambda t, s: calls.append(t), name="pd")
    r = simulate(TwoStatePlant(), 5.0, [pc])
    assert len(calls) == 1001
    assert calls == [k / 200 for k in range(1001)]
    np.testing.assert_array_equal(r.ticks("pd"), np.array(calls))


def test_multirate_ticks_coincide_exactly_and_in_order():
    order = []
    fast = PeriodicController(0.010, lambda t, s: order.append(("fast", t)), name="fast")
    slow = PeriodicController(0.030, lambda t, s: order.append(("slow", t)), name="slow")
    r = simulate(TwoStatePlant(), 5.0, [slow, fast])
    assert len(r.ticks("fast")) == 501
    assert len(r.ticks("slow")) == 167
    assert r.controller_names == ["slow", "fast"]
    common = set(r.ticks("fast")) & set(r.ticks("slow"))
    assert len(common) == 167  # every slow tick is bit-identical to a fast one
    for i, (name, t) in enumerate(order):
        if name == "slow":
            assert order[i + 1] == ("fast", t)  # given order: slow, then fast, at the same float


def test_offset_ticks_and_end_included():
    pc = PeriodicController(0.1, lambda t, s: None, name="c", offset=0.05)
    r = simulate(TwoStatePlant(), 1.05, [pc])
    np.testing.assert_array_equal(r.ticks("c"), [(5 + 10 * k) / 100 for k in range(11)])


def test_controller_sees_inputs_written_before_it_at_the_same_instant():
    seen = []
    a = PeriodicController(0.1, lambda t, s: {"plant.u": t + 1.0}, name="a")
    b = PeriodicController(0.1, lambda t, s: seen.append(s["plant.u"]), name="b")
    simulate(TwoStatePlant(), 0.3, [a, b])
    assert seen == [1.0, 1.1, 1.2, 1.3]


def test_controller_sees_state_at_the_tick():
    seen = []
    pc = PeriodicController(0.25, lambda t, s: seen.append((t, s["ball.h"])), name="obs")
    simulate(FreeFall(h0=100.0), 1.0, [pc], rtol=1e-12, atol=1e-12)
    for t, h in seen:
        assert h == pytest.approx(100.0 - 0.5 * 9.81 * t * t, abs=1e-9)


# -- 4. events -----------------------------------------------------------------------------------
class FreeFall(System):
    def __init__(self, h0=1.0, e=None):
        super().__init__("ball", ["h", "v"], [], ["energy"], {"h": "m", "v": "m/s"})
        self.h0, self.e = h0, e

    def initial_state(self):
        return np.array([self.h0, 0.0])

    def derivatives(self, t, x, u):
        return np.array([x[1], -9.81])

    def outputs(self, t, x, u):
        return (9.81 * x[0] + 0.5 * x[1] ** 2,)

    def events(self):
        if self.e is None:
            return []
        return [StateEvent(lambda t, x, u: x[0], direction=-1,
                           reset=lambda t, x, u: np.array([0.0, -self.e * x[1]]), name="bounce")]


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


# -- 5. determinism and advance() ---------------------------------------------------------------------
def _closed_loop(**kw):
    fw = models.Flywheel(NEO, 2.0, 0.01, stator_current_limit=40.0)
    pc = PeriodicController(0.01, lambda t, s: {"flywheel.voltage": 0.05 * (300.0 - s["flywheel.velocity"])},
                            name="pid")
    return fw, [pc]


def test_identical_runs_are_bit_identical():
    fw, ctl = _closed_loop()
    a = simulate(fw, 1.0, ctl)
    fw, ctl = _closed_loop()
    b = simulate(fw, 1.0, ctl)
    assert a.names == b.names
    np.testing.assert_array_equal(a.t, b.t)
    for n in a.names:
        np.testing.assert_array_equal(a[n], b[n])


def test_advance_in_chunks_reproduces_simulate():
    fw, ctl = _closed_loop()
    ref = simulate(fw, 1.0, ctl)
    sys_, ctl = _closed_loop()
    sim = Simulator(sys_, ctl)
    for _ in range(50):
        sim.advance(0.02)
    assert sim.t == 1.0
    got = sim.result()
    np.testing.assert_array_equal(got.t, ref.t)
    for n in ref.names:
        np.testing.assert_allclose(got[n], ref[n], rtol=0, atol=1e-12)


def test_simulator_signals_and_set_inputs():
    sim = Simulator(TwoStatePlant())
    sig = sim.signals
    assert sig["plant.p"] == 1.0 and sig["plant.y"] == 1.0
    sim.set_inputs({"plant.u": 2.0})
    assert sig["plant.u"] == 2.0 and sig["plant.y"] == pytest.approx(1.2)
    sim.advance(0.1)
    assert sig.t == pytest.approx(0.1) and sig["plant.p"] != 1.0
    assert set(sig) == {"plant.p", "plant.v", "plant.u", "plant.y"}


# -- results -----------------------------------------------------------------------------------
def test_result_quantity_plot_csv(tmp_path):
    r = simulate(FreeFall(h0=10.0), 1.0)
    q = r.quantity("ball.h")
    assert q.units == simcore.ureg.meter
    fig = r.plot("ball.h", "ball.v")
    assert len(fig.axes) == 2 and "[m]" in fig.axes[0].get_ylabel()
    r.to_csv(tmp_path / "r.csv")
    data = np.genfromtxt(tmp_path / "r.csv", delimiter=",", names=True)
    np.testing.assert_array_equal(data["t_s"], r.t)
    assert r.stats["nfev"] > 0


def test_default_plot_says_how_many_signals_it_left_out():
    from simcore.result import Result
    t = np.linspace(0.0, 1.0, 11)
    r = Result.from_arrays(t, {f"s.x{i}": t * i for i in range(9)})
    fig = r.plot()
    assert sum(len(ax.get_lines()) for ax in fig.axes) == 6
    assert "3 more signals not shown" in fig._suptitle.get_text()


def test_inputs_plot_as_steps():
    pc = PeriodicController(0.1, lambda t, s: {"plant.u": float(round(10 * t) % 2)}, name="sq")
    r = simulate(TwoStatePlant(), 0.5, [pc])
    fig = r.plot("plant.u")
    line = fig.axes[0].get_lines()[0]
    assert line.get_drawstyle() == "steps-post"


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
