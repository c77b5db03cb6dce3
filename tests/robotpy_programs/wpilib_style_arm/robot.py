"""Robot code in the style of WPILib's public ArmSimulation example, written without simcore in mind.

A single-jointed arm on two 775Pro motors through a 200:1 reduction. While the
joystick's trigger is held in teleop the arm is driven to 75 degrees by a PID on
its encoder; otherwise the motor is stopped and the arm falls back to its stop.
"""
import math

import wpilib
import wpimath.controller

kMotorPort = 0
kEncoderAChannel = 0
kEncoderBChannel = 1
kJoystickPort = 0

kArmKp = 50.0
kDefaultArmSetpointDegrees = 75.0
# distance per pulse = (angle per revolution) / (pulses per revolution)
kArmEncoderDistPerPulse = 2.0 * math.pi / 4096

kArmReduction = 200
kArmMass = 8.0  # kg
kArmLength = 0.762  # m (30 in)
kMinAngleRads = math.radians(-75)
kMaxAngleRads = math.radians(255)


class Arm:
    def __init__(self):
        self.controller = wpimath.controller.PIDController(kArmKp, 0, 0)
        self.encoder = wpilib.Encoder(kEncoderAChannel, kEncoderBChannel)
        self.motor = wpilib.PWMSparkMax(kMotorPort)
        self.encoder.setDistancePerPulse(kArmEncoderDistPerPulse)
        self.setpoint = math.radians(kDefaultArmSetpointDegrees)

    def reachSetpoint(self):
        output = self.controller.calculate(self.encoder.getDistance(), self.setpoint)
        self.motor.setVoltage(output)

    def stop(self):
        self.motor.set(0.0)


class MyRobot(wpilib.TimedRobot):
    def robotInit(self):
        self.arm = Arm()
        self.joystick = wpilib.Joystick(kJoystickPort)

    def teleopPeriodic(self):
        if self.joystick.getTrigger():
            self.arm.reachSetpoint()
        else:
            self.arm.stop()

    def disabledInit(self):
        self.arm.stop()
