"""simcore as the drivetrain robot's physics: a tank drive on a battery, its motors, encoders and gyro bound."""
import simcore.models as models
from simcore.models.motors import NEO
from simcore.robotpy import Physics

import robot as drivetrain_robot


class PhysicsEngine(Physics):
    def __init__(self, physics_controller, robot):
        drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=drivetrain_robot.WHEEL_RADIUS,
                                 track_width=0.6, mass=50.0, moi=models.rectangle_moi(50.0, 0.8, 0.8),
                                 command="duty")
        super().__init__(physics_controller, [drive, models.Battery()])
        self.motor(robot.left, "drive.left_duty")
        self.motor(robot.right, "drive.right_duty", inverted=True)  # mounted mirrored
        self.encoder(robot.left_encoder, "drive.left_position")
        self.encoder(robot.right_encoder, "drive.right_position")
        self.gyro(robot.gyro, "drive.heading")
        self.battery()
        self.field("drive")
