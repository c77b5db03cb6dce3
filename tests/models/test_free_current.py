"""Issue 12 item 8: free current as friction in the native motor-driven constructors."""
import math

import pytest

import simcore
from simcore.models import Arm, Elevator, Flywheel
from simcore.models.motors import CIM, FALCON_500, KRAKEN_X60, NEO
from simcore.models.tank import TankDrive


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


# Datasheet values (WCP Kraken X60 at 12 V), written out here so the check does not read the model.
_KRAKEN_FREE_RPM, _KRAKEN_FREE_AMPS = 6000.0, 2.0


def test_with_a_lossy_gearbox_a_free_running_flywheel_still_draws_its_datasheet_free_current():
    # The motor's own friction acts on its shaft, before the gearbox: at free speed the shaft
    # carries no net torque, so the gearbox loses nothing and the efficiency cannot matter.
    fly = Flywheel(KRAKEN_X60, 0.5, 0.002, efficiency=0.8)
    res = simcore.simulate([fly], 20.0, inputs={"flywheel.voltage": 12.0})
    w_free = _KRAKEN_FREE_RPM * 2 * math.pi / 60
    assert res.final("flywheel.velocity") * 0.5 == pytest.approx(w_free, rel=1e-6)
    assert res.final("flywheel.stator_current") == pytest.approx(_KRAKEN_FREE_AMPS, rel=1e-6)


def test_with_a_lossy_gearbox_a_tank_settles_at_its_free_speed_drawing_the_free_current():
    G, r = 6.0, 0.0762
    tank = TankDrive(KRAKEN_X60, G, n_motors_per_side=2, wheel_radius=r, track_width=0.6, mass=50.0, moi=5.0,
                     efficiency=0.8)
    res = simcore.simulate([tank], 20.0, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    v_free = _KRAKEN_FREE_RPM * 2 * math.pi / 60 * r / G  # rotors at the datasheet free speed
    assert res.final("drive.velocity") == pytest.approx(v_free, rel=1e-6)
    assert tank.free_speed(12.0) == pytest.approx(res.final("drive.velocity"), rel=1e-6)
    assert res.final("drive.left_stator_current") == pytest.approx(2 * _KRAKEN_FREE_AMPS, rel=1e-6)


def test_with_a_lossy_gearbox_a_mecanum_wheel_motor_still_draws_its_free_current():
    from simcore.models.mecanum import MecanumDrive
    from simcore.models.motors import GOBILDA_BARE
    mec = MecanumDrive(GOBILDA_BARE, 19.2, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                       moi=0.35, efficiency=0.8)
    res = simcore.simulate([mec], 8.0, inputs={f"mecanum.{w}_voltage": 12.0
                                               for w in ("front_left", "front_right", "rear_left", "rear_right")})
    # The motor table's datasheet constants; no load but the motor's own (shaft-side) friction.
    assert res.final("mecanum.front_left_rotor_velocity") == pytest.approx(GOBILDA_BARE.free_speed, rel=1e-6)
    assert res.final("mecanum.front_left_stator_current") == pytest.approx(GOBILDA_BARE.free_current, rel=1e-6)
