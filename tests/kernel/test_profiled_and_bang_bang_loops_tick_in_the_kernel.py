"""Control loops around a ``ProfiledPIDController`` or a ``BangBangController`` tick inside the kernel, and the run
is the Python ticks' run to the bit.

A ``control_loop`` around a ProfiledPIDController with a constant goal (a number, the position at rest, or a
(position, velocity) pair), or around a BangBangController with a constant setpoint, optionally with a feedforward
object and output limits, ticks in the compiled kernel (:mod:`simcore.kernel.ticks`, kinds ``profiled_pid`` and
``bangbang``). References: the same loops ticking in Python on the kernel's integration and on the Python path
(rows, signals, events, tick logs, the controllers' final state to the bit); and, independently, the trapezoid
the profile must follow, written out here from its definition, and the bang-bang law on the recorded speeds.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore.controllers import (ArmFeedforward, BangBangController, ElevatorFeedforward, ProfiledPIDController,
                                 SimpleMotorFeedforward, control_loop)
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.motors import NEO, VEX_775PRO
from test_loops_tick_in_the_kernel import _counting, _three_ways, assert_refused_as_python_ticks_refuse, same_results


def _controller_state(c):
    return (c.goal, c.setpoint, c.position_error, c.velocity_error, c.at_setpoint(), c.at_goal())


def _check(runs, controllers_of):
    kernel, ticks, path = runs
    for other in (ticks, path):
        same_results(kernel[0], other[0])
        assert [_controller_state(c) for c in controllers_of(kernel[1])] == \
            [_controller_state(c) for c in controllers_of(other[1])]
    # in the kernel the loops' Python ticks ran only at their first ticks (with their on_start: the reset)
    assert kernel[2] == sorted({c.offset_ns / 1e9 for c in kernel[1]})
    assert len(ticks[2]) > 10


CASES = []
rng = np.random.default_rng(11)
for i in range(8):
    CASES.append(dict(
        seed=i,
        gearing=float(rng.uniform(40, 150)),
        mass=float(rng.uniform(0.5, 3.0)),
        kp=float(rng.uniform(10, 120)),
        ki=float(rng.choice([0.0, rng.uniform(0.1, 5)])),
        kd=float(rng.uniform(0, 2)),
        max_velocity=float(rng.uniform(0.5, 4.0)),
        max_acceleration=float(rng.uniform(1.0, 10.0)),
        limits=None if rng.integers(0, 2) else (-float(rng.uniform(6, 12)), float(rng.uniform(6, 12))),
        feedforward=bool(rng.integers(0, 2)),  # (with a number goal: a feedforward object reads the goal)
        continuous=bool(rng.integers(0, 2)),
        period=float(rng.choice([0.005, 0.01, 0.02])),
        goal=float(rng.uniform(-0.4, 1.5)) if rng.integers(0, 2) else (float(rng.uniform(-0.4, 1.2)),
                                                                        float(rng.uniform(-0.3, 0.3))),
        method=str(rng.choice(["auto", "RK45"])),
        record=["all", "ticks", "none", 0.3][int(rng.integers(0, 4))],
    ))


def _goal_name(goal):
    return "number" if isinstance(goal, float) else "pair"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"arm{c['seed']}-{_goal_name(c['goal'])}")
def test_an_arm_under_a_profiled_loop_ticking_in_the_kernel_equals_python_ticks(case):
    def make():
        arm = models.Arm(NEO, case["gearing"], mass=case["mass"], com_distance=0.3, min_angle=-0.8, max_angle=1.6)
        pid = ProfiledPIDController(case["kp"], case["ki"], case["kd"], case["max_velocity"],
                                    case["max_acceleration"],
                                    period=case["period"])
        pid.set_tolerance(0.02, 0.1)
        if case["continuous"]:
            pid.enable_continuous_input(-math.pi, math.pi)
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=case["goal"],
                            feedforward=ArmFeedforward(0.05, 0.4, 1.0)
                            if case["feedforward"] and isinstance(case["goal"], float) else None,
                            output_limits=case["limits"])
        loop.own_controller = pid  # (the python-ticks run removes its kernel_loop)
        return [arm], [loop]

    _check(_three_ways(make, 1.5, method=case["method"], record=case["record"]), lambda cs: [cs[0].own_controller])


def test_a_profiled_loop_beside_a_pid_loop_on_a_battery_equals_python_ticks():
    from simcore.controllers import PIDController

    def make():
        elevator = models.Elevator(VEX_775PRO, 20, carriage_mass=5.0, drum_radius=0.02, min_height=0.0,
                                   max_height=1.2, n_motors=2)
        flywheel = models.Flywheel(NEO, 1.0, moi=0.002, n_motors=2)
        battery = models.Battery(resistance=0.03)
        profiled = ProfiledPIDController(60.0, 0.0, 2.0, 0.8, 2.0, period=0.01)
        lift = control_loop(profiled,
                            measure="elevator.position", command="elevator.voltage", setpoint=0.9,
                            feedforward=ElevatorFeedforward(0.1, 0.6, 10.0), output_limits=(-12.0, 12.0),
                            name="lift", offset=0.003)
        shooter = control_loop(PIDController(0.05, 0.0, 0.0, period=0.005), measure="flywheel.velocity",
                               command="flywheel.voltage", setpoint=400.0, output_limits=(-12.0, 12.0),
                               name="shooter")
        lift.own_controller = profiled
        return [elevator, flywheel, battery], [lift, shooter]

    runs = _three_ways(make, 1.0, method="RK45")
    _check(runs, lambda cs: [cs[0].own_controller])


def _trapezoid(t, distance, v_max, a_max):
    """Position along a rest-to-rest trapezoid (or triangle) of ``distance`` > 0 at time ``t``, from its
    definition: accelerate at a_max to v_max (or to the peak the distance allows), cruise, decelerate."""
    t_ramp = v_max / a_max
    if a_max * t_ramp * t_ramp > distance:  # a triangle: the peak speed is sqrt(a d)
        t_ramp = math.sqrt(distance / a_max)
        v_max = a_max * t_ramp
    t_cruise = (distance - a_max * t_ramp * t_ramp) / v_max
    if t <= t_ramp:
        return 0.5 * a_max * t * t
    if t <= t_ramp + t_cruise:
        return 0.5 * a_max * t_ramp * t_ramp + v_max * (t - t_ramp)
    tau = min(t, 2 * t_ramp + t_cruise) - t_ramp - t_cruise
    return 0.5 * a_max * t_ramp * t_ramp + v_max * t_cruise + v_max * tau - 0.5 * a_max * tau * tau


@pytest.mark.parametrize("goal, v_max, a_max", [(1.0, 0.8, 2.0), (0.3, 2.0, 1.5)], ids=["trapezoid", "triangle"])
def test_the_profile_a_kernel_loop_tracks_is_the_trapezoid(goal, v_max, a_max):
    """The setpoint the kernel's ticks leave after n ticks is the rest-to-rest trapezoid from the start (the
    controller re-plans from its setpoint each tick, which keeps it on the same motion) at n periods."""
    period = 0.01
    for n_ticks in (7, 40, 131, 300):
        elevator = models.Elevator(VEX_775PRO, 20, carriage_mass=5.0, drum_radius=0.02, min_height=0.0,
                                   max_height=1.2, n_motors=2)
        pid = ProfiledPIDController(60.0, 0.0, 2.0, v_max, a_max, period=period)
        sim = simcore.Simulator([elevator], [control_loop(pid, measure="elevator.position",
                                                          command="elevator.voltage", setpoint=goal)])
        calls = _counting(sim)
        sim.run_until(n_ticks * period - period / 2)  # ticks 0 .. n - 1
        assert calls == [0.0]  # the first tick in Python, the others in the kernel
        assert pid.setpoint.position == pytest.approx(_trapezoid(n_ticks * period, goal, v_max, a_max), abs=1e-12)


def test_a_refused_write_of_a_profiled_loop_raises_as_python_ticks_do():
    """A motor's ``brake`` input accepts [0, 1]: a profiled loop writing it (the motor does not move) writes past 1
    as its profile moves away. The kernel refuses the write and leaves the tick to Python, which raises naming the
    input, at the same time."""
    def make():
        hub = models.HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="hub")
        pid = ProfiledPIDController(5.0, 0.0, 0.0, 2.0, 4.0, period=0.01)
        return [hub], [control_loop(pid, measure="hub.angle", command="hub.brake", setpoint=50.0, name="brake")]

    assert_refused_as_python_ticks_refuse(make, 2.0)


def test_a_profiled_loop_with_a_goal_function_ticks_in_python():
    arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
    pid = ProfiledPIDController(40.0, 0.0, 1.0, 1.0, 3.0, period=0.02)
    loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=lambda t: 0.5)
    assert getattr(loop, "kernel_loop", None) is None


def test_a_bang_bang_loop_ticking_in_the_kernel_equals_python_ticks_and_its_law():
    """A flywheel under a BangBangController loop (plus a feedforward at the setpoint): the kernel's ticks are the
    Python ticks' to the bit, and each write is the feedforward plus 1 V exactly when the speed read at that tick
    was below the setpoint (WPILib's law, checked on the recorded speed)."""
    setpoint, ff = 300.0, SimpleMotorFeedforward(0.1, 0.02)

    def make():
        flywheel = models.Flywheel(NEO, 1.0, moi=0.002, n_motors=1)
        controller = BangBangController(5.0)
        loop = control_loop(controller, measure="flywheel.velocity", command="flywheel.voltage", setpoint=setpoint,
                            feedforward=ff, period=0.005, name="bang")
        loop.own_controller = controller
        return [flywheel], [loop]

    runs = _three_ways(make, 1.0, method="RK45")
    kernel, ticks, path = runs
    for other in (ticks, path):
        same_results(kernel[0], other[0])
        a, b = kernel[1][0].own_controller, other[1][0].own_controller
        assert (a.setpoint, a.measurement, a.at_setpoint()) == (b.setpoint, b.measurement, b.at_setpoint())
    assert kernel[2] == [0.0]
    result = kernel[0]
    base = ff.calculate(setpoint)
    written = [w["flywheel.voltage"] for _, w in result.tick_log("bang")]
    speeds = result.sample("flywheel.velocity", result.ticks("bang")).tolist()  # (a state: continuous at ticks)
    assert written == [base + (1.0 if v < setpoint else 0.0) for v in speeds]
    assert 0.0 < np.mean([v < setpoint for v in speeds]) < 1.0  # it reached the setpoint and switched


def test_a_loop_around_a_profiled_controllers_inner_pid_makes_both_tick_in_python():
    """A second loop around the profiled controller's inner PIDController shares its state with the first: the
    kernel keeps one state per loop, so neither ticks there, and the run is the Python ticks' run."""
    def make():
        profiled = ProfiledPIDController(40.0, 2.0, 0.5, 2.0, 4.0, period=0.02)
        arm = models.Arm(NEO, 100.0, mass=2.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6)
        other = models.Arm(NEO, 80.0, mass=1.0, com_distance=0.2, min_angle=-0.8, max_angle=1.6, name="arm2")
        outer = control_loop(profiled, measure="arm.angle", command="arm.voltage", setpoint=1.0, name="profiled")
        inner = control_loop(profiled.pid, measure="arm2.angle", command="arm2.voltage", setpoint=0.5, name="inner",
                             offset=0.01)
        outer.own_controller = profiled
        return [arm, other], [outer, inner]

    kernel, ticks, path = _three_ways(make, 1.0, method="RK45")
    for other in (ticks, path):
        same_results(kernel[0], other[0])
        assert _controller_state(kernel[1][0].own_controller) == _controller_state(other[1][0].own_controller)
    assert len(kernel[2]) == len(ticks[2]) > 50  # every tick in Python
