"""Physical mechanisms: motors, the motor drive, battery, flywheel, arm, elevator, hub motor, drivetrains.

Every mechanism is a :class:`simcore.System`; constructors take SI floats or pint
Quantities. ``simcore.models`` never imports ``simcore.controllers``.
"""

if __name__ != "simcore.models":  # the repository's top-level folder imported under its bare name
    raise ImportError("this folder is installed as simcore.models: write `import simcore.models` "
                      "(in a checkout, after `pip install -e .`)")
from . import motors
from .arm import Arm
from .battery import Battery
from .drive import MotorDrive
from .elevator import Elevator
from .flywheel import Flywheel
from . import hub_motor
from .hub_motor import HubMotor
from .mechanism import GearedMechanism
from .mecanum import MecanumDrive
from .swerve import SwerveDrive
from .tank import CharacterizedTankDrive, TankDrive, rectangle_moi
from .motors import DCMotor
from . import servo
from .servo import ServoMechanism
from .odometry import OdometryPod

__all__ = ["motors", "DCMotor", "MotorDrive", "GearedMechanism", "Flywheel", "Arm", "Elevator", "Battery",
           "hub_motor", "HubMotor", "TankDrive", "CharacterizedTankDrive", "rectangle_moi", "SwerveDrive",
           "MecanumDrive", "servo", "ServoMechanism", "OdometryPod"]
