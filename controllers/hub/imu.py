"""The hub's IMU (the SDK's ``IMU`` interface) on a drivetrain's heading.

``IMU(drivetrain)`` reads the drivetrain's ``heading`` signal (rad,
counter-clockwise seen from above, as every simcore drivetrain defines it). The
SDK's conventions (``IMU``, ``YawPitchRollAngles``): yaw is the rotation about
the robot's upward Z axis, counter-clockwise positive (right-handed), relative
to the heading at the last :meth:`IMU.resetYaw` (here: relative to heading 0 of
the field until the op mode resets it), wrapped to [-180, 180) degrees
(``AngleUnit``'s normalisation). Pitch and roll are 0: simcore drivetrains are
planar. The mounting given to :meth:`IMU.initialize` is accepted and checked
(a physically impossible one raises as the SDK does) but changes nothing: the
SDK turns any correct mounting into the robot's own angles.

Exact: the conventions above. APPROXIMATION: the reading is the modelled
heading exactly (the real BHI260AP / BNO055 fuses a gyro: it drifts slowly and
its SDK path is single-precision); a read costs ``i2c_read_round_trips`` hub
round trips from a Java-style op mode (:mod:`simcore.controllers.hub.timing`).
``getRobotAngularVelocity`` needs an ``omega`` signal (yaw rate, rad/s) on the
drivetrain.
"""
from __future__ import annotations

import enum
import math
from typing import Mapping, Optional

from simcore.errors import ConfigError, ConfigTypeError

from .motor import held_signals
from .sdk import AngleUnit, IllegalArgumentException
from .timing import robot_clock, spend_i2c_read
from .untraced import sdk_method

__all__ = ["IMU", "YawPitchRollAngles", "AngularVelocity", "RevHubOrientationOnRobot"]


class YawPitchRollAngles:
    """``YawPitchRollAngles``: angles kept in degrees, returned in any ``AngleUnit`` (normalised)."""

    def __init__(self, angle_unit: AngleUnit, yaw: float, pitch: float, roll: float, acquisition_time: int):
        self._unit = angle_unit
        self._yaw, self._pitch, self._roll = yaw, pitch, roll
        self._acquisition_time = acquisition_time

    def getYaw(self, angle_unit: Optional[AngleUnit] = None) -> float:
        """Rotation about the upward axis, counter-clockwise positive, in [-180, 180) degrees (or radians)."""
        return self._in(angle_unit, self._yaw)

    def getPitch(self, angle_unit: Optional[AngleUnit] = None) -> float:
        """Front-to-back rotation (0 on a planar drivetrain)."""
        return self._in(angle_unit, self._pitch)

    def getRoll(self, angle_unit: Optional[AngleUnit] = None) -> float:
        """Side-to-side tilt (0 on a planar drivetrain)."""
        return self._in(angle_unit, self._roll)

    def getAcquisitionTime(self) -> int:
        """Simulation time of the reading, ns."""
        return self._acquisition_time

    def _in(self, unit, value):
        if unit is None:
            return value
        if not isinstance(unit, AngleUnit):
            raise TypeError(f"angleUnit={unit!r}: expected an AngleUnit")
        return unit.fromUnit(self._unit, value)

    def __repr__(self):
        return f"YawPitchRollAngles(yaw={self._yaw!r}, pitch={self._pitch!r}, roll={self._roll!r} {self._unit})"


class AngularVelocity:
    """``AngularVelocity``: public ``xRotationRate``, ``yRotationRate``, ``zRotationRate`` in ``unit`` per second."""

    def __init__(self, unit: AngleUnit, x: float, y: float, z: float, acquisition_time: int):
        self.unit = unit
        self.xRotationRate, self.yRotationRate, self.zRotationRate = x, y, z
        self.acquisitionTime = acquisition_time

    def __repr__(self):
        return (f"AngularVelocity(x={self.xRotationRate!r}, y={self.yRotationRate!r}, "
                f"z={self.zRotationRate!r} {self.unit}/s)")


_FACES = ("UP", "DOWN", "FORWARD", "BACKWARD", "LEFT", "RIGHT")


class RevHubOrientationOnRobot:
    """How the hub is mounted: which way its logo and its USB ports face (``RevHubOrientationOnRobot``)."""

    #: ``RevHubOrientationOnRobot.LogoFacingDirection``: which way the hub's logo faces on the robot.
    LogoFacingDirection = enum.Enum("LogoFacingDirection", {f: f for f in _FACES})
    #: ``RevHubOrientationOnRobot.UsbFacingDirection``: which way its USB ports face.
    UsbFacingDirection = enum.Enum("UsbFacingDirection", {f: f for f in _FACES})

    _AXES = {"UP": 0, "DOWN": 0, "FORWARD": 1, "BACKWARD": 1, "LEFT": 2, "RIGHT": 2}

    def __init__(self, logo_facing_direction, usb_facing_direction):
        if not isinstance(logo_facing_direction, self.LogoFacingDirection):
            raise ConfigTypeError("logoFacingDirection", logo_facing_direction, "a LogoFacingDirection")
        if not isinstance(usb_facing_direction, self.UsbFacingDirection):
            raise ConfigTypeError("usbFacingDirection", usb_facing_direction, "a UsbFacingDirection")
        if self._AXES[logo_facing_direction.value] == self._AXES[usb_facing_direction.value]:
            raise IllegalArgumentException("The specified REV Hub orientation is physically impossible")
        self.logo_facing_direction = logo_facing_direction
        self.usb_facing_direction = usb_facing_direction


class IMU:
    """The SDK's ``IMU`` on a simulated drivetrain's heading (see the module docstring).

    Parameters
    ----------
    drivetrain : simcore.System
        A system with a ``heading`` state or output (rad, counter-clockwise),
        and optionally ``omega`` (rad/s) for :meth:`getRobotAngularVelocity`.
    name : str
        Device name in error messages (default ``"imu"``).

    Notes
    -----
    Give it to :func:`~simcore.controllers.hub.run_opmode`'s ``configuration``
    (or, for a generator-style op mode, in ``linear_opmode(hubs=[hub, imu])``),
    which hands it the simulation's signals.
    """

    class Parameters:
        """``IMU.Parameters(imuOrientationOnRobot)``."""

        def __init__(self, imu_orientation_on_robot):
            if not isinstance(imu_orientation_on_robot, RevHubOrientationOnRobot):
                raise ConfigTypeError("imuOrientationOnRobot", imu_orientation_on_robot,
                                      "a RevHubOrientationOnRobot")
            self.imuOrientationOnRobot = imu_orientation_on_robot

    def __init__(self, drivetrain, *, name: str = "imu"):
        system = getattr(drivetrain, "name", None)
        signals = set(getattr(drivetrain, "state_names", ()) or ()) | set(getattr(drivetrain, "output_names", ()) or ())
        if not isinstance(system, str) or "heading" not in signals:
            raise ConfigError("drivetrain", drivetrain, "a simcore drivetrain with a 'heading' signal (rad)")
        self.drivetrain_name = system
        self.name = name
        self._heading_key = f"{system}.heading"
        self._omega_key = f"{system}.omega" if "omega" in signals else None
        self._yaw_zero = 0.0  # heading at the last resetYaw, rad
        self.signals: Optional[Mapping[str, float]] = None
        self._weak_signals = False
        self.parameters = None

    def observe(self, signals: Mapping[str, float]) -> None:
        """Hand the IMU the signals mapping its reads use (the op mode runner does this at every tick)."""
        self.signals = held_signals(signals, self._weak_signals, self.signals)

    def hold_signals_weakly(self) -> None:
        """Keep the signals through a weak view (as :meth:`Hub.hold_signals_weakly`)."""
        self._weak_signals = True
        self.signals = held_signals(self.signals, True)

    def _read(self, key: str) -> float:
        if self.signals is None:
            raise RuntimeError(f"IMU {self.name!r} has no signals yet: give it to run_opmode's configuration "
                               "(or linear_opmode's hubs) so that it sees the simulation")
        value = float(self.signals[key])
        spend_i2c_read()  # the answer is the state when the read was issued
        return value

    @staticmethod
    def _now_ns() -> int:
        clock = robot_clock()
        return clock.now_ns if clock is not None else 0

    def initialize(self, parameters: "IMU.Parameters") -> bool:
        """Accept the mounting (checked, see the module docstring); returns True."""
        if not isinstance(parameters, IMU.Parameters):
            raise ConfigTypeError("parameters", parameters, "an IMU.Parameters")
        self.parameters = parameters
        return True

    def resetYaw(self) -> None:
        """Yaw 0 from now on at the current heading (one I2C read)."""
        self._yaw_zero = self._read(self._heading_key)

    def getRobotYawPitchRollAngles(self) -> YawPitchRollAngles:
        """The robot's yaw (the heading since the last reset, degrees in [-180, 180)), pitch and roll (0)."""
        t = self._now_ns()
        heading = self._read(self._heading_key)
        yaw = AngleUnit.DEGREES.fromRadians(heading - self._yaw_zero)
        return YawPitchRollAngles(AngleUnit.DEGREES, yaw, 0.0, 0.0, t)

    def getRobotAngularVelocity(self, angle_unit: AngleUnit) -> AngularVelocity:
        """The yaw rate about the upward axis (``zRotationRate``, counter-clockwise positive) in ``angle_unit``/s."""
        if not isinstance(angle_unit, AngleUnit):
            raise TypeError(f"angleUnit={angle_unit!r}: expected an AngleUnit")
        if self._omega_key is None:
            raise ConfigError("drivetrain", self.drivetrain_name, "a drivetrain with an 'omega' signal (yaw rate) "
                                                                  "for getRobotAngularVelocity")
        t = self._now_ns()
        rate = angle_unit.rate_from_degrees(math.degrees(self._read(self._omega_key)))
        return AngularVelocity(angle_unit, 0.0, 0.0, rate, t)

    def getDeviceName(self) -> str:
        """Device name."""
        return "IMU"

    def resetDeviceConfigurationForOpMode(self) -> None:
        """Nothing to reset (the yaw reference survives op modes, as in the SDK)."""

    def __repr__(self):
        return f"IMU({self.name!r} on {self.drivetrain_name!r})"


#: The IMU's reads run with the op mode's line counter off (simcore's code: :mod:`.untraced`).
for _name in ("resetYaw", "getRobotYawPitchRollAngles", "getRobotAngularVelocity"):
    setattr(IMU, _name, sdk_method(vars(IMU)[_name]))
del _name
