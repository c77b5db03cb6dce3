"""The engine against analytic solutions: exponential step, exact ZOH discretization,
clock semantics, determinism, advance(). The events are tested in test_events.py."""
import math

import numpy as np
import pytest
from scipy.linalg import expm

import simcore.models as models
import simcore
from simcore.models.motors import NEO
from simcore import PeriodicController, System, simulate, Simulator

from _systems import FreeFall

METHODS = ["RK45", "DOP853", "LSODA", "Radau", "BDF", "RK23"]


# -- 1. flywheel step against the analytic exponential ------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_flywheel_step_matches_exponential(method):
    G, J, V = 3.0, 0.004, 12.0
    fw = models.Flywheel(NEO, G, J, viscous_friction=0)  # the frictionless plant of the exponential below
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
