"""Issue 12 item 8: free current as friction in the native motor-driven constructors."""
import pytest

import simcore
from simcore.models import Arm, Elevator, Flywheel
from simcore.models.motors import CIM, FALCON_500, KRAKEN_X60, NEO


@pytest.mark.parametrize("motor", [KRAKEN_X60, FALCON_500, NEO, CIM], ids=lambda m: m.name)
def test_a_native_flywheel_at_12_v_settles_at_the_datasheet_free_speed_and_free_current(motor):
    fly = Flywheel(motor, 1.0, 0.001)
    res = simcore.simulate([fly], 10.0, inputs={"flywheel.voltage": 12.0})
    assert res.final("flywheel.velocity") == pytest.approx(motor.free_speed, rel=1e-6)
    assert res.final("flywheel.stator_current") == pytest.approx(motor.free_current, rel=1e-6)
    assert res.final("flywheel.supply_current") == pytest.approx(motor.free_current, rel=1e-6)


def test_viscous_friction_zero_is_the_ideal_plant_and_the_default_scales_with_the_gearing():
    ideal = Flywheel(NEO, 1.0, 0.001, viscous_friction=0)
    res = simcore.simulate([ideal], 10.0, inputs={"flywheel.voltage": 12.0})
    assert res.final("flywheel.velocity") == pytest.approx(12.0 * NEO.Kv, rel=1e-8)  # settled: no current at all
    b_rotor = 2 * NEO.Kt * NEO.free_current / NEO.free_speed  # two motors: twice the rotor friction
    assert Flywheel(NEO, 5.0, 0.01, n_motors=2).viscous_friction == pytest.approx(b_rotor * 25.0, rel=1e-12)
    arm = Arm(NEO, 100.0, mass=2.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0)
    assert arm.viscous_friction == pytest.approx(NEO.Kt * NEO.free_current / NEO.free_speed * 1e4, rel=1e-12)
    lift = Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0)
    assert lift.viscous_friction == pytest.approx(NEO.Kt * NEO.free_current / NEO.free_speed * (10.0 / 0.02) ** 2,
                                                  rel=1e-12)


def test_the_wpilib_parity_constructors_keep_the_frictionless_plant():
    arm = Arm.from_wpilib(NEO, 100.0, 0.5, 0.6, -1.0, 2.0)
    lift = Elevator.from_wpilib(NEO, 10.0, 5.0, 0.02, 0.0, 1.0)
    assert arm.viscous_friction == 0.0 and lift.viscous_friction == 0.0
    assert Arm.from_wpilib(NEO, 100.0, 0.5, 0.6, -1.0, 2.0, viscous_friction=0.1).viscous_friction == 0.1
