"""The FTC hub: the SDK's ``DcMotorEx`` (exact) on the hub firmware's PIDF loop (approximation).

Robot code talks to :class:`DcMotorEx` objects with the SDK's method names; the
:class:`Hub`'s firmware runs as one :class:`simcore.PeriodicController` and drives
each configured mechanism's ``duty`` and ``brake`` inputs. What is exact and what
is an approximation is stated in :mod:`simcore.controllers.hub.motor` (the SDK side) and
:mod:`simcore.controllers.hub.firmware` (the firmware, every constant in
:class:`FirmwareConstants`); op modes in :mod:`simcore.controllers.hub.opmode`.

Example
-------
::

    from simcore.controllers.hub import Hub, RunMode, linear_opmode
    from simcore.models import HubMotor
    from simcore.models.hub_motor import GOBILDA_5203_312

    arm_mechanism = HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="arm")
    hub = Hub()
    arm = hub.motor(0, arm_mechanism)

    def auto():
        arm.setTargetPosition(178)              # target first...
        arm.setMode(RunMode.RUN_TO_POSITION)    # ...then the mode...
        arm.setPower(0.8)                       # ...then the speed cap
        while arm.isBusy():
            yield                               # one loop iteration

    simcore.simulate([arm_mechanism], 3.0,
                     controllers=[linear_opmode(auto, period=0.02, hubs=[hub]), *hub.controllers()])
"""
from simcore.models.ftc_motor_types import MotorType, Rotation

from .firmware import DEFAULT_FIRMWARE, FULL_SCALE, FirmwareConstants
from .motor import DEFAULT_TARGET_POSITION_TOLERANCE, NUMBER_OF_MOTORS, DcMotorEx, Hub
from .opmode import OpMode, iterative_opmode, linear_opmode
from .sdk import (AngleUnit, CurrentUnit, DcMotor, DcMotorSimple, Direction, IllegalArgumentException,
                  MotorControlAlgorithm, PIDCoefficients, PIDFCoefficients, RunMode, TargetPositionNotSetException,
                  UnsupportedOperationException, ZeroPowerBehavior)

__all__ = ["Hub", "DcMotorEx", "FirmwareConstants", "DEFAULT_FIRMWARE", "FULL_SCALE", "NUMBER_OF_MOTORS",
           "DEFAULT_TARGET_POSITION_TOLERANCE", "RunMode", "Direction", "ZeroPowerBehavior", "MotorControlAlgorithm",
           "PIDFCoefficients", "PIDCoefficients", "AngleUnit", "CurrentUnit", "DcMotor", "DcMotorSimple",
           "TargetPositionNotSetException", "IllegalArgumentException", "UnsupportedOperationException",
           "MotorType", "Rotation", "linear_opmode", "iterative_opmode", "OpMode"]
