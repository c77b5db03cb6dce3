"""Drivetrain kinematics: hand cases, round trips, module optimization, validation."""
import math

import numpy as np
import pytest

from simcore.controllers.geometry import Pose2d, Twist2d, wrap_angle
from simcore.controllers.kinematics import (ChassisSpeeds, DifferentialKinematics,
                                    MecanumKinematics, MecanumWheelSpeeds,
                                    SwerveKinematics, SwerveModuleState)
from simcore.errors import ConfigError

SQ = 0.3  # half the module square, m
SQUARE = [(SQ, SQ), (SQ, -SQ), (-SQ, SQ), (-SQ, -SQ)]   # FL, FR, RL, RR


# ---------------------------------------------------------------- differential
def test_differential_hand_case():
    k = DifferentialKinematics(0.6)
    left, right = k.to_wheel_speeds(ChassisSpeeds(2.0, 0.0, 1.0))
    assert (left, right) == pytest.approx((1.7, 2.3))
    back = k.to_chassis_speeds((left, right))
    assert back == pytest.approx((2.0, 0.0, 1.0))


def test_differential_spin_in_place():
    k = DifferentialKinematics(0.5)
    assert k.to_wheel_speeds(ChassisSpeeds(0.0, 0.0, 2.0)) == pytest.approx((-0.5, 0.5))
    assert k.to_twist(-0.25, 0.25) == Twist2d(0.0, 0.0, 1.0)


@pytest.mark.parametrize("w", [0.0, -0.5, math.nan])
def test_differential_bad_track_width(w):
    with pytest.raises(ConfigError) as info:
        DifferentialKinematics(w)
    assert info.value.parameter == "track_width"


# --------------------------------------------------------------------- mecanum
def mecanum():
    return MecanumKinematics((0.3, 0.25), (0.3, -0.25), (-0.3, 0.25), (-0.3, -0.25))


def test_mecanum_hand_cases():
    k = mecanum()
    assert k.to_wheel_speeds(ChassisSpeeds(1.0, 0.0, 0.0)) == pytest.approx((1, 1, 1, 1))
    # Strafing left: FL and RR backwards, FR and RL forwards.
    assert k.to_wheel_speeds(ChassisSpeeds(0.0, 1.0, 0.0)) == pytest.approx((-1, 1, 1, -1))
    # CCW rotation: left wheels back, right forward, each at (|x| + |y|) * omega.
    assert k.to_wheel_speeds(ChassisSpeeds(0.0, 0.0, 2.0)) == pytest.approx(
        (-1.1, 1.1, -1.1, 1.1))


def test_mecanum_about_a_centre_of_rotation():
    # Rotating about the front-left wheel: that wheel's contact point is still.
    k = mecanum()
    fl, fr, rl, rr = k.to_wheel_speeds(ChassisSpeeds(0.0, 0.0, 1.0), center=(0.3, 0.25))
    assert fl == pytest.approx(0.0, abs=1e-15)
    # Rear-right wheel at (-0.6, -0.5) from the centre: -(x + y) * omega = 1.1.
    assert rr == pytest.approx(1.1)


def test_mecanum_round_trip():
    k = mecanum()
    for speeds in [(1.0, -0.4, 0.7), (-2.0, 0.5, -3.0), (0.0, 0.0, 0.0)]:
        back = k.to_chassis_speeds(k.to_wheel_speeds(ChassisSpeeds(*speeds)))
        assert back == pytest.approx(speeds, abs=1e-12)


def test_mecanum_least_squares_for_inconsistent_wheels():
    # Only FL turning: the least-squares chassis speed is the pseudo-inverse's first
    # column, which for this layout is (1/4, -1/4, -1 / (4 * 0.55)).
    k = mecanum()
    assert k.to_chassis_speeds((1.0, 0.0, 0.0, 0.0)) == pytest.approx(
        (0.25, -0.25, -1.0 / 2.2), abs=1e-12)


def test_mecanum_desaturate():
    s = MecanumWheelSpeeds(1.0, -4.0, 2.0, 0.5).desaturate(2.0)
    assert s == pytest.approx((0.5, -2.0, 1.0, 0.25))


def test_mecanum_degenerate_layout():
    with pytest.raises(ConfigError):
        MecanumKinematics((0, 0), (0, 0), (0, 0), (0, 0))


# ---------------------------------------------------------------------- swerve
def test_swerve_translation_points_all_modules_the_same_way():
    k = SwerveKinematics(SQUARE)
    for s in k.to_module_states(ChassisSpeeds(1.0, 1.0, 0.0)):
        assert s.speed == pytest.approx(math.sqrt(2.0))
        assert s.angle == pytest.approx(math.pi / 4)


def test_swerve_rotation_hand_case():
    k = SwerveKinematics(SQUARE)
    states = k.to_module_states(ChassisSpeeds(0.0, 0.0, 1.0))
    # Module at (x, y): velocity omega * (-y, x); speed 0.3 sqrt 2.
    expected_angles = [3 * math.pi / 4, math.pi / 4, -3 * math.pi / 4, -math.pi / 4]
    for s, a in zip(states, expected_angles):
        assert s.speed == pytest.approx(SQ * math.sqrt(2.0))
        assert s.angle == pytest.approx(a)


def test_swerve_centre_of_rotation():
    k = SwerveKinematics(SQUARE)
    states = k.to_module_states(ChassisSpeeds(0.0, 0.0, 2.0), center=(SQ, SQ))
    assert states[0].speed == 0.0
    # Rear-right is 0.6 * sqrt 2 from the centre.
    assert states[3].speed == pytest.approx(2.0 * 0.6 * math.sqrt(2.0))


def test_swerve_zero_speed_keeps_previous_angles():
    k = SwerveKinematics(SQUARE)
    k.to_module_states(ChassisSpeeds(0.0, 1.0, 0.0))
    for s in k.to_module_states(ChassisSpeeds()):
        assert s == SwerveModuleState(0.0, math.pi / 2)


def test_swerve_round_trip_and_least_squares():
    k = SwerveKinematics([(0.4, 0.2), (0.1, -0.35), (-0.3, 0.1)])
    speeds = ChassisSpeeds(1.2, -0.7, 2.5)
    assert k.to_chassis_speeds(k.to_module_states(speeds)) == pytest.approx(speeds, abs=1e-12)
    # One module pointing wrong: the result is the least-squares fit.
    states = k.to_module_states(speeds)
    states[0] = SwerveModuleState(states[0].speed, states[0].angle + 0.3)
    fit = np.array(k.to_chassis_speeds(states))
    rows = []
    for x, y in k.modules:
        rows += [[1, 0, -y], [0, 1, x]]
    target = np.concatenate([[s.speed * math.cos(s.angle), s.speed * math.sin(s.angle)]
                             for s in states])
    lstsq = np.linalg.lstsq(np.array(rows, float), target, rcond=None)[0]
    assert np.allclose(fit, lstsq, atol=1e-12)


def test_swerve_desaturate_scales_proportionally():
    states = [SwerveModuleState(5.0, 0.1), SwerveModuleState(-2.5, 1.0),
              SwerveModuleState(1.0, 2.0)]
    out = SwerveKinematics.desaturate(states, 4.0)
    assert [s.speed for s in out] == pytest.approx([4.0, -2.0, 0.8])
    assert [s.angle for s in out] == [0.1, 1.0, 2.0]
    assert SwerveKinematics.desaturate(states, 10.0) == states


@pytest.mark.parametrize("desired, current, expected", [
    ((2.0, math.radians(10)), math.radians(0), (2.0, math.radians(10))),
    ((2.0, math.radians(170)), math.radians(0), (-2.0, math.radians(-10))),
    ((2.0, math.radians(-100)), math.radians(0), (-2.0, math.radians(80))),
    ((2.0, math.radians(90)), math.radians(0), (2.0, math.radians(90))),   # exactly 90: kept
    ((1.0, math.radians(-170)), math.radians(170), (1.0, math.radians(-170))),  # 20 deg apart
    ((1.0, math.radians(0)), math.radians(720 + 180), (-1.0, math.pi)),
])
def test_optimize_never_turns_more_than_90_degrees(desired, current, expected):
    out = SwerveModuleState(*desired).optimize(current)
    assert out.speed == pytest.approx(expected[0])
    assert wrap_angle(out.angle - expected[1]) == pytest.approx(0.0, abs=1e-12)
    assert abs(wrap_angle(out.angle - current)) <= math.pi / 2 + 1e-12


def test_swerve_validation():
    with pytest.raises(ConfigError):
        SwerveKinematics([(0.3, 0.3)])
    with pytest.raises(ConfigError):
        SwerveKinematics([(0.3, 0.3), (0.3, 0.3), (-0.3, 0.3)])
    with pytest.raises(ConfigError):
        SwerveKinematics([(0.3, math.nan), (0.3, 0.3)])
    k = SwerveKinematics(SQUARE)
    with pytest.raises(ConfigError):
        k.to_chassis_speeds([SwerveModuleState(1.0, 0.0)] * 3)


def test_field_relative_speeds():
    # Robot facing +y (heading pi/2): a field +x request is the robot's rightward (-y).
    s = ChassisSpeeds.from_field_relative(1.0, 0.0, 0.5, math.pi / 2)
    assert s == pytest.approx((0.0, -1.0, 0.5), abs=1e-15)
    assert s.to_field_relative(math.pi / 2) == pytest.approx((1.0, 0.0, 0.5), abs=1e-15)


# -------------------------------------------------------------------- geometry
def test_pose_exp_quarter_circle_and_log_inverse():
    # Arc of radius 2 turning left by pi/2: ends at (2, 2) facing +y.
    twist = Twist2d(math.pi, 0.0, math.pi / 2)
    end = Pose2d().exp(twist)
    assert tuple(end) == pytest.approx((2.0, 2.0, math.pi / 2), abs=1e-12)
    start = Pose2d(1.0, -2.0, 0.7)
    for tw in [Twist2d(0.3, -0.1, 0.4), Twist2d(1.0, 0.2, 1e-9), Twist2d(0.0, 0.0, 0.0)]:
        back = start.log(start.exp(tw))
        assert (back.dx, back.dy, back.dtheta) == pytest.approx((tw.dx, tw.dy, tw.dtheta),
                                                                abs=1e-12)


def test_wrap_angle():
    assert wrap_angle(math.pi) == pytest.approx(math.pi)
    assert wrap_angle(-math.pi) == pytest.approx(math.pi)
    assert wrap_angle(3 * math.pi / 2) == pytest.approx(-math.pi / 2)


def test_a_scalar_quantity_or_0d_array_where_speeds_are_needed_is_a_config_error():
    from simcore import Q_
    from simcore.controllers.drive_control import tank_voltages
    from simcore.models.tank import CharacterizedTankDrive

    drive = CharacterizedTankDrive(kv_linear=2.0, ka_linear=0.5, kv_angular=1.5, ka_angular=0.3, track_width=0.6)
    for bad in (Q_(1, "m/s"), np.array(1.0), {1.0, 0.0, 2.0}):
        with pytest.raises(ConfigError, match=r"^speeds="):
            tank_voltages(drive, bad)
    with pytest.raises(ConfigError, match=r"^measured"):
        tank_voltages(drive, (1.0, 0.0, 0.0), measured="x")  # checked although kp = 0
    # kv_linear * vx on each side: 2 V/(m/s) * 1 m/s
    assert tank_voltages(drive, (1.0, 0.0, 0.0)) == pytest.approx((2.0, 2.0))


@pytest.mark.parametrize("bad", [None, 5.0, "ab", {(0.3, 0.3), (-0.3, -0.3)}])
def test_swerve_kinematics_and_desaturate_refuse_what_is_not_a_sequence(bad):
    with pytest.raises(ConfigError, match=r"^module_positions"):
        SwerveKinematics(bad)
    with pytest.raises(ConfigError, match=r"^states"):
        SwerveKinematics.desaturate(bad, 1.0)


def test_pose_relative_to_and_log_refuse_what_is_not_a_pose_and_take_a_triple():
    for method, parameter in ((Pose2d().relative_to, "other"), (Pose2d().log, "end")):
        for bad in (None, "x", (1.0, 2.0)):
            with pytest.raises(ConfigError, match=rf"^{parameter}"):
                method(bad)
    # (2, 0, 0) seen from (1, 0, pi/2): one metre along its -y axis
    dx, dy, dth = Pose2d(2.0, 0.0, 0.0).relative_to((1.0, 0.0, math.pi / 2))
    assert (dx, dy, dth) == pytest.approx((0.0, -1.0, -math.pi / 2), abs=1e-15)


def test_a_count_beyond_the_float_range_is_a_config_error_not_an_overflow():
    from simcore.models.drive import MotorDrive
    from simcore.models.motors import NEO

    with pytest.raises(ConfigError, match=r"^n_motors="):
        MotorDrive(NEO, 2.0, n_motors=10 ** 400)
    with pytest.raises(ConfigError, match=r"^n="):
        NEO.gearbox(10 ** 400)
