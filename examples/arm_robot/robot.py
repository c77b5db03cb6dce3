"""An arm robot: a NEO on a 75:1 gearbox lifts an arm to 1 rad above horizontal under its own PID.

The arm rests on its lower stop (-1.2 rad) at power-up, where the incremental
encoder reads zero and the lower limit switch (normally open, to ground) reads
False. In autonomous a WPILib PIDController plus an ArmFeedforward command the
motor's voltage; ``setVoltage`` divides by the battery voltage the roboRIO
measures, so the command follows the sagging bus. simcore is the physics
(``physics.py``).
"""
import math

import wpilib
import wpimath.controller

LOWER_STOP = -1.2  # rad, where the encoder reads zero
SETPOINT = 1.0  # rad above horizontal
COUNTS_PER_REV = 4096


class ArmRobot(wpilib.TimedRobot):
    def robotInit(self):
        self.motor = wpilib.PWMSparkMax(0)
        self.encoder = wpilib.Encoder(0, 1)
        self.encoder.setDistancePerPulse(2 * math.pi / COUNTS_PER_REV)  # rad of arm per count
        self.lower_limit = wpilib.DigitalInput(2)
        self.pid = wpimath.controller.PIDController(20.0, 0.0, 2.5)
        self.feedforward = wpimath.controller.ArmFeedforward(0.0, 0.63, 1.49)
        self.lowest_battery_voltage = math.inf

    def angle(self) -> float:
        """Arm angle above horizontal, rad."""
        return LOWER_STOP + self.encoder.getDistance()

    def robotPeriodic(self):
        self.lowest_battery_voltage = min(self.lowest_battery_voltage, wpilib.RobotController.getBatteryVoltage())

    def autonomousInit(self):
        self.pid.reset()

    def autonomousPeriodic(self):
        volts = self.pid.calculate(self.angle(), SETPOINT) + self.feedforward.calculate(SETPOINT, 0.0)
        self.motor.setVoltage(max(-12.0, min(12.0, volts)))

    def disabledInit(self):
        self.motor.stopMotor()
