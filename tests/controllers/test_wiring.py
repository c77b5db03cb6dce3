"""control_loop: the one-line wiring equals the hand-written periodic controller."""
import numpy as np
import pytest

import simcore.models as models
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO
from simcore import ConfigError, PeriodicController, simulate
from simcore.errors import ConfigTypeError


def _arm():
    return models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)


def test_control_loop_equals_hand_written_controller():
    pid_a, pid_b = PIDController(40.0, 2.0, 1.0), PIDController(40.0, 2.0, 1.0)
    ff = lambda t, r, s: 0.3 * np.cos(s["arm.angle"])  # noqa: E731
    wired = control_loop(pid_a, measure="arm.angle", command="arm.voltage", setpoint=lambda t: 0.5 + 0.1 * t,
                         feedforward=ff, output_limits=(-10.0, 10.0))

    def by_hand(t, s):
        v = pid_b.calculate(s["arm.angle"], 0.5 + 0.1 * t) + 0.3 * np.cos(s["arm.angle"])
        return {"arm.voltage": min(max(v, -10.0), 10.0)}

    a = simulate(_arm(), 1.0, [wired])
    b = simulate(_arm(), 1.0, [PeriodicController(0.02, by_hand, name="x")])
    np.testing.assert_array_equal(a["arm.angle"], b["arm.angle"])
    np.testing.assert_array_equal(a.ticks("arm.voltage loop"), b.ticks("x"))
    assert max(abs(v["arm.voltage"]) for _, v in a.tick_log("arm.voltage loop")) <= 10.0


def test_control_loop_rejects_period_mismatch_and_bad_names():
    with pytest.raises(ConfigError, match="period"):
        control_loop(PIDController(1, 0, 0, period=0.02), measure="arm.angle", command="arm.voltage", rate=100)
    with pytest.raises(ConfigError, match="measure"):
        control_loop(PIDController(1, 0, 0), measure="angle", command="arm.voltage")
    with pytest.raises(ConfigError, match="output_limits"):
        control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", output_limits=(1, -1))


def test_a_loop_reused_for_a_second_run_gives_the_same_run():
    """The PID's integral and error history from run 1 must not leak into run 2."""
    loop = control_loop(PIDController(8.0, 2.0, 0.2), measure="arm.angle", command="arm.voltage", setpoint=1.0)
    r1 = simulate(_arm(), 1.0, [loop])
    r2 = simulate(_arm(), 1.0, [loop])
    np.testing.assert_array_equal(r1["arm.angle"], r2["arm.angle"])
    assert r1.tick_log("arm.voltage loop")[0][1] == {"arm.voltage": 8.0 * (1.0 - 0.0) + 2.0 * 0.02 * 1.0}


def test_a_reused_profiled_loop_restarts_its_profile_from_the_measurement():
    from simcore.controllers import ProfiledPIDController

    pid = ProfiledPIDController(10.0, 0.0, 0.0, 2.0, 4.0)
    loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=0.8)
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0, start_angle=0.3)
    r1 = simulate(arm, 1.5, [loop])
    assert pid.setpoint.position == pytest.approx(0.8)  # run 1 ended with the profile at the goal
    r2 = simulate(arm, 1.5, [loop])
    np.testing.assert_array_equal(r1["arm.voltage"], r2["arm.voltage"])
    # the first tick's profile step starts at the measured 0.3 rad, at rest: 0.3 + a dt^2 / 2
    assert r1.tick_log("arm.voltage loop")[0][1]["arm.voltage"] == pytest.approx(10.0 * 4.0 * 0.02 ** 2 / 2)


def test_on_start_runs_once_per_run_before_the_first_tick():
    calls = []
    pc = PeriodicController(0.1, lambda t, s: calls.append(("tick", t)), name="c", offset=0.05,
                            on_start=lambda t, s: calls.append(("start", t)))
    simulate(_arm(), 0.3, [pc])
    simulate(_arm(), 0.2, [pc])
    assert calls == [("start", 0.05), ("tick", 0.05), ("tick", 0.15), ("tick", 0.25),
                     ("start", 0.05), ("tick", 0.05), ("tick", 0.15)]


def test_control_loop_units_and_bad_values():
    from simcore import Q_

    a = control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", period=Q_(20, "ms"))
    b = control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", rate=Q_(50, "Hz"))
    assert a.period == b.period == 0.02
    for kwargs, parameter in ((dict(setpoint="1.0"), "setpoint"), (dict(setpoint=float("nan")), "setpoint"),
                              (dict(output_limits=(1, 2, 3)), "output_limits"),
                              (dict(output_limits="ab"), "output_limits")):
        with pytest.raises(ConfigError) as ei:
            control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", **kwargs)
        assert ei.value.parameter.startswith(parameter)


def _forgot_else(t):
    if t > 10.0:
        return 1.0  # and None before t = 10 s


@pytest.mark.parametrize("controller", [lambda: PIDController(1, 0, 0),
                                        lambda: __import__("simcore.controllers").controllers.ProfiledPIDController(
                                            1, 0, 0, 1.0, 2.0),
                                        lambda: __import__("simcore.controllers").controllers.BangBangController()])
@pytest.mark.parametrize("setpoint", [lambda t: "1", _forgot_else, lambda t: [1.0, None]])
def test_a_setpoint_function_returning_no_number_is_refused_naming_it_and_the_time(controller, setpoint):
    from simcore.errors import ConfigTypeError

    loop = control_loop(controller(), measure="arm.angle", command="arm.voltage", setpoint=setpoint)
    with pytest.raises(ConfigTypeError, match=r"the setpoint function of 'arm.voltage loop' at t=0.0 s returned"):
        simulate(_arm(), 0.1, [loop])


def test_a_feedforward_or_setpoint_callable_with_the_wrong_signature_is_refused_at_build():
    from simcore.errors import ProtocolError

    for kwargs, parameter in ((dict(feedforward=lambda sp: 0.0), "feedforward"),
                              (dict(setpoint=lambda: 1.0), "setpoint")):
        with pytest.raises(ProtocolError) as ei:
            control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", **kwargs)
        assert ei.value.parameter == parameter
    control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage",
                 feedforward=lambda t, sp, signals: 0.0, setpoint=lambda t, *rest: 0.0)


@pytest.mark.parametrize("name", ["", "  ", 5])
def test_an_empty_or_non_string_loop_name_is_refused_not_replaced(name):
    from simcore.errors import ConfigTypeError

    with pytest.raises(ConfigTypeError, match=r"^name="):
        control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", name=name)
    assert control_loop(PIDController(1, 0, 0), measure="arm.angle", command="arm.voltage", name="lift").name == "lift"


def _elevator():
    return models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.03, min_height=0.0, max_height=1.5)


def _height_loop(setpoint):
    return control_loop(PIDController(40.0, 0.0, 2.0), measure="elevator.position", command="elevator.voltage",
                        setpoint=setpoint, name="height")


def test_a_setpoint_quantity_is_converted_to_the_measured_signals_unit():
    """A setpoint Quantity is read in the unit the measured system declares for its signal: 2 ft is
    0.6096 m (the international foot is 0.3048 m exactly) and 30 degrees pi/6 rad. Before, every
    Quantity was converted as dimensionless: feet were refused and degrees taken as radians for any
    signal, so 30 degrees on a height was silently 0.52 m."""
    from simcore import Q_

    seen = []
    recorder = control_loop(lambda m, r: seen.append(r) or 0.0, measure="elevator.position",
                            command="elevator.voltage", setpoint=Q_(2.0, "ft"))
    simulate(_elevator(), 0.05, [recorder])
    assert len(seen) == 3 and all(type(r) is float and r == pytest.approx(0.6096, rel=2e-16) for r in seen)
    feet = simulate(_elevator(), 1.0, [_height_loop(Q_(2.0, "ft"))])
    metres = simulate(_elevator(), 1.0, [_height_loop(0.6096)])
    # the two setpoints may differ in the last bit (pint's product), which the adaptive steps carry to 1e-10
    np.testing.assert_allclose(feet["elevator.position"], metres["elevator.position"], rtol=1e-8, atol=1e-12)
    assert 0.55 < feet.final("elevator.position") < 0.6096  # it rose to just under 2 ft (P loop against gravity)
    pid = lambda: PIDController(40.0, 0.0, 1.0)  # noqa: E731
    degrees = simulate(_arm(), 1.0, [control_loop(pid(), measure="arm.angle", command="arm.voltage",
                                                  setpoint=Q_(30.0, "deg"))])
    radians = simulate(_arm(), 1.0, [control_loop(pid(), measure="arm.angle", command="arm.voltage",
                                                  setpoint=np.pi / 6)])
    np.testing.assert_allclose(degrees["arm.angle"], radians["arm.angle"], rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("system, measure, quantity", [
    (_elevator, "elevator.position", (30.0, "deg")),  # was taken as 0.52 m without a word
    (_arm, "arm.angle", (1.0, "ft")),
])
def test_a_setpoint_quantity_of_the_wrong_dimension_is_refused_naming_the_signal(system, measure, quantity):
    from simcore import Q_

    command = measure.split(".")[0] + ".voltage"
    loop = control_loop(PIDController(1.0, 0.0, 0.0), measure=measure, command=command, setpoint=Q_(*quantity))
    with pytest.raises(ConfigError) as ei:
        simulate(system(), 0.1, [loop])
    assert ei.value.parameter == "setpoint"
    assert measure in "".join(getattr(ei.value, "__notes__", []))
    with pytest.raises(ConfigError) as ei:  # a non-finite magnitude is refused when the loop is built
        control_loop(PIDController(1.0, 0.0, 0.0), measure=measure, command=command, setpoint=Q_(np.nan, "m"))
    assert ei.value.parameter == "setpoint"


def test_a_setpoint_quantity_on_a_signal_without_a_unit_is_a_dimensionless_number():
    from simcore import Q_, System

    class Lag(System):
        """dx/dt = u - x, no units declared."""
        state_names, input_names = ("x",), ("u",)

        def derivatives(self, t, x, u):
            return [u[0] - x[0]]

    loop = control_loop(lambda m, r: r, measure="lag.x", command="lag.u", setpoint=Q_(50.0, "percent"))
    result = simulate(Lag(name="lag"), 0.05, [loop])
    np.testing.assert_array_equal([v["lag.u"] for _, v in result.tick_log("lag.u loop")], [0.5, 0.5, 0.5])


@pytest.mark.parametrize("batched", [False, True])
def test_a_setpoint_function_returning_a_quantity_is_refused_naming_it_and_the_time(batched):
    """It was read as dimensionless: 30 deg on a height was 0.52 m. A function returns plain numbers."""
    from simcore import Q_, simulate_batch
    from simcore.errors import ConfigTypeError

    loop = _height_loop(lambda t: Q_(30.0, "deg"))
    with pytest.raises(ConfigTypeError) as ei:
        if batched:
            simulate_batch(_elevator(), 0.1, [loop], params={"elevator.carriage_mass": [4.0, 5.0]})
        else:
            simulate(_elevator(), 0.1, [loop])
    assert "setpoint function of 'height' at t=0.0 s" in ei.value.parameter


def test_a_profiled_loop_takes_its_goal_as_a_state_or_a_pair():
    """A ProfiledPIDController's goal given to control_loop as a profile State is the (position, velocity) pair:
    the controller ends with that goal, and the run is the pair's to the bit; as the goal, the velocity shapes
    the profile (a moving goal is reached later than one at rest)."""
    from simcore.controllers import ProfiledPIDController, State

    def run(goal):
        pid = ProfiledPIDController(20.0, 0.0, 0.5, 2.0, 4.0)
        result = simulate(_arm(), 1.5, [control_loop(pid, measure="arm.angle", command="arm.voltage",
                                                     setpoint=goal)])
        return result, pid

    (by_state, pid_state), (by_pair, _), (at_rest, _) = run(State(0.8, 0.5)), run((0.8, 0.5)), run(0.8)
    assert pid_state.goal == State(0.8, 0.5)
    np.testing.assert_array_equal(by_state["arm.voltage"], by_pair["arm.voltage"])
    assert not np.array_equal(by_state["arm.voltage"], at_rest["arm.voltage"])


def test_a_feedforward_object_with_a_goal_pair_is_refused_naming_it():
    from simcore.controllers import ArmFeedforward, ProfiledPIDController, State

    for goal in ((0.8, 0.0), State(0.8, 0.0)):
        with pytest.raises(ConfigError, match="feedforward"):
            control_loop(ProfiledPIDController(20.0, 0.0, 0.5, 2.0, 4.0), measure="arm.angle",
                         command="arm.voltage", setpoint=goal, feedforward=ArmFeedforward(0.1, 0.5, 1.0))


def test_a_state_setpoint_is_refused_for_a_controller_without_a_goal():
    from simcore.controllers import BangBangController, State

    for controller in (PIDController(1.0, 0.0, 0.0), BangBangController()):
        with pytest.raises(ConfigTypeError, match="setpoint"):
            control_loop(controller, measure="arm.angle", command="arm.voltage", setpoint=State(1.0, 0.2))


def test_a_result_whose_tick_log_the_kernel_kept_pickles_with_every_protocol():
    import pickle

    loop = control_loop(PIDController(8.0, 0.0, 0.2), measure="arm.angle", command="arm.voltage", setpoint=1.0)
    result = simulate(_arm(), 0.5, [loop])
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(result, protocol=protocol))
        assert again.tick_log("arm.voltage loop") == result.tick_log("arm.voltage loop")
        assert len(again.tick_log("arm.voltage loop")) == 26
