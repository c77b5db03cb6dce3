"""``BasicOmniOpMode_Linear``: the FTC SDK's sample for a four-motor mecanum (or X-drive) TeleOp, line by line.

Translated from the SDK's ``external/samples/BasicOmniOpMode_Linear.java``
(FtcRobotController), every statement kept in its order, the direction lines
included; the comments say in this project's words what the sample's say.

What it promises: the left stick pushed forward drives the robot forward, the
left stick sideways strafes it, the right stick sideways rotates it (right:
clockwise); the four powers are scaled down together when one exceeds 1.

The robot it assumes: four motors named ``left_front_drive``,
``left_back_drive``, ``right_front_drive``, ``right_back_drive``, direct drive,
the left two mounted mirrored (so reversed here), as on a goBILDA Strafer
(5203 312 rpm motors on 96 mm mecanum wheels). Run it with
:func:`~simcore.controllers.hub.run_opmode` and a scripted ``gamepad1``.
"""
from __future__ import annotations

from ..linear import LinearOpMode
from ..sdk import DcMotor
from ..timing import ElapsedTime

__all__ = ["BasicOmniOpMode_Linear"]


class BasicOmniOpMode_Linear(LinearOpMode):  # noqa: N801 - the SDK's class name
    """POV drive of a holonomic robot: axial (left stick y), lateral (left stick x), yaw (right stick x)."""

    def __init__(self):
        # The op mode's members: a run timer and the four drive motors.
        self.runtime = ElapsedTime()
        self.leftFrontDrive = None
        self.leftBackDrive = None
        self.rightFrontDrive = None
        self.rightBackDrive = None

    def runOpMode(self):
        # The names must be those of the robot's configuration.
        self.leftFrontDrive = self.hardwareMap.get(DcMotor, "left_front_drive")
        self.leftBackDrive = self.hardwareMap.get(DcMotor, "left_back_drive")
        self.rightFrontDrive = self.hardwareMap.get(DcMotor, "right_front_drive")
        self.rightBackDrive = self.hardwareMap.get(DcMotor, "right_back_drive")

        # The motors on one side face the other way, so one side is reversed for every wheel to drive the
        # robot forward (direct drive; a gear stage or a right-angle drive changes this: test each wheel).
        self.leftFrontDrive.setDirection(DcMotor.Direction.REVERSE)
        self.leftBackDrive.setDirection(DcMotor.Direction.REVERSE)
        self.rightFrontDrive.setDirection(DcMotor.Direction.FORWARD)
        self.rightBackDrive.setDirection(DcMotor.Direction.FORWARD)

        # Wait for PLAY.
        self.telemetry.addData("Status", "Initialized")
        self.telemetry.update()

        self.waitForStart()
        self.runtime.reset()

        # Until STOP.
        while self.opModeIsActive():
            # The left stick drives and strafes, the right stick rotates (a stick pushed forward reads negative).
            axial = -self.gamepad1.left_stick_y
            lateral = self.gamepad1.left_stick_x
            yaw = self.gamepad1.right_stick_x

            # Each wheel's power from the three motions.
            leftFrontPower = axial + lateral + yaw
            rightFrontPower = axial - lateral - yaw
            leftBackPower = axial - lateral + yaw
            rightBackPower = axial + lateral - yaw

            # Scale all four down together when one exceeds full power, so the motion keeps its direction.
            max_ = max(abs(leftFrontPower), abs(rightFrontPower))
            max_ = max(max_, abs(leftBackPower))
            max_ = max(max_, abs(rightBackPower))

            if max_ > 1.0:
                leftFrontPower /= max_
                rightFrontPower /= max_
                leftBackPower /= max_
                rightBackPower /= max_

            # The sample's motor test, commented out as in the SDK: each button runs one motor forward.
            # leftFrontPower  = 1.0 if self.gamepad1.x else 0.0
            # leftBackPower   = 1.0 if self.gamepad1.a else 0.0
            # rightFrontPower = 1.0 if self.gamepad1.y else 0.0
            # rightBackPower  = 1.0 if self.gamepad1.b else 0.0

            # The powers to the wheels.
            self.leftFrontDrive.setPower(leftFrontPower)
            self.rightFrontDrive.setPower(rightFrontPower)
            self.leftBackDrive.setPower(leftBackPower)
            self.rightBackDrive.setPower(rightBackPower)

            # Run time and wheel powers for the driver.
            self.telemetry.addData("Status", "Run Time: " + self.runtime.toString())
            self.telemetry.addData("Front left/Right", "%4.2f, %4.2f", leftFrontPower, rightFrontPower)
            self.telemetry.addData("Back  left/Right", "%4.2f, %4.2f", leftBackPower, rightBackPower)
            self.telemetry.update()
