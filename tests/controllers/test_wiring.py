"""control_loop: the one-line wiring equals the hand-written periodic controller."""
import numpy as np
import pytest

import simcore.models as models
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO
from simcore import ConfigError, PeriodicController, simulate


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
