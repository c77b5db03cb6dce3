"""The op modes modelled on the SDK's samples (simcore.controllers.hub.samples), on hub motors: on the two-wheel
cart (two hub channels on wheels coupled through one body) and on plain HubMotors. The Java style and the
generator style give the same trajectory; two runs are bit-identical."""
import math

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import Hub, linear_opmode, run_opmode
from simcore.controllers.hub.samples import (ENCODER_LEGS, TIMED_LEGS, DriveByEncoder, DriveByTime, OmniTeleOp,
                                             POVTeleOp, counts_per_inch, drive_by_encoder, drive_by_time)
from simcore.controllers.hub.telemetry import Telemetry
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T

from two_wheel_cart import TwoWheelCart

CPI = counts_per_inch(T, 0.096)  # goBILDA 96 mm wheels
RT = 0.002
STATES = ("cart.x", "cart.y", "cart.heading", "cart.v", "cart.omega", "cart.left_travel", "cart.right_travel")


def cart_and_hub():
    cart = TwoWheelCart(T)
    hub = Hub()
    return cart, hub, {"left_drive": hub.motor(0, cart, wheel="left"), "right_drive": hub.motor(1, cart, wheel="right")}


def java_drive_by_encoder(t_end=9.0):
    cart, hub, config = cart_and_hub()
    op = DriveByEncoder(CPI)
    controllers = run_opmode(op, hubs=[hub], configuration=config)
    res = simcore.simulate([cart], t_end, controllers=controllers)
    return res, op, controllers[0].fn.telemetry, hub


@pytest.fixture(scope="module")
def java_run():
    return java_drive_by_encoder()


def test_counts_per_inch_is_the_sample_s_formula():
    assert CPI == pytest.approx(537.7 / (0.096 / 0.0254 * math.pi))


def test_drive_by_encoder_ends_each_leg_within_the_target_tolerance(java_run):
    res, op, telemetry, hub = java_run
    assert [len(targets) for _, targets in op.leg_ends] == [2, 2, 2]
    previous = [0, 0]
    for (t_end, targets), (speed, left_in, right_in, timeout) in zip(op.leg_ends, ENCODER_LEGS):
        # each target is relative to where the wheel stopped, within a few ticks of the last target
        for target, last, inches in zip(targets, previous, (left_in, right_in)):
            assert abs(target - (last + int(inches * CPI))) <= 10
        previous = targets
        # the encoders when the leg ended (its last isBusy, issued a round trip before), from the cart's travel
        counts = [res.sample(f"cart.{w}_travel", [t_end - RT])[0] / 0.048 * T.gear_ratio / (2 * math.pi) * 28
                  for w in ("left", "right")]
        assert all(abs(c - target) <= 5 + 0.5 for c, target in zip(counts, targets)), (counts, targets)
        assert t_end < 9.0
    # the path: forward, a right turn (clockwise: heading down), back
    assert res.sample("cart.heading", [op.leg_ends[0][0]])[0] == pytest.approx(0.0, abs=1e-9)
    turned = res.sample("cart.heading", [op.leg_ends[1][0]])[0]
    assert turned == pytest.approx(-2 * 12 * 0.0254 / 0.4, rel=0.02)
    assert telemetry.frames[-1].lines == ("Path : Complete",)
    assert hub.registers(0)["enabled"] is False  # the SDK's fail-safe when the op mode returned


def test_drive_by_encoder_in_generator_style_gives_the_same_trajectory_and_runs_are_bit_identical(java_run):
    java, op, java_telemetry, _ = java_run
    again, _, _, _ = java_drive_by_encoder()
    cart, hub, config = cart_and_hub()
    ends, telemetry = [], Telemetry()
    code = lambda: drive_by_encoder([config["left_drive"]], [config["right_drive"]], CPI, hubs=[hub],  # noqa: E731
                                    telemetry=telemetry, leg_ends=ends)
    gen = simcore.simulate([cart], 9.0, controllers=[linear_opmode(code, period=RT, hubs=[hub]), *hub.controllers()])
    assert ends == op.leg_ends
    assert [f.lines for f in telemetry.frames] == [f.lines for f in java_telemetry.frames]
    assert np.array_equal(gen.t, java.t)
    for name in STATES + ("cart.left_duty", "cart.right_duty"):
        np.testing.assert_allclose(gen[name], java[name], rtol=0, atol=1e-12, err_msg=name)
        assert np.array_equal(again[name], java[name]), name


def test_drive_by_time_follows_its_legs_in_both_styles():
    cart, hub, config = cart_and_hub()
    op = DriveByTime()
    controllers = run_opmode(op, hubs=[hub], configuration=config)
    java = simcore.simulate([cart], 6.5, controllers=controllers)
    ends = np.cumsum([leg[2] for leg in TIMED_LEGS])  # 3.0, 4.3, 5.3 s
    for (left, right, _), start, end in zip(TIMED_LEGS, np.concatenate([[0.0], ends[:-1]]), ends):
        t = np.linspace(start + 0.05, end - 0.01, 5)
        assert np.all(np.sign(java.sample("cart.left_duty", t)) == np.sign(left))
        assert np.all(np.sign(java.sample("cart.right_duty", t)) == np.sign(right))
    assert np.all(java.sample("cart.left_duty", [ends[-1] + 0.05, 6.4]) == 0.0)
    assert java.sample("cart.heading", [ends[1]])[0] < -0.5  # the right turn
    frames = controllers[0].fn.telemetry.frames
    assert frames[1].lines == ("Path : Leg 1:  0.0 S Elapsed",) and "Path : Complete" in frames[-1].lines
    cart2, hub2, config2 = cart_and_hub()
    code = lambda: drive_by_time([config2["left_drive"]], [config2["right_drive"]], hubs=[hub2])  # noqa: E731
    gen = simcore.simulate([cart2], 6.5, controllers=[linear_opmode(code, period=RT, hubs=[hub2]),
                                                      *hub2.controllers()])
    for name in STATES:
        np.testing.assert_allclose(gen[name], java[name], rtol=0, atol=1e-12, err_msg=name)


def test_a_scripted_gamepad_drives_the_pov_teleop_through_a_test_path():
    def gamepad(t):  # forward at half stick, then a turn on the spot to the right, then hands off
        if t < 1.0:
            return {"left_stick_y": -0.5}
        if t < 2.0:
            return {"right_stick_x": 0.5}
        return {}

    cart, hub, config = cart_and_hub()
    controllers = run_opmode(POVTeleOp, hubs=[hub], configuration=config, gamepad1=gamepad, stop_time=3.0)
    res = simcore.simulate([cart], 3.0, controllers=controllers)
    duty = lambda side, t: res.sample(f"cart.{side}_duty", [t])[0]  # noqa: E731
    assert duty("left", 0.5) == duty("right", 0.5) == int(0.5 * 32767) / 32767  # RUN_WITHOUT_ENCODER power 0.5
    assert duty("left", 1.5) == -duty("right", 1.5) == int(0.5 * 32767) / 32767
    assert duty("left", 2.5) == duty("right", 2.5) == 0.0
    x1, h1 = res.sample("cart.x", [1.0])[0], res.sample("cart.heading", [1.0])[0]
    assert x1 > 0.3 and h1 == pytest.approx(0.0, abs=1e-9)  # straight ahead
    assert res.sample("cart.heading", [2.0])[0] < -1.0  # clockwise on the spot
    assert res.sample("cart.x", [2.0])[0] == pytest.approx(x1, abs=0.15)  # (it coasts a little at first)
    frames = controllers[0].fn.telemetry.frames
    assert "Motors : left (0.50), right (-0.50)" in frames[len(frames) // 2].lines


def test_omni_teleop_mixes_and_scales_the_four_powers():
    motors = [HubMotor(T, name=n) for n in ("fl", "fr", "rl", "rr")]
    hub = Hub()
    config = {n: hub.motor(i, m) for i, (n, m) in enumerate(zip(("front_left", "front_right", "rear_left",
                                                                  "rear_right"), motors))}
    op = OmniTeleOp(reversed=())  # four motors on a bench, none mounted mirrored: no direction to undo
    controllers = run_opmode(op, hubs=[hub], configuration=config, gamepad1=lambda t: {
        "left_stick_y": -1.0, "left_stick_x": 1.0, "right_stick_x": 0.5 if t > 0.1 else 0.0})
    simcore.simulate(motors, 0.2, controllers=controllers)
    # axial 1, lateral 1, yaw 0.5: (2.5, -0.5, 0.5, 1.5) / 2.5, sent as (int)(p * 32767) in the raw
    # direction, which a CCW motor type negates
    powers = [hub.registers(i)["constant_power"] for i in range(4)]
    assert powers == [int(-p / 2.5 * 32767) for p in (2.5, -0.5, 0.5, 1.5)]
    assert controllers[0].fn.telemetry.frames[-1].lines[0] == "Front left/Right : 1.00, -0.20"
