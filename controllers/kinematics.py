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
objects instead of mutating, unlike WPILib's Java classes. Constructing one checks
every field: a finite number, or a pint Quantity of the field's dimension (converted
to SI); strings, None, bools, NaN and wrong dimensions raise ConfigError.
"""
from __future__ import annotations

__all__ = ["ChassisSpeeds", "DifferentialWheelSpeeds", "DifferentialKinematics",
           "MecanumWheelSpeeds", "MecanumKinematics", "SwerveModuleState",
           "SwerveModulePosition", "SwerveKinematics"]

import math
from typing import NamedTuple, Sequence

import numpy as np

from simcore import checks
from simcore.errors import ConfigError

from .geometry import Twist2d, wrap_angle

# Modules closer than this are "coincident" (m); a module slower than _REST (m/s)
# keeps its previous angle.
_COINCIDENT = 1e-9
_REST = 1e-6

_point = checks.point

#: Builds a value type from values already checked (the controllers' hot path): no checks, no parsing.
_trusted = tuple.__new__


class _Checked:
    """Mixin of the value types: each field checked and converted to SI on construction.

    The NamedTuple base binds the arguments (defaults, keywords, a wrong count's
    TypeError); then every field must be a finite number in the unit listed in
    ``_units`` (a Quantity of that dimension is converted).
    """

    __slots__ = ()
    _units: tuple = ()

    def __new__(cls, *args, **kwargs):
        bound = super().__new__(cls, *args, **kwargs)
        return _trusted(cls, tuple(checks.finite(f, v, u) for f, v, u in zip(cls._fields, bound, cls._units)))

    @classmethod
    def _make(cls, iterable):
        # namedtuple's _make (and so _replace) would skip the checks.
        return cls(*iterable)


def _as(cls, parameter: str, value):
    """``value`` as a ``cls`` value type: itself, or a tuple of its fields (errors name ``parameter``)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ConfigError(parameter, value, f"a {cls.__name__} or a tuple ({', '.join(cls._fields)})")
    items = tuple(value)
    if len(items) != len(cls._fields):
        raise ConfigError(parameter, value, f"a {cls.__name__} or a tuple ({', '.join(cls._fields)})")
    return _trusted(cls, tuple(checks.finite(f"{parameter}.{f}", v, u)
                               for f, v, u in zip(cls._fields, items, cls._units)))


class _ChassisSpeedsFields(NamedTuple):
    vx: float = 0.0
    vy: float = 0.0
    omega: float = 0.0


class ChassisSpeeds(_Checked, _ChassisSpeedsFields):
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

    __slots__ = ()
    _units = ("m/s", "m/s", "rad/s")

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
        vx, vy, omega = cls(vx, vy, omega)
        heading = checks.angle("heading", heading)
        c, s = math.cos(heading), math.sin(heading)
        return _trusted(cls, (c * vx + s * vy, -s * vx + c * vy, omega))

    def to_field_relative(self, heading: float) -> "ChassisSpeeds":
        """These speeds along the field axes, for a robot at ``heading`` (rad)."""
        heading = checks.angle("heading", heading)
        c, s = math.cos(heading), math.sin(heading)
        return _trusted(ChassisSpeeds, (c * self.vx - s * self.vy, s * self.vx + c * self.vy, self.omega))


# ------------------------------------------------------------------ differential
class _DifferentialWheelSpeedsFields(NamedTuple):
    left: float = 0.0
    right: float = 0.0


class DifferentialWheelSpeeds(_Checked, _DifferentialWheelSpeedsFields):
    """Left and right wheel rim speeds, m/s (or distances, m, for odometry: plain numbers)."""

    __slots__ = ()
    _units = ("", "")


class DifferentialKinematics:
    """Kinematics of a differential (tank) drive.

    Parameters
    ----------
    track_width : float
        Distance between the left and right wheel contact lines, m. Positive.
        (An effective, scrubbed track width from characterization is fine.)
    """

    def __init__(self, track_width: float):
        self.track_width = checks.positive("track_width", track_width, "m", what="distance")

    def to_wheel_speeds(self, speeds: ChassisSpeeds) -> DifferentialWheelSpeeds:
        """Wheel speeds (m/s) for chassis speeds; ``vy`` is ignored."""
        vx, _, omega = _as(ChassisSpeeds, "speeds", speeds)
        half = self.track_width / 2.0
        return DifferentialWheelSpeeds(vx - half * omega, vx + half * omega)

    def to_chassis_speeds(self, wheel_speeds) -> ChassisSpeeds:
        """Chassis speeds for ``(left, right)`` wheel speeds in m/s."""
        left, right = _as(DifferentialWheelSpeeds, "wheel_speeds", wheel_speeds)
        return ChassisSpeeds((left + right) / 2.0, 0.0, (right - left) / self.track_width)

    def to_twist(self, left_delta: float, right_delta: float) -> Twist2d:
        """Arc travelled when the wheels move ``left_delta`` and ``right_delta`` (m)."""
        left_delta = checks.finite("left_delta", left_delta, "m")
        right_delta = checks.finite("right_delta", right_delta, "m")
        return Twist2d((left_delta + right_delta) / 2.0, 0.0,
                       (right_delta - left_delta) / self.track_width)


# ---------------------------------------------------------------------- mecanum
class _MecanumWheelSpeedsFields(NamedTuple):
    front_left: float = 0.0
    front_right: float = 0.0
    rear_left: float = 0.0
    rear_right: float = 0.0


class MecanumWheelSpeeds(_Checked, _MecanumWheelSpeedsFields):
    """Mecanum wheel rim speeds, m/s (or distances, m, for odometry: plain numbers)."""

    __slots__ = ()
    _units = ("", "", "", "")

    def desaturate(self, max_speed: float) -> "MecanumWheelSpeeds":
        """Scale all four speeds by one factor so none exceeds ``max_speed`` (m/s)."""
        return _trusted(MecanumWheelSpeeds, tuple(_desaturate(list(self), max_speed)))


def _desaturate(speeds, max_speed):
    max_speed = checks.nonnegative("max_speed", max_speed, "m/s", what="speed")
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
        center = _point("center", center)
        matrix = self._inverse if center == (0.0, 0.0) else self._matrix(center)
        speeds = _as(ChassisSpeeds, "speeds", speeds)
        return MecanumWheelSpeeds(*(float(v) for v in matrix @ np.asarray(speeds, float)))

    def to_chassis_speeds(self, wheel_speeds) -> ChassisSpeeds:
        """Least-squares chassis speeds for ``(fl, fr, rl, rr)`` rim speeds in m/s."""
        wheel_speeds = _as(MecanumWheelSpeeds, "wheel_speeds", wheel_speeds)
        return ChassisSpeeds(*(float(v) for v in self._forward @ np.asarray(wheel_speeds, float)))

    def to_twist(self, wheel_deltas) -> Twist2d:
        """Arc travelled for wheel distance changes ``(fl, fr, rl, rr)`` in m."""
        wheel_deltas = _as(MecanumWheelSpeeds, "wheel_deltas", wheel_deltas)
        return Twist2d(*(float(v) for v in self._forward @ np.asarray(wheel_deltas, float)))


# ------------------------------------------------------------------------ swerve
class _SwerveModuleStateFields(NamedTuple):
    speed: float = 0.0
    angle: float = 0.0


class SwerveModuleState(_Checked, _SwerveModuleStateFields):
    """A swerve module's wheel speed (m/s) and steering angle (rad, robot frame)."""

    __slots__ = ()
    _units = ("m/s", "rad")

    def optimize(self, current_angle: float) -> "SwerveModuleState":
        """The equivalent state needing at most a 90-degree turn from ``current_angle``.

        If the requested angle is more than 90 degrees (pi/2 rad) from the current
        one, drive the other way: speed negated and angle + pi (wrapped into
        ``(-pi, pi]``). Exactly 90 degrees is left alone, as in WPILib.
        """
        current_angle = checks.angle("current_angle", current_angle)
        if abs(wrap_angle(self.angle - current_angle)) > math.pi / 2.0:
            return _trusted(SwerveModuleState, (-self.speed, wrap_angle(self.angle + math.pi)))
        return self

    def cosine_scale(self, current_angle: float) -> "SwerveModuleState":
        """Speed scaled by the cosine of the steering error (less push while turning)."""
        current_angle = checks.angle("current_angle", current_angle)
        return _trusted(SwerveModuleState, (self.speed * math.cos(self.angle - current_angle), self.angle))


class _SwerveModulePositionFields(NamedTuple):
    distance: float = 0.0
    angle: float = 0.0


class SwerveModulePosition(_Checked, _SwerveModulePositionFields):
    """A swerve module's driven distance (m) and steering angle (rad, robot frame)."""

    __slots__ = ()
    _units = ("m", "rad")


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
        center = _point("center", center)
        matrix = self._inverse if center == (0.0, 0.0) else self._matrix(center)
        components = matrix @ np.asarray(_as(ChassisSpeeds, "speeds", speeds), float)
        states = []
        for i in range(self.n_modules):
            vx, vy = float(components[2 * i]), float(components[2 * i + 1])
            speed = math.hypot(vx, vy)
            if speed > _REST:
                self._headings[i] = math.atan2(vy, vx)
            else:
                speed = 0.0
            states.append(_trusted(SwerveModuleState, (speed, self._headings[i])))
        return states

    def _stack(self, pairs, name, kind):
        if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
            raise ConfigError(name, pairs, f"{self.n_modules} modules")
        pairs = list(pairs)
        if len(pairs) != self.n_modules:
            raise ConfigError(name, pairs, f"{self.n_modules} modules")
        out = np.empty(2 * self.n_modules)
        for i, pair in enumerate(pairs):
            magnitude, angle = _as(kind, f"{name}[{i}]", pair)
            out[2 * i] = magnitude * math.cos(angle)
            out[2 * i + 1] = magnitude * math.sin(angle)
        return out

    def to_chassis_speeds(self, states) -> ChassisSpeeds:
        """Least-squares chassis speeds for module ``(speed, angle)`` states."""
        return ChassisSpeeds(*(float(v) for v in self._forward @ self._stack(states, "states", SwerveModuleState)))

    def to_twist(self, deltas) -> Twist2d:
        """Arc travelled for module ``(distance change, angle)`` pairs (m, rad).

        As in WPILib, each module is taken to have moved in a straight line at the
        given (end-of-step) angle.
        """
        return Twist2d(*(float(v) for v in self._forward @ self._stack(deltas, "deltas", SwerveModulePosition)))

    @staticmethod
    def desaturate(states, max_speed: float) -> list[SwerveModuleState]:
        """Scale every module's speed by one factor so none exceeds ``max_speed`` (m/s).

        The angles are unchanged, so the chassis motion keeps its direction and
        centre of rotation, only slower. States already within the limit are
        returned unchanged.
        """
        states = [_as(SwerveModuleState, f"states[{i}]", s) for i, s in enumerate(states)]
        scaled = _desaturate([s.speed for s in states], max_speed)
        return [_trusted(SwerveModuleState, (v, s.angle)) for v, s in zip(scaled, states)]
