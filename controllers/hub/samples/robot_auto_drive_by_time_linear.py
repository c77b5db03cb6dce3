"""``RobotAutoDriveByTime_Linear``: the FTC SDK's timed autonomous for a two-motor robot, line by line.

Translated from the SDK's ``external/samples/RobotAutoDriveByTime_Linear.java``
(FtcRobotController), every statement kept in its order, the direction lines
included; the comments say in this project's words what the sample's say.

What it promises: forward for 3 s, a spin to the right (clockwise) for 1.3 s,
backward for 1 s, then stop; open loop (no encoders), so how far each leg goes
depends on the robot. The robot it assumes: motors ``left_drive`` and
``right_drive``, direct drive, the left one mounted mirrored (so reversed here).
"""
from __future__ import annotations

from ..linear import LinearOpMode
from ..sdk import DcMotor
from ..timing import ElapsedTime

__all__ = ["RobotAutoDriveByTime_Linear"]


class RobotAutoDriveByTime_Linear(LinearOpMode):  # noqa: N801 - the SDK's class name
    """Forward 3 s, spin right 1.3 s, backward 1 s, by time."""

    FORWARD_SPEED = 0.6
    TURN_SPEED = 0.5

    def __init__(self):
        # The op mode's members.
        self.leftDrive = None
        self.rightDrive = None
        self.runtime = ElapsedTime()

    def runOpMode(self):
        # The drive motors.
        self.leftDrive = self.hardwareMap.get(DcMotor, "left_drive")
        self.rightDrive = self.hardwareMap.get(DcMotor, "right_drive")

        # The axles point opposite ways, so one motor is reversed for both to drive forward (direct drive
        # assumed; check on the first test drive).
        self.leftDrive.setDirection(DcMotor.Direction.REVERSE)
        self.rightDrive.setDirection(DcMotor.Direction.FORWARD)

        # The robot is waiting.
        self.telemetry.addData("Status", "Ready to run")
        self.telemetry.update()

        # Wait for START.
        self.waitForStart()

        # Each leg, as long as the op mode is not stopped.

        # Leg 1: forward for 3 seconds.
        self.leftDrive.setPower(self.FORWARD_SPEED)
        self.rightDrive.setPower(self.FORWARD_SPEED)
        self.runtime.reset()
        while self.opModeIsActive() and (self.runtime.seconds() < 3.0):
            self.telemetry.addData("Path", "Leg 1: %4.1f S Elapsed", self.runtime.seconds())
            self.telemetry.update()

        # Leg 2: spin right for 1.3 seconds.
        self.leftDrive.setPower(self.TURN_SPEED)
        self.rightDrive.setPower(-self.TURN_SPEED)
        self.runtime.reset()
        while self.opModeIsActive() and (self.runtime.seconds() < 1.3):
            self.telemetry.addData("Path", "Leg 2: %4.1f S Elapsed", self.runtime.seconds())
            self.telemetry.update()

        # Leg 3: backward for 1 second.
        self.leftDrive.setPower(-self.FORWARD_SPEED)
        self.rightDrive.setPower(-self.FORWARD_SPEED)
        self.runtime.reset()
        while self.opModeIsActive() and (self.runtime.seconds() < 1.0):
            self.telemetry.addData("Path", "Leg 3: %4.1f S Elapsed", self.runtime.seconds())
            self.telemetry.update()

        # Leg 4: stop.
        self.leftDrive.setPower(0)
        self.rightDrive.setPower(0)

        self.telemetry.addData("Path", "Complete")
        self.telemetry.update()
        self.sleep(1000)
