"""A drivetrain robot: two NEOs a side on a differential drive, encoders on both sides, an ADXRS450 gyro.

In autonomous it drives an arc for one second (arcade drive, 50 % forward and
10 % turning) and stops; every loop it updates a DifferentialDriveOdometry from
its encoders and gyro. The right motors are mounted mirrored, so the right
controller is inverted in code (as WPILib's DifferentialDrive expects). simcore is
the physics (``physics.py``).
"""
import math

import wpilib
import wpilib.drive
import wpimath.kinematics

WHEEL_RADIUS = 0.0762  # m
COUNTS_PER_REV = 2048


class DrivetrainRobot(wpilib.TimedRobot):
    def robotInit(self):
        self.left = wpilib.PWMSparkMax(0)
        self.right = wpilib.PWMSparkMax(1)
        self.right.setInverted(True)
        self.drive = wpilib.drive.DifferentialDrive(self.left, self.right)
        self.left_encoder = wpilib.Encoder(0, 1)
        self.right_encoder = wpilib.Encoder(2, 3)
        for encoder in (self.left_encoder, self.right_encoder):
            encoder.setDistancePerPulse(2 * math.pi * WHEEL_RADIUS / COUNTS_PER_REV)  # m of wheel rim per count
        self.gyro = wpilib.ADXRS450_Gyro()  # on the SPI port; simulated as the device "Gyro:ADXRS450[0]"
        self.odometry = wpimath.kinematics.DifferentialDriveOdometry(self.gyro.getRotation2d(), 0.0, 0.0)
        self.timer = wpilib.Timer()

    def robotPeriodic(self):
        self.odometry.update(self.gyro.getRotation2d(), self.left_encoder.getDistance(),
                             self.right_encoder.getDistance())

    def autonomousInit(self):
        self.timer.restart()

    def autonomousPeriodic(self):
        if self.timer.get() < 1.0:
            self.drive.arcadeDrive(0.5, 0.1, squareInputs=False)
        else:
            self.drive.stopMotor()
