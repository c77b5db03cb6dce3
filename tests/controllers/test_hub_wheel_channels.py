"""Hub channels bound to the wheels of a drivetrain (``hub.motor(port, drive, wheel=...)``), and the IMU on
its heading, checked on a two-wheel cart whose wheels are coupled through one rigid body (two_wheel_cart)."""
import math

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import (IMU, AngleUnit, Hub, RevHubOrientationOnRobot, RunMode, ZeroPowerBehavior,
                                     linear_opmode)
from simcore.controllers.hub.motor import PER_WHEEL_SIGNALS, REQUIRED_SIGNALS, channel_signal_names
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T

from two_wheel_cart import TwoWheelCart

CPR = 28.0  # encoder counts per motor revolution


def ticks(cart, travel):
    """Encoder count of a wheel that rolled ``travel`` m (FORWARD motor: counts up with the mechanism)."""
    return travel / cart.r * cart.G / (2 * math.pi) * CPR


def test_channel_signal_names_follow_the_wheel_convention():
    names = channel_signal_names("mecanum", "front_left")
    assert names["duty"] == "mecanum.front_left_duty" and names["rotor_velocity"] == "mecanum.front_left_rotor_velocity"
    assert names["supply_voltage"] == "mecanum.supply_voltage"  # the bus is the drivetrain's
    assert set(names) == set(REQUIRED_SIGNALS[0] + REQUIRED_SIGNALS[1])
    assert set(PER_WHEEL_SIGNALS) == set(names) - {"supply_voltage"}
    assert channel_signal_names("arm") == {s: f"arm.{s}" for s in names}


def test_a_drivetrain_needs_a_wheel_it_has_and_each_wheel_one_channel():
    cart = TwoWheelCart(T)
    hub = Hub()
    with pytest.raises(ConfigError) as e:
        hub.motor(0, cart)
    assert e.value.parameter == "wheel" and "['left', 'right']" in str(e.value)
    with pytest.raises(ConfigError) as e:
        hub.motor(0, cart, wheel="front_left")
    assert e.value.parameter == "wheel" and "front_left" in str(e.value) and "'left'" in str(e.value)
    with pytest.raises(ConfigTypeError):
        hub.motor(0, cart, wheel=3)
    left = hub.motor(0, cart, wheel="left")
    assert left.wheel == "left" and "cart.left" in repr(left)
    with pytest.raises(ConfigError, match="already driven"):
        hub.motor(1, cart, wheel="left")
    hub.motor(1, cart, wheel="right")
    with pytest.raises(ConfigError) as e:  # a single mechanism has no wheels
        Hub().motor(0, HubMotor(T, name="arm"), wheel="left")
    assert e.value.parameter == "wheel" and "no wheels" in str(e.value)


def test_a_wheel_missing_one_of_its_signals_is_named():
    class Broken(TwoWheelCart):
        def __init__(self):
            super().__init__(T, name="broken")
            self.output_names = tuple(n for n in self.output_names if n != "right_stator_current")

    with pytest.raises(ConfigError, match="right_stator_current"):
        Hub().motor(0, Broken(), wheel="right")


def _drive(cart, code, t_end, left_type=None):
    # Both motors mounted unmirrored: each channel's frame is its wheel's (the mounting is tested on its own).
    hub = Hub()
    left = hub.motor(0, cart, left_type, wheel="left", mirrored=False)
    right = hub.motor(1, cart, wheel="right")
    res = simcore.simulate([cart], t_end, controllers=[linear_opmode(lambda: code(left, right), period=0.01,
                                                                       hubs=[hub]), *hub.controllers()])
    return res, left, right


def test_each_channel_reads_and_drives_its_own_wheel():
    cart = TwoWheelCart(T)
    log = []

    def code(left, right):
        for m, v in ((left, 600), (right, -300)):
            m.setVelocity(v)
        while True:
            log.append((left.getCurrentPosition(), right.getCurrentPosition(), left.getVelocity(), right.getVelocity()))
            yield

    res, left, right = _drive(cart, code, 1.0)
    lt, rt = res.sample("cart.left_travel", [1.0])[0], res.sample("cart.right_travel", [1.0])[0]
    pl, pr, vl, vr = log[-1]  # read at the last tick, t = 1.0
    assert abs(pl - ticks(cart, lt)) <= 0.5 and abs(pr - ticks(cart, rt)) <= 0.5
    assert pl > 300 and pr < -150  # each wheel went its own way...
    assert vl == pytest.approx(600, abs=3) and vr == pytest.approx(-300, abs=3)  # ...at its own speed
    # the firmware wrote each wheel's own inputs
    assert res["cart.left_duty"][-1] > 0 > res["cart.right_duty"][-1]


def test_the_wheels_are_coupled_through_the_body():
    """Left wheel driven open loop, right wheel coasting (FLOAT, zero power: no current, no force).
    With F_right = 0 the body gives the right rim the acceleration F_left (1/m - b^2/(4J)) against the
    left rim's F_left (1/m + b^2/(4J)): from rest the right encoder counts (1/m - b²/4J)/(1/m + b²/4J)
    of the left's, whatever F_left does."""
    cart = TwoWheelCart(T, mass=10.0, moi=0.5, track_width=0.4)
    ratio = (1 / 10.0 - 0.4 ** 2 / 2.0) / (1 / 10.0 + 0.4 ** 2 / 2.0)  # 1/9
    log = []

    def code(left, right):
        right.setZeroPowerBehavior(ZeroPowerBehavior.FLOAT)
        left.setPower(0.6)
        while True:
            log.append((left.getCurrentPosition(), right.getCurrentPosition()))
            yield

    res, left, right = _drive(cart, code, 0.5)
    assert abs(res["cart.right_stator_current"]).max() == 0.0
    pl, pr = log[-1]
    assert pl > 500
    assert pr == pytest.approx(ratio * pl, abs=1.0)
    assert res.final("cart.right_travel") == pytest.approx(ratio * res.final("cart.left_travel"), rel=1e-6)


def test_configured_type_may_differ_from_the_drivetrain_s_own():
    """The SDK's speed scaling follows the configured type; the counts follow the physical encoder."""
    from simcore.models.ftc_motor_types import GOBILDA_5202_SDK
    cart = TwoWheelCart(T)

    def code(left, right):
        left.setMode(RunMode.RUN_USING_ENCODER)
        left.setPower(0.5)
        while True:
            yield

    res, left, right = _drive(cart, code, 1.0, left_type=GOBILDA_5202_SDK)
    assert left.getMotorType() is GOBILDA_5202_SDK and right.getMotorType() is T
    speed = res.sample("cart.left_rotor_velocity", [1.0])[0] / (2 * math.pi) * CPR
    assert speed == pytest.approx(int(0.5 * GOBILDA_5202_SDK.getAchieveableMaxTicksPerSecondRounded()), abs=2)


# -- the IMU on the drivetrain's heading -------------------------------------------------------------------
def test_imu_needs_a_heading():
    with pytest.raises(ConfigError, match="heading"):
        IMU(HubMotor(T, name="arm"))
    imu = IMU(TwoWheelCart(T))
    with pytest.raises(RuntimeError, match="no signals"):
        imu.getRobotYawPitchRollAngles()


def test_imu_yaw_is_the_chassis_heading_counter_clockwise_wrapped_to_the_sdk_range():
    cart = TwoWheelCart(T)
    imu = IMU(cart)
    seen = []

    def code(left, right):
        imu.initialize(IMU.Parameters(RevHubOrientationOnRobot(RevHubOrientationOnRobot.LogoFacingDirection.UP,
                                                               RevHubOrientationOnRobot.UsbFacingDirection.FORWARD)))
        left.setVelocity(-800)
        right.setVelocity(800)  # spin counter-clockwise, several turns
        t = 0.0
        while True:
            angles = imu.getRobotYawPitchRollAngles()
            seen.append((angles.getYaw(AngleUnit.DEGREES), angles.getYaw(AngleUnit.RADIANS), angles.getPitch(),
                         angles.getRoll(AngleUnit.DEGREES), imu.getRobotAngularVelocity(AngleUnit.DEGREES), t))
            t = yield

    hub = Hub()
    left, right = hub.motor(0, cart, wheel="left", mirrored=False), hub.motor(1, cart, wheel="right")
    res = simcore.simulate([cart], 4.0, controllers=[
        linear_opmode(lambda: code(left, right), period=0.01, hubs=[hub, imu]), *hub.controllers()])
    times = np.array([s[5] for s in seen])
    heading = res.sample("cart.heading", times)
    omega = res.sample("cart.omega", times)
    assert heading[-1] > 2 * math.pi  # more than a turn: the yaw wrapped
    for (deg, rad, pitch, roll, rate, _), h, w in zip(seen, heading, omega):
        expected = (math.degrees(h) + 180.0) % 360.0 - 180.0
        assert -180.0 <= deg < 180.0 and deg == pytest.approx(expected, abs=1e-9)
        assert rad == pytest.approx(math.radians(deg), abs=1e-12) and -math.pi <= rad < math.pi
        assert pitch == 0.0 and roll == 0.0
        assert rate.zRotationRate == pytest.approx(math.degrees(w), abs=1e-9) and rate.xRotationRate == 0.0


def test_imu_reset_yaw_makes_the_current_heading_zero_and_impossible_mountings_are_refused():
    from simcore.controllers.hub import IllegalArgumentException
    O = RevHubOrientationOnRobot
    with pytest.raises(IllegalArgumentException, match="physically impossible"):
        O(O.LogoFacingDirection.UP, O.UsbFacingDirection.DOWN)
    cart = TwoWheelCart(T)
    imu = IMU(cart)
    imu.observe({"cart.heading": 1.0, "cart.omega": 0.0})
    assert imu.getRobotYawPitchRollAngles().getYaw(AngleUnit.RADIANS) == pytest.approx(1.0)
    imu.resetYaw()
    imu.observe({"cart.heading": 1.25, "cart.omega": 0.0})
    assert imu.getRobotYawPitchRollAngles().getYaw(AngleUnit.DEGREES) == pytest.approx(math.degrees(0.25))
    imu.observe({"cart.heading": 1.0 - math.pi, "cart.omega": 0.0})  # exactly -180 deg from the reset: in range
    assert imu.getRobotYawPitchRollAngles().getYaw(AngleUnit.DEGREES) == -180.0
