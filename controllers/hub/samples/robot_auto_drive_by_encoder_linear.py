"""``RobotAutoDriveByEncoder_Linear``: the FTC SDK's encoder autonomous for a two-motor robot, line by line.

Translated from the SDK's ``external/samples/RobotAutoDriveByEncoder_Linear.java``
(FtcRobotController), every statement kept in its order, the direction lines
included; the comments say in this project's words what the sample's say.

What it promises: forward 48 in, a spin to the right of 12 in of travel at
each wheel (each wheel's arc, the right one backward), backward 24 in, each
leg in RUN_TO_POSITION relative to where the last one stopped, ended when
either motor reaches its target or the leg's timeout passes.

The robot it assumes, as its constants state: TETRIX motors (1440 encoder
counts per output revolution), no external gearing, 4.0 in wheels; motors
``left_drive`` and ``right_drive``, direct drive, the left one mounted
mirrored (so reversed here), each set up so that positive power drives it
forward and its encoder counts up.
"""
from __future__ import annotations

from ..linear import LinearOpMode
from ..sdk import DcMotor
from ..timing import ElapsedTime

__all__ = ["RobotAutoDriveByEncoder_Linear"]


class RobotAutoDriveByEncoder_Linear(LinearOpMode):  # noqa: N801 - the SDK's class name
    """Forward 48 in, spin right 12 in, back 24 in, by encoder (RUN_TO_POSITION)."""

    # Counts per inch of the drive: the motor's encoder counts per revolution, any external reduction, the
    # wheel's diameter (the sample's circumference uses 3.1415 for pi).
    COUNTS_PER_MOTOR_REV = 1440  # a TETRIX motor's encoder
    DRIVE_GEAR_REDUCTION = 1.0  # no external gearing
    WHEEL_DIAMETER_INCHES = 4.0  # for the circumference
    COUNTS_PER_INCH = (COUNTS_PER_MOTOR_REV * DRIVE_GEAR_REDUCTION) / (WHEEL_DIAMETER_INCHES * 3.1415)
    DRIVE_SPEED = 0.6
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

        self.leftDrive.setMode(DcMotor.RunMode.STOP_AND_RESET_ENCODER)
        self.rightDrive.setMode(DcMotor.RunMode.STOP_AND_RESET_ENCODER)

        self.leftDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
        self.rightDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)

        # The encoders after the reset.
        self.telemetry.addData("Starting at", "%7d :%7d",
                               self.leftDrive.getCurrentPosition(),
                               self.rightDrive.getCurrentPosition())
        self.telemetry.update()

        # Wait for START.
        self.waitForStart()

        # The legs; backward is a negative distance, not a negative speed.
        self.encoderDrive(self.DRIVE_SPEED, 48, 48, 5.0)  # forward 48 in, 5 s timeout
        self.encoderDrive(self.TURN_SPEED, 12, -12, 4.0)  # spin right 12 in, 4 s timeout
        self.encoderDrive(self.DRIVE_SPEED, -24, -24, 4.0)  # backward 24 in, 4 s timeout

        self.telemetry.addData("Path", "Complete")
        self.telemetry.update()
        self.sleep(1000)  # time to read the last telemetry

    def encoderDrive(self, speed, leftInches, rightInches, timeoutS):
        """A move relative to where the robot stopped (the encoders are not reset); it ends at the targets,
        at the timeout, or at STOP."""
        # Only while the op mode runs.
        if self.opModeIsActive():

            # The new targets, sent to the motor controller.
            newLeftTarget = self.leftDrive.getCurrentPosition() + int(leftInches * self.COUNTS_PER_INCH)
            newRightTarget = self.rightDrive.getCurrentPosition() + int(rightInches * self.COUNTS_PER_INCH)
            self.leftDrive.setTargetPosition(newLeftTarget)
            self.rightDrive.setTargetPosition(newRightTarget)

            # RUN_TO_POSITION on.
            self.leftDrive.setMode(DcMotor.RunMode.RUN_TO_POSITION)
            self.rightDrive.setMode(DcMotor.RunMode.RUN_TO_POSITION)

            # Restart the timeout and move.
            self.runtime.reset()
            self.leftDrive.setPower(abs(speed))
            self.rightDrive.setPower(abs(speed))

            # Loop while active, within the timeout and both motors busy: the move ends as soon as EITHER
            # motor reaches its target (use "or" for both).
            while (self.opModeIsActive() and
                   (self.runtime.seconds() < timeoutS) and
                   (self.leftDrive.isBusy() and self.rightDrive.isBusy())):

                # Where they are going and where they are.
                self.telemetry.addData("Running to", " %7d :%7d", newLeftTarget, newRightTarget)
                self.telemetry.addData("Currently at", " at %7d :%7d",
                                       self.leftDrive.getCurrentPosition(), self.rightDrive.getCurrentPosition())
                self.telemetry.update()

            # Stop.
            self.leftDrive.setPower(0)
            self.rightDrive.setPower(0)

            # RUN_TO_POSITION off.
            self.leftDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
            self.rightDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)

            self.sleep(250)  # an optional pause after each move
