"""Java-style op modes (simcore.controllers.hub.linear): LinearOpMode on its own thread, handing over to the
simulation at each hardware read, sleep, idle and waitForStart; the round trip a read costs; the bound on a
loop that never hands over; the thread's life; hardwareMap, telemetry and ElapsedTime."""
import gc
import math
import signal
import threading
import time

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import (CurrentUnit, DcMotor, DcMotorEx, ElapsedTime, Hub, HubTiming,
                                     IllegalArgumentException, LinearOpMode, LynxModule, OpModeStuckError, RunMode,
                                     TargetPositionNotSetException, run_opmode)
from simcore.controllers.hub.motor import OpModeEndedError
from simcore.controllers.hub.timing import RobotClock, set_robot_clock
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T

RT = 0.002  # the default round trip, s (HubTiming)


def arm(name="arm"):
    return HubMotor(T, load_inertia=0.01, name=name)


def run(opmode, t_end, *, mech=None, mode=None, **kw):
    """Simulate ``opmode`` on one hub with one HubMotor configured as "arm"; returns (result, runner, hub)."""
    mech = mech or arm()
    hub = Hub()
    if mode is not None:
        hub.setBulkCachingMode(mode)
    controllers = run_opmode(opmode, hubs=[hub], configuration={"arm": hub.motor(0, mech)}, **kw)
    res = simcore.simulate([mech], t_end, controllers=controllers)
    return res, controllers[0].fn, hub


class SeedSnippet(LinearOpMode):
    """The seed's snippet as Java has it: ``while (arm.isBusy()) {}``."""

    def runOpMode(self):
        arm = self.hardwareMap.get(DcMotorEx, "arm")
        self.waitForStart()
        arm.setTargetPosition(178)
        arm.setMode(RunMode.RUN_TO_POSITION)
        arm.setPower(0.8)
        self.reads = 0
        while arm.isBusy():
            self.reads += 1
        self.reads += 1  # the read that said "not busy"
        self.done = (self.getRuntime(), arm.getCurrentPosition())


def test_busy_loop_without_a_body_completes_each_isBusy_costing_one_round_trip():
    op = SeedSnippet()
    res, runner, hub = run(op, 1.0)
    t_done, position = op.done
    assert runner.finished and not runner.thread.is_alive()
    assert t_done == pytest.approx(op.reads * RT, abs=1e-12)  # nothing else took time
    assert 0.05 < t_done < 0.6 and abs(position - 178) <= 5
    # the last isBusy() said "not busy" of the hub's state when it was issued, one round trip earlier
    t_last = t_done - RT
    count = res.sample("arm.rotor_position", [t_last])[0] / (2 * math.pi) * 28
    assert abs(count - 178) <= 5 + 0.5


def test_a_loop_that_never_hands_over_ends_with_a_clear_error():
    class Spin(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            while True:
                pass

    with pytest.raises(OpModeStuckError) as e:
        run(Spin, 1.0)  # the default bound: a million lines
    msg = str(e.value)
    assert "'Spin'" in msg and "1000000 lines" in msg and "idle()" in msg and "sleep()" in msg
    assert e.value.sim_time == 0.0

    class Poll(LinearOpMode):  # Java's `while (!gamepad1.a) {}`: memory reads, no hand-over
        def runOpMode(self):
            while not self.gamepad1.a:
                pass

    with pytest.raises(OpModeStuckError, match="500 lines"):
        run(Poll, 1.0, max_lines_without_handover=500, gamepad1=lambda t: {"a": t > 0.5})


def test_a_loop_written_on_one_line_ends_with_the_clear_error_too():
    # Python 3.11 reports one "line" event for a one-line loop; each of its passes must still count.
    class Spin(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            while True: pass  # noqa: E701

    with pytest.raises(OpModeStuckError, match="'Spin' ran 1000000 lines") as e:
        run(Spin, 1.0)
    assert e.value.sim_time == 0.0

    class Poll(LinearOpMode):  # `while (!gamepad1.a) {}` on one line: a memory read, no hand-over
        def runOpMode(self):
            while not self.gamepad1.a: pass  # noqa: E701

    with pytest.raises(OpModeStuckError, match="500 lines"):
        run(Poll, 1.0, max_lines_without_handover=500, gamepad1=lambda t: {"a": t > 0.5})


def test_the_sample_op_modes_lines_count_as_robot_code_and_simcores_calls_do_not():
    """The samples ship with simcore but are robot code: their lines count towards the bound; what simcore's SDK
    calls run (simcore's code and the standard library's under it) does not. The encoder sample's runOpMode runs
    eight statements (two hardwareMap.get, two setDirection, four setMode: writes, no hand-over), then the two
    source lines of the telemetry call whose argument is its first read: ten lines. Its longest stretch in the
    first leg is ten lines too (two reads' statements, two targets, two modes, the timeout reset, two powers,
    then the loop's test over three lines, up to its isBusy())."""
    from simcore.controllers.hub.samples import RobotAutoDriveByEncoder_Linear, encoder_sample_tank

    drive, hub, config = encoder_sample_tank()
    with pytest.raises(OpModeStuckError, match="ran 9 lines") as e:
        simcore.simulate([drive], 0.1, controllers=run_opmode(RobotAutoDriveByEncoder_Linear, hubs=[hub],
                                                              configuration=config, max_lines_without_handover=9))
    assert e.value.sim_time == 0.0
    drive, hub, config = encoder_sample_tank()  # a bound of ten lines: the run goes on
    res = simcore.simulate([drive], 0.1, controllers=run_opmode(RobotAutoDriveByEncoder_Linear, hubs=[hub],
                                                                configuration=config, max_lines_without_handover=10))
    assert res.t[-1] == pytest.approx(0.1) and res.sample(f"{drive.name}.x", [0.1])[0] > 0


def test_idle_and_opModeIsActive_let_a_loop_without_reads_advance_one_tick_per_iteration():
    class Spin(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            self.n = 0
            while self.opModeIsActive() and self.getRuntime() < 0.1:
                self.n += 1
            self.idle()
            self.idle()
            self.end = self.getRuntime()

    op = Spin()
    run(op, 0.5)
    assert op.n == 49  # one 2 ms tick per iteration: the 50th idle() reaches 0.1 s and the loop ends
    assert op.end == pytest.approx(0.104, abs=1e-12)  # then each idle() is a tick

    class Reads(LinearOpMode):  # idle() costs nothing where the reads already take time
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.n = 0
            while self.opModeIsActive() and self.getRuntime() < 0.1:
                arm.getCurrentPosition()
                self.n += 1
            self.end = self.getRuntime()

    op = Reads()
    run(op, 0.5)
    # the first idle() found no earlier hand-over (a tick), then one read per iteration: were idle() a tick
    # as well, half as many iterations would fit
    assert op.n == 49 and op.end == pytest.approx(0.1, abs=1e-12)


def test_two_runs_are_bit_identical():
    def once():
        op = SeedSnippet()
        res, runner, hub = run(op, 0.6)
        return res, op

    (a, op_a), (b, op_b) = once(), once()
    assert op_a.done == op_b.done and op_a.reads == op_b.reads
    assert np.array_equal(a.t, b.t)
    for name in ("arm.angle", "arm.velocity", "arm.duty", "arm.supply_current"):
        assert np.array_equal(a[name], b[name]), name


def test_sleep_waits_for_the_first_tick_at_least_that_late_and_elapsed_time_reads_simulation_time():
    class Sleeper(LinearOpMode):
        timer = ElapsedTime()  # made outside the run, as a Java field: starts at INIT

        def runOpMode(self):
            self.waitForStart()
            ms = ElapsedTime(ElapsedTime.Resolution.MILLISECONDS)
            self.sleep(250)
            self.after = (self.timer.seconds(), ms.time(), ms.milliseconds(), self.getRuntime(), str(ms))
            self.sleep(0)
            self.zero = self.timer.nanoseconds()
            with pytest.raises(IllegalArgumentException, match="negative"):
                self.sleep(-1)

    op = Sleeper()
    run(op, 1.0, start_time=0.1, timing=HubTiming(round_trip=0.003))
    start, t_sleep = 0.102, 0.252  # first 3 ms tick >= 0.1, then 84 ticks >= 250 ms
    seconds, ms_time, ms, runtime, text = op.after
    assert seconds == pytest.approx(start + t_sleep, abs=1e-12) and runtime == pytest.approx(start + t_sleep)
    assert ms_time == pytest.approx(t_sleep * 1000, abs=1e-9) and ms == pytest.approx(t_sleep * 1000, abs=1e-9)
    assert text == "252.0000 milliseconds"
    assert op.zero == round((start + t_sleep + 0.003) * 1e9)  # sleep(0): the next tick
    with pytest.raises(RuntimeError, match="inside a running op mode"):
        ElapsedTime().seconds()


def test_wait_for_start_init_phase_and_stop():
    class Auto(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.init_loops = 0
            while self.opModeInInit():
                self.init_loops += 1
                self.idle()
            self.waitForStart()
            self.started_at = self.getRuntime()
            arm.setPower(0.5)
            try:
                while self.opModeIsActive():
                    arm.getCurrentPosition()
            finally:
                self.stopped = (self.getRuntime(), self.isStopRequested(), self.opModeIsActive())
                arm.setPower(0.3)  # the SDK's fail-safe follows when the op mode returns
            self.after_loop = True  # as in the SDK: opModeIsActive() is False at STOP, the code after it runs

    op = Auto()
    res, runner, hub = run(op, 2.0, start_time=0.5, stop_time=1.5)
    assert op.init_loops == 250 and op.started_at == pytest.approx(0.5)
    assert op.stopped == (pytest.approx(1.5), True, False) and op.after_loop is True
    assert runner.finished and not runner.thread.is_alive()
    assert hub.registers(0)["enabled"] is False  # fail-safe: the channel is off...
    assert res.sample("arm.duty", [1.49])[0] > 0 and res.sample("arm.duty", [1.6])[0] == 0.0  # ...from 1.5 s
    assert res.sample("arm.brake", [1.6])[0] == 0.0


def test_request_op_mode_stop_and_the_fail_safe_when_the_op_mode_returns():
    class Short(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            arm.setPower(0.5)
            self.sleep(100)
            self.requestOpModeStop()
            self.flags = (self.isStopRequested(), self.opModeIsActive())
            self.sleep(100)  # cut short, as the SDK's interrupted sleep: returns at the next tick
            self.after = self.getRuntime()

    op = Short()
    res, runner, hub = run(op, 0.5)
    assert op.flags == (True, False) and op.after == pytest.approx(0.1 + RT)
    assert res.sample("arm.duty", [0.05])[0] > 0 and res.sample("arm.duty", [0.2])[0] == 0.0


def test_the_code_after_the_loop_runs_at_stop_as_in_the_sdk():
    class Tele(LinearOpMode):  # the review's stopcleanup.py shape
        def runOpMode(self):
            m = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            while self.opModeIsActive():
                m.setPower(0.5)
            self.telemetry.addData("Status", "Stopped")
            self.telemetry.update()
            self.cleanup = (self.getRuntime(), m.getPower())
            m.setPower(0.0)

    op = Tele()
    res, runner, hub = run(op, 0.5, stop_time=0.2)
    frames = res.records["Tele"].frames
    assert [f.lines for f in frames] == [("Status : Stopped",)]
    assert frames[0].t == pytest.approx(0.2) and op.cleanup == (pytest.approx(0.2), 0.5)
    assert runner.finished and res.sample("arm.duty", [0.19])[0] > 0 and res.sample("arm.duty", [0.25])[0] == 0


def test_a_cleanup_that_outlasts_the_grace_period_is_ended_with_a_warning():
    class Linger(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.waitForStart()
            try:
                while self.opModeIsActive():
                    self.sleep(10)
                while True:  # a cleanup that never returns; each read takes a round trip
                    self.last = self.getRuntime()
                    arm.getCurrentPosition()
            finally:
                self.unwound = True

    op = Linger()
    with pytest.warns(UserWarning, match=r"'Linger' had not ended 0.9 s after STOP \(at t=0.3 s\)"):
        res, runner, hub = run(op, 2.0, stop_time=0.3)
    # the SDK's 900 ms: the last read issued before 0.3 + 0.9 s, the op mode ended at its next hand-over
    assert op.unwound and runner.finished and 1.2 - RT <= op.last < 1.2
    assert res.sample("arm.duty", [1.3])[0] == 0.0


def test_a_motor_used_after_its_run_ended_raises_a_clear_error():
    class Short(LinearOpMode):
        def runOpMode(self):
            self.hardwareMap.get(DcMotorEx, "arm").setPower(0.5)
            self.sleep(50)

    mech = arm()
    hub = Hub()
    motor = hub.motor(0, mech)
    controllers = run_opmode(Short, hubs=[hub], configuration={"arm": motor})
    simcore.simulate([mech], 0.2, controllers=controllers)
    for call in (motor.getCurrentPosition, lambda: motor.setPower(0.3), motor.isBusy):
        with pytest.raises(OpModeEndedError, match=r"hub port 0 \(arm\): the op mode 'Short' run ended at t=0.05"):
            call()
    assert motor.getPortNumber() == 0 and motor.getDeviceName()  # what the motor is, not the hub's state
    res = simcore.simulate([mech], 0.2, controllers=controllers)  # a new run: the motor answers again
    assert res.sample("arm.duty", [0.02])[0] > 0


def test_robot_code_exceptions_keep_their_type_and_time_and_end_the_thread():
    class Bad(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.sleep(30)
            arm.setMode(RunMode.RUN_TO_POSITION)  # no target: the hub refuses

    with pytest.raises(TargetPositionNotSetException) as e:
        run(Bad, 1.0)
    assert e.value.sim_time == pytest.approx(0.03)
    assert not [t for t in threading.enumerate() if t.name.startswith("opmode Bad")]


def _opmode_threads(name):
    return [t for t in threading.enumerate() if t.name == f"opmode {name}"]


def test_the_thread_ends_when_a_run_stops_early_and_the_controllers_are_dropped():
    class Forever(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            try:
                while self.opModeIsActive():
                    arm.isBusy()
            finally:
                Forever.cleaned_up = True

    run(Forever, 0.1)  # the simulation ends; the op mode is still in its loop
    gc.collect()
    deadline = time.monotonic() + 5
    while _opmode_threads("Forever") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _opmode_threads("Forever") and Forever.cleaned_up


def test_close_a_new_simulation_and_an_error_elsewhere_end_the_thread():
    class Sleepy(LinearOpMode):
        unwound = []

        def runOpMode(self):
            try:
                while True:
                    self.sleep(10)
            finally:
                self.unwound.append(self.getRuntime())
                self.sleep(10)  # an ended run's hand-over ends it again, never the next run's
                self.unwound.append("after")

    mech = arm()
    hub = Hub()
    controllers = run_opmode(Sleepy, hubs=[hub], configuration={"arm": hub.motor(0, mech)})
    runner = controllers[0].fn
    simcore.simulate([mech], 0.1, controllers=controllers)
    first = runner.thread
    simcore.simulate([mech], 0.1, controllers=controllers)  # on_start: a new run; the first one ends
    first.join(5)
    assert not first.is_alive() and runner.thread.is_alive()
    assert Sleepy.unwound == [pytest.approx(0.1)]  # the first run unwound before the second began
    runner.close()
    assert not runner.thread.is_alive() and len(Sleepy.unwound) == 2 and "after" not in Sleepy.unwound

    def boom(t, signals):
        if t >= 0.05:
            raise ZeroDivisionError("elsewhere")

    controllers = run_opmode(Sleepy, hubs=[Hub()], configuration={})
    with pytest.raises(ZeroDivisionError):
        simcore.simulate([arm()], 1.0, controllers=controllers + [simcore.PeriodicController(0.01, boom)])
    thread = controllers[0].fn.thread
    del controllers
    gc.collect()
    thread.join(5)
    assert not thread.is_alive()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_an_interrupted_run_ends_the_thread():
    class Interrupter(LinearOpMode):
        def runOpMode(self):
            self.sleep(10)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # Ctrl-C while the op mode runs
            # Wait (however long the machine takes) until the simulation's thread has taken the interrupt and
            # abandoned this run; the bound only keeps a broken build from hanging.
            deadline = time.monotonic() + 60.0
            while not self._session._terminating and time.monotonic() < deadline:
                time.sleep(0.01)
            self.sleep(10)  # the abandoned op mode ends here
            Interrupter.after = True

    mech = arm()
    controllers = run_opmode(Interrupter, hubs=[Hub()], configuration={})
    with pytest.raises(KeyboardInterrupt):
        simcore.simulate([mech], 1.0, controllers=controllers)
    controllers[0].fn.thread.join(5)
    assert not controllers[0].fn.thread.is_alive() and not hasattr(Interrupter, "after")


# -- what a read costs: bulk caching --------------------------------------------------------------------------
class TwoMotorLoop(LinearOpMode):
    """Ten iterations of the drive-by-encoder loop's reads: isBusy and position of two motors."""

    clear = False

    def runOpMode(self):
        a, b = self.hardwareMap.get(DcMotorEx, "a"), self.hardwareMap.get(DcMotorEx, "b")
        for m in (a, b):
            m.setTargetPosition(5000)
            m.setMode(RunMode.RUN_TO_POSITION)
            m.setPower(0.5)
        hub = self.hardwareMap.getAll(LynxModule)[0]
        self.sleep(300)  # under way
        self.positions = []
        t0 = self.getRuntime()
        for _ in range(10):
            if self.clear:
                hub.clearBulkCache()
            a.isBusy() and b.isBusy()
            self.positions.append((a.getCurrentPosition(), b.getCurrentPosition()))
        self.per_iteration = (self.getRuntime() - t0) / 10


@pytest.mark.parametrize("mode, clear, round_trips", [("OFF", False, 4), ("AUTO", False, 1), ("MANUAL", True, 1),
                                                      ("MANUAL", False, 0.1)])
def test_bulk_caching_modes_decide_how_many_reads_cost_a_round_trip(mode, clear, round_trips):
    ma, mb = arm("a"), arm("b")
    hub = Hub()
    hub.setBulkCachingMode(LynxModule.BulkCachingMode[mode])
    op = TwoMotorLoop()
    op.clear = clear
    controllers = run_opmode(op, hubs=[hub], configuration={"a": hub.motor(0, ma), "b": hub.motor(1, mb)})
    simcore.simulate([ma, mb], 0.6, controllers=controllers)
    assert op.per_iteration == pytest.approx(round_trips * RT, abs=1e-12)  # MANUAL uncleared: one bulk read in all
    pa = [p[0] for p in op.positions]
    if mode == "MANUAL" and not clear:
        assert len(set(pa)) == 1  # stale: the cache is never cleared
    else:
        assert pa == sorted(pa) and len(set(pa)) > 5  # fresh values as the motors move


def test_a_bulk_read_returns_the_state_when_it_was_issued():
    class Stale(LinearOpMode):
        def runOpMode(self):
            m = self.hardwareMap.get(DcMotorEx, "arm")
            hub = self.hardwareMap.getAll(LynxModule)[0]
            hub.setBulkCachingMode(LynxModule.BulkCachingMode.MANUAL)
            m.setPower(1.0)
            self.sleep(200)
            data = hub.getBulkData()  # a round trip
            self.read = (self.getRuntime(), data.getMotorCurrentPosition(0), m.getCurrentPosition(),
                         data.getMotorVelocity(0), data.isMotorBusy(0), data.isFake())

    op = Stale()
    res, runner, hub = run(op, 0.5)
    t, raw, position, velocity, busy, fake = op.read
    assert t == pytest.approx(0.202) and not busy and not fake
    assert position == -raw  # a CCW type: FORWARD reads the raw count negated
    count_at_issue = res.sample("arm.rotor_position", [0.2])[0] / (2 * math.pi) * 28
    assert abs(position - count_at_issue) <= 0.5 and position > 100


# -- hardwareMap and telemetry ----------------------------------------------------------------------------------
def test_hardware_map_finds_configured_devices_as_the_sdk_does():
    found = {}

    class Look(LinearOpMode):
        def runOpMode(self):
            hm = self.hardwareMap
            found["ex"] = hm.get(DcMotorEx, "arm")
            found["dc"] = hm.get(DcMotor, " arm ")  # the SDK trims the name
            found["old"] = hm.dcMotor.get("arm")
            found["any"] = hm.get("arm")
            found["hubs"] = hm.getAll(LynxModule)
            found["hub"] = hm.get(LynxModule, "hub")
            found["none"] = hm.tryGet(DcMotorEx, "nope")
            with pytest.raises(IllegalArgumentException) as e:
                hm.get(DcMotorEx, "left_drive")
            found["message"] = str(e.value)
            with pytest.raises(IllegalArgumentException):
                hm.get(LynxModule, "arm")  # configured, but not a hub

    res, runner, hub = run(Look, 0.01)
    assert found["ex"] is found["dc"] is found["old"] is found["any"] and found["hubs"] == [hub] and found["hub"] is hub
    assert found["none"] is None
    assert found["message"] == 'Unable to find a hardware device with name "left_drive" and type DcMotorEx'


def test_telemetry_is_recorded_with_simulation_times():
    class Report(LinearOpMode):
        def runOpMode(self):
            arm = self.hardwareMap.get(DcMotorEx, "arm")
            self.telemetry.addData("Status", "Initialized")
            self.telemetry.update()
            self.waitForStart()
            arm.setPower(0.5)
            while self.opModeIsActive() and self.getRuntime() < 0.1:
                self.telemetry.addData("Position", arm.getCurrentPosition())
                self.telemetry.addData("At", "%7d :%7d", 1, 2)
                self.telemetry.addData("Busy", arm.isBusy())
                self.telemetry.update()

    res, runner, hub = run(Report, 0.3)
    frames = runner.telemetry.frames
    assert frames[0].lines == ("Status : Initialized",) and frames[0].t == 0.0
    assert frames[1].lines[1:] == ("At :       1 :      2", "Busy : false")
    t, positions = runner.telemetry.series("Position")
    assert len(t) == len(frames) - 1 and np.all(np.diff(t) > 0) and t[-1] < 0.1 + 2 * RT
    counts = -res.sample("arm.rotor_position", t - RT) / (2 * math.pi) * 28  # each read issued a round trip earlier
    np.testing.assert_allclose(positions, -counts, atol=0.5 + 1e-9)
    with pytest.raises(KeyError, match="Position"):
        runner.telemetry.series("Positon")


def test_run_opmode_checks_its_arguments():
    hub = Hub()
    m = hub.motor(0, arm())
    with pytest.raises(ConfigTypeError, match="opmode"):
        run_opmode(lambda: None, hubs=[hub], configuration={})
    with pytest.raises(ConfigTypeError, match="hubs"):
        run_opmode(SeedSnippet, hubs=[], configuration={})
    with pytest.raises(ConfigError, match="configuration"):
        run_opmode(SeedSnippet, hubs=[Hub(name="other")], configuration={"arm": m})  # its hub is not given
    with pytest.raises(ConfigError, match="one of the hubs given"):
        run_opmode(SeedSnippet, hubs=[hub], configuration={"expansion": Hub(name="expansion")})
    hub2 = Hub(name="hub2")
    with pytest.raises(ConfigError, match="drives it too"):
        run_opmode(SeedSnippet, hubs=[hub, hub2], configuration={"arm": m, "arm2": hub2.motor(0, arm())})
    with pytest.raises(ConfigTypeError, match="configuration"):
        run_opmode(SeedSnippet, hubs=[hub], configuration={"arm": "motor 0"})
    with pytest.raises(ConfigTypeError, match="gamepad1"):
        run_opmode(SeedSnippet, hubs=[hub], configuration={}, gamepad1={"a": True})
    for key in ("start_time", "stop_time"):
        with pytest.raises(ConfigError, match=key):
            run_opmode(SeedSnippet, hubs=[hub], configuration={}, **{key: math.nan})
        with pytest.raises(ConfigError, match=f"{key}=-1.*non-negative"):  # INIT is at the simulation's start
            run_opmode(SeedSnippet, hubs=[hub], configuration={}, **{key: -1})
    with pytest.raises(ConfigError, match="max_lines_without_handover"):
        run_opmode(SeedSnippet, hubs=[hub], configuration={}, max_lines_without_handover=-1)
    with pytest.raises(ConfigError, match="round_trip"):
        HubTiming(round_trip=0.0)
    with pytest.raises(ConfigTypeError, match="i2c_read_round_trips"):
        HubTiming(i2c_read_round_trips=1.5)
    controllers = run_opmode(SeedSnippet, hubs=[hub], configuration={"arm": m}, name="auto")
    assert [c.name for c in controllers] == ["auto", "hub.firmware"] and controllers[0].period == RT
    with pytest.raises(RuntimeError, match="run_opmode"):
        SeedSnippet().waitForStart()


class CountingClock(RobotClock):
    """A robot clock that counts the round trips robot code spends (no simulation needed)."""

    def __init__(self):
        super().__init__()
        self.round_trips = 0

    def spend(self, round_trips):
        self.round_trips += round_trips


@pytest.fixture
def counted():
    clock = CountingClock()
    previous = set_robot_clock(clock)
    yield clock
    set_robot_clock(previous)


def test_which_reads_send_a_command_in_each_caching_mode(counted):
    """LynxDcMotorController and LynxModule: what costs a round trip (counted, one read at a time)."""
    from test_hub_exact import FakeMech, Sig
    hub = Hub()
    a, b = hub.motor(0, FakeMech("a", T)), hub.motor(1, FakeMech("b", T))
    sig = Sig("a", 28.0, -1)
    sig.update({k.replace("a.", "b.", 1): v for k, v in sig.items()})
    hub.observe(sig)

    def cost(read):
        before = counted.round_trips
        read()
        return counted.round_trips - before

    # OFF: every read its own command; isBusy outside RUN_TO_POSITION sends nothing
    assert [cost(a.getCurrentPosition), cost(a.getVelocity), cost(a.isBusy), cost(lambda: a.getCurrent(
        CurrentUnit.AMPS)), cost(a.getTargetPosition), cost(lambda: a.getPIDFCoefficients(
            RunMode.RUN_USING_ENCODER))] == [1, 1, 0, 1, 1, 1]
    a.setTargetPosition(10)
    a.setMode(RunMode.RUN_TO_POSITION)
    assert cost(a.isBusy) == 1 and cost(a.getMode) == 0 and cost(a.getPower) == 0  # SDK-side caches: no command
    # AUTO: one bulk read answers each value once; the same read again sends a new one
    hub.setBulkCachingMode(LynxModule.BulkCachingMode.AUTO)
    assert [cost(a.getCurrentPosition), cost(b.getCurrentPosition), cost(a.isBusy), cost(b.isBusy),
            cost(a.getVelocity), cost(b.getVelocity)] == [1, 0, 0, 0, 0, 0]
    assert cost(a.getVelocity) == 1  # the velocity history is per motor: a's twice clears the cache
    assert [cost(b.getVelocity), cost(a.getCurrentPosition)] == [0, 0]
    assert cost(a.getCurrentPosition) == 1
    assert cost(lambda: a.getCurrent(CurrentUnit.AMPS)) == 1 and cost(lambda: a.getCurrent(CurrentUnit.AMPS)) == 1
    # MANUAL: nothing clears the cache but clearBulkCache; the mode change keeps it; OFF drops it
    hub.setBulkCachingMode(LynxModule.BulkCachingMode.MANUAL)
    assert [cost(a.getCurrentPosition), cost(a.getCurrentPosition), cost(b.getVelocity)] == [0, 0, 0]
    hub.clearBulkCache()
    assert [cost(a.getCurrentPosition), cost(a.getCurrentPosition)] == [1, 0]
    assert cost(hub.getBulkData) == 1  # always a bulk read
    hub.setBulkCachingMode(LynxModule.BulkCachingMode.OFF)
    hub.setBulkCachingMode(LynxModule.BulkCachingMode.MANUAL)
    assert cost(a.getCurrentPosition) == 1
    assert hub.getBulkCachingMode() is LynxModule.BulkCachingMode.MANUAL


def test_cached_reads_are_the_values_of_the_bulk_read(counted):
    from test_hub_exact import FakeMech, Sig
    hub = Hub()
    a = hub.motor(0, FakeMech("a", T))
    sig = Sig("a", 28.0, -1)
    hub.firmware_step(0.0, sig)  # power-up: the count's zero
    hub.setBulkCachingMode(LynxModule.BulkCachingMode.MANUAL)
    sig.set(ticks=-100.0, tps=-40.0)  # raw (CCW type): FORWARD reads +100, +40
    assert a.getCurrentPosition() == 100 and a.getVelocity() == 40.0
    sig.set(ticks=-300.0, tps=-80.0)
    assert a.getCurrentPosition() == 100 and a.getVelocity() == 40.0  # stale until cleared
    hub.clearBulkCache()
    assert a.getCurrentPosition() == 300 and a.getVelocity() == 80.0
    assert a.isBusy() is False  # not in RUN_TO_POSITION: False in every mode (the seed's table)


def test_the_issue_15_contract_names():
    import inspect
    import simcore.controllers.hub as hub
    for name in ("LinearOpMode", "run_opmode", "DcMotorEx", "IMU", "ElapsedTime", "Telemetry"):
        assert hasattr(hub, name), name
    for m in ("runOpMode", "waitForStart", "opModeIsActive", "isStopRequested", "sleep", "idle", "getRuntime"):
        assert callable(getattr(hub.LinearOpMode, m)), m
    for attr in ("hardwareMap", "telemetry", "gamepad1", "gamepad2"):
        assert hasattr(hub.LinearOpMode, attr), attr
    p = inspect.signature(hub.run_opmode).parameters
    assert list(p)[0] == "opmode" and all(p[k].kind is inspect.Parameter.KEYWORD_ONLY for k in
                                          ("hubs", "configuration", "gamepad1", "gamepad2", "start_time"))
    assert (p["gamepad1"].default, p["gamepad2"].default, p["start_time"].default) == (None, None, 0.0)
    assert {"wheel", "motor_type"} <= set(inspect.signature(hub.Hub.motor).parameters)
    assert callable(hub.IMU.getRobotYawPitchRollAngles) and callable(hub.YawPitchRollAngles.getYaw)


def test_a_hub_whose_java_style_run_ended_drives_a_generator_style_run_next():
    """Review: after a Java-style run ended, the same hub refused the generator style (OpModeEndedError).
    The second run on the used hub must equal the same generator run on a fresh hub."""
    from simcore.controllers.hub.opmode import linear_opmode
    from simcore.models import HubMotor
    from simcore.models.hub_motor import GOBILDA_5203_312

    class Brief(LinearOpMode):
        def runOpMode(self):
            self.hardwareMap.get(DcMotorEx, "arm").setPower(0.3)
            self.waitForStart()

    def generator_run(arm, hub, m):
        log = []

        def gen():
            m.setPower(0.5)
            while True:
                log.append(m.getCurrentPosition())
                yield

        simcore.simulate([arm], 0.2, controllers=[linear_opmode(gen, period=0.01, hubs=[hub]), *hub.controllers()])
        return log

    def robot():
        arm = HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="arm")
        hub = Hub()
        return arm, hub, hub.motor(0, arm)

    arm, hub, m = robot()
    simcore.simulate([arm], 0.2, controllers=run_opmode(Brief, hubs=[hub], configuration={"arm": m}))
    with pytest.raises(OpModeEndedError):
        m.getCurrentPosition()
    used = generator_run(arm, hub, m)
    fresh = generator_run(*robot())
    assert len(used) == 21 and used == fresh and used[-1] > 0  # ticks at 0, 0.01, ..., 0.2 s
