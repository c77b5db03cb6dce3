"""The two FTC robots the hub's drivetrain tests drive: a goBILDA mecanum and a tank, each wheel (or side) on a
hub channel of one hub, configured by the names the SDK samples use."""
from simcore.controllers.hub import IMU, Hub
from simcore.models import MecanumDrive, TankDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.mecanum import WHEELS

MOTOR_TYPE = GOBILDA_5203_312
WHEEL_DIAMETER = 0.096  # m, goBILDA 96 mm mecanum wheels
MECANUM_TRACK, MECANUM_WHEELBASE = 0.36, 0.30  # m
TANK_TRACK = 0.40  # m
#: The drive samples' left and right motor names on the mecanum.
MECANUM_SIDES = {"left": ("front_left", "rear_left"), "right": ("front_right", "rear_right")}


def mecanum_robot():
    """A 12 kg goBILDA-style mecanum: four 5203 312 rpm motors on 96 mm wheels; ports 0-3 in WHEELS order."""
    drive = MecanumDrive(MOTOR_TYPE, track_width=MECANUM_TRACK, wheelbase=MECANUM_WHEELBASE,
                         wheel_radius=WHEEL_DIAMETER / 2, mass=12.0, moi=0.35)
    hub = Hub()
    config = {w: hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)}
    config["imu"] = IMU(drive)
    return drive, hub, config


def tank_robot():
    """A 12 kg tank: two 5203 312 rpm motors per side (one hub channel each side) on 96 mm wheels."""
    drive = TankDrive(MOTOR_TYPE, n_motors_per_side=2, wheel_radius=WHEEL_DIAMETER / 2, track_width=TANK_TRACK,
                      mass=12.0, moi=0.35)
    hub = Hub()
    config = {"left_drive": hub.motor(0, drive, wheel="left"), "right_drive": hub.motor(1, drive, wheel="right"),
              "imu": IMU(drive)}
    return drive, hub, config
