"""The FTC SDK's drive samples translated line by line (simcore.controllers.hub.samples), run as written on the robots
their constants describe, each checked against what its comments promise: the expected poses are the samples' own
geometry (distances in inches, headings in degrees, the encoder arithmetic of their constants), computed here.

And with one direction line deleted from the sample's source, the robot does what a real one would: with the left
motor mounted mirrored and not reversed, it spins where it should drive, or drives where it should turn."""
import inspect
import math

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import run_opmode
from simcore.controllers.hub.samples import (BasicOmniOpMode_Linear, RobotAutoDriveByEncoder_Linear,
                                             RobotAutoDriveByGyro_Linear, RobotAutoDriveByTime_Linear,
                                             encoder_sample_tank, gyro_sample_tank, strafer)
from simcore.field import FTC_FIELD_WALLS

INCH = 0.0254
TRACK = 0.40  # m, the sample tanks' track width (simcore.controllers.hub.samples.robots)


def without(cls, statement):
    """``cls`` compiled from its module's source with ``statement`` (one line of it) replaced by ``pass``."""
    module = inspect.getmodule(cls)
    source = inspect.getsource(module)
    assert source.count(statement) == 1, statement
    namespace = {"__name__": module.__name__ + "_edited", "__package__": module.__package__}
    exec(compile(source.replace(statement, "pass"), module.__file__, "exec"), namespace)
    return namespace[cls.__name__]


def pose(res, drive, t):
    """(x in, y in, heading degrees) of ``drive`` at ``t``."""
    x, y, h = (res.sample(f"{drive.name}.{s}", [t])[0] for s in ("x", "y", "heading"))
    return x / INCH, y / INCH, math.degrees(h)


def wrapped(degrees):
    return (degrees + 180.0) % 360.0 - 180.0


# -- RobotAutoDriveByEncoder_Linear --------------------------------------------------------------------------------
def encoder_run(cls=RobotAutoDriveByEncoder_Linear):
    class Recorded(cls):  # the sample as written; each leg's end noted
        def encoderDrive(self, *args):
            super().encoderDrive(*args)
            self.ends.append(self.getRuntime())

    Recorded.ends = []
    drive, hub, config = encoder_sample_tank()
    res = simcore.simulate([drive], 8.0, controllers=run_opmode(Recorded, hubs=[hub], configuration=config))
    return res, drive, Recorded.ends


def test_the_encoder_sample_drives_48_in_turns_12_in_right_and_backs_24_in():
    """Each leg's wheel travel is the sample's count target over its counts per wheel inch: int(d * 1440 / (4 *
    3.1415)) counts, 1440 / (4 pi) counts per inch. The 12 in turn is each wheel's arc: -24 in / track radians."""
    res, drive, ends = encoder_run()
    c = RobotAutoDriveByEncoder_Linear
    assert (c.COUNTS_PER_MOTOR_REV, c.DRIVE_GEAR_REDUCTION, c.WHEEL_DIAMETER_INCHES) == (1440, 1.0, 4.0)
    travel = lambda inches: int(inches * 1440 / (4.0 * 3.1415)) / (1440 / (4.0 * math.pi))  # noqa: E731
    turn = -2 * travel(12) * INCH / TRACK  # rad
    expected = [(travel(48), 0.0, 0.0),
                (travel(48), 0.0, math.degrees(turn)),
                (travel(48) + travel(-24) * math.cos(turn), travel(-24) * math.sin(turn), math.degrees(turn))]
    assert len(ends) == 3
    for t, (x, y, h) in zip(ends, expected):
        gx, gy, gh = pose(res, drive, t)
        assert math.hypot(gx - x, gy - y) < 1.0 and abs(wrapped(gh - h)) < 3.0, (t, (gx, gy, gh), (x, y, h))
    assert -90 < expected[1][2] < -85  # a right turn of about a quarter
    assert res.records["Recorded"].frames[-1].lines == ("Path : Complete",)
    assert not [e for e in res.events if e.name == "wall"]


def test_the_encoder_sample_without_its_left_direction_line_spins_and_reports_complete():
    """Left motor mirrored and FORWARD: its target lies behind the left wheel, so leg 1 spins the robot
    counter-clockwise on the spot by 2 * 48 in / track while both encoders reach their targets: the telemetry
    still says "Path : Complete", as on a real robot."""
    res, drive, ends = encoder_run(without(RobotAutoDriveByEncoder_Linear,
                                           "self.leftDrive.setDirection(DcMotor.Direction.REVERSE)"))
    x, y, h = pose(res, drive, ends[0])
    assert math.hypot(x, y) < 1.0
    spun = math.degrees(2 * 48 * INCH / TRACK)
    assert h == pytest.approx(spun, abs=3.0)
    assert res.records["Recorded"].frames[-1].lines == ("Path : Complete",)


# -- RobotAutoDriveByTime_Linear -----------------------------------------------------------------------------------
def test_the_timed_sample_drives_forward_spins_right_and_backs_up_on_time():
    """From its back bumper at the wall: forward along x for 3 s, then clockwise on the spot for 1.3 s, then
    backward (against its heading) for 1 s. Open loop: the sample promises directions and times, not distances."""
    back_to_wall = FTC_FIELD_WALLS[0] + 9 * INCH + 0.01
    drive, hub, config = encoder_sample_tank(start_pose=(back_to_wall, 0.0, 0.0))
    res = simcore.simulate([drive], 6.0, controllers=run_opmode(RobotAutoDriveByTime_Linear, hubs=[hub],
                                                                configuration=config))
    x0, _, _ = pose(res, drive, 0.0)
    x1, y1, h1 = pose(res, drive, 3.0)
    assert x1 - x0 > 20 and abs(y1) < 1e-6 and abs(h1) < 1e-6  # straight ahead
    x2, y2, h2 = pose(res, drive, 4.3)
    assert h2 < -90 and math.hypot(x2 - x1, y2 - y1) < 3.0  # clockwise, about on the spot
    x3, y3, _ = pose(res, drive, 5.3)
    heading = math.radians(h2)
    assert (x3 - x2) * math.cos(heading) + (y3 - y2) * math.sin(heading) < -5  # backward
    assert not [e for e in res.events if e.name == "wall"]
    lines = [f.lines for f in res.records["RobotAutoDriveByTime_Linear"].frames]
    assert ("Path : Leg 2:  0.0 S Elapsed",) in lines and lines[-1] == ("Path : Complete",)


# -- BasicOmniOpMode_Linear ----------------------------------------------------------------------------------------
def omni_run(stick, cls=BasicOmniOpMode_Linear, t_end=0.6):
    """The sample from rest with one stick held at half for ``t_end`` s."""
    drive, hub, config = strafer()
    res = simcore.simulate([drive], t_end, controllers=run_opmode(cls, hubs=[hub], configuration=config,
                                                                  gamepad1=lambda t: stick, stop_time=t_end))
    return res, drive


@pytest.mark.parametrize("stick", [{"left_stick_y": -0.5}, {"left_stick_x": 0.5}, {"right_stick_x": 0.5}])
def test_the_omni_sample_drives_forward_strafes_right_and_rotates_clockwise_on_its_sticks(stick):
    """Left stick forward: forward along x, straight; left stick right: to the robot's right (-y), no turn;
    right stick right: clockwise on the spot."""
    res, drive = omni_run(stick)
    x, y, h = pose(res, drive, 0.6)
    if "left_stick_y" in stick:
        assert x > 8 and abs(y) < 0.01 and abs(h) < 0.01
    elif "left_stick_x" in stick:
        assert y < -6 and abs(x) < 0.01 and abs(h) < 0.01
    else:
        assert h < -30 and math.hypot(x, y) < 0.01
    frames = res.records["BasicOmniOpMode_Linear"].frames
    powers = {"left_stick_y": "0.50, 0.50", "left_stick_x": "0.50, -0.50", "right_stick_x": "0.50, -0.50"}
    assert f"Front left/Right : {powers[next(iter(stick))]}" in frames[-1].lines


def test_the_omni_sample_without_one_direction_line_drives_crooked():
    """Front left mirrored and FORWARD: on a forward stick it rolls backward while the other three roll forward, so
    the robot turns and drifts sideways instead of driving straight."""
    forward = {"left_stick_y": -0.5}
    res, drive = omni_run(forward, without(BasicOmniOpMode_Linear,
                                           "self.leftFrontDrive.setDirection(DcMotor.Direction.REVERSE)"))
    x, y, h = pose(res, drive, 0.6)
    straight, _ = omni_run(forward)
    assert abs(h) > 10 and abs(y) > 1 and x < pose(straight, drive, 0.6)[0] - 3


# -- RobotAutoDriveByGyro_Linear -----------------------------------------------------------------------------------
def gyro_run(cls=RobotAutoDriveByGyro_Linear, t_end=12.0):
    class Recorded(cls):
        def driveStraight(self, *args):
            super().driveStraight(*args)
            self.ends.append(("drive", self.getRuntime()))

        def holdHeading(self, *args):
            super().holdHeading(*args)
            self.ends.append(("hold", self.getRuntime()))

    Recorded.ends = []
    drive, hub, config = gyro_sample_tank()
    res = simcore.simulate([drive], t_end, controllers=run_opmode(Recorded, hubs=[hub], configuration=config,
                                                                  stop_time=t_end))
    return res, drive, Recorded.ends


def test_the_gyro_sample_follows_its_path_to_an_inch_and_two_degrees():
    """The path of its comments: 24 in at 0, 17 in at -45, 17 in at 45, -48 in at 0 (each leg's travel the
    sample's count target over 537.7 / (4 pi) counts per inch), the holds at -45, 45 and 0 degrees."""
    res, drive, ends = gyro_run()
    c = RobotAutoDriveByGyro_Linear
    assert (c.COUNTS_PER_MOTOR_REV, c.DRIVE_GEAR_REDUCTION, c.WHEEL_DIAMETER_INCHES) == (537.7, 1.0, 4.0)
    travel = lambda inches: int(inches * 537.7 / (4.0 * 3.1415)) / (537.7 / (4.0 * math.pi))  # noqa: E731
    x = y = 0.0
    expected = []
    for distance, heading, hold in ((24, 0, -45), (17, -45, 45), (17, 45, 0), (-48, 0, None)):
        x += travel(distance) * math.cos(math.radians(heading))
        y += travel(distance) * math.sin(math.radians(heading))
        expected.append(("drive", x, y, heading))
        if hold is not None:
            expected.append(("hold", x, y, hold))
    assert [k for k, _ in ends] == [k for k, *_ in expected]
    for (kind, t), (_, ex, ey, eh) in zip(ends, expected):
        gx, gy, gh = pose(res, drive, t)
        assert math.hypot(gx - ex, gy - ey) < 1.0 and abs(wrapped(gh - eh)) < 2.0, (kind, t, (gx, gy, gh), (ex, ey, eh))
    assert abs(expected[-1][1]) < 0.1 and expected[-1][2] == 0.0  # "about back where it started"
    assert res.records["Recorded"].frames[-1].lines == ("Path : Complete",)


def test_the_gyro_sample_without_its_left_direction_line_drives_its_turns_into_the_wall():
    """Left motor mirrored and FORWARD: a pivot (left -turn, right +turn) rolls both wheels forward, so the first
    turn never reaches its heading and the robot drives on until the FTC field's wall stops it."""
    res, drive, ends = gyro_run(without(RobotAutoDriveByGyro_Linear,
                                        "self.leftDrive.setDirection(DcMotor.Direction.REVERSE)"), t_end=10.0)
    assert [e for e in res.events if e.name == "wall"]
    assert "Path : Complete" not in np.concatenate([f.lines for f in res.records["Recorded"].frames])
