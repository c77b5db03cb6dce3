"""A physics.py written against simcore.robotpy for the ArmSimulation-style robot code beside it."""
import simcore.models as models
from simcore.models.motors import VEX_775PRO
from simcore.robotpy import Physics

import robot


class PhysicsEngine(Physics):
    def __init__(self, physics_controller, robot_instance):
        moi = models.Arm.rod_moi(robot.kArmMass, robot.kArmLength)
        arm = models.Arm.from_wpilib(VEX_775PRO, robot.kArmReduction, moi, robot.kArmLength, robot.kMinAngleRads,
                                     robot.kMaxAngleRads, True, robot.kMinAngleRads, n_motors=2, command="duty")
        super().__init__(physics_controller, [arm, models.Battery()])
        self.motor(robot_instance.arm.motor, "arm.duty")
        self.encoder(robot_instance.arm.encoder, "arm.angle", zero_at=0.0)  # it reads the angle from horizontal
        self.battery()
