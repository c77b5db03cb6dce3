"""Loops the kernel can tick, beside controllers that tick in Python, in one serial run.

The loops around a ``PIDController`` (a constant setpoint) tick in the compiled kernel between the Python
controllers' ticks; at an instant where a Python controller is due, every controller due there ticks in
Python in the order given (the engine's documented order), the kernel's loops among them. The references
are the same run with every loop ticking in Python, once on the kernel's integration (the loops'
``kernel_loop`` removed: the kernel cannot tick them) and once on the Python path (``USE_KERNEL = False``):
rows, signals, events, statistics, tick logs and the controllers' final states must agree to the bit. The
times at which Python runs ticks are checked against the schedule computed here from the periods and
offsets: the Python controllers' ticks and the kernel loops' first ticks (with their ``on_start``), nothing
else.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.engine as engine
import simcore.models as models
from simcore import PeriodicController
from simcore.controllers import ArmFeedforward, PIDController, control_loop
from simcore.models.motors import NEO
from test_loops_tick_in_the_kernel import _counting, interrupt_stretch, same_results

T_END = 0.6


def _tick_times(period, offset, t_end):
    """Tick instants ``offset + k * period <= t_end``, ns (the schedule's rule, computed here)."""
    p, o, e = round(period * 1e9), round(offset * 1e9), round(t_end * 1e9)
    return list(range(o, e + 1, p))


def _runs(make, drive):
    """``[(result, pids, python tick times, kernel loop names)]`` for the kernel's loops ticking in the kernel,
    every loop ticking in Python on the kernel's integration, and the Python path."""
    runs = []
    for how in ("mixed", "python ticks", "python path"):
        old = engine.USE_KERNEL
        engine.USE_KERNEL = how != "python path"
        try:
            systems, controllers, pids, kw = make()
            in_kernel = [c.name for c in controllers if getattr(c, "kernel_loop", None) is not None]
            if how == "python ticks":
                for c in controllers:
                    c.kernel_loop = None
            sim = simcore.Simulator(systems, controllers, **kw)
            calls = _counting(sim)
            drive(sim)
            runs.append((sim.result(), pids, calls, in_kernel, controllers))
        finally:
            engine.USE_KERNEL = old
    return runs


def _assert_same(a, b):
    assert a[0].controller_names == b[0].controller_names
    same_results(a[0], b[0])  # rows, signals, statistics, events, ticks and tick logs
    for pa, pb in zip(a[1], b[1]):  # every PIDController ends where the Python ticks leave it
        assert (pa.error, pa.error_derivative, pa.accumulated_error, pa.setpoint, pa.at_setpoint(), pa.kp) == \
            (pb.error, pb.error_derivative, pb.accumulated_error, pb.setpoint, pb.at_setpoint(), pb.kp)


def _check(runs, t_end):
    mixed, ticks, path = runs
    _assert_same(mixed, ticks)
    _assert_same(mixed, path)
    assert mixed[3], "the case has loops the kernel can tick"
    # Python ran ticks at the Python controllers' instants and at the kernel loops' first ticks only.
    expected = set()
    for c in mixed[4]:
        times = _tick_times(c.period_ns / 1e9, c.offset_ns / 1e9, t_end)
        expected.update(times[:1] if c.name in mixed[3] else times)
    assert mixed[2] == [t / 1e9 for t in sorted(expected)]
    assert len(ticks[2]) > len(mixed[2])  # (the reference ticked the loops in Python)


def _mix(case):
    """A random mix: an arm (stops, stiction that a write releases) and a flywheel, maybe on a battery; one or
    two loops the kernel can tick; Python controllers that write the input a kernel loop commands (reading it
    first), write another input, loop with a setpoint function or retune a kernel loop's PIDController."""
    rng = np.random.default_rng(case)

    def make():
        r = np.random.default_rng(case)
        arm = models.Arm(NEO, float(r.uniform(30, 120)), mass=float(r.uniform(0.5, 3.0)), com_distance=0.3,
                         min_angle=-0.6, max_angle=1.0, static_friction=float(r.choice([0.0, r.uniform(0.05, 0.4)])))
        flywheel = models.Flywheel(NEO, 1.0, moi=0.002)
        systems = [arm, flywheel] + ([models.Battery(resistance=0.03)] if r.integers(0, 2) else [])
        kernel_periods = [0.001, 0.002, 0.0025, 0.003, 0.005, 0.007]
        offsets = [0.0, 0.0005, 0.001, 0.0013]
        pids, controllers = [], []
        arm_pid = PIDController(float(r.uniform(10, 120)), float(r.choice([0.0, 2.0])), float(r.uniform(0, 2)),
                                period=float(r.choice(kernel_periods)))
        pids.append(arm_pid)
        controllers.append(control_loop(arm_pid, measure="arm.angle", command="arm.voltage",
                                        setpoint=float(r.uniform(0.3, 0.98)), name="arm_pid",
                                        offset=float(r.choice(offsets)), output_limits=(-12.0, 12.0),
                                        feedforward=ArmFeedforward(0.05, 0.4, 1.0) if r.integers(0, 2) else None))
        if r.integers(0, 2):
            fw_pid = PIDController(0.05, 0.0, 0.0, period=float(r.choice(kernel_periods)))
            pids.append(fw_pid)
            controllers.append(control_loop(fw_pid, measure="flywheel.velocity", command="flywheel.voltage",
                                            setpoint=float(r.uniform(100, 400)), name="fw_pid",
                                            offset=float(r.choice(offsets)), output_limits=(-12.0, 12.0)))
        python_periods = [0.01, 0.02, 0.015, 0.0125, 0.004]
        python_offsets = [0.0, 0.001, 0.0035, 0.002]
        kinds = r.choice(["same input", "other input", "setpoint function", "retune"], size=int(r.integers(1, 3)),
                         replace=False)
        for kind in kinds:
            period, offset = float(r.choice(python_periods)), float(r.choice(python_offsets))
            if kind == "same input":  # reads the held input a kernel loop commands, writes it back changed
                gain = float(r.uniform(0.3, 1.2))
                controllers.append(PeriodicController(
                    period, lambda t, s, g=gain: {"arm.voltage": g * s["arm.voltage"] - 2.0 * math.sin(40 * t)},
                    name="robot", offset=offset))
            elif kind == "other input":  # from the state the kernel's loop moves
                controllers.append(PeriodicController(
                    period, lambda t, s: {"flywheel.voltage": 6.0 * s["arm.angle"] + 0.001 * s["flywheel.velocity"]},
                    name="feeder", offset=offset))
            elif kind == "setpoint function":  # a loop the kernel cannot tick (a setpoint that changes)
                own = PIDController(0.04, 0.0, 0.0, period=period)
                pids.append(own)
                controllers.append(control_loop(own, measure="flywheel.velocity", command="flywheel.voltage",
                                                setpoint=lambda t: 300.0 * (1.0 + math.sin(5 * t)), name="fw_profile",
                                                offset=offset, output_limits=(-12.0, 12.0)))
            else:  # robot code retuning the kernel loop's controller (its next stretch reads the new gains)
                def retune(t, s, pid=arm_pid, base=arm_pid.kp):
                    pid.set_pid(base * (1.0 + 0.5 * math.sin(30 * t)), pid.ki, pid.kd)
                    return {"arm.voltage": 0.0} if pid.at_setpoint() else {}
                arm_pid.set_tolerance(0.02)
                controllers.append(PeriodicController(period, retune, name="retune", offset=offset))
        order = r.permutation(len(controllers))
        controllers = [controllers[i] for i in order]
        kw = dict(method=str(r.choice(["auto", "RK45"])), record=["all", "ticks", "none", 0.05][int(r.integers(0, 4))])
        return systems, controllers, pids, kw

    pieces = None
    if rng.integers(0, 2):  # advanced in pieces, some ending on ticks, some between
        pieces = [float(x) for x in rng.choice([0.0, 0.005, 0.0137, 0.02, 0.1, 0.0031], size=8)]
        pieces.append(T_END - sum(pieces))
    return make, pieces


def _drive(pieces):
    def drive(sim):
        if pieces is None:
            sim.run_until(T_END)
        else:
            for dt in pieces:
                sim.advance(dt)
    return drive


@pytest.mark.parametrize("case", range(16))
def test_a_random_mix_of_kernel_loops_and_python_controllers_equals_python_ticks(case):
    make, pieces = _mix(case)
    runs = _runs(make, _drive(pieces))
    _check(runs, T_END)


def _arm():
    return models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2)


@pytest.mark.parametrize("python_first", [True, False])
def test_at_a_shared_instant_the_last_controller_in_the_order_sets_the_held_input(python_first):
    """A 1 kHz loop and a 50 Hz robot controller writing the same input tick together every 20 ms. The input held
    after that instant is the write of whichever comes later in the order given: the robot's zero, or the
    loop's output (its own tick log). The order checked here is the documented one, not the reference's."""
    def make():
        pid = PIDController(60.0, 0.5, 1.0, period=0.001)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=1.0, name="loop",
                            output_limits=(-12.0, 12.0))
        robot = PeriodicController(0.02, lambda t, s: {"arm.voltage": 0.0}, name="robot")
        return [_arm()], [robot, loop] if python_first else [loop, robot], [pid], {}

    runs = _runs(make, lambda sim: sim.run_until(0.2))
    _check(runs, 0.2)
    r = runs[0][0]
    loop_writes = dict((round(t * 1e9), w["arm.voltage"]) for t, w in r.tick_log("loop"))
    for k in range(1, 10):
        shared = round(k * 0.02 * 1e9)
        after = np.flatnonzero(r.t == shared / 1e9)[-1]  # the row after the instant's ticks
        expected = loop_writes[shared] if python_first else 0.0
        assert loop_writes[shared] != 0.0
        assert r["arm.voltage"][after] == expected, k
        assert r["arm.voltage"][after + 1] == expected, k  # held to the loop's next tick


def test_a_python_controller_raising_at_a_tick_goes_on_as_one_run():
    """Robot code interrupted at a tick (a KeyboardInterrupt from its third tick) leaves the loops due at that
    instant before it done; advancing again resumes the tick with it and gives the uninterrupted run."""
    def make(fail):
        pid = PIDController(60.0, 0.5, 1.0, period=0.001)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=1.0, name="loop")
        seen = [0]

        def robot(t, s):
            seen[0] += 1
            if fail and seen[0] == 3:
                raise KeyboardInterrupt
            return {"arm.voltage": 0.8 * s["arm.voltage"]}
        return [_arm()], [loop, PeriodicController(0.02, robot, name="robot")], pid

    systems, controllers, pid_whole = make(False)
    whole = simcore.Simulator(systems, controllers)
    whole.run_until(0.3)
    systems, controllers, pid = make(True)
    sim = simcore.Simulator(systems, controllers)
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(0.3)
    assert sim.t == 0.04
    sim.run_until(0.3)
    _assert_same((sim.result(), [pid]), (whole.result(), [pid_whole]))


def test_an_interrupted_kernel_stretch_between_python_ticks_goes_on_as_one_run():
    """An exception in a kernel stretch (from the recorder, on its fifth stretch) leaves the run at the end of
    the last stretch kept; advancing again gives the uninterrupted run."""
    def make():
        pid = PIDController(60.0, 0.5, 1.0, period=0.001)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=1.0, name="loop")
        robot = PeriodicController(0.02, lambda t, s: {"arm.voltage": 0.8 * s["arm.voltage"]}, name="robot")
        return [_arm()], [robot, loop], pid

    systems, controllers, pid_whole = make()
    whole = simcore.Simulator(systems, controllers)
    whole.run_until(0.3)
    systems, controllers, pid = make()
    sim = simcore.Simulator(systems, controllers)
    real = interrupt_stretch(sim, 5)
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(0.3)
    assert 0.06 < sim.t < 0.1  # four stretches (one per 20 ms between the robot's ticks) were kept
    sim._ticking_sink = real
    sim.run_until(0.3)
    _assert_same((sim.result(), [pid]), (whole.result(), [pid_whole]))


def test_advanced_as_robotpy_update_sim_does_equals_python_ticks():
    """``set_inputs`` then ``advance(0.02)``, as :class:`simcore.robotpy.Physics.update_sim` does each robot loop,
    with a 1 kHz built-in loop and a 5 ms loop written in Python (a device loop of the team's own): the kernel
    ticks its loop between the Python loop's ticks, and the run is the Python ticks' run."""
    def make():
        arm, flywheel = _arm(), models.Flywheel(NEO, 1.0, moi=0.002)
        pid = PIDController(60.0, 0.5, 1.0, period=0.001)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=0.9, name="arm_pid",
                            output_limits=(-12.0, 12.0))
        device = PeriodicController(0.005, lambda t, s: {"flywheel.voltage": 0.02 * (350.0 - s["flywheel.velocity"])},
                                    name="device", offset=0.0015)
        return [arm, flywheel], [device, loop], [pid], dict(record=0.1)

    def drive(sim):
        sim.advance(0.0)
        for k in range(25):  # the robot program's outputs, then 20 ms of physics
            sim.set_inputs({"flywheel.voltage": 3.0 + 0.1 * k} if k % 3 else {"arm.voltage": -4.0})
            sim.advance(0.02)

    runs = _runs(make, drive)
    _check(runs, 0.5)


def test_one_controller_in_a_kernel_loop_and_a_python_loop_keeps_one_state():
    """A PIDController in a loop the kernel ticks and in a loop with a setpoint function (ticking in Python):
    the Python loop's ticks update the state the kernel's loop goes on from, and the other way round."""
    def make():
        pid = PIDController(50.0, 2.0, 1.0, period=0.002)
        pid.set_integrator_range(-2.0, 2.0)
        fixed = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=0.8, name="fixed",
                             output_limits=(-12.0, 12.0))
        moving = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=lambda t: 0.5 + 0.3 * t,
                              name="moving", period=0.002, offset=0.001, output_limits=(-12.0, 12.0))
        return [_arm()], [fixed, moving], [pid], {}

    runs = _runs(make, lambda sim: sim.run_until(0.3))
    assert runs[0][3] == ["fixed"]
    _check(runs, 0.3)


def test_a_loop_a_team_replaced_ticks_in_python_beside_one_the_kernel_ticks():
    """Of two built-in loops, one whose tick function a team wrapped (a disturbance added) ticks in Python, the
    other still in the kernel, between the wrapped one's ticks; a loop whose first tick comes later ticks in
    Python until then (its ``on_start`` with it), then in the kernel."""
    def make():
        arm, flywheel = _arm(), models.Flywheel(NEO, 1.0, moi=0.002)
        arm_pid, fw_pid, late_pid = (PIDController(60.0, 0.5, 1.0, period=0.001),
                                     PIDController(0.05, 0.0, 0.0, period=0.004),
                                     PIDController(0.5, 0.0, 0.0, period=0.002))
        arm_loop = control_loop(arm_pid, measure="arm.angle", command="arm.voltage", setpoint=0.9, name="arm_pid")
        fw_loop = control_loop(fw_pid, measure="flywheel.velocity", command="flywheel.voltage", setpoint=300.0,
                               name="fw_pid", output_limits=(-12.0, 12.0))
        own = fw_loop.fn
        fw_loop.fn = lambda t, s: {"flywheel.voltage": own(t, s)["flywheel.voltage"] - 1.0}
        late = control_loop(late_pid, measure="arm.angle", command="arm.voltage", setpoint=0.2, name="late",
                            offset=0.1)
        return [arm, flywheel], [arm_loop, fw_loop, late], [arm_pid, fw_pid, late_pid], {}

    runs = _runs(make, lambda sim: sim.run_until(0.3))
    mixed = runs[0]
    _assert_same(mixed, runs[1])
    _assert_same(mixed, runs[2])
    # In Python: the wrapped loop's ticks, the others' first ticks.
    expected = sorted(set(_tick_times(0.004, 0.0, 0.3)) | {0, round(0.1e9)})
    assert mixed[2] == [t / 1e9 for t in expected]


def test_auto_handing_a_stiff_mixed_run_to_its_implicit_method_equals_python_ticks():
    """A flywheel whose motor's electrical time constant makes it stiff, under a 20 ms built-in loop beside a 50 ms
    Python controller: "auto" hands the run to Radau after some ticks in the kernel, and from there every
    controller ticks in Python; the run is the Python ticks' run."""
    def make():
        flywheel = models.Flywheel(NEO, 1.0, moi=1.2e-6)
        pid = PIDController(0.01, 0.0, 0.0, period=0.02)
        loop = control_loop(pid, measure="flywheel.velocity", command="flywheel.voltage", setpoint=300.0,
                            output_limits=(-12, 12), name="loop")
        robot = PeriodicController(0.05, lambda t, s: {"flywheel.voltage": 0.9 * s["flywheel.voltage"]}, name="robot",
                                   offset=0.005)
        return [flywheel], [robot, loop], [pid], dict(method="auto")

    runs = _runs(make, lambda sim: sim.run_until(0.3))
    mixed, ticks, path = runs
    _assert_same(mixed, ticks)
    _assert_same(mixed, path)
    assert mixed[0].stats["intervals_by_method"].get("Radau", 0) > 0  # handed over...
    python_ticks = set(mixed[2])
    assert 0.02 not in python_ticks and 0.04 not in python_ticks  # ...after loop ticks in the kernel
