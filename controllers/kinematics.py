"""Drivetrain kinematics: differential, mecanum and swerve, WPILib semantics.

Follows WPILib's ``DifferentialDriveKinematics``, ``MecanumDriveKinematics``,
``SwerveDriveKinematics`` and ``SwerveModuleState`` (``edu/wpi/first/math/
kinematics``, v2025.3.2). Robot frame: x forward, y left, angles counter-clockwise
from +x, metres, seconds and radians throughout.

* **Differential** (track width ``w``): ``left = vx - w/2 * omega``, ``right = vx +
  w/2 * omega``; ``vy`` cannot be produced and is ignored, as in WPILib.
* **Mecanum** (45-degree rollers in the usual "X" seen from above): a wheel's rim
  speed is the component of its contact point's velocity ``(vx - omega*y, vy +
  omega*x)`` along its drive direction once the roller freedom is removed:
  ``fl = vx - vy - omega*(x+y)``, ``fr = vx + vy + omega*(x-y)``, ``rl = vx + vy +
  omega*(x-y)``, ``rr = vx - vy - omega*(x+y)`` (positions relative to the centre
  of rotation). Wheel speeds to chassis speeds is the least-squares inverse
  (pseudo-inverse) of that 4x3 map.
* **Swerve**: each module's velocity is ``(vx - omega*(y - cy), vy + omega*(x -
  cx))``; a module at rest (below 1e-6 m/s) keeps its previous angle, as WPILib's
  kinematics object remembers headings. Chassis speeds from module states is the
  least-squares inverse. :meth:`SwerveModuleState.optimize` flips a module that
  would turn more than 90 degrees (speed negated, angle + pi); :meth:`desaturate
  <SwerveKinematics.desaturate>` scales all speeds by one factor so none exceeds
  the limit.

Every value type here is an immutable named tuple (unpackable); methods return new
objects instead of mutating, unlike WPILib's Java classes.
"""
from __future__ import annotations

__all__ = ["ChassisSpeeds", "DifferentialWheelSpeeds", "DifferentialKinematics",
           "MecanumWheelSpeeds", "MecanumKinematics", "SwerveModuleState",
           "SwerveModulePosition", "SwerveKinematics"]

import math
from typing import NamedTuple, Sequence

import numpy as np

from simcore.errors import ConfigError, check_finite

from .geometry import Twist2d, wrap_angle

# Modules closer than this are "coincident" (m); a module slower than _REST (m/s)
# keeps its previous angle.
_COINCIDENT = 1e-9
_REST = 1e-6


def _point(name: str, value):
    try:
        x, y = value
    except (TypeError, ValueError):
        raise ConfigError(name, value, "an (x, y) pair in m") from None
    return check_finite(f"{name}[0]", x), check_finite(f"{name}[1]", y)


class ChassisSpeeds(NamedTuple):
    """Robot-relative velocity.

    Parameters
    ----------
    vx : float
        Forward velocity, m/s.
    vy : float
        Leftward velocity, m/s.
    omega : float
        Counter-clockwise angular velocity, rad/s.
    """

    vx: float = 0.0
    vy: float = 0.0
    omega: float = 0.0

    @classmethod
    def from_field_relative(cls, vx: float, vy: float, omega: float,
                            heading: float) -> "ChassisSpeeds":
        """Robot-relative speeds for a field-relative request.

        Parameters
        ----------
        vx, vy : float
            Velocity along the field x and y axes, m/s.
        omega : float
            Angular velocity, rad/s.
        heading : float
            Robot heading on the field, rad.
        """
        c, s = math.cos(heading), math.sin(heading)
        return cls(c * vx + s * vy, -s * vx + c * vy, omega)

    def to_field_relative(self, heading: float) -> "ChassisSpeeds":
        """These speeds along the field axes, for a robot at ``heading`` (rad)."""
        c, s = math.cos(heading), math.sin(heading)
        return ChassisSpeeds(c * self.vx - s * self.vy, s * self.vx + c * self.vy, self.omega)


# ------------------------------------------------------------------ differential
class DifferentialWheelSpeeds(NamedTuple):
    """Left and right wheel rim speeds, m/s (or distances, m, for odometry)."""

    left: float = 0.0
    right: float = 0.0


class DifferentialKinematics:
    """Kinematics of a differential (tank) drive.

    Parameters
    ----------
    track_width : float
        Distance between the left and right wheel contact lines, m. Positive.
        (An effective, scrubbed track width from characterization is fine.)
    """

    def __init__(self, track_width: float):
        self.track_width = check_finite("track_width", track_width)
        if self.track_width <= 0.0:
            raise ConfigError("track_width", track_width, "a positive distance in m")

    def to_wheel_speeds(self, speeds: ChassisSpeeds) -> DifferentialWheelSpeeds:
        """Wheel speeds (m/s) for chassis speeds; ``vy`` is ignored."""
        vx, _, omega = speeds
        half = self.track_width / 2.0
        return DifferentialWheelSpeeds(vx - half * omega, vx + half * omega)

    def to_chassis_speeds(self, wheel_speeds) -> ChassisSpeeds:
        """Chassis speeds for ``(left, right)`` wheel speeds in m/s."""
        left, right = wheel_speeds
        return ChassisSpeeds((left + right) / 2.0, 0.0, (right - left) / self.track_width)

    def to_twist(self, left_delta: float, right_delta: float) -> Twist2d:
        """Arc travelled when the wheels move ``left_delta`` and ``right_delta`` (m)."""
        return Twist2d((left_delta + right_delta) / 2.0, 0.0,
                       (right_delta - left_delta) / self.track_width)


# ---------------------------------------------------------------------- mecanum
class MecanumWheelSpeeds(NamedTuple):
    """Mecanum wheel rim speeds, m/s (or distances, m, for odometry)."""

    front_left: float = 0.0
    front_right: float = 0.0
    rear_left: float = 0.0
    rear_right: float = 0.0

    def desaturate(self, max_speed: float) -> "MecanumWheelSpeeds":
        """Scale all four speeds by one factor so none exceeds ``max_speed`` (m/s)."""
        return MecanumWheelSpeeds(*_desaturate(list(self), max_speed))


def _desaturate(speeds, max_speed):
    max_speed = check_finite("max_speed", max_speed)
    if max_speed < 0.0:
        raise ConfigError("max_speed", max_speed, "a non-negative speed in m/s")
    fastest = max((abs(s) for s in speeds), default=0.0)
    if fastest <= max_speed:
        return list(speeds)
    return [s / fastest * max_speed for s in speeds]


class MecanumKinematics:
    """Kinematics of a mecanum drive (45-degree rollers).

    Parameters
    ----------
    front_left, front_right, rear_left, rear_right : (float, float)
        Wheel contact positions ``(x, y)`` relative to the robot centre, m (x
        forward, y left).

    Raises
    ------
    ConfigError
        A position is not finite, or the layout cannot determine all three chassis
        speeds (e.g. every wheel at one point).
    """

    def __init__(self, front_left, front_right, rear_left, rear_right):
        self.wheels = (_point("front_left", front_left), _point("front_right", front_right),
                       _point("rear_left", rear_left), _point("rear_right", rear_right))
        self._inverse = self._matrix((0.0, 0.0))
        if np.linalg.matrix_rank(self._inverse) < 3:
            raise ConfigError("wheel positions", self.wheels,
                              "a layout that determines vx, vy and omega")
        self._forward = np.linalg.pinv(self._inverse)

    def _matrix(self, center):
        cx, cy = center
        (flx, fly), (frx, fry), (rlx, rly), (rrx, rry) = [
            (x - cx, y - cy) for x, y in self.wheels]
        return np.array([[1.0, -1.0, -(flx + fly)],
                         [1.0, 1.0, frx - fry],
                         [1.0, 1.0, rlx - rly],
                         [1.0, -1.0, -(rrx + rry)]])

    def to_wheel_speeds(self, speeds: ChassisSpeeds, center=(0.0, 0.0)) -> MecanumWheelSpeeds:
        """Wheel rim speeds (m/s) for chassis speeds about ``center`` (x, y in m)."""
        matrix = self._inverse if tuple(center) == (0.0, 0.0) else self._matrix(
            _point("center", center))
        return MecanumWheelSpeeds(*(float(v) for v in matrix @ np.asarray(speeds, float)))

    def to_chassis_speeds(self, wheel_speeds) -> ChassisSpeeds:
        """Least-squares chassis speeds for ``(fl, fr, rl, rr)`` rim speeds in m/s."""
        return ChassisSpeeds(*(float(v) for v in self._forward @ np.asarray(wheel_speeds, float)))

    def to_twist(self, wheel_deltas) -> Twist2d:
        """Arc travelled for wheel distance changes ``(fl, fr, rl, rr)`` in m."""
        return Twist2d(*(float(v) for v in self._forward @ np.asarray(wheel_deltas, float)))


# ------------------------------------------------------------------------ swerve
class SwerveModuleState(NamedTuple):
    """A swerve module's wheel speed (m/s) and steering angle (rad, robot frame)."""

    speed: float = 0.0
    angle: float = 0.0

    def optimize(self, current_angle: float) -> "SwerveModuleState":
        """The equivalent state needing at most a 90-degree turn from ``current_angle``.

        If the requested angle is more than 90 degrees (pi/2 rad) from the current
        one, drive the other way: speed negated and angle + pi (wrapped into
        ``(-pi, pi]``). Exactly 90 degrees is left alone, as in WPILib.
        """
        if abs(wrap_angle(self.angle - current_angle)) > math.pi / 2.0:
            return SwerveModuleState(-self.speed, wrap_angle(self.angle + math.pi))
        return self

    def cosine_scale(self, current_angle: float) -> "SwerveModuleState":
        """Speed scaled by the cosine of the steering error (less push while turning)."""
        return SwerveModuleState(self.speed * math.cos(self.angle - current_angle), self.angle)


class SwerveModulePosition(NamedTuple):
    """A swerve module's driven distance (m) and steering angle (rad, robot frame)."""

    distance: float = 0.0
    angle: float = 0.0


class SwerveKinematics:
    """Kinematics of a swerve drive with any number (>= 2) of modules.

    Parameters
    ----------
    module_positions : sequence of (float, float)
        Module contact positions ``(x, y)`` relative to the robot centre, m.

    Raises
    ------
    ConfigError
        Fewer than two modules, a non-finite position, or two modules at the same
        point.
    """

    def __init__(self, module_positions: Sequence):
        positions = [_point(f"module_positions[{i}]", p)
                     for i, p in enumerate(module_positions)]
        if len(positions) < 2:
            raise ConfigError("module_positions", module_positions, "at least two modules")
        for i, a in enumerate(positions):
            for j in range(i):
                if math.dist(a, positions[j]) < _COINCIDENT:
                    raise ConfigError("module_positions", module_positions,
                                      f"distinct module positions (modules {j} and {i} "
                                      "coincide)")
        self.modules = tuple(positions)
        self._headings = [0.0] * len(positions)
        self._inverse = self._matrix((0.0, 0.0))
        self._forward = np.linalg.pinv(self._inverse)

    @property
    def n_modules(self) -> int:
        """Number of modules."""
        return len(self.modules)

    def _matrix(self, center):
        cx, cy = center
        rows = []
        for x, y in self.modules:
            rows.append([1.0, 0.0, -(y - cy)])
            rows.append([0.0, 1.0, x - cx])
        return np.array(rows)

    def to_module_states(self, speeds: ChassisSpeeds,
                         center=(0.0, 0.0)) -> list[SwerveModuleState]:
        """Module states for chassis speeds, rotating about ``center`` (x, y in m).

        A module whose speed is below 1e-6 m/s keeps the angle it was last given
        (all of them when ``speeds`` is zero), so a stopped robot does not snap its
        wheels to 0 rad. The angles are in ``(-pi, pi]``; apply
        :meth:`SwerveModuleState.optimize` per module before commanding them.
        """
        matrix = self._inverse if tuple(center) == (0.0, 0.0) else self._matrix(
            _point("center", center))
        components = matrix @ np.asarray(speeds, float)
        states = []
        for i in range(self.n_modules):
            vx, vy = float(components[2 * i]), float(components[2 * i + 1])
            speed = math.hypot(vx, vy)
            if speed > _REST:
                self._headings[i] = math.atan2(vy, vx)
            else:
                speed = 0.0
            states.append(SwerveModuleState(speed, self._headings[i]))
        return states

    def _stack(self, pairs, name):
        pairs = list(pairs)
        if len(pairs) != self.n_modules:
            raise ConfigError(name, pairs, f"{self.n_modules} modules")
        out = np.empty(2 * self.n_modules)
        for i, (magnitude, angle) in enumerate(pairs):
            out[2 * i] = magnitude * math.cos(angle)
            out[2 * i + 1] = magnitude * math.sin(angle)
        return out

    def to_chassis_speeds(self, states) -> ChassisSpeeds:
        """Least-squares chassis speeds for module ``(speed, angle)`` states."""
        return ChassisSpeeds(*(float(v) for v in self._forward @ self._stack(states, "states")))

    def to_twist(self, deltas) -> Twist2d:
        """Arc travelled for module ``(distance change, angle)`` pairs (m, rad).

        As in WPILib, each module is taken to have moved in a straight line at the
        given (end-of-step) angle.
        """
        return Twist2d(*(float(v) for v in self._forward @ self._stack(deltas, "deltas")))

    @staticmethod
    def desaturate(states, max_speed: float) -> list[SwerveModuleState]:
        """Scale every module's speed by one factor so none exceeds ``max_speed`` (m/s).

        The angles are unchanged, so the chassis motion keeps its direction and
        centre of rotation, only slower. States already within the limit are
        returned unchanged.
        """
        states = [SwerveModuleState(*s) for s in states]
        scaled = _desaturate([s.speed for s in states], max_speed)
        return [SwerveModuleState(v, s.angle) for v, s in zip(scaled, states)]
