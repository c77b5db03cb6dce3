"""Drive options, one way: MotorDrive's keywords as plain keyword arguments, split by one function."""
import warnings

import pytest

import simcore.models as models
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models.drive import MotorDrive, merge_legacy_drive_options, split_drive_options
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.motors import NEO

OPTIONS = dict(n_motors=2, efficiency=0.8, neutral_mode="coast", stator_current_limit=30.0,
               supply_current_limit=20.0, command="duty", nominal_bus_voltage=11.0)


@pytest.mark.parametrize("make", [
    lambda **kw: models.Flywheel(NEO, 2.0, 0.01, **kw),
    lambda **kw: models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0, **kw),
    lambda **kw: models.Elevator(NEO, 10, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0,
                                 **kw),
    lambda **kw: models.HubMotor(GOBILDA_5203_312, **kw),
])
def test_every_mechanism_takes_the_motor_drive_keywords_as_plain_keywords(make):
    m = make(**OPTIONS, viscous_friction=1e-3, static_friction=0.01)
    d = m.drive
    assert (d.n_motors, d.efficiency, d.neutral_mode, d.command, d.nominal_bus_voltage) == (2, 0.8, "coast", "duty",
                                                                                            11.0)
    # the limits are per motor controller: the group of two draws up to twice each
    assert (d.stator_current_limit, d.supply_current_limit) == (60.0, 40.0)
    assert (m.viscous_friction, m.static_friction) == (1e-3, 0.01)
    assert "duty" in m.input_names


def test_an_unknown_keyword_names_the_class_called_and_the_nearest_keyword():
    with pytest.raises(ConfigTypeError, match=r"Elevator\(\) keyword='counterweight'.*did you mean "
                                              r"'counterweight_mass'"):
        models.Elevator(NEO, 10, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0,
                        counterweight=1.0)
    with pytest.raises(ConfigTypeError, match=r"Flywheel\(\) keyword='stator_limit'.*did you mean "
                                              r"'stator_current_limit'"):
        models.Flywheel(NEO, 2.0, 0.01, stator_limit=40)

    class MyArm(models.Arm):
        pass

    with pytest.raises(ConfigTypeError, match=r"MyArm\(\) keyword='effciency'.*'efficiency'"):
        MyArm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0, effciency=0.9)


def test_a_prefixed_group_is_split_off_and_errors_name_the_keyword_the_user_wrote():
    options = {"steer_efficiency": 0.9, "steer_neutral_mode": "coast", "efficiency": 0.8, "friction": 1.0}
    steer, rest = split_drive_options("SwerveDrive", options, prefix="steer_", strict=False)
    assert {k: v for k, v in steer.items() if k != "parameter_names"} == {"efficiency": 0.9, "neutral_mode": "coast"}
    assert rest == {"efficiency": 0.8, "friction": 1.0}
    drive, rest = split_drive_options("SwerveDrive", rest, accepted=("friction",), gearing_keyword="drive_gearing")
    assert {k: v for k, v in drive.items() if k != "parameter_names"} == {"efficiency": 0.8} and rest == {
        "friction": 1.0}
    with pytest.raises(ConfigError, match=r"steer_efficiency=1.5: expected a number in \(0.0, 1.0\]"):
        MotorDrive(NEO, 12.8, **split_drive_options("S", {"steer_efficiency": 1.5}, prefix="steer_")[0])
    with pytest.raises(ConfigError, match=r"drive_gearing=-6.75"):
        MotorDrive(NEO, -6.75, **drive)
    with pytest.raises(ConfigTypeError, match=r"SwerveDrive\(\) keyword='friction'"):
        split_drive_options("SwerveDrive", {"friction": 1.0})


def test_a_motor_count_under_another_name_is_taken_and_named_as_given():
    drive, rest = split_drive_options("TankDrive", {"n_motors_per_side": 2, "efficiency": 0.9},
                                      n_motors_keyword="n_motors_per_side")
    assert MotorDrive(NEO, 8.45, **drive).n_motors == 2 and rest == {}
    bad, _ = split_drive_options("TankDrive", {"n_motors_per_side": 0}, n_motors_keyword="n_motors_per_side")
    with pytest.raises(ConfigError, match=r"n_motors_per_side=0: expected a whole number >= 1"):
        MotorDrive(NEO, 8.45, **bad)
    with pytest.raises(ConfigTypeError, match=r"TankDrive\(\) keyword='n_motors'"):
        split_drive_options("TankDrive", {"n_motors": 2}, n_motors_keyword="n_motors_per_side")


def test_a_legacy_options_dict_still_works_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"SwerveDrive\(steer_options=...\) is deprecated.*steer_efficiency"):
        merged = merge_legacy_drive_options("SwerveDrive", "steer_options", {"efficiency": 0.8}, {"mass": 50},
                                            prefix="steer_")
    assert merged == {"mass": 50, "steer_efficiency": 0.8}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert merge_legacy_drive_options("SwerveDrive", "drive_options", None, {"a": 1}) == {"a": 1}
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=r"drive_options key='eficiency'"):
        merge_legacy_drive_options("SwerveDrive", "drive_options", {"eficiency": 0.8}, {})
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=r"drive_options\['efficiency'\]"):
        merge_legacy_drive_options("SwerveDrive", "drive_options", {"efficiency": 0.8}, {"efficiency": 0.9})
    with pytest.raises(ConfigTypeError, match="drive_options"):
        merge_legacy_drive_options("SwerveDrive", "drive_options", [("efficiency", 0.8)], {})
