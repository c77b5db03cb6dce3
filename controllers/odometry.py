"""Wheel-encoder odometry for differential, mecanum and swerve drives.

Follows WPILib's ``Odometry`` (``edu/wpi/first/math/kinematics/Odometry.java``,
v2025.3.2). Each :meth:`update` turns the change of the wheel distances since the
previous update into a :class:`~simcore.controllers.geometry.Twist2d` with the drive's
kinematics, and moves the pose along it with the exact constant-curvature update
``pose.exp(twist)`` (WPILib's ``Pose2d.exp``), so a path of constant curvature
between updates is tracked without discretization error.

Heading source, per update:

* a gyro angle (rad, counter-clockwise positive): as in WPILib, the twist's rotation
  is replaced by the change of ``gyro + offset`` (wrapped into ``(-pi, pi]``), and
  the pose's heading becomes ``gyro + offset``. The offset is fixed when the
  odometry is built or reset, so the starting pose's heading need not equal the
  gyro reading;
* ``None``: no gyro; the rotation comes from the wheels (the kinematics' twist) and
  the heading accumulates it. If a gyro reading arrives after odometry was started
  without one, the offset is fixed at that moment so that the reading agrees with
  the heading the wheels had reached.

The pose's heading is not wrapped (see :mod:`simcore.controllers.geometry`).
"""
from __future__ import annotations

__all__ = ["DifferentialOdometry", "MecanumOdometry", "SwerveOdometry"]

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

from .geometry import Pose2d, Twist2d, wrap_angle
from .kinematics import (DifferentialKinematics, MecanumKinematics, SwerveKinematics,
                         SwerveModulePosition, _as)


class _Odometry:
    """Shared pose bookkeeping; subclasses provide ``_twist(old, new)``."""

    def __init__(self, heading, positions, pose: Pose2d):
        self.reset(heading, positions, pose)

    @property
    def pose(self) -> Pose2d:
        """The current pose estimate (m, m, rad)."""
        return self._pose

    def reset(self, heading, positions, pose: Pose2d = Pose2d()) -> None:
        """Restart from ``pose`` with the current gyro reading and wheel positions.

        Parameters
        ----------
        heading : float or None
            Current gyro angle, rad, or None without a gyro.
        positions
            Current wheel positions (as for the update method).
        pose : Pose2d, optional
            The robot's pose now (default the origin, heading 0).
        """
        if not isinstance(pose, Pose2d):
            raise ConfigTypeError("pose", pose, "a Pose2d")
        self._pose = pose
        self._previous_angle = pose.heading
        self._gyro_offset = None if heading is None else (
            pose.heading - checks.angle("heading", heading))
        self._previous_positions = self._check_positions(positions)

    def _step(self, heading, positions) -> Pose2d:
        positions = self._check_positions(positions)
        twist = self._twist(self._previous_positions, positions)
        if heading is None:
            angle = self._previous_angle + twist.dtheta
        else:
            heading = checks.angle("heading", heading)
            if self._gyro_offset is None:
                self._gyro_offset = self._previous_angle - heading
            angle = heading + self._gyro_offset
            # The gyro is trusted over the wheels for the rotation (WPILib).
            twist = Twist2d(twist.dx, twist.dy, wrap_angle(angle - self._previous_angle))
        moved = self._pose.exp(twist)
        self._pose = Pose2d(moved.x, moved.y, angle)
        self._previous_angle = angle
        self._previous_positions = positions
        return self._pose

    def _check_positions(self, positions):  # pragma: no cover - overridden
        raise NotImplementedError

    def _twist(self, old, new) -> Twist2d:  # pragma: no cover - overridden
        raise NotImplementedError


class DifferentialOdometry(_Odometry):
    """Odometry of a differential drive.

    Parameters
    ----------
    kinematics : DifferentialKinematics
        The drive's kinematics (track width).
    heading : float or None
        Gyro angle now, rad, or None without a gyro.
    left_distance, right_distance : float
        Wheel encoder distances now, m.
    pose : Pose2d, optional
        The robot's pose now (default the origin).
    """

    def __init__(self, kinematics: DifferentialKinematics, heading, left_distance: float,
                 right_distance: float, pose: Pose2d = Pose2d()):
        if not isinstance(kinematics, DifferentialKinematics):
            raise ConfigTypeError("kinematics", kinematics, "a DifferentialKinematics")
        self.kinematics = kinematics
        super().__init__(heading, (left_distance, right_distance), pose)

    def update(self, heading, left_distance: float, right_distance: float) -> Pose2d:
        """Advance the pose to the given gyro angle (rad or None) and wheel distances (m)."""
        return self._step(heading, (left_distance, right_distance))

    def reset(self, heading, positions, pose: Pose2d = Pose2d()) -> None:
        """Restart from ``pose``; ``positions`` is ``(left_distance, right_distance)`` in m."""
        super().reset(heading, positions, pose)

    def _check_positions(self, positions):
        if isinstance(positions, (str, bytes)) or not hasattr(positions, "__len__") or len(positions) != 2:
            raise ConfigError("positions", positions, "(left_distance, right_distance) in m")
        left, right = positions
        return checks.finite("left_distance", left, "m"), checks.finite("right_distance", right, "m")

    def _twist(self, old, new) -> Twist2d:
        return self.kinematics.to_twist(new[0] - old[0], new[1] - old[1])


class MecanumOdometry(_Odometry):
    """Odometry of a mecanum drive.

    Parameters
    ----------
    kinematics : MecanumKinematics
        The drive's kinematics.
    heading : float or None
        Gyro angle now, rad, or None without a gyro.
    wheel_positions : sequence of 4 float
        Wheel distances now ``(front_left, front_right, rear_left, rear_right)``, m.
    pose : Pose2d, optional
        The robot's pose now (default the origin).
    """

    def __init__(self, kinematics: MecanumKinematics, heading, wheel_positions,
                 pose: Pose2d = Pose2d()):
        if not isinstance(kinematics, MecanumKinematics):
            raise ConfigTypeError("kinematics", kinematics, "a MecanumKinematics")
        self.kinematics = kinematics
        super().__init__(heading, wheel_positions, pose)

    def update(self, heading, wheel_positions) -> Pose2d:
        """Advance the pose to the given gyro angle (rad or None) and wheel distances (m)."""
        return self._step(heading, wheel_positions)

    def _check_positions(self, positions):
        if isinstance(positions, (str, bytes)) or not hasattr(positions, "__iter__"):
            raise ConfigError("wheel_positions", positions, "four wheel distances in m")
        values = tuple(checks.finite(f"wheel_positions[{i}]", p, "m") for i, p in enumerate(positions))
        if len(values) != 4:
            raise ConfigError("wheel_positions", positions, "four wheel distances in m")
        return values

    def _twist(self, old, new) -> Twist2d:
        return self.kinematics.to_twist([b - a for a, b in zip(old, new)])


class SwerveOdometry(_Odometry):
    """Odometry of a swerve drive.

    Parameters
    ----------
    kinematics : SwerveKinematics
        The drive's kinematics.
    heading : float or None
        Gyro angle now, rad, or None without a gyro.
    module_positions : sequence of SwerveModulePosition or (float, float)
        Each module's driven distance (m) and steering angle (rad) now.
    pose : Pose2d, optional
        The robot's pose now (default the origin).
    """

    def __init__(self, kinematics: SwerveKinematics, heading, module_positions,
                 pose: Pose2d = Pose2d()):
        if not isinstance(kinematics, SwerveKinematics):
            raise ConfigTypeError("kinematics", kinematics, "a SwerveKinematics")
        self.kinematics = kinematics
        super().__init__(heading, module_positions, pose)

    def update(self, heading, module_positions) -> Pose2d:
        """Advance the pose to the given gyro angle (rad or None) and module positions."""
        return self._step(heading, module_positions)

    def _check_positions(self, positions):
        if isinstance(positions, (str, bytes)) or not hasattr(positions, "__iter__"):
            raise ConfigError("module_positions", positions, f"{self.kinematics.n_modules} module positions")
        values = tuple(_as(SwerveModulePosition, f"module_positions[{i}]", p) for i, p in enumerate(positions))
        if len(values) != self.kinematics.n_modules:
            raise ConfigError("module_positions", positions,
                              f"{self.kinematics.n_modules} module positions")
        return values

    def _twist(self, old, new) -> Twist2d:
        # Distance change along the module's latest angle, as WPILib does.
        return self.kinematics.to_twist(
            [(b.distance - a.distance, b.angle) for a, b in zip(old, new)])
