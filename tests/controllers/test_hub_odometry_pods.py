"""Dead-wheel odometry pods on a hub-driven mecanum, read through the hub's encoder ports: their counts against the
geometry of the motion (a straight drive, a turn in place), and the two- and three-wheel odometry formulas, derived
below, recovering the true pose along a curved path from the counts the hub reports."""
import math

import pytest

import simcore
from simcore.controllers.hub import DcMotor, Hub, RunMode
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import MecanumDrive, OdometryPod
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.mecanum import WHEELS

R_POD = 0.016  # m: a 32 mm omni wheel
CPR = 2000.0  # counts per turn of the pod's wheel
# Three-wheel layout: two parallel pods 0.15 m either side of the centre (a little ahead of it), one perpendicular
# pod 0.1 m behind it and off the centre line.
Y_LEFT, Y_RIGHT, X_PAR = 0.15, -0.15, 0.02
X_PERP, Y_PERP = -0.10, 0.03
PODS = (OdometryPod("par_left", X_PAR, Y_LEFT, 0.0, R_POD, CPR),
        OdometryPod("par_right", X_PAR, Y_RIGHT, 0.0, R_POD, CPR),
        OdometryPod("perp", X_PERP, Y_PERP, math.pi / 2, R_POD, CPR))
METERS_PER_COUNT = 2 * math.pi * R_POD / CPR


def robot():
    """The mecanum of the drive tests (goBILDA 312 rpm, 96 mm wheels), its motors on one hub's ports 0-3 (left ones
    reversed as the SDK samples do) and its pods plugged into a second hub's encoder ports 0-2."""
    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                         moi=0.35, odometry_pods=PODS, field=None)
    control, expansion = Hub(name="control"), Hub(name="expansion")
    motors = {w: control.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)}
    encoders = {p.name: expansion.encoder(port, drive, p.name) for port, p in enumerate(PODS)}
    # The ports are configured as the drive's goBILDA 5203, a CCW type: the SDK negates what a FORWARD handle reads
    # of them, so robot code reverses the handles to read the pods' own direction (as teams do).
    for e in encoders.values():
        e.setDirection(DcMotor.Direction.REVERSE)
    sim = simcore.Simulator([drive], control.controllers() + expansion.controllers(), rtol=1e-9, atol=1e-12)
    for hub in (control, expansion):
        hub.observe(sim.signals)
    return drive, motors, encoders, sim


def set_powers(motors, forward, strafe, turn):
    """The SDK omni sample's mix (left motors reversed by the robot code)."""
    p = {"front_left": forward + strafe - turn, "front_right": forward - strafe + turn,
         "rear_left": forward - strafe - turn, "rear_right": forward + strafe + turn}
    for w, m in motors.items():
        if w.endswith("left"):
            m.setDirection(DcMotor.Direction.REVERSE)
        m.setPower(p[w])


def test_driving_straight_a_parallel_pod_counts_the_distance_and_the_perpendicular_one_nothing():
    _, motors, enc, sim = robot()
    set_powers(motors, 0.5, 0.0, 0.0)
    sim.advance(1.37)
    x, heading = sim.signals["mecanum.x"], sim.signals["mecanum.heading"]
    assert x == pytest.approx(1.0, abs=0.05)  # about a metre
    assert abs(heading) < 1e-9 and abs(sim.signals["mecanum.y"]) < 1e-9
    expected = x / (2 * math.pi * R_POD) * CPR  # the distance over the wheel's circumference, in counts
    assert enc["par_left"].getCurrentPosition() == pytest.approx(expected, abs=1)
    assert enc["par_right"].getCurrentPosition() == pytest.approx(expected, abs=1)
    assert abs(enc["perp"].getCurrentPosition()) <= 1


def test_turning_in_place_pods_count_their_offset_times_the_angle():
    _, motors, enc, sim = robot()
    set_powers(motors, 0.0, 0.0, 0.4)
    sim.advance(1.0)
    angle = sim.signals["mecanum.heading"]
    assert angle > 1.0  # counter-clockwise, more than a radian
    assert math.hypot(sim.signals["mecanum.x"], sim.signals["mecanum.y"]) < 1e-9
    # A contact point at (x, y) moves by angle * (-y, x): along a parallel pod's direction -y * angle, along the
    # perpendicular pod's x * angle.
    for name, offset in (("par_left", -Y_LEFT), ("par_right", -Y_RIGHT), ("perp", X_PERP)):
        expected = offset * angle / (2 * math.pi * R_POD) * CPR
        assert enc[name].getCurrentPosition() == pytest.approx(expected, abs=1), name


def arc_step(x, y, heading, dx_robot, dy_robot, dtheta):
    """Field pose after a robot-frame displacement with a constant twist (the pose exponential): the robot moves
    along a circular arc of angle ``dtheta`` whose chord, in the frame at its start, is
    ``(sin dt / dt) d - ((1 - cos dt) / dt) z x d``."""
    if abs(dtheta) < 1e-9:
        a, b = 1.0 - dtheta * dtheta / 6.0, dtheta / 2.0
    else:
        a, b = math.sin(dtheta) / dtheta, (1.0 - math.cos(dtheta)) / dtheta
    fx, fy = a * dx_robot - b * dy_robot, b * dx_robot + a * dy_robot
    c, s = math.cos(heading), math.sin(heading)
    return x + c * fx - s * fy, y + s * fx + c * fy, heading + dtheta


def drive_path_and_track(imu_heading: bool):
    """Drive a curved path (forward, strafe and turn blended, changing every half second) reading the pods every
    5 ms as a robot's loop would; integrate the two- or three-wheel odometry and return it with the true pose.

    Derivation: a pod at (px, py) rolling along (cos phi, sin phi) rolls (v_x - w py) cos phi + (v_y + w px) sin phi.
    Parallel pods (phi 0) at y_L, y_R: dL = dx - dth y_L, dR = dx - dth y_R, so dth = (dR - dL) / (y_L - y_R) and
    dx = dL + dth y_L. The perpendicular pod (phi pi/2) at x_P: dP = dy + dth x_P, so dy = dP - dth x_P. Two-wheel
    odometry takes dth from the IMU instead and one parallel pod."""
    _, motors, enc, sim = robot()
    counts = {n: 0 for n in enc}
    pose = (0.0, 0.0, 0.0)
    plan = [(0.5, 0.0, 0.1), (0.3, 0.3, 0.2), (-0.2, 0.4, -0.3), (0.4, -0.2, 0.3), (0.0, 0.0, 0.0)]
    dt = 0.005
    last_heading = 0.0
    for forward, strafe, turn in plan:
        set_powers(motors, forward, strafe, turn)
        for _ in range(100):
            sim.advance(dt)
            now = {n: e.getCurrentPosition() for n, e in enc.items()}
            d = {n: (now[n] - counts[n]) * METERS_PER_COUNT for n in enc}
            counts = now
            if imu_heading:
                heading = sim.signals["mecanum.heading"]
                dth = heading - last_heading
                last_heading = heading
            else:
                dth = (d["par_right"] - d["par_left"]) / (Y_LEFT - Y_RIGHT)
            dx = d["par_left"] + dth * Y_LEFT
            dy = d["perp"] - dth * X_PERP
            pose = arc_step(*pose, dx, dy, dth)
    truth = tuple(sim.signals[f"mecanum.{k}"] for k in ("x", "y", "heading"))
    return pose, truth


@pytest.mark.parametrize("imu_heading", [False, True], ids=["three-wheel", "two-wheel"])
def test_odometry_formulas_recover_the_pose_along_a_curved_path(imu_heading):
    (x, y, heading), (tx, ty, theading) = drive_path_and_track(imu_heading)
    assert math.hypot(tx, ty) > 0.5 and abs(theading) > 0.2  # the path went somewhere and turned
    assert math.hypot(x - tx, y - ty) < 1e-3
    assert abs(heading - theading) < 1e-3


def test_a_pod_on_a_drive_motors_port_is_read_by_that_motors_handle():
    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                         moi=0.35, odometry_pods=PODS[:1], field=None)
    hub = Hub()
    motors = {w: hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)}
    assert hub.encoder(1, drive, "par_left") is motors["front_right"]
    sim = simcore.Simulator([drive], hub.controllers(), rtol=1e-9, atol=1e-12)
    hub.observe(sim.signals)
    set_powers(motors, 0.5, 0.0, 0.0)
    motors["front_right"].setMode(RunMode.RUN_WITHOUT_ENCODER)
    sim.advance(0.5)
    x = sim.signals["mecanum.x"]
    # A FORWARD handle of a CCW type (the 5203) reads the raw count negated (DcMotorImpl's operational direction)
    assert motors["front_right"].getCurrentPosition() == pytest.approx(-x / METERS_PER_COUNT, abs=1)
    motors["front_right"].setDirection(DcMotor.Direction.REVERSE)
    assert motors["front_right"].getCurrentPosition() == pytest.approx(x / METERS_PER_COUNT, abs=1)
    # the motor's own encoder still counts on the other ports
    assert motors["rear_right"].getCurrentPosition() > 100


def test_bad_pods_are_named():
    with pytest.raises(ConfigError, match="wheel_radius"):
        OdometryPod("p", 0.0, 0.0, 0.0, -0.016, CPR)
    with pytest.raises(ConfigError, match="heading"):
        OdometryPod("p", 0.0, 0.0, float("nan"), R_POD, CPR)
    with pytest.raises(ConfigError, match="odometry_pods"):
        MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                     odometry_pods=(PODS[0], PODS[0]))
    with pytest.raises(ConfigTypeError, match="odometry_pods"):
        MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                     odometry_pods=("par",))
    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                         moi=0.35, odometry_pods=PODS)
    with pytest.raises(ConfigError, match="pod"):
        Hub().encoder(0, drive, "middle")
    with pytest.raises(ConfigError, match="port"):
        Hub().encoder(4, drive, "perp")
    hub = Hub()
    hub.motor(0, drive, wheel="front_left")
    with pytest.raises(ConfigError, match="motor_type"):
        hub.encoder(0, drive, "perp", motor_type=GOBILDA_5203_312)
