"""The op mode thread's line counter is off inside simcore's SDK calls (simcore.controllers.hub.untraced) and counts
the robot code's lines exactly as before around them: each call is the one line it is written on, a loop that never
hands over is still caught with or without hardware calls in it, on one line or several, and robot code reached from
an SDK call (an argument's own __str__ or __float__, an overridden LinearOpMode method) is counted, so a loop that
never ends there is caught too. Another trace function (a debugger's, coverage's) is left alone."""
import numbers
import sys

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import DcMotorEx, Hub, LinearOpMode, OpModeStuckError, RunMode, run_opmode
from simcore.controllers.hub.telemetry import Telemetry
from simcore.controllers.hub.untraced import plain_type
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T


def run(opmode, bound, t_end=0.5):
    mech = HubMotor(T, load_inertia=0.01, name="arm")
    hub = Hub()
    controllers = run_opmode(opmode, hubs=[hub], configuration={"arm": hub.motor(0, mech)},
                             max_lines_without_handover=bound)
    return simcore.simulate([mech], t_end, controllers=controllers)


def stuck_after(opmode, bound):
    """The op mode's ``n`` when the bound stopped it (at t = 0: it never hands over after waitForStart)."""
    with pytest.raises(OpModeStuckError, match=f"ran {bound} lines") as e:
        run(opmode, bound)
    assert e.value.sim_time == 0.0
    return opmode.n


def test_each_hardware_call_counts_as_the_one_line_it_is_written_on():
    """PLAY is at the start, so waitForStart does not hand over: the get is line 1, waitForStart line 2,
    ``self.n = 0`` line 3, then each pass of ``while True:`` and its three statements four lines (Python 3.11
    reports the ``while True:`` line at each pass). A bound of 403 lines is passed at line 404, the 101st pass's
    ``while``: n = 100, whether the statements are hardware calls or not."""
    class Writes(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            self.n = 0
            while True:
                arm.setPower(0.5)  # writes take no time: no hand-over
                arm.getPower()
                self.n += 1

    class Plain(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            self.n = 0
            while True:
                a = arm  # noqa: F841
                b = 0.5  # noqa: F841
                self.n += 1

    assert stuck_after(Writes(), 403) == 100
    assert stuck_after(Plain(), 403) == 100


def test_a_loop_on_one_line_around_a_hardware_call_is_still_counted_pass_by_pass():
    """Its frame traces opcodes (one line event for the whole loop): after the three lines before it, the loop's
    line is line 4 and each pass's backward jump one more, so a bound of 503 lines is passed at the jump that
    ends pass 500: n = 500."""
    class Writes(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            self.n = 0
            while True: arm.setPower(0.5); self.n += 1  # noqa: E701, E702

    class Plain(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            self.n = 0
            while True: a = arm; self.n += 1  # noqa: E701, E702, F841

    assert stuck_after(Writes(), 503) == 500
    assert stuck_after(Plain(), 503) == 500


def test_every_pass_of_a_loop_on_one_line_counts_whichever_its_form():
    """``while n < 50: n += 1`` on one line is 50 passes, 50 lines: with waitForStart (PLAY at the start: no
    hand-over) and ``n = 0`` before it and the sleep after it, 53 lines run before the first hand-over, so a bound
    of 53 lets the op mode go on and 52 stops it. A comprehension on one line whose passes never yield (its filter
    rejects everything) is caught as any loop that never hands over."""
    import itertools

    class Counts(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            n = 0
            while n < 50: n += 1  # noqa: E701
            self.sleep(1)

    res = run(Counts, 53, t_end=0.01)
    assert res.t[-1] == pytest.approx(0.01)
    with pytest.raises(OpModeStuckError, match="ran 52 lines"):
        run(Counts, 52)

    class Filters(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            self.found = [x for x in itertools.count() if x < 0]

    with pytest.raises(OpModeStuckError, match="ran 1000 lines"):
        run(Filters, 1000)


class Forever:
    """Robot code with a loop that never hands over in its __str__."""

    def __str__(self):
        while True:
            pass


class ForeverPower(float):
    """A power whose conversion never ends (robot code reached from inside setPower)."""

    def __float__(self):
        while True:
            pass


def test_robot_code_reached_from_inside_an_sdk_call_is_counted():
    class Formats(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            self.telemetry.addData("x", "%s", Forever())

    class Powers(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            arm.setPower(ForeverPower(0.5))

    class OverridesIdle(LinearOpMode):  # final in the SDK; here a subclass may override it, and is counted
        def idle(self):
            while True:
                pass

        def runOpMode(self):
            self.waitForStart()
            self.opModeIsActive()

    class AssignsIdle(LinearOpMode):  # robot code as an instance attribute: opModeIsActive() calls it
        def runOpMode(self):
            def forever():
                while True:
                    pass

            self.idle = forever
            self.waitForStart()
            self.opModeIsActive()

    for op in (Formats, Powers, OverridesIdle, AssignsIdle):
        with pytest.raises(OpModeStuckError, match="ran 1000 lines"):
            run(op, 1000)


def test_runs_with_and_without_the_counter_are_the_same_run():
    """The counter changes no result: a drive to position with reads, writes, telemetry and ElapsedTime."""
    class Move(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            arm.setTargetPosition(300)
            arm.setMode(RunMode.RUN_TO_POSITION)
            arm.setPower(0.7)
            while self.opModeIsActive() and arm.isBusy():
                self.telemetry.addData("at", "%d", arm.getCurrentPosition())
                self.telemetry.update()

    a, b = run(Move, 1_000_000), run(Move, 0)
    assert np.array_equal(a.t, b.t) and np.array_equal(a["arm.rotor_position"], b["arm.rotor_position"])
    assert a.records["Move"].frames == b.records["Move"].frames and len(a.records["Move"].frames) > 10


def test_which_types_an_sdk_call_may_be_handed_untraced():
    class Subclass(LinearOpMode):  # new names only: SDK methods reach none of them
        def runOpMode(self):
            self.helper()

        def helper(self):
            pass

    class Overrides(LinearOpMode):
        def isStarted(self):
            return True

    class Shadows(LinearOpMode):
        telemetry = property(lambda self: None)

    class Real(numbers.Real):
        pass

    for tp in (int, float, bool, str, type(None), np.float64, np.int32, RunMode, DcMotorEx, Telemetry, Subclass):
        assert plain_type(tp), tp
    for tp in (list, tuple, dict, type(lambda: 0), np.ndarray, Forever, ForeverPower, Overrides, Shadows, Real):
        assert not plain_type(tp), tp


def test_another_trace_function_is_left_alone():
    """Outside an op mode's thread (code on the simulation's thread under a debugger or coverage), an SDK call
    keeps the caller's trace function on: its frames are seen."""
    seen = []

    def foreign(frame, event, arg):
        seen.append(frame.f_code.co_name)

    telemetry = Telemetry()
    previous = sys.gettrace()
    sys.settrace(foreign)
    try:
        telemetry.addData("x", "%d", 3)
        telemetry.update()
    finally:
        sys.settrace(previous)
    assert "addData" in seen and "update" in seen and "robot_clock" in seen
    assert telemetry.frames[-1].lines == ("x : 3",)
