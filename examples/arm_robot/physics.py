"""simcore as the arm robot's physics: the arm on a battery, the motor, encoder, limit switch and bus bound."""
import simcore.models as models
from simcore.models.motors import NEO
from simcore.robotpy import Physics

import robot as arm_robot


class PhysicsEngine(Physics):
    def __init__(self, physics_controller, robot):
        arm = models.Arm(NEO, 75, mass=3.0, com_distance=0.35, min_angle=arm_robot.LOWER_STOP, max_angle=2.0,
                         start_angle=arm_robot.LOWER_STOP, command="duty")
        super().__init__(physics_controller, [arm, models.Battery()])
        self.motor(robot.motor, "arm.duty")
        self.encoder(robot.encoder, "arm.angle")
        self.limit_switch(robot.lower_limit, "arm", "lower")
        self.battery()
