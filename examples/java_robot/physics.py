"""The Java drivetrain robot's physics: a tank drive on a battery, its motors, encoders and gyro bound.

The devices are addressed as Robot.java wires them (PWM channels 0 and 1, encoder channels A 0 and 2, the
ADXRS450 gyro's simulated-device name), the same as examples/drivetrain_robot's, so this file is that example's
physics, standing alone so that it can be copied into a team's project.

Run: `python -m simcore.halsim physics.py --host localhost --port 3300` while `./gradlew simulateJava` runs.
"""
import math

import simcore.models as models
from simcore.models.motors import NEO
from simcore.robotpy import Physics

WHEEL_RADIUS = 0.0762  # m, as Robot.java
COUNTS_PER_REV = 2048  # encoder pulses per wheel turn, as Robot.java
DISTANCE_PER_PULSE = 2 * math.pi * WHEEL_RADIUS / COUNTS_PER_REV  # m of wheel rim per pulse, as Robot.java sets it


class PhysicsEngine(Physics):
    def __init__(self, physics_controller, robot):
        drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=WHEEL_RADIUS, track_width=0.6,
                                 mass=50.0, moi=models.rectangle_moi(50.0, 0.8, 0.8), command="duty")
        super().__init__(physics_controller, [drive, models.Battery()])
        self.motor(0, "drive.left_duty")  # PWM 0
        self.motor(1, "drive.right_duty", inverted=True)  # PWM 1; mounted mirrored
        self.encoder(0, "drive.left_position", distance_per_pulse=DISTANCE_PER_PULSE)  # channels 0, 1
        self.encoder(2, "drive.right_position", distance_per_pulse=DISTANCE_PER_PULSE)  # channels 2, 3
        self.gyro("ADXRS450[0]", "drive.heading")
        self.battery()
        self.field("drive")
        self.networktables()  # the simulated truth under /simcore for AdvantageScope
