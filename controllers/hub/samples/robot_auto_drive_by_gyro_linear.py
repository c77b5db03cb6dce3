"""``RobotAutoDriveByGyro_Linear``: the FTC SDK's autonomous steered by the IMU's heading, line by line.

Translated from the SDK's ``external/samples/RobotAutoDriveByGyro_Linear.java``
(FtcRobotController), every statement kept in its order, the direction lines
included; the comments say in this project's words what the sample's say.

What it promises (headings in degrees, counter-clockwise positive, from the
heading at START): forward 24 in; turn to -45 and hold it 0.5 s; forward 17 in
at -45 (12 in along x, 12 in to the right); turn to 45 and hold 0.5 s; forward
17 in at 45 (12 in along x, 12 in to the left); turn to 0 and hold 1 s; back
48 in, about to where it started. Straight legs run in RUN_TO_POSITION with a
proportional heading correction; turns in RUN_USING_ENCODER, proportional to
the heading error, until within ``HEADING_THRESHOLD``.

The robot it assumes, as its constants state: goBILDA 312 rpm Yellow Jacket
motors (537.7 counts per output revolution), no external gearing, 4.0 in
wheels; motors ``left_drive`` and ``right_drive``, direct drive, the left one
mounted mirrored (so reversed here); the hub's IMU named ``imu``, the hub
mounted logo up, USB port forward.
"""
from __future__ import annotations

from ..imu import IMU, RevHubOrientationOnRobot
from ..linear import LinearOpMode
from ..range import Range
from ..sdk import AngleUnit, DcMotor
from ..timing import ElapsedTime

__all__ = ["RobotAutoDriveByGyro_Linear"]


class RobotAutoDriveByGyro_Linear(LinearOpMode):  # noqa: N801 - the SDK's class name
    """Drive, turn and hold on the IMU's heading (see the module docstring for the path)."""

    # Counts per inch of the drive (the sample's circumference uses 3.1415 for pi).
    COUNTS_PER_MOTOR_REV = 537.7  # a goBILDA 312 rpm Yellow Jacket
    DRIVE_GEAR_REDUCTION = 1.0  # no external gearing
    WHEEL_DIAMETER_INCHES = 4.0  # for the circumference
    COUNTS_PER_INCH = (COUNTS_PER_MOTOR_REV * DRIVE_GEAR_REDUCTION) / (WHEEL_DIAMETER_INCHES * 3.1415)

    # How the robot drives; to be tuned for each drive train.
    DRIVE_SPEED = 0.4  # the largest driving speed (slower is more accurate)
    TURN_SPEED = 0.2  # the largest turning speed
    HEADING_THRESHOLD = 1.0  # how close to the target heading a turn ends, degrees
    # Proportional gains of the heading control: one for turns (large errors), one for driving straight.
    # Larger responds more strongly but less stably.
    P_TURN_GAIN = 0.02
    P_DRIVE_GAIN = 0.03

    def __init__(self):
        # The op mode's members.
        self.leftDrive = None
        self.rightDrive = None
        self.imu = None  # the hub's IMU

        self.headingError = 0

        # Kept as members so that the telemetry can show them.
        self.targetHeading = 0
        self.driveSpeed = 0
        self.turnSpeed = 0
        self.leftSpeed = 0
        self.rightSpeed = 0
        self.leftTarget = 0
        self.rightTarget = 0

    def runOpMode(self):
        # The drive motors.
        self.leftDrive = self.hardwareMap.get(DcMotor, "left_drive")
        self.rightDrive = self.hardwareMap.get(DcMotor, "right_drive")

        # The axles point opposite ways, so one motor is reversed for both to drive forward (direct drive
        # assumed; check on the first test drive).
        self.leftDrive.setDirection(DcMotor.Direction.REVERSE)
        self.rightDrive.setDirection(DcMotor.Direction.FORWARD)

        # How the hub is mounted: logo up, USB port forward (edit to match the robot).
        logoDirection = RevHubOrientationOnRobot.LogoFacingDirection.UP
        usbDirection = RevHubOrientationOnRobot.UsbFacingDirection.FORWARD
        orientationOnRobot = RevHubOrientationOnRobot(logoDirection, usbDirection)

        # The IMU, named "imu", with that mounting.
        self.imu = self.hardwareMap.get(IMU, "imu")
        self.imu.initialize(IMU.Parameters(orientationOnRobot))

        # Standing still: encoders reset, motors braking at zero power.
        self.leftDrive.setMode(DcMotor.RunMode.STOP_AND_RESET_ENCODER)
        self.rightDrive.setMode(DcMotor.RunMode.STOP_AND_RESET_ENCODER)
        self.leftDrive.setZeroPowerBehavior(DcMotor.ZeroPowerBehavior.BRAKE)
        self.rightDrive.setZeroPowerBehavior(DcMotor.ZeroPowerBehavior.BRAKE)

        # Until START, show the heading.
        while self.opModeInInit():
            self.telemetry.addData(">", "Robot Heading = %4.0f", self.getHeading())
            self.telemetry.update()

        # Closed-loop speed control, and the heading's zero here.
        self.leftDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
        self.rightDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
        self.imu.resetYaw()

        # The path. Backward is a negative distance; each turn is held for the heading to settle.
        self.driveStraight(self.DRIVE_SPEED, 24.0, 0.0)  # forward 24 in
        self.turnToHeading(self.TURN_SPEED, -45.0)  # clockwise to -45 degrees
        self.holdHeading(self.TURN_SPEED, -45.0, 0.5)  # hold -45 for 0.5 s

        self.driveStraight(self.DRIVE_SPEED, 17.0, -45.0)  # forward 17 in at -45 (12 in x, 12 in y)
        self.turnToHeading(self.TURN_SPEED, 45.0)  # counter-clockwise to 45 degrees
        self.holdHeading(self.TURN_SPEED, 45.0, 0.5)  # hold 45 for 0.5 s

        self.driveStraight(self.DRIVE_SPEED, 17.0, 45.0)  # forward 17 in at 45 (12 in x, 12 in y)
        self.turnToHeading(self.TURN_SPEED, 0.0)  # clockwise to 0 degrees
        self.holdHeading(self.TURN_SPEED, 0.0, 1.0)  # hold 0 for 1 s

        self.driveStraight(self.DRIVE_SPEED, -48.0, 0.0)  # back 48 in, about to the start

        self.telemetry.addData("Path", "Complete")
        self.telemetry.update()
        self.sleep(1000)  # time to read the last telemetry

    # -- driving: high level ----------------------------------------------------------------------------------
    def driveStraight(self, maxDriveSpeed, distance, heading):
        """Drive ``distance`` in (negative: backward) on ``heading`` (degrees from the reset, counter-clockwise
        positive) by encoder; ends at the target or at STOP."""
        # Only while the op mode runs.
        if self.opModeIsActive():

            # The new targets, sent to the motor controller.
            moveCounts = int(distance * self.COUNTS_PER_INCH)
            self.leftTarget = self.leftDrive.getCurrentPosition() + moveCounts
            self.rightTarget = self.rightDrive.getCurrentPosition() + moveCounts

            # The target first, then RUN_TO_POSITION.
            self.leftDrive.setTargetPosition(self.leftTarget)
            self.rightDrive.setTargetPosition(self.rightTarget)

            self.leftDrive.setMode(DcMotor.RunMode.RUN_TO_POSITION)
            self.rightDrive.setMode(DcMotor.RunMode.RUN_TO_POSITION)

            # The speed (positive in RUN_TO_POSITION); start straight, then steer in the loop.
            maxDriveSpeed = abs(maxDriveSpeed)
            self.moveRobot(maxDriveSpeed, 0)

            # Loop while active and both motors busy.
            while (self.opModeIsActive() and
                   (self.leftDrive.isBusy() and self.rightDrive.isBusy())):

                # The steering that keeps the heading.
                self.turnSpeed = self.getSteeringCorrection(heading, self.P_DRIVE_GAIN)

                # Backward, the correction turns the other way.
                if distance < 0:
                    self.turnSpeed *= -1.0

                # Drive with the correction.
                self.moveRobot(self.driveSpeed, self.turnSpeed)

                # Status for the driver.
                self.sendTelemetry(True)

            # Stop, and RUN_TO_POSITION off.
            self.moveRobot(0, 0)
            self.leftDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
            self.rightDrive.setMode(DcMotor.RunMode.RUN_USING_ENCODER)

    def turnToHeading(self, maxTurnSpeed, heading):
        """Spin in place to ``heading`` (degrees from the reset); ends within HEADING_THRESHOLD or at STOP."""
        # The current error, once first.
        self.getSteeringCorrection(heading, self.P_DRIVE_GAIN)

        # Loop while active and off the heading.
        while self.opModeIsActive() and (abs(self.headingError) > self.HEADING_THRESHOLD):

            # The steering toward the heading.
            self.turnSpeed = self.getSteeringCorrection(heading, self.P_TURN_GAIN)

            # At most the largest turning speed.
            self.turnSpeed = Range.clip(self.turnSpeed, -maxTurnSpeed, maxTurnSpeed)

            # Pivot in place.
            self.moveRobot(0, self.turnSpeed)

            # Status for the driver.
            self.sendTelemetry(False)

        # Stop.
        self.moveRobot(0, 0)

    def holdHeading(self, maxTurnSpeed, heading, holdTime):
        """Keep ``heading`` (degrees from the reset) for ``holdTime`` s, to let it settle between moves."""
        holdTimer = ElapsedTime()
        holdTimer.reset()

        # Loop while time is left.
        while self.opModeIsActive() and (holdTimer.time() < holdTime):
            # The steering toward the heading.
            self.turnSpeed = self.getSteeringCorrection(heading, self.P_TURN_GAIN)

            # At most the largest turning speed.
            self.turnSpeed = Range.clip(self.turnSpeed, -maxTurnSpeed, maxTurnSpeed)

            # Pivot in place.
            self.moveRobot(0, self.turnSpeed)

            # Status for the driver.
            self.sendTelemetry(False)

        # Stop.
        self.moveRobot(0, 0)

    # -- driving: low level -----------------------------------------------------------------------------------
    def getSteeringCorrection(self, desiredHeading, proportionalGain):
        """The proportional turning power toward ``desiredHeading``, clipped to [-1, 1]."""
        self.targetHeading = desiredHeading  # kept for the telemetry

        # The heading error now.
        self.headingError = self.targetHeading - self.getHeading()

        # Within +-180 degrees.
        while self.headingError > 180:
            self.headingError -= 360
        while self.headingError <= -180:
            self.headingError += 360

        # Times the gain, at most full power either way.
        return Range.clip(self.headingError * proportionalGain, -1, 1)

    def moveRobot(self, drive, turn):
        """Combine a forward ``drive`` and a counter-clockwise ``turn`` into the two wheel powers and send them."""
        self.driveSpeed = drive  # kept for the telemetry
        self.turnSpeed = turn  # kept for the telemetry

        self.leftSpeed = drive - turn
        self.rightSpeed = drive + turn

        # Both scaled down when one exceeds full power.
        max_ = max(abs(self.leftSpeed), abs(self.rightSpeed))
        if max_ > 1.0:
            self.leftSpeed /= max_
            self.rightSpeed /= max_

        self.leftDrive.setPower(self.leftSpeed)
        self.rightDrive.setPower(self.rightSpeed)

    def sendTelemetry(self, straight):
        """Show the control's state; ``straight`` adds the encoder targets and positions."""
        if straight:
            self.telemetry.addData("Motion", "Drive Straight")
            self.telemetry.addData("Target Pos L:R", "%7d:%7d", self.leftTarget, self.rightTarget)
            self.telemetry.addData("Actual Pos L:R", "%7d:%7d", self.leftDrive.getCurrentPosition(),
                                   self.rightDrive.getCurrentPosition())
        else:
            self.telemetry.addData("Motion", "Turning")

        self.telemetry.addData("Heading- Target : Current", "%5.2f : %5.0f", self.targetHeading, self.getHeading())
        self.telemetry.addData("Error  : Steer Pwr", "%5.1f : %5.1f", self.headingError, self.turnSpeed)
        self.telemetry.addData("Wheel Speeds L : R", "%5.2f : %5.2f", self.leftSpeed, self.rightSpeed)
        self.telemetry.update()

    def getHeading(self):
        """The robot's heading from the IMU, degrees."""
        orientation = self.imu.getRobotYawPitchRollAngles()
        return orientation.getYaw(AngleUnit.DEGREES)
