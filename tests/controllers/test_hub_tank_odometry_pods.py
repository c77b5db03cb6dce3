"""Dead-wheel odometry pods on a hub-driven tank, read through the hub's encoder ports: their counts against the
geometry of the motion (a straight drive, a turn in place, a sideways push), on a tank whose wheels never slip and on
one with a traction limit and scrub (a sideways velocity of its own), where the pods follow the ground, not the
wheels' rims."""
import math

import pytest

import simcore
from simcore.controllers.hub import DcMotor, Hub
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import TankDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312
# The mecanum's pods: two parallel pods at y = Y_LEFT, Y_RIGHT and a perpendicular one at (X_PERP, Y_PERP), 32 mm omni
# wheels counting CPR a turn.
from test_hub_odometry_pods import CPR, PODS, R_POD, X_PERP, Y_LEFT, Y_RIGHT

COUNTS_PER_METER = CPR / (2 * math.pi * R_POD)

#: Two tanks of two goBILDA 312 rpm motors a side on 96 mm wheels: one whose wheels never slip (no sideways
#: velocity), one with a traction limit and scrub on two axles 0.3 m apart (a sideways velocity state).
TANKS = {"rolling": {}, "traction_and_scrub": dict(friction_coefficient=1.0, wheelbase=0.30, field=None)}


def tank(odometry_pods=PODS, **options):
    return TankDrive(GOBILDA_5203_312, n_motors_per_side=2, wheel_radius=0.048, track_width=0.40, mass=12.0,
                     moi=0.35, odometry_pods=odometry_pods, **options)


def robot(options, inputs=None):
    """The tank's sides on one hub's ports 0 and 1 (the left reversed by the robot code, as the SDK samples do) and its
    pods plugged into a second hub's encoder ports 0-2."""
    drive = tank(**options)
    control, expansion = Hub(name="control"), Hub(name="expansion")
    motors = {side: control.motor(port, drive, wheel=side) for port, side in enumerate(("left", "right"))}
    motors["left"].setDirection(DcMotor.Direction.REVERSE)
    encoders = {p.name: expansion.encoder(port, drive, p.name) for port, p in enumerate(PODS)}
    # The ports are configured as the drive's goBILDA 5203, a CCW type: the SDK negates what a FORWARD handle reads
    # of them, so robot code reverses the handles to read the pods' own direction (as teams do).
    for e in encoders.values():
        e.setDirection(DcMotor.Direction.REVERSE)
    sim = simcore.Simulator([drive], control.controllers() + expansion.controllers(), inputs=inputs, rtol=1e-9,
                            atol=1e-12)
    for hub in (control, expansion):
        hub.observe(sim.signals)
    return drive, motors, encoders, sim


@pytest.mark.parametrize("options", TANKS.values(), ids=TANKS.keys())
def test_driving_straight_a_parallel_pod_counts_the_distance_and_the_perpendicular_one_nothing(options):
    _, motors, enc, sim = robot(options)
    motors["left"].setPower(0.5)
    motors["right"].setPower(0.5)
    sim.advance(1.37)
    x = sim.signals["drive.x"]
    assert x == pytest.approx(1.0, abs=0.1)  # about a metre
    assert abs(sim.signals["drive.heading"]) < 1e-9 and abs(sim.signals["drive.y"]) < 1e-9
    expected = x * COUNTS_PER_METER  # the distance over the wheel's circumference, in counts
    assert enc["par_left"].getCurrentPosition() == pytest.approx(expected, abs=1)
    assert enc["par_right"].getCurrentPosition() == pytest.approx(expected, abs=1)
    assert abs(enc["perp"].getCurrentPosition()) <= 1


@pytest.mark.parametrize("options", TANKS.values(), ids=TANKS.keys())
def test_turning_in_place_pods_count_their_offset_times_the_angle(options):
    _, motors, enc, sim = robot(options)
    motors["left"].setPower(-0.4)
    motors["right"].setPower(0.4)
    sim.advance(1.0)
    angle = sim.signals["drive.heading"]
    assert angle > 0.5  # counter-clockwise, more than half a radian (scrub slows the turn)
    assert math.hypot(sim.signals["drive.x"], sim.signals["drive.y"]) < 1e-9
    # A contact point at (x, y) moves by angle * (-y, x): along a parallel pod's direction -y * angle, along the
    # perpendicular pod's x * angle.
    for name, offset in (("par_left", -Y_LEFT), ("par_right", -Y_RIGHT), ("perp", X_PERP)):
        expected = offset * angle * COUNTS_PER_METER
        assert enc[name].getCurrentPosition() == pytest.approx(expected, abs=1), name


def test_pods_count_the_ground_under_a_slipping_tank_not_its_wheels():
    # Full power on a slippery floor: the wheels spin ahead of the ground, which is what the pods roll on.
    _, motors, enc, sim = robot(dict(friction_coefficient=0.3, field=None))
    motors["left"].setPower(1.0)
    motors["right"].setPower(1.0)
    sim.advance(0.5)
    x = sim.signals["drive.x"]
    assert sim.signals["drive.left_position"] - x > 0.05  # the rims ran more than 5 cm ahead of the chassis
    for name in ("par_left", "par_right"):
        assert enc[name].getCurrentPosition() == pytest.approx(x * COUNTS_PER_METER, abs=1), name


def test_a_tank_pushed_sideways_the_perpendicular_pod_counts_the_slide():
    # A coasting tank on omni-like axles (sideways friction 0.05 of the load, 5.9 N) pushed left with 30 N at its
    # centre of mass: it slides sideways without turning (equal axles either side of the centre).
    options = dict(friction_coefficient=1.0, wheelbase=0.30, lateral_friction_coefficient=0.05, neutral_mode="coast",
                   field=None)
    _, _, enc, sim = robot(options, inputs={"drive.external_force_y": 30.0})
    sim.advance(0.8)
    y = sim.signals["drive.y"]
    assert y > 0.1 and abs(sim.signals["drive.heading"]) < 1e-9 and abs(sim.signals["drive.x"]) < 1e-9
    assert enc["perp"].getCurrentPosition() == pytest.approx(y * COUNTS_PER_METER, abs=1)
    assert abs(enc["par_left"].getCurrentPosition()) <= 1 and abs(enc["par_right"].getCurrentPosition()) <= 1


def test_bad_pods_on_a_tank_are_named():
    with pytest.raises(ConfigError, match="odometry_pods"):
        tank(odometry_pods=(PODS[0], PODS[0]))
    with pytest.raises(ConfigTypeError, match="odometry_pods"):
        tank(odometry_pods=("par",))
    with pytest.raises(ConfigError, match="pod"):
        Hub().encoder(0, tank(odometry_pods=()), "perp")
