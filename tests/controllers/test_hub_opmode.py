"""Op modes: robot code as a periodic controller (linear generators and iterative OpModes)."""
import math

import pytest

import simcore.models as models
import simcore
from simcore.controllers.hub import (Hub, OpMode, RunMode, TargetPositionNotSetException, iterative_opmode,
                             linear_opmode)
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T
from simcore.errors import ConfigError

from test_hub_exact import FakeMech, Sig


def drive_manually(pc, times, sig=None):
    """Call a controller's fn at the given tick times (no engine)."""
    for t in times:
        pc.fn(t, sig if sig is not None else {})


# -- without the engine -------------------------------------------------------------------------------
def test_linear_opmode_yield_is_one_loop_receives_tick_time_and_sleeps():
    seen = []

    def code():
        seen.append("init")
        t = yield
        seen.append(t)
        t = yield 0.05  # sleep at least 50 ms
        seen.append(t)

    pc = linear_opmode(code, period=0.01)
    assert pc.period == 0.01 and pc.name == "code"
    drive_manually(pc, [0.0, 0.01, 0.02, 0.03, 0.05, 0.06, 0.07])
    assert seen == ["init", 0.01, 0.06]  # resumed at the first tick >= 0.01 + 0.05
    assert pc.fn.finished


def test_linear_opmode_rejects_non_generator_and_bad_yield():
    pc = linear_opmode(lambda: 42, period=0.01)
    with pytest.raises(TypeError, match="not a generator"):
        pc.fn(0.0, {})

    def bad():
        yield "soon"

    with pytest.raises(TypeError, match="yielded 'soon'"):
        linear_opmode(bad, period=0.01).fn(0.0, {})
    with pytest.raises(ConfigError):
        linear_opmode(42, period=0.01)


def test_linear_opmode_stop_time_closes_generator():
    log = []

    def code():
        try:
            while True:
                yield
        finally:
            log.append("cleanup")

    pc = linear_opmode(code, period=0.01, stop_time=0.03)
    drive_manually(pc, [0.0, 0.01, 0.02])
    assert log == []
    drive_manually(pc, [0.03, 0.04])
    assert log == ["cleanup"] and pc.fn.finished


def test_iterative_opmode_phases():
    calls = []

    class Auto(OpMode):
        def init(self):
            calls.append(("init", self.getRuntime()))

        def init_loop(self):
            calls.append(("init_loop", self.time))

        def start(self):
            calls.append(("start", self.time))

        def loop(self):
            calls.append(("loop", self.time))

        def stop(self):
            calls.append(("stop", self.time))

    pc = iterative_opmode(Auto(), period=0.5, start_time=1.0, stop_time=2.0)
    drive_manually(pc, [0.0, 0.5, 1.0, 1.5, 2.0, 2.5])
    assert [c[0] for c in calls] == ["init", "init_loop", "start", "loop", "loop", "stop"]
    assert [c[1] for c in calls] == [0.0, 0.5, 1.0, 1.0, 1.5, 2.0]
    # keyword style
    n = []
    pc = iterative_opmode(loop=lambda: n.append(1), period=0.1)
    drive_manually(pc, [0.0, 0.1, 0.2])
    assert n == [1, 1]  # tick 0 is init (none given), then start + loop, loop
    with pytest.raises(ConfigError):
        iterative_opmode(period=0.1)


def test_opmode_hubs_see_signals_before_the_firmware_ticks():
    hub = Hub()
    m = hub.motor(0, FakeMech("m", T))
    sig = Sig("m", 28.0, -1)
    got = []

    def code():
        got.append(m.getCurrentPosition())
        yield

    sig.set(ticks=-50.0)  # raw count -50 at power-up...
    pc = linear_opmode(code, period=0.02, hubs=[hub])
    pc.fn(0.0, sig)
    assert hub.signals is sig and got == [0]  # ...is the zero of the count
    sig.set(ticks=-80.0)
    assert m.getCurrentPosition() == 30  # CCW type, FORWARD: raw -30 reads +30


# -- with the engine ---------------------------------------------------------------------------------------
def arm_like(name="arm"):
    """An unloaded 312 rpm goBILDA (models.HubMotor's default rotor inertia: maxAccel 12)."""
    return models.HubMotor(T, name=name)


def test_seed_snippet_runs_to_completion():
    mech = arm_like()
    hub = Hub()
    arm = hub.motor(0, mech, T)
    done = {}

    def auto():
        arm.setTargetPosition(178)  # target first...
        arm.setMode(RunMode.RUN_TO_POSITION)  # ...then the mode...
        arm.setPower(0.8)  # ...then the speed cap
        t = 0.0
        while arm.isBusy():
            t = yield
        done["t"], done["pos"] = t, arm.getCurrentPosition()

    op = linear_opmode(auto, period=0.02, hubs=[hub])
    res = simcore.simulate([mech], 2.0, controllers=[op, *hub.controllers()])
    assert op.fn.finished
    assert 0.05 < done["t"] < 1.0
    assert abs(done["pos"] - 178) <= 5
    # the hub keeps holding the target after the op mode ended
    final_ticks = res.final("arm.rotor_position") / (2 * math.pi) * 28  # FORWARD: mechanism frame = user frame
    assert abs(final_ticks - 178) <= 5


def test_exception_in_robot_code_reports_sim_time():
    mech = arm_like()
    hub = Hub()
    arm = hub.motor(0, mech, T)

    def auto():
        arm.setPower(0.5)
        for _ in range(10):
            yield
        arm.setMode(RunMode.RUN_TO_POSITION)  # no target: the hub refuses

    with pytest.raises(TargetPositionNotSetException) as e:
        simcore.simulate([mech], 1.0, controllers=[linear_opmode(auto, period=0.02, hubs=[hub]),
                                                    *hub.controllers()])
    assert e.value.sim_time == pytest.approx(0.2)


def test_dcmotorex_between_simulator_advances():
    mech = arm_like()
    hub = Hub()
    m = hub.motor(0, mech, T)
    sim = simcore.Simulator([mech], hub.controllers())
    hub.observe(sim.signals)
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setPower(0.5)
    sim.advance(0.5)
    assert m.getCurrentPosition() > 100
    assert m.getVelocity() == pytest.approx(0.5 * T.getAchieveableMaxTicksPerSecondRounded(), abs=5)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    assert m.getCurrentPosition() == 0
    sim.advance(0.5)
    assert m.getMode() is RunMode.STOP_AND_RESET_ENCODER
    assert abs(m.getVelocity()) < 10  # the velocity loop stopped the shaft (it ran at ~1190 ticks/s)
    assert abs(m.getCurrentPosition()) < 150


@pytest.mark.parametrize("behavior, kept", [("FLOAT", (0.9, 1.01)), ("BRAKE", (0.0, 0.1))])
def test_zero_power_behavior_reaches_the_mechanism(behavior, kept):
    from simcore.controllers.hub import ZeroPowerBehavior
    mech = arm_like()  # frictionless: coasting keeps the speed, shorted windings brake it
    hub = Hub()
    m = hub.motor(0, mech, T)
    sim = simcore.Simulator([mech], hub.controllers())
    hub.observe(sim.signals)
    m.setZeroPowerBehavior(ZeroPowerBehavior[behavior])
    m.setPower(0.5)
    sim.advance(0.5)
    v0 = m.getVelocity()
    m.setPower(0.0)
    sim.advance(0.3)  # about 3.6 mechanical time constants
    assert kept[0] <= m.getVelocity() / v0 <= kept[1]
