"""control_loop: the one-line wiring equals the hand-written periodic controller."""
import numpy as np
import pytest

import models
from controllers import PIDController, control_loop
from models.motors import NEO
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
