"""The hub firmware model (the seed's "Approximation" table) and the hub's configuration.

Part 1 drives the firmware function with hand-made signals (no engine): the
arithmetic the Approximation table states (gain units, I once per pass, clamp,
clearing, at-target boundary, target memory) and that each FirmwareConstants
field, changed, changes behaviour. Part 2 runs the engine on an unloaded motor
(maxAccel 12 free speeds per second, the seed's reference case): the velocity
step, the feedforward-units check and RUN_TO_POSITION at power 1.0 and 0.3,
with headroom, as the seed asks of firmware tests.
"""
import math

import numpy as np
import pytest

import simcore.models as models
from simcore.controllers.hub import (CurrentUnit, FirmwareConstants, Hub, MotorControlAlgorithm, PIDFCoefficients, RunMode,
                             TargetPositionNotSetException, ZeroPowerBehavior, linear_opmode)
from simcore.models.ftc_motor_types import GOBILDA_5203_312, NEVEREST_20
from simcore.errors import ConfigError

from test_hub_exact import FakeMech, NR20_MAX_TPS, Sig


def make(firmware=None, motor_type=NEVEREST_20):
    hub = Hub(firmware=firmware)
    m = hub.motor(0, FakeMech("m", motor_type))
    sig = Sig("m", 28.0, 1)
    hub.firmware_step(0.0, sig)
    return hub, m, sig


def step(hub, sig):
    out = hub.firmware_step(0.0, sig)
    return out["m.duty"], out["m.brake"]


# ================================================================================================
# Part 1: firmware arithmetic, no engine
# ================================================================================================
def test_open_loop_writes_truncated_power_and_brake_follows_zero_power_behavior():
    hub, m, sig = make()
    assert m.getZeroPowerBehavior() is ZeroPowerBehavior.FLOAT  # as the SDK's initializeHardware leaves it
    m.setPower(0.123456)
    assert step(hub, sig) == (int(0.123456 * 32767) / 32767, 0.0)
    m.setZeroPowerBehavior(ZeroPowerBehavior.BRAKE)
    assert step(hub, sig)[1] == 1.0
    m.setMotorDisable()  # disabled: bridge off
    assert step(hub, sig) == (0.0, 0.0)
    assert m.getAppliedPhysicalPower() == 0.0
    m.setPower(-0.25)  # re-enables
    assert step(hub, sig) == (int(-0.25 * 32767) / 32767, 1.0)
    assert m.getAppliedPhysicalPower() == int(-0.25 * 32767) / 32767


def test_i_term_adds_once_per_pass_and_is_clamped_to_full_scale():
    hub, m, sig = make()
    m.setVelocityPIDFCoefficients(0, 1, 0, 0)
    m.setVelocity(100)  # measured 0: error 100 ticks/s
    assert [step(hub, sig)[0] * 32767 for _ in range(3)] == pytest.approx([100, 200, 300])
    m.setVelocityPIDFCoefficients(0, 1000, 0, 0)
    for _ in range(5):
        d, _ = step(hub, sig)
    assert d == 1.0  # clamped at full scale...
    sig.set(tps=110)  # error -10: one pass removes 1000 * 10 from the clamped integral
    assert step(hub, sig)[0] * 32767 == pytest.approx(32767 - 10_000)


def test_gain_units_p_d_f():
    hub, m, sig = make()
    m.setVelocityPIDFCoefficients(2, 0, 0, 0)
    m.setVelocity(1000)
    sig.set(tps=400)
    assert step(hub, sig)[0] * 32767 == pytest.approx(2 * 600)  # output per tick/s of error
    m.setVelocityPIDFCoefficients(0, 0, 1, 0)
    sig.set(tps=0)
    step(hub, sig)  # first pass: no D history
    sig.set(tps=300)
    assert step(hub, sig)[0] * 32767 == pytest.approx(-300)  # D: change of error over one pass
    f = 32767 / NR20_MAX_TPS
    m.setVelocityPIDFCoefficients(0, 0, 0, f)
    m.setVelocity(1000)
    assert step(hub, sig)[0] == pytest.approx(1000 / NR20_MAX_TPS, rel=1e-4)  # F * target, 32767 = full
    # position P: ticks/s of velocity target per tick of error (velocity loop made a pure gain of 1)
    m.setVelocityPIDFCoefficients(1, 0, 0, 0)
    m.setPositionPIDFCoefficients(3)
    m.setTargetPosition(50)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(1.0)
    sig.set(ticks=0, tps=0)
    assert step(hub, sig)[0] * 32767 == pytest.approx(3 * 50)


def test_integrator_cleared_on_mode_change_disable_and_encoder_reset():
    def fresh():
        hub, m, sig = make()
        m.setVelocityPIDFCoefficients(0, 1, 0, 0)
        m.setVelocity(100)
        for _ in range(4):
            step(hub, sig)
        return hub, m, sig

    hub, m, sig = fresh()
    assert step(hub, sig)[0] * 32767 == pytest.approx(500)  # accumulating
    hub, m, sig = fresh()
    m.setMotorDisable()
    step(hub, sig)
    m.setVelocity(100)  # enables again
    assert step(hub, sig)[0] * 32767 == pytest.approx(100)
    hub, m, sig = fresh()
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setVelocity(100)
    assert step(hub, sig)[0] * 32767 == pytest.approx(100)
    hub, m, sig = fresh()
    m.setTargetPosition(0)
    m.setMode(RunMode.RUN_TO_POSITION)  # a change of the channel's mode
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setVelocity(100)
    assert step(hub, sig)[0] * 32767 == pytest.approx(100)


def test_at_target_boundary_inclusive_by_default_and_overridable():
    for inclusive, busy_at_boundary in ((True, False), (False, True)):
        hub, m, sig = make(FirmwareConstants(at_target_inclusive=inclusive))
        m.setTargetPosition(100)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(0.0)
        sig.set(ticks=95)  # exactly the tolerance 5 away
        assert m.isBusy() is busy_at_boundary
        sig.set(ticks=96)
        assert m.isBusy() is False


def test_at_target_has_no_speed_condition():
    hub, m, sig = make()
    m.setTargetPosition(100)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(1.0)
    sig.set(ticks=100, tps=2000)  # passing through the target at speed
    assert m.isBusy() is False


def test_target_memory_kept_across_reset_unless_overridden():
    hub, m, sig = make()
    m.setTargetPosition(300)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    sig.set(ticks=300)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    m.setMode(RunMode.RUN_TO_POSITION)  # no new target: the old one is kept
    assert m.getCurrentPosition() == 0 and m.isBusy() is True
    assert step(hub, sig)[0] > 0  # drives to 300 in the new frame
    hub, m, sig = make(FirmwareConstants(forget_target_on_reset=True))
    m.setTargetPosition(300)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    with pytest.raises(TargetPositionNotSetException):
        m.setMode(RunMode.RUN_TO_POSITION)


def test_firmware_constants_change_defaults_period_velocity_wrap_and_current_signal():
    fw = FirmwareConstants(default_velocity_pidf=(20.0, 1.0, 0.0, 5.0), default_position_pidf=(4.0, 0.0, 0.0, 0.0),
                           loop_period=0.002, velocity_report_bits=16, current_signal="stator_current")
    hub, m, sig = make(fw)
    v = m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    assert (v.p, v.i, v.d, v.f) == (20, 1, 0, 5)
    assert m.getPIDFCoefficients(RunMode.RUN_TO_POSITION).p == 4
    assert hub.controllers()[0].period == 0.002
    assert Hub(loop_period=0.005).controllers()[0].period == 0.005
    sig.set(tps=40000)
    assert m.getVelocity() == 40000 - 65536  # 16-bit report overflows
    hub2, m2, sig2 = make(FirmwareConstants(velocity_report_bits=0))
    sig2.set(tps=40000)
    assert m2.getVelocity() == 40000
    sig["m.stator_current"], sig["m.supply_current"] = -3.0, -1.2
    assert m.getCurrent(CurrentUnit.AMPS) == 3.0
    sig2["m.stator_current"], sig2["m.supply_current"] = -3.0, -1.2
    assert m2.getCurrent(CurrentUnit.AMPS) == 1.2  # default: |supply current|
    assert m2.getCurrent(CurrentUnit.MILLIAMPS) == pytest.approx(1200.0)
    with pytest.raises(ConfigError):
        FirmwareConstants(current_signal="bus")
    with pytest.raises(ConfigError):
        FirmwareConstants(loop_period=0)


def test_encoder_zero_at_power_up_and_reads_before_any_signals():
    hub = Hub()
    m = hub.motor(0, FakeMech("m", NEVEREST_20))
    assert m.getCurrentPosition() == 0 and m.getVelocity() == 0.0 and m.getCurrent(CurrentUnit.AMPS) == 0.0
    sig = Sig("m", 28.0)
    sig.set(ticks=1234.4)
    hub.firmware_step(0.0, sig)  # power-up: the count starts at 0 wherever the shaft is
    assert m.getCurrentPosition() == 0
    sig.set(ticks=1244.4)
    assert m.getCurrentPosition() == 10  # nearest whole count now, minus the count at power-up (1234)
    sig.set(ticks=1244.6)
    assert m.getCurrentPosition() == 11


def test_hub_configuration_errors():
    hub = Hub()
    hub.motor(0, FakeMech("a", NEVEREST_20))
    with pytest.raises(ConfigError):
        hub.motor(0, FakeMech("b", NEVEREST_20))  # port used
    with pytest.raises(ConfigError):
        hub.motor(1, FakeMech("a", NEVEREST_20))  # mechanism already driven
    with pytest.raises(ConfigError):
        hub.motor(4, FakeMech("c", NEVEREST_20))
    no_type = FakeMech("d", None)
    del no_type.motor_type
    with pytest.raises(ConfigError, match="motor_type"):
        hub.motor(2, no_type)
    hub.motor(2, no_type, NEVEREST_20)  # given explicitly: fine
    lacking = FakeMech("e", NEVEREST_20)
    lacking.input_names = ("voltage", "brake")
    with pytest.raises(ConfigError, match="duty"):
        hub.motor(3, lacking)
    assert isinstance(ConfigError("x", 1, "y"), ValueError)


# ================================================================================================
# Part 2: with the engine, on an unloaded motor
# ================================================================================================
import simcore  # noqa: E402

T = GOBILDA_5203_312
MAX_ACCEL = 12.0  # free speeds per second, the seed's reference case
CPR = 28.0


def unloaded(name="m"):
    """An unloaded 312 rpm goBILDA accelerating by MAX_ACCEL free speeds per second at stall."""
    return models.HubMotor(T, rotor_inertia=T.motor.stall_torque / (T.motor.free_speed * MAX_ACCEL), name=name)


def free_tps():
    """No-load speed of the modelled motor at 12 V in hub counts/s: the datasheet's 5900 rpm
    (HubMotor's default friction is the datasheet free current; see test_hub_motor_free_point)."""
    return T.motor.free_speed / (2 * math.pi) * CPR


def run(code, t_end, firmware=None, period=0.01):
    mech = unloaded()
    hub = Hub(firmware=firmware)
    m = hub.motor(0, mech, T)
    res = simcore.simulate([mech], t_end, controllers=[linear_opmode(lambda: code(m), period=period, hubs=[hub]),
                                                       *hub.controllers()])
    return res, m


def ticks_per_s(res):  # speed in FORWARD-motor ticks/s (mechanism frame)
    return res["m.rotor_velocity"] / (2 * math.pi) * CPR


def velocity_step(firmware=None):
    target = free_tps() / 2

    def code(m):
        m.setVelocity(target)
        while True:
            yield

    res, m = run(code, 1.5, firmware)
    w = ticks_per_s(res)
    t98 = res.t[np.argmax(w >= 0.98 * target)]
    overshoot = w.max() / target - 1
    steady = abs(res.sample("m.rotor_velocity", [1.4])[0] / (2 * math.pi) * CPR - target)
    return t98, overshoot, steady


def test_velocity_step_to_half_free_speed_under_default_gains():
    t98, overshoot, steady = velocity_step()
    # the seed: "reaches 98% in about 0.3 s with about 10% overshoot for maxAccel 12"
    assert 0.03 < t98 < 0.4
    assert 0.02 < overshoot < 0.25
    assert steady < 1.0  # ticks/s: the integral removes the error (target rounded to a whole tick/s)


def test_loop_period_constant_changes_the_velocity_step():
    t98_10ms, over_10ms, _ = velocity_step()
    t98_30ms, over_30ms, _ = velocity_step(FirmwareConstants(loop_period=0.030))
    # I adds once per pass: a slower loop has a third of the integral action per second,
    # so the step overshoots much less and reaches 98 % later
    assert over_30ms < over_10ms - 0.05
    assert t98_30ms > 1.5 * t98_10ms


def test_feedforward_units_f_equals_full_scale_over_free_speed_gives_half_speed():
    target = free_tps() / 2

    def code(m):
        m.setVelocityPIDFCoefficients(0, 0, 0, 32767 / free_tps())
        m.setVelocity(target)
        while True:
            yield

    res, m = run(code, 1.0)
    assert res.sample("m.rotor_velocity", [0.95])[0] / (2 * math.pi) * CPR == pytest.approx(target, rel=0.01)


@pytest.mark.parametrize("power", [1.0, 0.3])
def test_run_to_position_2000_ticks(power):
    log = {}

    def code(m):
        m.setTargetPosition(2000)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(power)
        t = 0.0
        while m.isBusy():
            t = yield
        log["not_busy"] = (t, m.getCurrentPosition())
        while True:
            yield

    cap = power * T.getAchieveableMaxTicksPerSecondRounded()
    res, m = run(code, 1.5 / power + 1.5)
    pos = res["m.rotor_position"] / (2 * math.pi) * CPR
    w = ticks_per_s(res)
    t_nb, p_nb = log["not_busy"]
    assert abs(p_nb - 2000) <= 5
    assert 2000 / cap < t_nb < 2000 / cap + 0.6  # cruise at the cap, plus accelerating and settling
    assert 0 <= pos.max() - 2000 < 60  # peak overshoot, ticks
    assert abs(pos[-1] - 2000) <= 5
    # the speed cap: cruise speed at the cap (the velocity loop's step overshoot shows in the peak)
    cruise = (res.t > 0.4) & (pos < 1500)
    assert np.mean(w[cruise]) == pytest.approx(cap, rel=0.02)
    assert cap * 0.98 < w.max() < cap * 1.15


def test_run_to_position_at_power_0_3_cruises_within_5_and_peaks_within_15_percent_of_the_cap():
    """The criterion the audit settled (it replaces a strict xfail on "peak within 5 %"): the seed's own
    velocity loop overshoots a step by about 10 % ("about 10% overshoot for maxAccel 12"), and
    RUN_TO_POSITION's capped velocity target is such a step, so the cruise speed sits at the cap and the
    peak above it."""
    def code(m):
        m.setTargetPosition(2000)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(0.3)
        while True:
            yield

    cap = 0.3 * T.getAchieveableMaxTicksPerSecondRounded()
    res, m = run(code, 3.0)
    w = ticks_per_s(res)
    pos = res["m.rotor_position"] / (2 * math.pi) * CPR
    cruise = (pos >= 500) & (pos <= 1500)
    assert np.mean(w[cruise]) == pytest.approx(cap, rel=0.05)
    assert w.max() == pytest.approx(cap, rel=0.15) and w.max() > cap * 1.05  # the overshoot is there


# ================================================================================================
# Review additions: every Approximation row's constant, changed, changes behaviour
# ================================================================================================
def test_gain_units_loop_output_full_scale_is_an_overridable_constant():
    """Gain units row: "Output 32767 = full power" is an APPROXIMATION, so it is a FirmwareConstants
    field; changing it rescales the closed-loop output but not RUN_WITHOUT_ENCODER's constant power
    (the SDK's own exact (int)(p*32767) command)."""
    assert FirmwareConstants().loop_output_full_scale == 32767
    for fs in (32767.0, 65534.0):
        hub, m, sig = make(FirmwareConstants(loop_output_full_scale=fs))
        m.setVelocityPIDFCoefficients(2, 0, 0, 0)
        m.setVelocity(1000)
        sig.set(tps=400)
        d, _ = step(hub, sig)
        assert d == pytest.approx(2 * 600 / fs)
        assert m.getAppliedPhysicalPower() == pytest.approx(2 * 600 / fs)
        m.setVelocityPIDFCoefficients(1000, 0, 0, 0)
        assert step(hub, sig)[0] == 1.0  # clamped at full duty
        m.setMode(RunMode.RUN_WITHOUT_ENCODER)
        m.setPower(0.5)
        assert step(hub, sig)[0] == int(0.5 * 32767) / 32767
    with pytest.raises(ConfigError):
        FirmwareConstants(loop_output_full_scale=0)


def test_integral_windup_clamps_are_overridable():
    """Integral wind-up row: the clamps are FirmwareConstants fields; changed, the I term stops there."""
    for clamp in (32767.0, 1000.0):
        hub, m, sig = make(FirmwareConstants(i_clamp=clamp))
        m.setVelocityPIDFCoefficients(0, 300, 0, 0)
        m.setVelocity(1)  # error 1 tick/s: I grows by 300 per pass
        for _ in range(10):
            d, _ = step(hub, sig)
        assert d * 32767 == pytest.approx(min(3000, clamp))
    # the position loop's integrator (reachable under LegacyPID): bounded by position_i_clamp, ticks/s
    for clamp in (32767.0, 50.0):
        hub, m, sig = make(FirmwareConstants(position_i_clamp=clamp))
        m.setVelocityPIDFCoefficients(1, 0, 0, 0)
        m.setPIDFCoefficients(RunMode.RUN_TO_POSITION, PIDFCoefficients(0, 10, 0, 0, MotorControlAlgorithm.LegacyPID))
        m.setTargetPosition(2)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(1.0)
        for _ in range(5):
            d, _ = step(hub, sig)
        assert d * 32767 == pytest.approx(min(100, clamp))  # I adds 10 * 2 per pass


def test_velocity_window_and_at_target_max_speed_default_to_todays_behaviour():
    """Velocity measurement and At-target test rows: the defaults are the exact modelled speed and no
    speed condition."""
    fw = FirmwareConstants()
    assert fw.velocity_window == 0.0 and fw.at_target_max_speed == math.inf


def test_velocity_window_measures_the_count_difference_over_the_window():
    """Velocity measurement row: with a window W the loop and getVelocity see (count(t) - count(t - W)) / W,
    the count sampled once per pass; fewer passes held: over those; between passes: the last pass's value."""
    W, period = 0.03, 0.01  # three passes
    hub, m, sig = make(FirmwareConstants(velocity_window=W))  # power-up pass: count 0
    m.setVelocityPIDFCoefficients(1, 0, 0, 0)  # loop output = 1000 - measured velocity
    m.setVelocity(1000)
    seen = [0]
    for count in (7, 19, 40, 41, 30, -5, -5, 100):
        sig.set(ticks=count, tps=12345.0)  # the modelled speed is not what the hub measures
        d, _ = step(hub, sig)
        seen.append(count)
        held = min(3, len(seen) - 1)
        expected = (seen[-1] - seen[-1 - held]) / (held * period)
        if held == 3:
            assert expected == pytest.approx((seen[-1] - seen[-4]) / W)
        assert d * 32767 == pytest.approx(1000 - expected)
        assert m.getVelocity() == round(expected)  # expected is never a half here
        sig.set(ticks=count + 50, tps=-777.0)  # robot code reading between passes: the last pass's value
        assert m.getVelocity() == round(expected)
        sig.set(ticks=count)
    # without a window getVelocity follows the modelled speed at once
    hub0, m0, sig0 = make()
    sig0.set(ticks=100, tps=12345.0)
    assert m0.getVelocity() == 12345


def test_velocity_window_history_cleared_by_an_encoder_reset():
    hub, m, sig = make(FirmwareConstants(velocity_window=0.03))
    for count in (100, 200, 300):
        sig.set(ticks=count)
        step(hub, sig)
    assert m.getVelocity() == 10_000  # (300 - 0) / 0.03
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)  # the count jumps to 0: no measurement across it
    assert m.getCurrentPosition() == 0 and m.getVelocity() == 0
    m.setMode(RunMode.RUN_USING_ENCODER)
    step(hub, sig)  # one sample since the reset: 0, not (0 - 100) / 0.03
    assert m.getVelocity() == 0
    sig.set(ticks=306)
    step(hub, sig)
    assert m.getVelocity() == 600  # 6 counts over the one pass held
    sig.set(ticks=318)
    step(hub, sig)
    assert m.getVelocity() == 900  # 18 counts over two passes
    sig.set(ticks=330)
    step(hub, sig)
    assert m.getVelocity() == 1000  # the full window: 30 counts over 0.03 s


def test_velocity_window_changes_the_velocity_step():
    """The loop sees a speed lagged by about half the window: the step overshoots much more."""
    _, over_exact, _ = velocity_step()
    _, over_50ms, _ = velocity_step(FirmwareConstants(velocity_window=0.050))
    assert over_50ms > over_exact + 0.1  # about 0.31 against 0.10


def test_at_target_max_speed_adds_a_speed_condition():
    """At-target test row: a motor passing through the target at speed is not at target with a finite
    at_target_max_speed, and is (position only) with the default inf."""
    for max_speed, busy_passing in ((math.inf, False), (500.0, True)):
        hub, m, sig = make(FirmwareConstants(at_target_max_speed=max_speed))
        m.setTargetPosition(100)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(1.0)
        sig.set(ticks=100, tps=2000)  # passing through the target at speed
        assert m.isBusy() is busy_passing
        sig.set(tps=-499)  # slow enough, either way
        assert m.isBusy() is False
        sig.set(ticks=110, tps=0)  # the position test still applies
        assert m.isBusy() is True
    # the speed it tests is the measured one: with a window, the count difference at the last pass
    hub, m, sig = make(FirmwareConstants(at_target_max_speed=500.0, velocity_window=0.02))
    m.setTargetPosition(100)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(1.0)
    sig.set(ticks=80)
    step(hub, sig)
    sig.set(ticks=100, tps=0)
    step(hub, sig)  # (100 - 0) / 0.02 = 5000 counts/s measured, whatever the modelled speed
    assert m.isBusy() is True
    step(hub, sig)  # (100 - 80) / 0.02 = 1000
    assert m.isBusy() is True
    step(hub, sig)  # still: 0
    assert m.isBusy() is False


@pytest.mark.parametrize("field, bad", [
    ("velocity_window", -0.01), ("velocity_window", math.nan), ("velocity_window", math.inf),
    ("velocity_window", True), ("velocity_window", "0.05"), ("velocity_window", 0.015),
    ("at_target_max_speed", 0.0), ("at_target_max_speed", -1.0), ("at_target_max_speed", math.nan),
    ("at_target_max_speed", -math.inf), ("at_target_max_speed", True), ("at_target_max_speed", "1")])
def test_velocity_window_and_at_target_max_speed_reject_bad_values(field, bad):
    with pytest.raises(ConfigError, match=field) as err:
        FirmwareConstants(**{field: bad})
    assert err.value.parameter == field and err.value.value is bad


def test_velocity_window_must_be_whole_loop_periods_also_when_the_hub_sets_the_period():
    assert FirmwareConstants(velocity_window=0.05).velocity_window_passes == 5
    assert FirmwareConstants(velocity_window=0.06, loop_period=0.03).velocity_window_passes == 2
    assert FirmwareConstants(at_target_max_speed=1e-3).at_target_max_speed == 1e-3
    with pytest.raises(ConfigError, match="velocity_window"):
        Hub(loop_period=0.03, firmware=FirmwareConstants(velocity_window=0.05))
    with pytest.raises(ConfigError, match="loop_period"):
        FirmwareConstants(velocity_window=0.05, loop_period=0.03)
