"""The FTC field's perimeter as walls by default for drivetrains built from FTC motor types.

The field is 12 ft x 12 ft (144 in) with the FTC coordinate system's origin at its centre; an FTC robot's starting
footprint is at most 18 in square. Checked against that geometry: a robot driven straight at the wall stops with its
bumper's front edge on it, 72 in - 9 in from the centre."""
import numpy as np
import pytest

import simcore
from simcore.errors import ConfigError
from simcore.field import FTC_FIELD_WALLS, FTC_ROBOT_SIZE
from simcore.models import MecanumDrive, TankDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.mecanum import WHEELS
from simcore.models.motors import GOBILDA_BARE

INCH = 0.0254
HALF_FIELD = 72 * INCH  # 6 ft from the centre to each wall
HALF_ROBOT = 9 * INCH


def mecanum(**kw):
    return MecanumDrive(GOBILDA_5203_312, **{"track_width": 0.36, "wheelbase": 0.30, "wheel_radius": 0.048,
                                              "mass": 12.0, "moi": 0.35, **kw})


def test_an_ftc_drivetrain_stands_in_the_ftc_field_by_default():
    assert FTC_FIELD_WALLS == pytest.approx((-HALF_FIELD, -HALF_FIELD, HALF_FIELD, HALF_FIELD), rel=1e-12)
    assert FTC_ROBOT_SIZE == pytest.approx((18 * INCH, 18 * INCH), rel=1e-12)
    d = mecanum()
    assert d.field == FTC_FIELD_WALLS and d.bumper == FTC_ROBOT_SIZE and "wall_force" in d.output_names
    assert mecanum(bumper=(0.40, 0.38)).bumper == (0.40, 0.38)  # its own bumper in the same field
    assert mecanum(field=None).field is None and "wall_force" not in mecanum(field=None).output_names
    # not an FTC motor type: no field unless given
    assert MecanumDrive(GOBILDA_BARE, 19.2, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                        moi=0.35).field is None
    tank = dict(n_motors_per_side=2, wheel_radius=0.048, track_width=0.4, mass=12.0, moi=0.35)
    assert TankDrive(GOBILDA_5203_312, friction_coefficient=1.0, **tank).field == FTC_FIELD_WALLS
    # a tank that cannot slip cannot push a wall, so it gets none by default
    assert TankDrive(GOBILDA_5203_312, **tank).field is None


def test_a_start_outside_the_field_is_refused_naming_the_pose():
    with pytest.raises(ConfigError) as e:
        mecanum(start_pose=(2.0, 0.0, 0.0))
    assert e.value.parameter == "start_pose" and "field=None" in str(e.value)
    assert mecanum(start_pose=(2.0, 0.0, 0.0), field=None).field is None


@pytest.mark.parametrize("make", ["mecanum", "tank"])
def test_a_robot_driving_off_course_stops_on_the_wall(make):
    """Full duty forward from the centre: the wall event fires when the bumper's front reaches x = 72 in, and
    the robot stays there, its centre 9 in from the wall, whatever the wheels do."""
    if make == "mecanum":
        drive, inputs = mecanum(), {f"mecanum.{w}_duty": 1.0 for w in WHEELS}
    else:
        drive = TankDrive(GOBILDA_5203_312, friction_coefficient=1.0, n_motors_per_side=2, wheel_radius=0.048,
                          track_width=0.4, mass=12.0, moi=0.35)
        inputs = {"drive.left_duty": 1.0, "drive.right_duty": 1.0}
    res = simcore.simulate([drive], 3.0, inputs=inputs)
    name = drive.name
    hits = [e for e in res.events if e.name == "wall"]
    assert hits, "no wall contact"
    stop = HALF_FIELD - HALF_ROBOT
    assert res.sample(f"{name}.x", [hits[0].t])[0] == pytest.approx(stop, abs=1e-9)
    after = res.t >= hits[0].t
    np.testing.assert_allclose(res[f"{name}.x"][after], stop, rtol=0, atol=1e-9)
    assert np.all(res[f"{name}.x"] <= stop + 1e-9)
    assert res.final(f"{name}.wall_force") > 0  # still pushing
