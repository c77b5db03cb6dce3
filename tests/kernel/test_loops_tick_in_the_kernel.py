"""Control loops of built-in controllers tick inside the kernel, and the run is the Python ticks' run to the bit.

A simulation whose controllers are all ``control_loop``s around a ``PIDController`` (a constant setpoint,
optionally a feedforward object and output limits) runs its ticks in the compiled kernel
(:mod:`simcore.kernel.ticks`): between its start and its end it never calls a loop's Python tick. The
references are the same loops ticking in Python, once on the kernel's integration (the loop's
``kernel_loop`` removed) and once on the Python path (``USE_KERNEL = False``); rows, signals, events,
statistics, tick logs and the controllers' final state must all agree exactly.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.engine as engine
import simcore.models as models
from simcore.controllers import ArmFeedforward, PIDController, SimpleMotorFeedforward, control_loop
from simcore.errors import ConfigError
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.motors import NEO, VEX_775PRO
from test_kernel_equals_the_python_path import _assert_same as same_rows


def _counting(sim):
    """The times at which ``sim`` runs controllers' ticks in Python (the kernel's ticks do not go there)."""
    calls = []
    run_ticks = sim._run_ticks

    def counted(t_ns, **kw):
        calls.append(t_ns / 1e9)
        return run_ticks(t_ns, **kw)

    sim._run_ticks = counted
    return calls


def interrupt_stretch(sim, n):
    """Make ``sim``'s ``n``-th kernel stretch of ticks raise KeyboardInterrupt once its sink has handed its rows to
    the recorder; returns the simulator's own sink maker, to put back."""
    real, calls = sim._ticking_sink, [0]

    def failing(ticked):
        sink = real(ticked)
        calls[0] += 1
        if calls[0] == n:
            def boom(*args):
                sink(*args)
                raise KeyboardInterrupt
            return boom
        return sink

    sim._ticking_sink = failing
    return real


def _three_ways(make, t_end, **kw):
    """The run with the loops in the kernel, ticking in Python on the kernel's integration, and on the Python
    path: ``[(result, controllers, python tick times)]``."""
    runs = []
    for how in ("kernel", "python ticks", "python path"):
        old = engine.USE_KERNEL
        engine.USE_KERNEL = how != "python path"
        try:
            systems, controllers = make()
            if how == "python ticks":
                for c in controllers:
                    c.kernel_loop = None
            sim = simcore.Simulator(systems, controllers, **kw)
            calls = _counting(sim)
            sim.run_until(t_end)
            runs.append((sim.result(), controllers, calls))
        finally:
            engine.USE_KERNEL = old
    return runs


def same_results(ra, rb):
    """Two results agree to the bit: rows, signals, statistics, events, what was dropped, ticks and tick logs."""
    same_rows((ra, []), (rb, []))  # rows, signals, statistics, events
    assert [e.at_tick for e in ra.events] == [e.at_tick for e in rb.events]
    assert ra.dropped == rb.dropped
    for c in ra.controller_names:
        assert np.array_equal(ra.ticks(c), rb.ticks(c))
        assert [(t, {k: float(v) for k, v in w.items()}) for t, w in ra.tick_log(c)] == \
            [(t, {k: float(v) for k, v in w.items()}) for t, w in rb.tick_log(c)]


def _assert_same(a, b):
    same_results(a[0], b[0])
    for ca, cb in zip(a[1], b[1]):  # each loop's PIDController ends where the Python ticks leave it
        pa, pb = ca.kernel_loop.pid if ca.kernel_loop else None, cb.kernel_loop.pid if cb.kernel_loop else None
        if pa is not None and pb is not None:
            assert (pa.error, pa.error_derivative, pa.accumulated_error, pa.setpoint, pa.at_setpoint()) == \
                (pb.error, pb.error_derivative, pb.accumulated_error, pb.setpoint, pb.at_setpoint())


def _check(runs):
    kernel, ticks, path = runs
    _assert_same(kernel, ticks)
    _assert_same(kernel, path)
    # In the kernel the loops' Python ticks ran only at their first ticks (with their on_start).
    assert kernel[2] == sorted({c.offset_ns / 1e9 for c in kernel[1]})
    assert len(ticks[2]) > 10


CASES = []
rng = np.random.default_rng(7)
for i in range(10):
    CASES.append(dict(
        seed=i,
        gearing=float(rng.uniform(20, 150)),
        mass=float(rng.uniform(0.5, 4.0)),
        kp=float(rng.uniform(5, 200)),
        ki=float(rng.choice([0.0, rng.uniform(0.1, 20)])),
        kd=float(rng.uniform(0, 3)),
        i_zone=float(rng.choice([math.inf, rng.uniform(0.05, 1.0)])),
        static=float(rng.choice([0.0, rng.uniform(0.01, 0.5)])),
        limits=None if rng.integers(0, 2) else (-float(rng.uniform(4, 12)), float(rng.uniform(4, 12))),
        feedforward=bool(rng.integers(0, 2)),
        continuous=bool(rng.integers(0, 2)),
        period=float(rng.choice([0.005, 0.01, 0.02])),
        setpoint=float(rng.uniform(-0.6, 1.5)),
        method=str(rng.choice(["auto", "RK45"])),
        record=["all", "ticks", "none", 0.3][int(rng.integers(0, 4))],
    ))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"arm{c['seed']}")
def test_an_arm_under_a_pid_loop_ticking_in_the_kernel_equals_python_ticks(case):
    def make():
        arm = models.Arm(NEO, case["gearing"], mass=case["mass"], com_distance=0.3, min_angle=-0.8, max_angle=1.6,
                         static_friction=case["static"])
        pid = PIDController(case["kp"], case["ki"], case["kd"], period=case["period"])
        pid.set_i_zone(case["i_zone"])
        pid.set_integrator_range(-3.0, 3.0)
        if case["continuous"]:
            pid.enable_continuous_input(-math.pi, math.pi)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=case["setpoint"],
                            feedforward=ArmFeedforward(0.05, 0.4, 1.0) if case["feedforward"] else None,
                            output_limits=case["limits"])
        return [arm], [loop]

    _check(_three_ways(make, 1.5, method=case["method"], record=case["record"]))


def test_loops_of_several_rates_and_offsets_on_a_battery_equal_python_ticks():
    def make():
        arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2,
                         efficiency=0.8)
        flywheel = models.Flywheel(NEO, 1.0, moi=0.002, n_motors=2)
        battery = models.Battery(resistance=0.03)
        arm_loop = control_loop(PIDController(80.0, 1.0, 1.0, period=0.02), measure="arm.angle",
                                command="arm.voltage", setpoint=1.4, output_limits=(-12.0, 12.0), name="arm_pid")
        flywheel_loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.005), measure="flywheel.velocity",
                                     command="flywheel.voltage", setpoint=400.0,
                                     feedforward=SimpleMotorFeedforward(0.1, 0.02), output_limits=(-12.0, 12.0),
                                     name="flywheel_pid", offset=0.0)
        return [arm, flywheel, battery], [arm_loop, flywheel_loop]

    runs = _three_ways(make, 0.8, method="RK45")
    _check(runs)
    assert runs[0][0].events  # the arm's stiction fired (at ticks too: the writes release it)


def test_a_loop_whose_first_tick_comes_later_starts_in_python_then_ticks_in_the_kernel():
    def make():
        elevator = models.Elevator(VEX_775PRO, 20, carriage_mass=5.0, drum_radius=0.02, min_height=0.0,
                                   max_height=1.2, n_motors=2)
        loop = control_loop(PIDController(60.0, 0.0, 2.0, period=0.01), measure="elevator.position",
                            command="elevator.voltage", setpoint=0.8, offset=0.013, output_limits=(-12, 12))
        return [elevator], [loop]

    kernel, ticks, path = _three_ways(make, 1.0)
    _assert_same(kernel, ticks)
    _assert_same(kernel, path)
    assert kernel[2] == [0.013]  # its first tick (with its on_start) in Python, the rest in the kernel


def _arm_and_loop():
    arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
    return arm, control_loop(PIDController(60.0, 0.5, 1.0, period=0.02), measure="arm.angle",
                             command="arm.voltage", setpoint=2.0)


def test_advancing_in_pieces_that_end_on_ticks_equals_one_run():
    arm, loop = _arm_and_loop()
    whole = simcore.simulate(arm, 1.0, [loop])
    arm, loop = _arm_and_loop()
    sim = simcore.Simulator(arm, [loop])
    calls = _counting(sim)
    for dt in [0.02, 0.0, 0.1, 0.5, 0.38]:
        sim.advance(dt)
    pieces = sim.result()
    assert calls == [0.0]  # the rest ticked in the kernel
    assert np.array_equal(whole.t, pieces.t)
    for name in ("arm.angle", "arm.velocity", "arm.voltage"):
        assert np.array_equal(whole[name], pieces[name]), name
    assert pieces.tick_log(loop.name) == whole.tick_log(loop.name)


def test_advancing_in_pieces_between_ticks_equals_python_ticks():
    """A piece that ends between two ticks ends an integration interval there (as a robot loop's
    ``advance`` does); the kernel's ticks do the same as Python's."""
    results = []
    for kernel in (True, False):
        arm, loop = _arm_and_loop()
        if not kernel:
            loop.kernel_loop = None
        sim = simcore.Simulator(arm, [loop])
        calls = _counting(sim)
        for dt in [0.013, 0.02, 0.0, 0.107, 0.5, 0.36]:
            sim.advance(dt)
        results.append(sim.result())
        assert (calls == [0.0]) == kernel
    assert np.array_equal(results[0].t, results[1].t)
    for name in ("arm.angle", "arm.velocity", "arm.voltage"):
        assert np.array_equal(results[0][name], results[1][name]), name


def test_a_refused_write_raises_as_python_ticks_do():
    """A motor's ``brake`` input accepts [0, 1]: a loop writing it, its integral growing, writes past 1 after a
    while. The kernel refuses the write and leaves the tick to Python, which raises naming the input, at the
    same time."""
    def make():
        hub = models.HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="hub")
        pid = PIDController(0.005, 0.1, 0.0, period=0.01)
        pid.set_integrator_range(-5.0, 5.0)
        return [hub], [control_loop(pid, measure="hub.angle", command="hub.brake", setpoint=50.0, name="brake")]

    assert_refused_as_python_ticks_refuse(make, 1.0)


def assert_refused_as_python_ticks_refuse(make, t_end):
    """The run of ``make()``'s loop "brake" (commanding "hub.brake") raises the same ConfigError naming the input, at
    the same time and with the same rows and tick log, whether its loop ticks in the kernel or in Python."""
    messages = []
    for flag in (True, False):
        systems, controllers = make()
        if not flag:
            controllers[0].kernel_loop = None
        sim = simcore.Simulator(systems, controllers)
        calls = _counting(sim)
        with pytest.raises(ConfigError) as info:
            sim.run_until(t_end)
        messages.append((str(info.value), sim.t, sim.result().t[-1], sim.result().tick_log("brake")))
        if flag:  # the first tick and the refused one ran in Python, those between in the kernel
            assert calls == [0.0, sim.t] and sim.t > 0.1
    assert messages[0] == messages[1]
    assert "hub.brake" in messages[0][0]


def test_auto_handing_a_stiff_run_to_its_implicit_method_equals_python_ticks():
    def make():
        flywheel = models.Flywheel(NEO, 1.0, moi=1.2e-6)  # the motor's electrical time constant makes it stiff
        return [flywheel], [control_loop(PIDController(0.01, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                                         command="flywheel.voltage", setpoint=300.0, output_limits=(-12, 12))]

    runs = _three_ways(make, 0.3, method="auto")
    kernel, ticks, path = runs
    _assert_same(kernel, ticks)
    _assert_same(kernel, path)
    assert kernel[0].stats["intervals_by_method"].get("Radau", 0) > 0  # it was handed over...
    assert kernel[2][:2] == [0.0, kernel[2][1]] and kernel[2][1] > 0.02  # ...after ticks in the kernel


def test_two_loops_commanding_one_input_record_the_last_write():
    """Two loops at different rates write one input: each row holds the value written last (by either)."""
    def make():
        arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6)
        fast = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                            setpoint=1.0, name="fast")
        slow = control_loop(PIDController(80.0, 0.0, 0.0, period=0.03), measure="arm.angle",
                            command="arm.voltage", setpoint=-0.3, offset=0.005, name="slow")
        return [arm], [fast, slow]

    _check(_three_ways(make, 0.6))


def test_one_controller_in_two_loops_ticks_in_python():
    """Two loops sharing one PIDController update its one state tick by tick: the kernel, which holds a state per
    loop, leaves them to Python, and the run is the Python path's."""
    def make():
        pid = PIDController(40.0, 1.0, 1.0, period=0.02)
        arms = [models.Arm(NEO, 60, mass=m, com_distance=0.3, min_angle=-0.8, max_angle=1.6, name=f"arm{i}")
            for i, m in enumerate((1.0, 2.0))]
        return arms, [control_loop(pid, measure=f"arm{i}.angle", command=f"arm{i}.voltage", setpoint=1.0,
                                   name=f"loop{i}") for i in range(2)]

    kernel, ticks, path = _three_ways(make, 0.5)
    _assert_same(kernel, path)
    assert len(kernel[2]) > 10


def test_a_loop_whose_tick_or_law_a_team_replaced_ticks_in_python():
    """A wrapped ``loop.fn`` (a disturbance added) or a ``calculate`` replaced on the controller is the team's
    own code: such a loop ticks in Python, as written."""
    for how in ("fn", "calculate"):
        arm, loop = _arm_and_loop()
        if how == "fn":
            own = loop.fn
            loop.fn = lambda t, s: {"arm.voltage": own(t, s)["arm.voltage"] - 5.0}
        else:  # the controller's law replaced before the loop is made (the loop calls what it was given)
            pid = PIDController(60.0, 0.5, 1.0, period=0.02)
            law = pid.calculate
            pid.calculate = lambda m, r=None: 0.5 * law(m, r)
            loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=2.0)
        sim = simcore.Simulator(arm, [loop])
        calls = _counting(sim)
        sim.run_until(0.5)
        assert len(calls) == 26, how
        ran = sim.result().tick_log(loop.name)[3][1]["arm.voltage"]
        arm, plain = _arm_and_loop()
        reference = simcore.simulate(arm, 0.5, [plain]).tick_log(plain.name)[3][1]["arm.voltage"]
        assert ran != reference, how


def test_a_long_advance_keeps_what_record_keeps_as_it_goes():
    """One advance of many ticks stays within what ``record=`` keeps: the kernel's stretches are kept one by one
    (under "none" the staged rows never exceed one buffer)."""
    from simcore.compiled_run import ROW_BUFFER

    flywheel = models.Flywheel(NEO, 1.0, moi=0.002)
    loop = control_loop(PIDController(0.02, 0.0, 0.0, period=0.001), measure="flywheel.velocity",
                        command="flywheel.voltage", setpoint=300.0, output_limits=(-12, 12))
    sim = simcore.Simulator(flywheel, [loop], record="none")
    most = [0]
    stage = sim._rec.commit

    def commit(now):
        most[0] = max(most[0], len(sim._rec._pending))
        return stage(now)

    sim._rec.commit = commit
    sim.advance(5.0)
    r = sim.result()
    assert len(r.t) == 1 and r.dropped["ticks"] == 5000 and most[0] <= ROW_BUFFER


def test_an_interrupted_advance_keeps_what_completed_and_goes_on_as_one_run(monkeypatch):
    """An exception in a kernel stretch (here from the recorder, on the third stretch) leaves the simulation at
    the end of the last stretch kept, its inputs as they were there; advancing again gives the uninterrupted run."""
    def make():
        arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2)
        flywheel = models.Flywheel(NEO, 1.0, moi=0.002, n_motors=2)
        battery = models.Battery(resistance=0.03)
        return [arm, flywheel, battery], [
            control_loop(PIDController(80.0, 1.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                         setpoint=1.4, output_limits=(-12.0, 12.0), name="arm_pid"),
            control_loop(PIDController(0.05, 0.0, 0.0, period=0.001), measure="flywheel.velocity",
                         command="flywheel.voltage", setpoint=400.0, output_limits=(-12.0, 12.0), name="fw_pid")]

    systems, controllers = make()
    whole = simcore.Simulator(systems, controllers)
    whole.run_until(3.0)
    systems, controllers = make()
    sim = simcore.Simulator(systems, controllers)
    real = interrupt_stretch(sim, 3)
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(3.0)
    assert 0.0 < sim.t < 3.0  # two stretches were kept
    kept = [u.copy() for u in sim._layout.U]
    sim._ticking_sink = real
    sim.run_until(3.0)
    a, b = whole.result(), sim.result()
    assert np.array_equal(a.t, b.t)
    for name in a.names:
        assert np.array_equal(a[name], b[name]), name
    assert kept  # (the inputs were put back: the rerun above is the uninterrupted run)


def test_a_kernel_loops_tick_log_is_the_python_ticks_log_after_pickling():
    """The kernel's ticks are kept as its records until the tick log is read; the log read then, before or
    after a pickle round trip, is the Python ticks' log: (t, {input: value}) per tick, floats."""
    import pickle

    def make():
        arm, loop = _arm_and_loop()
        return [arm], [loop]

    kernel, ticks, _ = _three_ways(make, 1.0)
    for result in (kernel[0], pickle.loads(pickle.dumps(kernel[0]))):
        log = result.tick_log("arm.voltage loop")
        assert log == ticks[0].tick_log("arm.voltage loop")
        assert all(isinstance(t, float) and isinstance(w["arm.voltage"], float) for t, w in log)
        assert result.tick_log("arm.voltage loop") is log  # (made once)
    assert len(log) == 51
