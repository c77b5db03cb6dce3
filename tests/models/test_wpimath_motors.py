"""WPILib's own DCMotor (robotpy's wpimath) in simcore's WPILib-style constructors.

A team's code holds ``wpimath.system.plant.DCMotor.vex775Pro(4)``; ``Arm.from_wpilib`` and
``Elevator.from_wpilib`` take it and build the plant they build from simcore's catalogue motor
geared the same way. The reference constants are wpimath's own ``R``, ``Kt`` and ``Kv`` (computed
by WPILib's C++ from the datasheet numbers), not simcore's.
"""
import numpy as np
import pytest

plant = pytest.importorskip("wpimath.system.plant", reason="the robotpy extra (wpimath) is not installed")

import simcore.models as models  # noqa: E402
from simcore import simulate  # noqa: E402
from simcore.errors import ConfigTypeError  # noqa: E402
from simcore.models import motors  # noqa: E402

# simcore's catalogue name -> WPILib's DCMotor factory (WPILib's DCMotor.java / robotpy's wpimath)
PAIRS = {"CIM": "CIM", "MINI_CIM": "miniCIM", "BAG": "bag", "VEX_775PRO": "vex775Pro",
         "ANDYMARK_9015": "andymark9015", "BANEBOTS_RS550": "banebotsRS550", "BANEBOTS_RS775": "banebotsRS775",
         "RS775_125": "RS775_125", "NEO": "NEO", "NEO_550": "NEO550", "NEO_VORTEX": "neoVortex",
         "FALCON_500": "falcon500", "FALCON_500_FOC": "falcon500FOC", "KRAKEN_X60": "krakenX60",
         "KRAKEN_X60_FOC": "krakenX60FOC", "KRAKEN_X44": "krakenX44", "KRAKEN_X44_FOC": "krakenX44FOC",
         "MINION": "minion"}


def _arm(gearbox):
    return models.Arm.from_wpilib(gearbox, 80.0, 0.4, 0.6, -1.0, 2.0, True, -0.5)


def _elevator(gearbox):
    return models.Elevator.from_wpilib(gearbox, 10.0, 6.0, 0.025, 0.0, 1.4, True, 0.1)


@pytest.mark.parametrize("n", [1, 2, 4])
@pytest.mark.parametrize("name", sorted(PAIRS))
@pytest.mark.parametrize("build", [_arm, _elevator], ids=["Arm", "Elevator"])
def test_from_wpilib_takes_wpimaths_dcmotor_and_builds_the_same_plant(build, name, n):
    wpi = getattr(plant.DCMotor, PAIRS[name])(n)
    mine, theirs = build(getattr(motors, name).gearbox(n)), build(wpi)
    # the motor group's constants are WPILib's own, to the bit
    assert (theirs.drive.R, theirs.drive.Kt, theirs.drive.Kv) == (wpi.R, wpi.Kt, wpi.Kv)
    assert (mine.drive.R, mine.drive.Kt, mine.drive.Kv) == (wpi.R, wpi.Kt, wpi.Kv)
    assert theirs.drive.group.free_current == wpi.freeCurrent and theirs.drive.group.stall_torque == wpi.stallTorque


@pytest.mark.parametrize("build", [_arm, _elevator], ids=["Arm", "Elevator"])
def test_a_short_trajectory_is_identical_to_the_bit(build):
    runs = []
    for gearbox in (motors.VEX_775PRO.gearbox(4), plant.DCMotor.vex775Pro(4)):
        system = build(gearbox)
        runs.append(simulate([system], t_end=0.3, inputs={f"{system.name}.voltage": 9.0}))
    a, b = runs
    np.testing.assert_array_equal(a.t, b.t)
    for signal in a.names:
        np.testing.assert_array_equal(a[signal], b[signal], err_msg=signal)
    assert np.max(np.abs(a[f"{build(motors.NEO).name}.velocity"])) > 0.1  # it moved: not two rests compared


def test_from_wpimath_keeps_the_datasheet_numbers_and_other_objects_are_refused():
    wpi = plant.DCMotor.krakenX60(2)
    m = motors.DCMotor.from_wpimath(wpi)
    assert (m.nominal_voltage, m.stall_torque, m.stall_current, m.free_current, m.free_speed) == (
        wpi.nominalVoltage, wpi.stallTorque, wpi.stallCurrent, wpi.freeCurrent, wpi.freeSpeed)
    with pytest.raises(ConfigTypeError, match="gearbox.*wpimath.system.plant.DCMotor"):
        models.Arm.from_wpilib("NEO", 80.0, 0.4, 0.6, -1.0, 2.0)
    with pytest.raises(ConfigTypeError, match="motor"):
        motors.DCMotor.from_wpimath(motors.NEO)
