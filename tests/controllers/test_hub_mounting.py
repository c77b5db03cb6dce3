"""Motors mounted as on the robot: a drivetrain's left motors mirror its right ones (Hub.motor(..., mirrored=...)).

The expected values come from the geometry of the mounting, not from the code: mirrored, the motor's own
positive rotation (FORWARD with positive power, for every motor type) rolls its wheel backward, and the encoder,
which turns with the motor, counts up while the wheel rolls backward. The SDK's orientation of CCW types flips
the raw (physical encoder) frame on top of that."""
import math

import pytest

import simcore
from simcore.controllers.hub import Direction, Hub, linear_opmode
from simcore.controllers.hub.motor import default_mirrored
from simcore.errors import ConfigTypeError
from simcore.models import HubMotor, MecanumDrive, TankDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312, NEVEREST_20, Rotation
from simcore.models.mecanum import WHEELS

from two_wheel_cart import TwoWheelCart

CPR = 28.0  # both types' encoders: 28 counts per motor revolution


def wheel_ticks(cart, travel):
    """Counts of a motor whose wheel rolled ``travel`` m, in the wheel's frame (positive forward)."""
    return travel / cart.r * cart.G / (2 * math.pi) * CPR


def test_the_default_mounting_mirrors_a_drivetrain_s_left_motors_only():
    mecanum = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                           moi=0.35)
    tank = TankDrive(GOBILDA_5203_312, n_motors_per_side=2, wheel_radius=0.048, track_width=0.4, mass=12.0,
                     moi=0.35)
    hub = Hub()
    motors = {w: hub.motor(port, mecanum, wheel=w) for port, w in enumerate(WHEELS)}
    assert {w: m.mirrored for w, m in motors.items()} == {"front_left": True, "front_right": False,
                                                          "rear_left": True, "rear_right": False}
    hub2 = Hub()
    assert hub2.motor(0, tank, wheel="left").mirrored and not hub2.motor(1, tank, wheel="right").mirrored
    assert not Hub().motor(0, HubMotor(GOBILDA_5203_312, name="arm")).mirrored  # a mechanism's motor
    # a drivetrain that lists nothing: the wheels named on the left side
    cart = TwoWheelCart(GOBILDA_5203_312)
    assert default_mirrored(cart, "left") and not default_mirrored(cart, "right")
    assert default_mirrored(cart, "rear_left") and not default_mirrored(cart, "leftover")
    # overridden per channel, and named in the repr
    hub3 = Hub()
    assert not hub3.motor(0, cart, wheel="left", mirrored=False).mirrored
    right = hub3.motor(1, cart, wheel="right", mirrored=True)
    assert right.mirrored and "mirrored" in repr(right)
    assert Hub().motor(0, HubMotor(GOBILDA_5203_312, name="lift"), mirrored=True).mirrored


@pytest.mark.parametrize("bad", ["yes", 1, 0.0, None.__class__])
def test_a_mounting_that_is_not_a_bool_is_refused_naming_it(bad):
    with pytest.raises(ConfigTypeError) as e:
        Hub().motor(0, TwoWheelCart(GOBILDA_5203_312), wheel="left", mirrored=bad)
    assert e.value.parameter == "mirrored" and repr(bad) in str(e.value)


def _run(cart, direction, power=0.5, t_end=0.5):
    """Left motor (mirrored by default) at ``power`` with ``direction``; right motor coasting."""
    hub = Hub()
    left = hub.motor(0, cart, wheel="left")
    hub.motor(1, cart, wheel="right")
    seen = []

    def code():
        left.setDirection(direction)
        left.setPower(power)
        while True:
            seen.append((left.getCurrentPosition(), left.getPhysicalPositionTicks()))
            yield

    res = simcore.simulate([cart], t_end, controllers=[linear_opmode(code, period=0.01, hubs=[hub]),
                                                       *hub.controllers()])
    return res, seen[-1]


@pytest.mark.parametrize("motor_type", [GOBILDA_5203_312, NEVEREST_20])
def test_a_mirrored_motor_rolls_its_wheel_backward_on_forward_power_and_its_encoder_counts_as_a_real_one(motor_type):
    """FORWARD and positive power turn the motor its own positive way: mirrored, the wheel rolls backward and
    getCurrentPosition() counts up (the encoder turns with the motor). REVERSE rolls it forward, counting up
    again: the sample's direction line. The raw count is the motor's rotation in the encoder's frame: the
    motor's positive rotation for a CW type, its negative for a CCW type, whatever the direction."""
    raw_sign = 1 if motor_type.orientation is Rotation.CW else -1
    forward = TwoWheelCart(motor_type)
    res, (count, raw) = _run(forward, Direction.FORWARD)
    travel = res.final("cart.left_travel")
    assert travel < -0.05  # backward
    assert res.final("cart.left_duty") < 0 and res.final("cart.heading") > 0  # the left wheel back: a left turn
    motor_counts = -wheel_ticks(forward, travel)  # the motor's own rotation, counts (positive)
    assert count > 100 and count == pytest.approx(motor_counts, abs=0.5)
    assert raw == pytest.approx(raw_sign * motor_counts, abs=0.5)
    reversed_cart = TwoWheelCart(motor_type)
    res, (count, raw) = _run(reversed_cart, Direction.REVERSE)
    travel = res.final("cart.left_travel")
    assert travel > 0.05 and res.final("cart.heading") < 0  # forward: the left wheel ahead, a right turn
    assert count == pytest.approx(wheel_ticks(reversed_cart, travel), abs=0.5)  # counts up as it rolls forward
    assert raw == pytest.approx(-raw_sign * wheel_ticks(reversed_cart, travel), abs=0.5)  # the motor turned back


def test_a_mecanum_with_every_handle_forward_spins_and_with_the_left_reversed_drives_straight():
    """The SDK samples' comment, "Most robots need the motors on one side to be reversed to drive forward":
    all four FORWARD at the same power, the left wheels roll backward and the right forward, so the robot
    turns on the spot counter-clockwise (heading up, no travel); with the left two REVERSE it drives ahead."""
    def run(reverse_left):
        drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                             moi=0.35)
        hub = Hub()
        motors = [hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)]

        def code():
            if reverse_left:
                motors[0].setDirection(Direction.REVERSE)
                motors[2].setDirection(Direction.REVERSE)
            for m in motors:
                m.setPower(0.4)
            while True:
                yield

        return simcore.simulate([drive], 0.8, controllers=[linear_opmode(code, period=0.01, hubs=[hub]),
                                                           *hub.controllers()])

    spin = run(False)
    assert spin.final("mecanum.heading") > 1.0
    assert math.hypot(spin.final("mecanum.x"), spin.final("mecanum.y")) < 1e-6
    ahead = run(True)
    assert ahead.final("mecanum.x") > 0.3
    assert abs(ahead.final("mecanum.heading")) < 1e-9 and abs(ahead.final("mecanum.y")) < 1e-9
