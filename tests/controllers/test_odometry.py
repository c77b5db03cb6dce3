"""Odometry on constant-curvature paths against the analytic arc.

For a body velocity (vx, vy, w) held constant from heading h0, integrating the
field velocity R(h0 + w t) (vx, vy) gives
    x(t) = x0 + [vx (sin(h0+wt) - sin h0) + vy (cos(h0+wt) - cos h0)] / w
    y(t) = y0 + [vx (cos h0 - cos(h0+wt)) + vy (sin(h0+wt) - sin h0)] / w
which the tests use as the reference (the module never evaluates this formula).
"""
import math

import numpy as np
import pytest

from simcore.controllers.geometry import Pose2d
from simcore.controllers.kinematics import (ChassisSpeeds, DifferentialKinematics,
                                    MecanumKinematics, SwerveKinematics,
                                    SwerveModulePosition)
from simcore.controllers.odometry import DifferentialOdometry, MecanumOdometry, SwerveOdometry
from simcore.errors import ConfigError


def arc(t, vx, vy, w, x0=0.0, y0=0.0, h0=0.0):
    h = h0 + w * t
    x = x0 + (vx * (math.sin(h) - math.sin(h0)) + vy * (math.cos(h) - math.cos(h0))) / w
    y = y0 + (vx * (math.cos(h0) - math.cos(h)) + vy * (math.sin(h) - math.sin(h0))) / w
    return x, y, h


TIMES = np.arange(1, 41) * 0.25   # 10 s in coarse 0.25 s steps (several laps)


@pytest.mark.parametrize("use_gyro", [True, False])
def test_differential_circle_is_exact(use_gyro):
    w_track, v_left, v_right = 0.6, 0.8, 1.4
    vx = (v_left + v_right) / 2
    omega = (v_right - v_left) / w_track
    start = Pose2d(1.0, 2.0, 0.3)
    gyro0 = -0.5          # the gyro's zero differs from the field's
    odo = DifferentialOdometry(DifferentialKinematics(w_track), gyro0 if use_gyro else None,
                               0.0, 0.0, start)
    for t in TIMES:
        pose = odo.update(gyro0 + omega * t if use_gyro else None, v_left * t, v_right * t)
        x, y, h = arc(t, vx, 0.0, omega, 1.0, 2.0, 0.3)
        assert pose.x == pytest.approx(x, abs=1e-12)
        assert pose.y == pytest.approx(y, abs=1e-12)
        assert pose.heading == pytest.approx(h, abs=1e-12)


def test_differential_straight_line_and_reset():
    odo = DifferentialOdometry(DifferentialKinematics(0.5), 0.0, 0.0, 0.0)
    assert tuple(odo.update(0.0, 2.0, 2.0)) == pytest.approx((2.0, 0.0, 0.0))
    odo.reset(1.0, (5.0, 5.0), Pose2d(0.0, 0.0, math.pi / 2))
    pose = odo.update(1.0, 6.0, 6.0)
    assert tuple(pose) == pytest.approx((0.0, 1.0, math.pi / 2), abs=1e-15)


def test_gyro_overrides_wheel_rotation():
    # Wheels say straight, gyro says a quarter turn: the twist's rotation is the
    # gyro's, so the 1 m of travel follows an arc of pi/2.
    odo = DifferentialOdometry(DifferentialKinematics(0.5), 0.0, 0.0, 0.0)
    pose = odo.update(math.pi / 2, 1.0, 1.0)
    r = 1.0 / (math.pi / 2)
    assert tuple(pose) == pytest.approx((r, r, math.pi / 2), abs=1e-12)


def test_mecanum_arc_with_strafe():
    k = MecanumKinematics((0.3, 0.25), (0.3, -0.25), (-0.3, 0.25), (-0.3, -0.25))
    speeds = ChassisSpeeds(0.9, -0.4, 0.7)
    wheel = k.to_wheel_speeds(speeds)
    odo = MecanumOdometry(k, None, (0.0,) * 4)
    for t in TIMES:
        pose = odo.update(None, [s * t for s in wheel])
        x, y, h = arc(t, *speeds)
        assert (pose.x, pose.y, pose.heading) == pytest.approx((x, y, h), abs=1e-12)


@pytest.mark.parametrize("use_gyro", [True, False])
def test_swerve_arc_with_strafe(use_gyro):
    k = SwerveKinematics([(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)])
    speeds = ChassisSpeeds(1.1, 0.5, -0.9)
    states = k.to_module_states(speeds)
    start = Pose2d(-1.0, 0.5, 2.0)
    odo = SwerveOdometry(k, 0.0 if use_gyro else None,
                         [SwerveModulePosition(0.0, s.angle) for s in states], start)
    for t in TIMES:
        pose = odo.update(speeds.omega * t if use_gyro else None,
                          [SwerveModulePosition(s.speed * t, s.angle) for s in states])
        x, y, h = arc(t, *speeds, -1.0, 0.5, 2.0)
        assert (pose.x, pose.y, pose.heading) == pytest.approx((x, y, h), abs=1e-12)


def test_gyro_arriving_late_is_aligned_with_wheel_heading():
    k = DifferentialKinematics(0.5)
    odo = DifferentialOdometry(k, None, 0.0, 0.0)
    odo.update(None, -0.25, 0.25)               # wheels turn it 1 rad
    pose = odo.update(10.0, -0.25, 0.25)        # first gyro reading: no jump
    assert pose.heading == pytest.approx(1.0)
    pose = odo.update(10.5, -0.25, 0.25)        # gyro turns it another 0.5 rad
    assert pose.heading == pytest.approx(1.5)


def test_odometry_validation():
    k = SwerveKinematics([(0.3, 0.3), (-0.3, -0.3)])
    with pytest.raises(ConfigError):
        SwerveOdometry(k, 0.0, [(0.0, 0.0)])
    with pytest.raises(ConfigError):
        DifferentialOdometry(DifferentialKinematics(0.5), math.nan, 0.0, 0.0)
    with pytest.raises(ConfigError):
        DifferentialOdometry(0.5, 0.0, 0.0, 0.0)
