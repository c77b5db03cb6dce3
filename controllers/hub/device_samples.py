"""The FTC SDK's servo and sensor samples, translated statement by statement into Python.

Each class keeps every statement of the SDK sample of the same name
(FtcRobotController ``external/samples/``), in this project's own words, with
the SDK's names, so that they run on the simulator as written:

* :class:`ConceptScanServo`: scans the servo configured as ``"dropperServo"``
  back and forth between positions 0 and 1, ``INCREMENT`` = 0.01 every
  ``CYCLE_MS`` = 50 ms, until STOP;
* :class:`SensorTouch`: reports whether the ``TouchSensor`` called ``"touch"``
  is pressed, every loop;
* :class:`SensorREV2mDistance`: reports the range of the distance sensor called
  ``"sensor_range"`` in mm, cm, m and inches, its model ID and whether a timeout
  occurred, every loop.

Java's ``String.format`` becomes Python's ``%``; ``Boolean.toString`` gives
Java's ``"true"`` / ``"false"``; the cast to ``Rev2mDistanceSensor`` is an
assignment (Python needs none). The annotations (``@TeleOp``, ``@Disabled``)
have no Python counterpart.
"""
from __future__ import annotations

from .linear import LinearOpMode
from .sensors import DistanceSensor, DistanceUnit, Rev2mDistanceSensor, TouchSensor
from .servo import Servo

__all__ = ["ConceptScanServo", "SensorTouch", "SensorREV2mDistance"]


def _java_boolean(value: bool) -> str:
    """Java's ``Boolean.toString``."""
    return "true" if value else "false"


class ConceptScanServo(LinearOpMode):
    """Scans a single servo back and forward until STOP (the SDK's ``ConceptScanServo``)."""

    INCREMENT = 0.01  # amount to slew servo each CYCLE_MS cycle
    CYCLE_MS = 50  # period of each cycle
    MAX_POS = 1.0  # Maximum rotational position
    MIN_POS = 0.0  # Minimum rotational position

    def __init__(self):
        # Define class members
        self.servo: Servo | None = None
        self.position = (self.MAX_POS - self.MIN_POS) / 2  # Start at halfway position
        self.rampUp = True

    def runOpMode(self):
        # Connect to servo (Assume Robot Left Hand)
        # Change the text in quotes to match any servo name on your robot.
        self.servo = self.hardwareMap.get(Servo, "dropperServo")

        # Wait for the start button
        self.telemetry.addData(">", "Press Start to scan Servo.")
        self.telemetry.update()
        self.waitForStart()

        # Scan servo till stop pressed.
        while self.opModeIsActive():
            # slew the servo, according to the rampUp (direction) variable.
            if self.rampUp:
                # Keep stepping up until we hit the max value.
                self.position += self.INCREMENT
                if self.position >= self.MAX_POS:
                    self.position = self.MAX_POS
                    self.rampUp = not self.rampUp  # Switch ramp direction
            else:
                # Keep stepping down until we hit the min value.
                self.position -= self.INCREMENT
                if self.position <= self.MIN_POS:
                    self.position = self.MIN_POS
                    self.rampUp = not self.rampUp  # Switch ramp direction

            # Display the current value
            self.telemetry.addData("Servo Position", "%5.2f", self.position)
            self.telemetry.addData(">", "Press Stop to end test.")
            self.telemetry.update()

            # Set the servo to the new position and pause;
            self.servo.setPosition(self.position)
            self.sleep(self.CYCLE_MS)
            self.idle()

        # Signal done;
        self.telemetry.addData(">", "Done")
        self.telemetry.update()


class SensorTouch(LinearOpMode):
    """Reports whether a REV Touch Sensor is pressed (the SDK's ``SensorTouch``)."""

    touchSensor: TouchSensor | None = None  # Touch sensor Object

    def runOpMode(self):
        # get a reference to our touchSensor object.
        self.touchSensor = self.hardwareMap.get(TouchSensor, "touch")

        # wait for the start button to be pressed.
        self.waitForStart()

        # while the OpMode is active, loop and read whether the sensor is being pressed.
        # Note we use opModeIsActive() as our loop condition because it is an interruptible method.
        while self.opModeIsActive():
            # send the info back to driver station using telemetry function.
            if self.touchSensor.isPressed():
                self.telemetry.addData("Touch Sensor", "Is Pressed")
            else:
                self.telemetry.addData("Touch Sensor", "Is Not Pressed")

            self.telemetry.update()


class SensorREV2mDistance(LinearOpMode):
    """Reports the REV 2m Distance Sensor's range (the SDK's ``SensorREV2mDistance``)."""

    sensorRange: DistanceSensor | None = None

    def runOpMode(self):
        # you can use this as a regular DistanceSensor.
        self.sensorRange = self.hardwareMap.get(DistanceSensor, "sensor_range")

        # you can also cast this to a Rev2mDistanceSensor if you want to use added
        # methods associated with the Rev2mDistanceSensor class.
        sensorTimeOfFlight: Rev2mDistanceSensor = self.sensorRange

        self.telemetry.addData(">>", "Press start to continue")
        self.telemetry.update()

        self.waitForStart()
        while self.opModeIsActive():
            # generic DistanceSensor methods.
            self.telemetry.addData("deviceName", self.sensorRange.getDeviceName())
            self.telemetry.addData("range", "%.01f mm" % self.sensorRange.getDistance(DistanceUnit.MM))
            self.telemetry.addData("range", "%.01f cm" % self.sensorRange.getDistance(DistanceUnit.CM))
            self.telemetry.addData("range", "%.01f m" % self.sensorRange.getDistance(DistanceUnit.METER))
            self.telemetry.addData("range", "%.01f in" % self.sensorRange.getDistance(DistanceUnit.INCH))

            # Rev2mDistanceSensor specific methods.
            self.telemetry.addData("ID", "%x" % sensorTimeOfFlight.getModelID())
            self.telemetry.addData("did time out", _java_boolean(sensorTimeOfFlight.didTimeoutOccur()))

            self.telemetry.update()
