"""The SDK-shaped samples (simcore.controllers.hub.samples) on the real hub-driven drivetrains: a goBILDA mecanum
(four wheels, four hub channels) and a tank (one channel per side), their wheels coupled through the chassis.
Java style against generator style to 1e-12, runs bit-identical, the path against the drivetrains' no-slip
kinematics, the IMU against the chassis heading, and the telemetry kept in the run's Result."""
import math

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import DcMotor, DcMotorEx, LinearOpMode, linear_opmode, run_opmode
from simcore.controllers.hub.firmware import round_half_away
from simcore.controllers.hub.samples import (DriveByEncoder, DriveByTime, OmniTeleOp, POVTeleOp, counts_per_inch,
                                             drive_by_encoder)
from simcore.controllers.hub.telemetry import Telemetry, TelemetryLog
from simcore.models.mecanum import WHEELS

from ftc_robots import (MECANUM_SIDES, MECANUM_TRACK, MECANUM_WHEELBASE, MOTOR_TYPE, TANK_TRACK, WHEEL_DIAMETER,
                        mecanum_robot, tank_robot)

CPI = counts_per_inch(MOTOR_TYPE, WHEEL_DIAMETER)
RT = 0.002  # the default hub round trip, s
TOLERANCE = 5  # the SDK's default target position tolerance, ticks
T_END = 4.0  # the encoder sample's three legs end by 3.6 s on both robots (then it sleeps)
COUNTS_PER_RAD = 28 / (2 * math.pi)  # the 5203's encoder: 28 counts per motor revolution

ROBOTS = {
    "mecanum": (mecanum_robot, "mecanum", MECANUM_SIDES, WHEELS, ("x", "y", "heading", "vx", "vy", "omega")),
    "tank": (tank_robot, "drive", {"left": ("left_drive",), "right": ("right_drive",)}, ("left", "right"),
             ("x", "y", "heading", "left_velocity", "right_velocity")),
}


def java_run(robot):
    make, _, sides, _, _ = ROBOTS[robot]
    drive, hub, config = make()
    op = DriveByEncoder(CPI, **sides)
    controllers = run_opmode(op, hubs=[hub], configuration=config)
    return simcore.simulate([drive], T_END, controllers=controllers), op, drive


def generator_run(robot):
    make, _, sides, _, _ = ROBOTS[robot]
    drive, hub, config = make()
    ends, telemetry = [], Telemetry()
    left, right = ([config[n] for n in sides[s]] for s in ("left", "right"))
    code = lambda: drive_by_encoder(left, right, CPI, hubs=[hub], telemetry=telemetry, leg_ends=ends)  # noqa: E731
    res = simcore.simulate([drive], T_END, controllers=[linear_opmode(code, period=RT, hubs=[hub]),
                                                        *hub.controllers()])
    return res, ends, telemetry


@pytest.fixture(scope="module", params=["mecanum", "tank"])
def encoder_run(request):
    return request.param, *java_run(request.param)


def test_each_drive_by_encoder_leg_ends_with_its_motors_at_their_targets(encoder_run):
    """The loop ends when one motor reports not busy: that motor's count (read a round trip before the leg's
    end) is within the tolerance of its target; the others, still arriving, within twice it."""
    robot, res, op, drive = encoder_run
    _, system, sides, wheels, _ = ROBOTS[robot]
    order = sides["left"] + sides["right"]  # the sample's motor order (left motors, then right)
    wheel_of = dict(zip(order, (sides["left"] + sides["right"]) if robot == "mecanum" else ("left", "right")))
    assert [len(targets) for _, targets in op.leg_ends] == [len(order)] * 3
    previous = [0] * len(order)
    for (t_end, targets), (_, left_in, right_in, _) in zip(op.leg_ends, op.legs):
        assert t_end < T_END - 0.25
        inches = [left_in] * len(sides["left"]) + [right_in] * len(sides["right"])
        # each target is the motor's position when the leg began (a few ticks past the last target) plus the leg
        assert all(abs(t - (p + int(i * CPI))) <= 2 * TOLERANCE for t, p, i in zip(targets, previous, inches))
        previous = targets
        counts = [round_half_away(res.sample(f"{system}.{wheel_of[n]}_rotor_position", [t_end - RT])[0]
                                  * COUNTS_PER_RAD) for n in order]
        errors = [abs(c - t) for c, t in zip(counts, targets)]
        assert min(errors) <= TOLERANCE and max(errors) <= 2 * TOLERANCE, (robot, counts, targets)
    assert res.records["DriveByEncoder"].frames[-1].lines == ("Path : Complete",)


def test_the_drive_by_encoder_path_follows_the_drivetrain_s_no_slip_kinematics(encoder_run):
    """Forward: straight along x by the rims' travel. The turn: the heading changes by what the wheels' travel
    gives rolling without slip (tank: (dR - dL) / b; mecanum: (-dFL + dFR - dRL + dRR) / (2 (b + L))). The
    mecanum's rollers slip along their axles as each leg starts (the wheel force along the axle, sqrt(2) times
    the drive force, passes mu N): the kinematics hold from the last grip on; the slip costs under 2 %."""
    robot, res, op, drive = encoder_run
    _, s, _, wheels, _ = ROBOTS[robot]
    (t1, _), (t2, _), (t3, _) = op.leg_ends
    grips = [e.t for e in res.events if e.name == "grip"]
    if robot == "tank":
        assert not res.events  # no traction limit: the tank's wheels always roll
    since = lambda start, end: max([start] + [g for g in grips if start < g < end])  # noqa: E731
    travel = lambda t: np.array([res.sample(f"{s}.{w}_position", [t])[0] for w in wheels])  # noqa: E731
    at = lambda name, t: res.sample(f"{s}.{name}", [t])[0]  # noqa: E731
    g1 = since(0.0, t1)
    assert at("x", t1) - at("x", g1) == pytest.approx((travel(t1) - travel(g1)).mean(), rel=1e-6)
    assert 0.98 * travel(t1).mean() <= at("x", t1) <= travel(t1).mean() * (1 + 1e-9)
    assert abs(at("y", t1)) < 1e-9 and abs(at("heading", t1)) < 1e-9
    assert travel(t1).mean() == pytest.approx(op.leg_ends[0][1][0] / CPI * 0.0254, abs=2 * TOLERANCE / CPI * 0.0254)
    g2 = since(t1, t2)
    d = travel(t2) - travel(g2)
    if robot == "tank":
        turn = (d[1] - d[0]) / TANK_TRACK
    else:
        turn = (-d[0] + d[1] - d[2] + d[3]) / (2 * (MECANUM_TRACK + MECANUM_WHEELBASE))
    assert at("heading", t2) - at("heading", g2) == pytest.approx(turn, rel=1e-6)
    lever = TANK_TRACK / 2 if robot == "tank" else (MECANUM_TRACK + MECANUM_WHEELBASE) / 2
    assert at("heading", t2) - at("heading", t1) == pytest.approx(-12 * 0.0254 / lever, rel=0.02)  # clockwise
    back = travel(t3) - travel(t2)
    assert back == pytest.approx(np.full(len(wheels), -24 * 0.0254), rel=0.02)


def test_the_generator_style_gives_the_java_style_s_trajectory_and_runs_are_bit_identical(encoder_run):
    robot, java, op, drive = encoder_run
    _, s, _, wheels, states = ROBOTS[robot]
    gen, ends, telemetry = generator_run(robot)
    again, _, _ = java_run(robot)
    assert ends == op.leg_ends
    assert [f.lines for f in telemetry.frames] == [f.lines for f in java.records["DriveByEncoder"].frames]
    assert np.array_equal(gen.t, java.t) and np.array_equal(again.t, java.t)
    names = [f"{s}.{n}" for n in states] + [f"{s}.{w}_{x}" for w in wheels for x in ("duty", "rotor_position")]
    for name in names:
        np.testing.assert_allclose(gen[name], java[name], rtol=0, atol=1e-12, err_msg=name)
        assert np.array_equal(again[name], java[name]), name


@pytest.mark.parametrize("robot", ["mecanum", "tank"])
def test_drive_by_time_switches_its_legs_on_time(robot):
    make, s, sides, wheels, _ = ROBOTS[robot]
    drive, hub, config = make()
    legs = ((0.6, 0.6, 1.0), (0.5, -0.5, 0.6), (-0.6, -0.6, 0.5))
    res = simcore.simulate([drive], 2.4, controllers=run_opmode(DriveByTime(legs=legs, **sides), hubs=[hub],
                                                                configuration=config))
    ends = np.cumsum([leg[2] for leg in legs])
    side_wheels = {"left": [w for w in wheels if "left" in w], "right": [w for w in wheels if "right" in w]}
    for (left, right, _), start, end in zip(legs, np.concatenate([[0.0], ends[:-1]]), ends):
        t = np.linspace(start + 0.01, end - 0.01, 5)
        for side, power in (("left", left), ("right", right)):
            for w in side_wheels[side]:
                assert np.all(res.sample(f"{s}.{w}_duty", t) == int(power * 32767) / 32767), (w, start)
    for w in wheels:
        assert res.sample(f"{s}.{w}_duty", [ends[-1] + 0.01])[0] == 0.0
    assert res.sample(f"{s}.heading", [ends[1]])[0] < -0.5  # the right turn
    assert res.sample(f"{s}.x", [ends[0]])[0] > 0.3
    lines = [f.lines for f in res.records["DriveByTime"].frames]
    assert lines[1] == ("Path : Leg 1:  0.0 S Elapsed",) and ("Path : Complete",) in lines


def pov_gamepad(t):
    """Forward at half stick for 0.8 s, then a turn on the spot to the right at half stick, then hands off."""
    if t < 0.8:
        return {"left_stick_y": -0.5}
    if t < 1.6:
        return {"right_stick_x": 0.5}
    return {}


@pytest.mark.parametrize("robot", ["mecanum", "tank"])
def test_a_scripted_gamepad_drives_the_pov_teleop_and_the_imu_reads_the_chassis_heading(robot):
    make, s, sides, wheels, _ = ROBOTS[robot]
    drive, hub, config = make()
    res = simcore.simulate([drive], 2.2, controllers=run_opmode(POVTeleOp(imu="imu", **sides), hubs=[hub],
                                                                configuration=config, gamepad1=pov_gamepad,
                                                                stop_time=2.2))
    half = int(0.5 * 32767) / 32767  # power 0.5 as the hub receives it
    for w in wheels:
        sign = 1 if "left" in w else -1
        assert res.sample(f"{s}.{w}_duty", [0.4, 1.2, 2.0]).tolist() == [half, sign * half, 0.0]
    x1 = res.sample(f"{s}.x", [0.8])[0]
    assert x1 > 0.3 and abs(res.sample(f"{s}.heading", [0.8])[0]) < 1e-9  # straight ahead
    assert res.sample(f"{s}.heading", [1.6])[0] < -1.0  # clockwise on the spot
    assert res.sample(f"{s}.x", [1.6])[0] == pytest.approx(x1, abs=0.15)  # (it coasts a little first)
    # The telemetry is in the Result; each frame's heading is the IMU's read, issued two round trips (an
    # I2C read) before the update, and equals the chassis heading then, wrapped to [-180, 180) degrees.
    log = res.records["POVTeleOp"]
    assert isinstance(log, TelemetryLog)
    t, yaw = log.series("Heading")
    assert len(t) > 300
    heading = np.degrees(res.sample(f"{s}.heading", t - 2 * RT))
    np.testing.assert_allclose(yaw, (heading + 180.0) % 360.0 - 180.0, rtol=0, atol=1e-9)
    assert min(yaw) < -60.0


def test_the_omni_teleop_strafes_the_mecanum_sideways():
    """Left stick to the right: lateral only, so the robot moves to its right (-y) without turning and the
    wheels run (+, -, -, +): front left and rear right forward."""
    drive, hub, config = mecanum_robot()
    res = simcore.simulate([drive], 1.0, controllers=run_opmode(OmniTeleOp(imu="imu"), hubs=[hub],
                                                                configuration=config,
                                                                gamepad1=lambda t: {"left_stick_x": 0.6}))
    p = int(0.6 * 32767) / 32767
    assert [res.final(f"mecanum.{w}_duty") for w in WHEELS] == [p, -p, -p, p]
    assert res.final("mecanum.y") < -0.2 and abs(res.final("mecanum.x")) < 1e-9
    assert abs(res.final("mecanum.heading")) < 1e-9
    _, yaw = res.records["OmniTeleOp"].series("Heading")
    assert max(abs(v) for v in yaw) < 1e-6


class FourMotorEncoderDrive(LinearOpMode):
    """A team's port of the SDK's drive-by-encoder sample to a four-motor mecanum: every motor's own target, the
    loop polling all four isBusy() (review 15's port.py shape)."""

    def runOpMode(self):
        self.motors = [self.hardwareMap.get(DcMotorEx, w) for w in WHEELS]
        for w in MECANUM_SIDES["left"]:  # the sample's direction lines: the left motors are mounted mirrored
            self.hardwareMap.get(DcMotorEx, w).setDirection(DcMotor.Direction.REVERSE)
        for m in self.motors:
            m.setMode(DcMotor.RunMode.STOP_AND_RESET_ENCODER)
        for m in self.motors:
            m.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
        self.waitForStart()
        self.leg_ends = []
        for speed, left, right in ((0.6, 48, 48), (0.5, 12, -12), (0.6, -24, -24)):
            inches = [left if w in MECANUM_SIDES["left"] else right for w in WHEELS]
            targets = [m.getCurrentPosition() + int(i * CPI) for m, i in zip(self.motors, inches)]
            for m, t in zip(self.motors, targets):
                m.setTargetPosition(t)
            for m in self.motors:
                m.setMode(DcMotor.RunMode.RUN_TO_POSITION)
            for m in self.motors:
                m.setPower(speed)
            while self.opModeIsActive() and all([m.isBusy() for m in self.motors]):
                pass
            self.leg_ends.append((self.getRuntime(), targets))
            for m in self.motors:
                m.setPower(0)
            for m in self.motors:
                m.setMode(DcMotor.RunMode.RUN_USING_ENCODER)
            self.sleep(250)


def test_a_four_motor_port_ends_each_leg_with_every_wheel_within_the_target_tolerance():
    """Done-means 1 on every wheel: at each leg's end (the hub's state when the last isBusy() was issued, one
    round trip before the loop saw it) every wheel's encoder is within the SDK's 5 ticks of its own target."""
    drive, hub, config = mecanum_robot()
    op = FourMotorEncoderDrive()
    res = simcore.simulate([drive], 4.5, controllers=run_opmode(op, hubs=[hub], configuration=config))
    assert len(op.leg_ends) == 3
    for t_end, targets in op.leg_ends:
        counts = [round_half_away(res.sample(f"mecanum.{w}_rotor_position", [t_end - RT])[0] * COUNTS_PER_RAD)
                  for w in WHEELS]
        assert all(abs(c - t) <= TOLERANCE for c, t in zip(counts, targets)), (t_end, counts, targets)
