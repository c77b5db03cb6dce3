"""Op modes in the shape of the FTC SDK's samples, written here in the project's own code.

Each follows the structure of an SDK sample a team starts from (the SDK's
``RobotAutoDriveByEncoder_Linear``, ``RobotAutoDriveByTime_Linear``,
``BasicOpMode_Linear`` and ``BasicOmniOpMode_Linear``), for any robot whose
drive motors are configured by name: tank robots (one motor per side, or more),
mecanum robots (two per side), or plain hub motors on a bench.

Java style (:class:`LinearOpMode` subclasses, run with
:func:`~simcore.controllers.hub.run_opmode`):

* :class:`DriveByEncoder`: three legs in RUN_TO_POSITION (forward 48 in, a
  12 in turn to the right, back 24 in), each ended when a motor reports not
  busy or its timeout passes;
* :class:`DriveByTime`: the same path open loop, by time;
* :class:`POVTeleOp`: POV drive from a (scripted) ``gamepad1``: left stick
  forward/back, right stick turns;
* :class:`OmniTeleOp`: the mecanum POV drive (axial, lateral, yaw).

Generator style (run with :func:`~simcore.controllers.hub.linear_opmode` at
the round trip): :func:`drive_by_encoder` and :func:`drive_by_time`, the same
op modes with every cost the Java style's thread pays spelt out as a ``yield``
(:class:`GeneratorTiming`), so they give the Java style's trajectory exactly.

Motor directions: as on a robot, a simulated drivetrain's left motors are
mounted mirrored (:mod:`simcore.controllers.hub.motor`, "Mounting"), so each
op mode here reverses them, as the SDK's samples do
(``leftDrive.setDirection(DcMotor.Direction.REVERSE)``): ``reversed`` defaults
to the left motors' names (for :class:`OmniTeleOp`, the front and rear left).
Give ``reversed=()`` for motors that need no reversing (a robot whose motors
are all mounted alike, or hub motors on a bench).

The SDK's drive samples translated line by line, every statement kept and
each runnable as written, are in the modules of this package:
:class:`BasicOmniOpMode_Linear`, :class:`RobotAutoDriveByEncoder_Linear`,
:class:`RobotAutoDriveByTime_Linear` and :class:`RobotAutoDriveByGyro_Linear`.
"""
from __future__ import annotations

import math
from typing import Sequence

from ..imu import IMU
from ..linear import LinearOpMode
from ..motor import DcMotorEx
from ..sdk import AngleUnit, Direction, RunMode
from ..telemetry import Telemetry
from ..timing import ElapsedTime

from .basic_omni_opmode_linear import BasicOmniOpMode_Linear
from .robot_auto_drive_by_encoder_linear import RobotAutoDriveByEncoder_Linear
from .robot_auto_drive_by_gyro_linear import RobotAutoDriveByGyro_Linear
from .robot_auto_drive_by_time_linear import RobotAutoDriveByTime_Linear
from .robots import encoder_sample_tank, gyro_sample_tank, strafer

__all__ = ["BasicOmniOpMode_Linear", "RobotAutoDriveByEncoder_Linear", "RobotAutoDriveByTime_Linear",
           "RobotAutoDriveByGyro_Linear", "strafer", "encoder_sample_tank", "gyro_sample_tank", "counts_per_inch", "DriveByEncoder", "DriveByTime", "POVTeleOp", "OmniTeleOp", "GeneratorTiming",
           "drive_by_encoder", "drive_by_time", "ENCODER_LEGS", "TIMED_LEGS"]

#: The encoder sample's path: (speed, left inches, right inches, timeout s): forward, turn right, back.
ENCODER_LEGS = ((0.6, 48.0, 48.0, 5.0), (0.5, 12.0, -12.0, 4.0), (0.6, -24.0, -24.0, 4.0))
#: The timed sample's path: (left power, right power, seconds): forward, turn right, back.
TIMED_LEGS = ((0.6, 0.6, 3.0), (0.5, -0.5, 1.3), (-0.6, -0.6, 1.0))

_INCH = 0.0254  # m


def counts_per_inch(motor_type, wheel_diameter, gear_reduction: float = 1.0) -> float:
    """Encoder counts per inch of travel, as the encoder sample computes it.

    Parameters
    ----------
    motor_type : MotorType
        The configured type (its ``getTicksPerRev()``, counts per output revolution).
    wheel_diameter : float
        m.
    gear_reduction : float
        External reduction between the motor's output and the wheel.
    """
    return motor_type.getTicksPerRev() * gear_reduction / (wheel_diameter / _INCH * math.pi)


def _clip(x: float, low: float = -1.0, high: float = 1.0) -> float:
    return low if x < low else high if x > high else x


class _SideDrive(LinearOpMode):
    """What the drive samples share: left and right motors by name, some reversed."""

    def __init__(self, *, left: Sequence[str] = ("left_drive",), right: Sequence[str] = ("right_drive",),
                 reversed: Sequence[str] | None = None):
        self.left_names, self.right_names = tuple(left), tuple(right)
        # As the SDK samples: the left motors, mounted mirrored, reversed.
        self.reversed_names = self.left_names if reversed is None else tuple(reversed)

    def _motors(self):
        left = [self.hardwareMap.get(DcMotorEx, n) for n in self.left_names]
        right = [self.hardwareMap.get(DcMotorEx, n) for n in self.right_names]
        for name in self.reversed_names:
            self.hardwareMap.get(DcMotorEx, name).setDirection(Direction.REVERSE)
        return left, right


class DriveByEncoder(_SideDrive):
    """Three legs by encoder (the SDK's drive-by-encoder sample; see the module docstring).

    Parameters
    ----------
    counts_per_inch : float
        Encoder counts per inch of wheel travel (:func:`counts_per_inch`).
    legs : sequence of (speed, left_inches, right_inches, timeout_s)
        The path (default :data:`ENCODER_LEGS`).
    left, right, reversed : sequences of str
        Motor names; ``reversed`` defaults to ``left`` (see the module docstring).

    After each leg, ``leg_ends`` holds ``(time s, targets, positions)``.
    """

    def __init__(self, counts_per_inch: float, *, legs=ENCODER_LEGS, **names):
        super().__init__(**names)
        self.counts_per_inch = counts_per_inch
        self.legs = tuple(legs)
        self.runtime = ElapsedTime()
        self.leg_ends = []

    def runOpMode(self):
        self.left, self.right = self._motors()
        self.motors = self.left + self.right
        for m in self.motors:
            m.setMode(RunMode.STOP_AND_RESET_ENCODER)
        for m in self.motors:
            m.setMode(RunMode.RUN_USING_ENCODER)
        self.telemetry.addData("Starting at", "%7d :%7d", self.left[0].getCurrentPosition(),
                               self.right[0].getCurrentPosition())
        self.telemetry.update()
        self.waitForStart()
        for speed, left_inches, right_inches, timeout in self.legs:
            self.encoderDrive(speed, left_inches, right_inches, timeout)
        self.telemetry.addData("Path", "Complete")
        self.telemetry.update()
        self.sleep(1000)

    def encoderDrive(self, speed: float, left_inches: float, right_inches: float, timeout: float) -> None:
        """A relative move: to the targets, until one motor is not busy or ``timeout`` s have passed."""
        if not self.opModeIsActive():
            return
        targets = [m.getCurrentPosition() + int(inches * self.counts_per_inch)
                   for side, inches in ((self.left, left_inches), (self.right, right_inches)) for m in side]
        for m, target in zip(self.motors, targets):
            m.setTargetPosition(target)
        for m in self.motors:
            m.setMode(RunMode.RUN_TO_POSITION)
        self.runtime.reset()
        for m in self.motors:
            m.setPower(abs(speed))
        while self.opModeIsActive() and self.runtime.seconds() < timeout and all(m.isBusy() for m in self.motors):
            self.telemetry.addData("Running to", " %7d :%7d", targets[0], targets[-1])
            self.telemetry.addData("Currently at", " at %7d :%7d", self.left[0].getCurrentPosition(),
                                   self.right[0].getCurrentPosition())
            self.telemetry.update()
        for m in self.motors:
            m.setPower(0)
        for m in self.motors:
            m.setMode(RunMode.RUN_USING_ENCODER)
        self.leg_ends.append((self.getRuntime(), targets))
        self.sleep(250)


class DriveByTime(_SideDrive):
    """The path by time, open loop (the SDK's drive-by-time sample).

    Parameters
    ----------
    legs : sequence of (left_power, right_power, seconds)
        Default :data:`TIMED_LEGS`.
    left, right, reversed : sequences of str
        Motor names; ``reversed`` defaults to ``left``.
    """

    def __init__(self, *, legs=TIMED_LEGS, **names):
        super().__init__(**names)
        self.legs = tuple(legs)
        self.runtime = ElapsedTime()

    def runOpMode(self):
        left, right = self._motors()
        self.telemetry.addData("Status", "Ready to run")
        self.telemetry.update()
        self.waitForStart()
        for number, (left_power, right_power, seconds) in enumerate(self.legs, 1):
            for m in left:
                m.setPower(left_power)
            for m in right:
                m.setPower(right_power)
            self.runtime.reset()
            while self.opModeIsActive() and self.runtime.seconds() < seconds:
                self.telemetry.addData("Path", "Leg %d: %4.1f S Elapsed", number, self.runtime.seconds())
                self.telemetry.update()
        for m in left + right:
            m.setPower(0)
        self.telemetry.addData("Path", "Complete")
        self.telemetry.update()
        self.sleep(1000)


def _heading_line(opmode, imu) -> None:
    """Add the IMU's yaw, degrees, to the telemetry (``Heading``; an IMU read: two round trips)."""
    if imu is not None:
        opmode.telemetry.addData("Heading", "%.1f deg", imu.getRobotYawPitchRollAngles().getYaw(AngleUnit.DEGREES))


class POVTeleOp(_SideDrive):
    """POV drive from ``gamepad1`` (the SDK's basic linear op mode): ``-left_stick_y`` drives, ``right_stick_x``
    turns; each side's power clipped to [-1, 1].

    Parameters
    ----------
    left, right, reversed : sequences of str
        Motor names; ``reversed`` defaults to ``left``.
    imu : str, optional
        The IMU's name: each loop then also shows its yaw (``Heading``, degrees).
    """

    def __init__(self, *, imu: str | None = None, **names):
        super().__init__(**names)
        self.imu_name = imu

    def runOpMode(self):
        imu = None if self.imu_name is None else self.hardwareMap.get(IMU, self.imu_name)
        left, right = self._motors()
        runtime = ElapsedTime()
        self.telemetry.addData("Status", "Initialized")
        self.telemetry.update()
        self.waitForStart()
        runtime.reset()
        while self.opModeIsActive():
            drive = -self.gamepad1.left_stick_y  # pushing the stick forward gives a negative value
            turn = self.gamepad1.right_stick_x
            left_power, right_power = _clip(drive + turn), _clip(drive - turn)
            for m in left:
                m.setPower(left_power)
            for m in right:
                m.setPower(right_power)
            self.telemetry.addData("Status", "Run Time: " + runtime.toString())
            self.telemetry.addData("Motors", "left (%.2f), right (%.2f)", left_power, right_power)
            _heading_line(self, imu)
            self.telemetry.update()


class OmniTeleOp(LinearOpMode):
    """Mecanum POV drive from ``gamepad1`` (the SDK's basic omni op mode): axial ``-left_stick_y``, lateral
    ``left_stick_x``, yaw ``right_stick_x``; the four powers scaled down together when one exceeds 1.

    Parameters
    ----------
    names : (front_left, front_right, rear_left, rear_right)
        Motor names.
    reversed : sequence of str, optional
        Names to reverse; default the front and rear left (see the module docstring).
    imu : str, optional
        The IMU's name: each loop then also shows its yaw (``Heading``, degrees).
    """

    def __init__(self, names: Sequence[str] = ("front_left", "front_right", "rear_left", "rear_right"),
                 reversed: Sequence[str] | None = None, imu: str | None = None):
        self.names, self.imu_name = tuple(names), imu
        # As the SDK sample: the front and rear left motors, mounted mirrored, reversed.
        self.reversed_names = (self.names[0], self.names[2]) if reversed is None else tuple(reversed)

    def runOpMode(self):
        imu = None if self.imu_name is None else self.hardwareMap.get(IMU, self.imu_name)
        front_left, front_right, rear_left, rear_right = (self.hardwareMap.get(DcMotorEx, n) for n in self.names)
        for name in self.reversed_names:
            self.hardwareMap.get(DcMotorEx, name).setDirection(Direction.REVERSE)
        self.telemetry.addData("Status", "Initialized")
        self.telemetry.update()
        self.waitForStart()
        while self.opModeIsActive():
            axial = -self.gamepad1.left_stick_y
            lateral = self.gamepad1.left_stick_x
            yaw = self.gamepad1.right_stick_x
            powers = [axial + lateral + yaw, axial - lateral - yaw, axial - lateral + yaw, axial + lateral - yaw]
            largest = max(abs(p) for p in powers)
            if largest > 1.0:
                powers = [p / largest for p in powers]
            for motor, power in zip((front_left, front_right, rear_left, rear_right), powers):
                motor.setPower(power)
            self.telemetry.addData("Front left/Right", "%4.2f, %4.2f", powers[0], powers[1])
            self.telemetry.addData("Back  left/Right", "%4.2f, %4.2f", powers[2], powers[3])
            _heading_line(self, imu)
            self.telemetry.update()


# ------------------------------------------------------------------------------------------------
# Generator style
# ------------------------------------------------------------------------------------------------
class GeneratorTiming:
    """The Java style's costs spelt out for a generator (run at the round trip: one ``yield`` = one round trip).

    ``value = yield from timing.read(motor.getCurrentPosition)`` reads and waits one
    round trip (caching OFF: every read is a command); ``yield from timing.idle()``
    is the Java style's ``idle()`` (a tick only when nothing handed over since the
    last one); ``yield from timing.sleep(ms)`` sleeps.
    """

    def __init__(self):
        self.handed_over = False

    def read(self, read, *args):
        value = read(*args)
        self.handed_over = True
        yield
        return value

    def idle(self):
        if not self.handed_over:
            yield
        self.handed_over = False

    def sleep(self, milliseconds: float):
        self.handed_over = True
        yield milliseconds / 1000.0


def _reverse(left, reversed) -> None:
    """``setDirection(REVERSE)`` on ``reversed`` (default: the left motors, mounted mirrored); nothing is sent."""
    for m in (left if reversed is None else reversed):
        m.setDirection(Direction.REVERSE)


def drive_by_encoder(left: Sequence[DcMotorEx], right: Sequence[DcMotorEx], counts_per_inch: float, *,
                     legs=ENCODER_LEGS, hubs=(), telemetry: Telemetry | None = None, leg_ends: list | None = None,
                     reversed: Sequence[DcMotorEx] | None = None):
    """:class:`DriveByEncoder` as a generator (start at PLAY = the first tick; run it at the round trip).

    ``hubs`` get the fail-safe when it ends, as the SDK sends it when an op mode
    returns; ``leg_ends`` (a list) receives ``(time s, targets)`` per leg;
    ``reversed`` (default ``left``) are the motors set to REVERSE first.
    """
    timing = GeneratorTiming()
    telemetry = telemetry if telemetry is not None else Telemetry()
    left, right = list(left), list(right)
    _reverse(left, reversed)
    motors = left + right
    since_init, runtime = ElapsedTime(), ElapsedTime()
    for m in motors:
        m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    for m in motors:
        m.setMode(RunMode.RUN_USING_ENCODER)
    start = ((yield from timing.read(left[0].getCurrentPosition)),
             (yield from timing.read(right[0].getCurrentPosition)))
    telemetry.addData("Starting at", "%7d :%7d", *start)
    telemetry.update()
    for speed, left_inches, right_inches, timeout in legs:
        yield from timing.idle()  # encoderDrive's opModeIsActive()
        targets = []
        for side, inches in ((left, left_inches), (right, right_inches)):
            for m in side:
                targets.append((yield from timing.read(m.getCurrentPosition)) + int(inches * counts_per_inch))
        for m, target in zip(motors, targets):
            m.setTargetPosition(target)
        for m in motors:
            m.setMode(RunMode.RUN_TO_POSITION)
        runtime.reset()
        for m in motors:
            m.setPower(abs(speed))
        while True:
            yield from timing.idle()
            if not runtime.seconds() < timeout:
                break
            busy = True
            for m in motors:  # short-circuit, as all() in the Java style
                if not (yield from timing.read(m.isBusy)):
                    busy = False
                    break
            if not busy:
                break
            now = ((yield from timing.read(left[0].getCurrentPosition)),
                   (yield from timing.read(right[0].getCurrentPosition)))
            telemetry.addData("Running to", " %7d :%7d", targets[0], targets[-1])
            telemetry.addData("Currently at", " at %7d :%7d", *now)
            telemetry.update()
        for m in motors:
            m.setPower(0)
        for m in motors:
            m.setMode(RunMode.RUN_USING_ENCODER)
        if leg_ends is not None:
            leg_ends.append((since_init.seconds(), targets))
        yield from timing.sleep(250)
    telemetry.addData("Path", "Complete")
    telemetry.update()
    yield from timing.sleep(1000)
    for hub in hubs:
        hub.failSafe()


def drive_by_time(left: Sequence[DcMotorEx], right: Sequence[DcMotorEx], *, legs=TIMED_LEGS, hubs=(),
                  telemetry: Telemetry | None = None, reversed: Sequence[DcMotorEx] | None = None):
    """:class:`DriveByTime` as a generator (start at PLAY = the first tick; run it at the round trip);
    ``reversed`` (default ``left``) are the motors set to REVERSE first."""
    timing = GeneratorTiming()
    _reverse(left, reversed)
    telemetry = telemetry if telemetry is not None else Telemetry()
    runtime = ElapsedTime()
    telemetry.addData("Status", "Ready to run")
    telemetry.update()
    for number, (left_power, right_power, seconds) in enumerate(legs, 1):
        for m in left:
            m.setPower(left_power)
        for m in right:
            m.setPower(right_power)
        runtime.reset()
        while True:
            yield from timing.idle()
            if not runtime.seconds() < seconds:
                break
            telemetry.addData("Path", "Leg %d: %4.1f S Elapsed", number, runtime.seconds())
            telemetry.update()
    for m in list(left) + list(right):
        m.setPower(0)
    telemetry.addData("Path", "Complete")
    telemetry.update()
    yield from timing.sleep(1000)
    for hub in hubs:
        hub.failSafe()
