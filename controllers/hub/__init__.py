"""The FTC hub: the SDK's ``DcMotorEx`` (exact) on the hub firmware's PIDF loop (approximation), its servos and sensors.

Robot code talks to :class:`DcMotorEx` objects with the SDK's method names; the
:class:`Hub`'s firmware runs as one :class:`simcore.PeriodicController` and drives
each configured mechanism's ``duty`` and ``brake`` inputs (or one wheel's, on a
drivetrain). What is exact and what is an approximation is stated in
:mod:`simcore.controllers.hub.motor` (the SDK side),
:mod:`simcore.controllers.hub.firmware` (the firmware, every constant in
:class:`FirmwareConstants`) and :mod:`simcore.controllers.hub.timing` (what a
read costs). Servos (``hub.servo``: :class:`Servo`, :class:`CRServo`) are in
:mod:`simcore.controllers.hub.servo`; sensors reading the simulated world
(``hub.digital``, ``hub.analog``, ``hub.i2c``, ``hub.voltage_sensor()``:
:class:`TouchSensor`, :class:`DigitalChannel`, :class:`AnalogInput`,
:class:`Rev2mDistanceSensor`, :class:`VoltageSensor`) and the base of devices
teams write themselves (:class:`SimulatedDevice`) in
:mod:`simcore.controllers.hub.sensors`. Op modes come in three styles: :class:`LinearOpMode` written as the
Java reads, run on its own thread by :func:`run_opmode`
(:mod:`simcore.controllers.hub.linear`); the generator style
:func:`linear_opmode` and the iterative :class:`OpMode`
(:mod:`simcore.controllers.hub.opmode`). The SDK's drive samples, translated
line by line, and op modes in their shape are in
:mod:`simcore.controllers.hub.samples`; the SDK's ``Range`` is
:mod:`simcore.controllers.hub.range`. A drivetrain's motors are mounted as on
the robot, the left ones mirrored (``Hub.motor(..., mirrored=...)``), so robot
code keeps its ``setDirection(REVERSE)`` lines.

Example
-------
The hub specification's snippet (simcore.reference, "The FTC hub") as a team writes it
(``while (arm.isBusy()) {}`` included):

>>> import simcore
>>> from simcore.controllers.hub import DcMotorEx, Hub, LinearOpMode, RunMode, run_opmode
>>> from simcore.models import HubMotor
>>> from simcore.models.hub_motor import GOBILDA_5203_312
>>> arm_mechanism = HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="arm")
>>> hub = Hub()
>>> class RaiseArm(LinearOpMode):
...     def runOpMode(self):
...         arm = self.hardwareMap.get(DcMotorEx, "arm")
...         self.waitForStart()
...         arm.setTargetPosition(178)              # target first...
...         arm.setMode(RunMode.RUN_TO_POSITION)    # ...then the mode...
...         arm.setPower(0.8)                       # ...then the speed cap
...         while arm.isBusy():                     # each isBusy() is a hub round trip
...             pass
...         self.telemetry.addData("arm at", arm.getCurrentPosition())
...         self.telemetry.update()
>>> controllers = run_opmode(RaiseArm, hubs=[hub], configuration={"arm": hub.motor(0, arm_mechanism)})
>>> result = simcore.simulate([arm_mechanism], 1.0, controllers=controllers)
>>> frame = result.records["RaiseArm"].frames[-1]    # the telemetry, kept with the run
>>> abs(frame.values["arm at"] - 178) <= 5, 0.1 < frame.t < 1.0
(True, True)

The same in the generator style (``yield`` ends one loop iteration)::

    def auto():
        arm.setTargetPosition(178)
        arm.setMode(RunMode.RUN_TO_POSITION)
        arm.setPower(0.8)
        while arm.isBusy():
            yield

    simcore.simulate([arm_mechanism], 1.0,
                     controllers=[linear_opmode(auto, period=0.02, hubs=[hub]), *hub.controllers()])
"""
from simcore.models.ftc_motor_types import MotorType, Rotation

from .bulk import BulkCachingMode, BulkData
from .firmware import DEFAULT_FIRMWARE, FULL_SCALE, FirmwareConstants
from .gamepad import Gamepad
from .hardware_map import HardwareMap
from .imu import IMU, AngularVelocity, RevHubOrientationOnRobot, YawPitchRollAngles
from .linear import (MAX_LINES_WITHOUT_HANDOVER, LinearOpMode, OpModeController, OpModeRunner, OpModeStuckError,
                     run_opmode)
from .motor import DEFAULT_TARGET_POSITION_TOLERANCE, NUMBER_OF_MOTORS, DcMotorEx, Hub, LynxModule, OpModeEndedError
from .opmode import OpMode, iterative_opmode, linear_opmode
from .range import Range
from .sensors import (AnalogInput, BumperSwitch, DigitalChannel, DistanceSensor, DistanceUnit, LimitSwitch,
                      Potentiometer,
                      Rev2mDistanceSensor, SimulatedDevice, TouchSensor, VoltageSensor)
from .servo import CRServo, CRServoImplEx, PwmControl, Servo, ServoImplEx
from .sdk import (AngleUnit, CurrentUnit, DcMotor, DcMotorSimple, Direction, IllegalArgumentException,
                  MotorControlAlgorithm, PIDCoefficients, PIDFCoefficients, RunMode, TargetPositionNotSetException,
                  UnsupportedOperationException, ZeroPowerBehavior)
from .telemetry import Telemetry, TelemetryFrame, TelemetryLog
from .timing import DEFAULT_TIMING, ElapsedTime, HubTiming

__all__ = ["Hub", "LynxModule", "DcMotorEx", "FirmwareConstants", "DEFAULT_FIRMWARE", "FULL_SCALE",
           "NUMBER_OF_MOTORS", "DEFAULT_TARGET_POSITION_TOLERANCE", "RunMode", "Direction", "ZeroPowerBehavior",
           "MotorControlAlgorithm", "PIDFCoefficients", "PIDCoefficients", "AngleUnit", "CurrentUnit", "DcMotor",
           "DcMotorSimple", "TargetPositionNotSetException", "IllegalArgumentException",
           "UnsupportedOperationException", "MotorType", "Rotation", "linear_opmode", "iterative_opmode", "OpMode",
           "LinearOpMode", "run_opmode", "OpModeRunner", "OpModeController", "OpModeStuckError", "OpModeEndedError",
           "MAX_LINES_WITHOUT_HANDOVER", "HardwareMap", "Telemetry", "TelemetryFrame", "TelemetryLog", "Gamepad",
           "ElapsedTime", "HubTiming", "DEFAULT_TIMING",
           "IMU", "YawPitchRollAngles", "AngularVelocity", "RevHubOrientationOnRobot", "BulkCachingMode",
           "BulkData", "Range", "Servo", "ServoImplEx", "CRServo", "CRServoImplEx", "PwmControl", "TouchSensor",
           "DigitalChannel", "DistanceSensor", "Rev2mDistanceSensor", "DistanceUnit", "VoltageSensor", "AnalogInput",
           "LimitSwitch", "BumperSwitch", "Potentiometer", "SimulatedDevice"]
