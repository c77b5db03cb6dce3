"""Digital controllers: WPILib-style PID, profiles, feedforward, LQR, kinematics, odometry, the FTC hub.

Every controller here is a plain object with the semantics teams know from
WPILib; :func:`control_loop` runs one as a zero-order-hold periodic controller
between a measured signal and a commanded input. ``simcore.controllers.hub`` models the
REV hub's firmware and the FTC SDK's DcMotorEx.
"""

if __name__ != "simcore.controllers":  # the repository's top-level folder imported under its bare name
    raise ImportError("this folder is installed as simcore.controllers: write `import simcore.controllers` "
                      "(in a checkout, after `pip install -e .`)")
from .bangbang import BangBangController
from .drive_control import SwerveCommand, swerve_module_controllers, tank_drive_controller, tank_voltages
from .feedforward import ArmFeedforward, ElevatorFeedforward, SimpleMotorFeedforward
from .geometry import Pose2d, Twist2d, wrap_angle
from .kinematics import (ChassisSpeeds, DifferentialKinematics, DifferentialWheelSpeeds, MecanumKinematics,
                         MecanumWheelSpeeds, SwerveKinematics, SwerveModulePosition, SwerveModuleState)
from .lqr import LinearQuadraticRegulator, bryson, discretize, lqr
from .odometry import DifferentialOdometry, MecanumOdometry, SwerveOdometry
from .pid import PIDController, input_modulus
from .profile import Constraints, State, TrapezoidProfile
from .profiled_pid import ProfiledPIDController
from .wiring import control_loop

__all__ = ["PIDController", "input_modulus", "TrapezoidProfile", "State", "Constraints", "ProfiledPIDController",
           "SimpleMotorFeedforward", "ArmFeedforward", "ElevatorFeedforward", "BangBangController", "lqr",
           "discretize", "bryson", "LinearQuadraticRegulator", "ChassisSpeeds", "DifferentialKinematics",
           "DifferentialWheelSpeeds", "MecanumKinematics", "MecanumWheelSpeeds", "SwerveKinematics",
           "SwerveModuleState", "SwerveModulePosition", "DifferentialOdometry", "MecanumOdometry", "SwerveOdometry",
           "Pose2d", "Twist2d", "wrap_angle", "control_loop", "swerve_module_controllers",
           "tank_drive_controller", "tank_voltages", "SwerveCommand"]
