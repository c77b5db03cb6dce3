"""The robots the SDK's drive samples assume, built for a run: drivetrain, hub and configuration.

Each returns ``(drive, hub, configuration)``, the configuration keyed by the
names the sample reads (``hardwareMap.get(DcMotor, "left_drive")``), ready for
:func:`~simcore.controllers.hub.run_opmode`. Every drive is built from an FTC
motor type, so it stands in the FTC field's walls by default
(:data:`simcore.field.FTC_FIELD_WALLS`, an 18 in square bumper), starting at the
field's centre unless ``start_pose`` says otherwise; the left motors are mounted
mirrored, as on the chassis kits (:mod:`simcore.controllers.hub.motor`,
"Mounting"), which is what the samples' direction lines undo.

:func:`strafer`
    :class:`BasicOmniOpMode_Linear`'s robot: a goBILDA Strafer-style mecanum,
    four goBILDA 5203 312 rpm motors (19.2:1, 537.7 counts per output revolution)
    on 96 mm mecanum wheels, one hub channel each, named as the sample names them.
:func:`encoder_sample_tank`
    :class:`RobotAutoDriveByEncoder_Linear`'s (and :class:`RobotAutoDriveByTime_Linear`'s)
    robot, as the encoder sample's constants state it: one TETRIX motor per side
    (1440 counts per output revolution), no external gearing, 4.0 in wheels.
:func:`gyro_sample_tank`
    :class:`RobotAutoDriveByGyro_Linear`'s robot, as its constants state it: one
    goBILDA 5203 312 rpm motor per side, no external gearing, 4.0 in wheels, and
    the hub's IMU.

The rest is this project's choice of a typical FTC robot, not a measured one:
12 kg and 0.35 kg·m² for the mecanum (wheel centres 0.36 m apart side to side,
0.30 m front to back), 10 kg and 0.3 kg·m² for the tanks (0.40 m track), wheel-floor
friction coefficient 1.0 (so the tanks can push the walls).
"""
from __future__ import annotations

from simcore.models import MecanumDrive, TankDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312, TETRIX

from ..imu import IMU
from ..motor import Hub

__all__ = ["strafer", "encoder_sample_tank", "gyro_sample_tank", "STRAFER_MOTORS"]

_INCH = 0.0254  # m
#: BasicOmniOpMode_Linear's motor names and the mecanum wheels they drive.
STRAFER_MOTORS = {"left_front_drive": "front_left", "right_front_drive": "front_right",
                  "left_back_drive": "rear_left", "right_back_drive": "rear_right"}


def strafer(**options):
    """BasicOmniOpMode_Linear's mecanum (see the module docstring); ``options`` go to MecanumDrive."""
    drive = MecanumDrive(GOBILDA_5203_312, **{"track_width": 0.36, "wheelbase": 0.30, "wheel_radius": 0.048,
                                               "mass": 12.0, "moi": 0.35, **options})
    hub = Hub()
    configuration = {name: hub.motor(port, drive, wheel=wheel) for port, (name, wheel) in
                     enumerate(STRAFER_MOTORS.items())}
    configuration["imu"] = IMU(drive)
    return drive, hub, configuration


def _tank(motor_type, options):
    drive = TankDrive(motor_type, **{"n_motors_per_side": 1, "wheel_radius": 2.0 * _INCH, "track_width": 0.40,
                                     "mass": 10.0, "moi": 0.3, "friction_coefficient": 1.0, **options})
    hub = Hub()
    configuration = {"left_drive": hub.motor(0, drive, wheel="left"), "right_drive": hub.motor(1, drive, wheel="right"),
                     "imu": IMU(drive)}
    return drive, hub, configuration


def encoder_sample_tank(**options):
    """The encoder (and timed) sample's tank: TETRIX motors, 4 in wheels; ``options`` go to TankDrive."""
    return _tank(TETRIX, options)


def gyro_sample_tank(**options):
    """The gyro sample's tank: goBILDA 312 rpm motors, 4 in wheels, the IMU; ``options`` go to TankDrive."""
    return _tank(GOBILDA_5203_312, options)
