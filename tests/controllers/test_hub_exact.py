"""The seed's "Exact" table (SDK 12.0.0 semantics), one test per row.

No engine: each test drives DcMotorEx and the hub's firmware function directly,
with a hand-made signals dict standing for the mechanism. Expected values come
from the specification table or the SDK numbers typed in here (ticksPerRev,
maxRPM), never from the code under test.
"""
import math

import pytest

from simcore.controllers.hub import (AngleUnit, CurrentUnit, DcMotor, Direction, Hub, IllegalArgumentException,
                             MotorControlAlgorithm, PIDCoefficients, PIDFCoefficients, RunMode,
                             TargetPositionNotSetException, UnsupportedOperationException, ZeroPowerBehavior)
from simcore.errors import NonFiniteError
from simcore.models.ftc_motor_types import (GOBILDA_5202_SDK, GOBILDA_5203_312, NEVEREST_20, REV_CORE_HEX,
                                    REV_ULTRAPLANETARY)

MSG = "Failed to enable motor. You must set a target position before switching to RUN_TO_POSITION mode"
# NeveRest 20 in the SDK: ticksPerRev 560, maxRPM 315, orientation CW; achieveable fraction 0.85.
NR20_MAX_TPS = math.floor(560 * 315 * 0.85 / 60 + 0.5)  # Java Math.round
NR20_CPR = 28.0  # counts per motor revolution (7 pulses x 4)


class FakeMech:
    """Stands for a hub-driven mechanism: declares the signals a hub channel needs."""

    def __init__(self, name, motor_type):
        self.name = name
        self.motor_type = motor_type
        self.input_names = ("duty", "brake")
        self.state_names = ("rotor_position", "rotor_velocity")
        self.output_names = ("stator_current", "supply_current", "supply_voltage")


class Sig(dict):
    """A signals dict in which the test sets the raw encoder count and raw speed.

    raw counts = raw_sign * rotor_position / 2pi * counts_per_motor_rev, raw_sign = +1 for CW types.
    """

    def __init__(self, name, cpr, raw_sign=1):
        super().__init__()
        self.name, self.cpr, self.sign = name, cpr, raw_sign
        self.set(0.0, 0.0)
        self[f"{name}.stator_current"] = 0.0
        self[f"{name}.supply_current"] = 0.0
        self[f"{name}.supply_voltage"] = 12.0

    def set(self, ticks=None, tps=None):
        if ticks is not None:
            self[f"{self.name}.rotor_position"] = self.sign * ticks / self.cpr * 2 * math.pi
        if tps is not None:
            self[f"{self.name}.rotor_velocity"] = self.sign * tps / self.cpr * 2 * math.pi


def make(motor_type=NEVEREST_20, raw_sign=1, cpr=NR20_CPR):
    hub = Hub()
    m = hub.motor(0, FakeMech("m", motor_type))
    sig = Sig("m", cpr, raw_sign)
    hub.firmware_step(0.0, sig)  # power-up pass: the hub has seen the signals
    return hub, m, sig


def _sign(x, eps=1e-9):  # float round-off of the rad <-> tick conversions is far below eps
    return (x > eps) - (x < -eps)


def duty(hub, sig, t=0.01):
    return hub.firmware_step(t, sig)["m.duty"]


def reg(hub, key):
    return hub.registers(0)[key]


# -- Missing target ------------------------------------------------------------------------------------
def test_missing_target_throws_records_mode_first_and_keeps_channel_off():
    hub, m, sig = make()
    m.setPower(0.5)
    with pytest.raises(TargetPositionNotSetException) as e:
        m.setMode(RunMode.RUN_TO_POSITION)
    assert str(e.value) == MSG
    assert isinstance(e.value, RuntimeError)
    assert m.getMode() is RunMode.RUN_TO_POSITION  # recorded before the refused enable
    assert m.isMotorEnabled() is False
    assert duty(hub, sig) == 0.0
    for call in (lambda: m.setPower(0.3), lambda: m.setVelocity(100), m.setMotorEnable):
        with pytest.raises(TargetPositionNotSetException, match="^" + MSG + "$"):
            call()
        assert m.isMotorEnabled() is False
    m.setTargetPosition(1000)
    m.setPower(0.3)  # now accepted
    assert m.isMotorEnabled() is True
    assert duty(hub, sig) > 0


# -- Order ----------------------------------------------------------------------------------------------
def test_order_target_accepted_in_any_mode_and_mode_change_resends_power():
    hub, m, sig = make()
    for mode in (RunMode.RUN_WITHOUT_ENCODER, RunMode.RUN_USING_ENCODER, RunMode.STOP_AND_RESET_ENCODER):
        m.setMode(mode)
        m.setTargetPosition(321)
        assert m.getTargetPosition() == 321
    m.setMode(RunMode.RUN_WITHOUT_ENCODER)
    m.setPower(0.4)
    m.setTargetPosition(5000)
    m.setMode(RunMode.RUN_TO_POSITION)  # no setPower after this
    cap = int(0.4 * NR20_MAX_TPS)
    assert reg(hub, "velocity_target") == cap
    assert m.isMotorEnabled()
    assert duty(hub, sig) > 0  # moving at once
    # ...capped by the power already set: at exactly the cap the velocity loop has zero error (F = 0)
    for v, sign in ((cap, 0), (cap - 20, 1), (cap + 20, -1)):
        hub, m, sig = make()
        m.setPower(0.4)
        m.setTargetPosition(5000)
        m.setMode(RunMode.RUN_TO_POSITION)
        sig.set(tps=v)
        d = duty(hub, sig)
        assert _sign(d) == sign, (v, d)


# -- Power ----------------------------------------------------------------------------------------------
def test_power_rtp_abs_and_cap_rue_velocity_target_rwe_constant_power():
    hub, m, sig = make()
    m.setTargetPosition(10_000)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(-0.3)
    assert m.getPower() == 0.3
    assert reg(hub, "velocity_target") == int(0.3 * NR20_MAX_TPS)
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setPower(-0.77)
    assert m.getPower() == -0.77
    assert reg(hub, "velocity_target") == -1924  # (int)(-0.77 * 2499) truncates toward zero
    assert reg(hub, "velocity_target") == int(-0.77 * NR20_MAX_TPS)
    m.setPower(1.5)
    assert m.getPower() == 1.0  # clipped to [-1, 1]
    assert reg(hub, "velocity_target") == NR20_MAX_TPS
    m.setMode(RunMode.RUN_WITHOUT_ENCODER)
    m.setPower(-0.5)
    assert reg(hub, "constant_power") == -16383  # (int)(-0.5 * 32767)
    assert duty(hub, sig) == -16383 / 32767


@pytest.mark.parametrize("motor_type, ticks, rpm", [(GOBILDA_5202_SDK, 2786, 60), (REV_CORE_HEX, 288, 137),
                                                    (NEVEREST_20, 560, 315)])
def test_power_scale_is_configured_types_achieveable_max_rounded(motor_type, ticks, rpm):
    expected = math.floor(ticks * rpm * 0.85 / 60 + 0.5)  # 2368 (2368.1), 559 (558.96), 2499
    assert motor_type.getAchieveableMaxTicksPerSecondRounded() == expected
    hub = Hub()
    m = hub.motor(1, FakeMech("x", motor_type))
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setPower(1.0)
    assert abs(hub.registers(1)["velocity_target"]) == expected


# -- isBusy -----------------------------------------------------------------------------------------------
def test_isbusy_false_outside_rtp_and_not_at_target_in_rtp_and_not_busy_still_holds():
    hub, m, sig = make()
    m.setTargetPosition(100)
    for mode in (RunMode.RUN_WITHOUT_ENCODER, RunMode.RUN_USING_ENCODER, RunMode.STOP_AND_RESET_ENCODER):
        m.setMode(mode)
        assert m.isBusy() is False
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    assert m.isBusy() is True  # count 0, target 100
    sig.set(ticks=100)
    assert m.isBusy() is False
    sig.set(ticks=97)  # within the default tolerance 5: not busy...
    assert m.isBusy() is False
    assert duty(hub, sig) > 0  # ...but the hub keeps driving to the target
    sig.set(ticks=103)
    assert m.isBusy() is False
    assert duty(hub, sig) < 0
    sig.set(ticks=50)
    assert m.isBusy() is True


# -- Tolerance --------------------------------------------------------------------------------------------
def test_tolerance_default_stored_on_handle_sent_with_next_target_and_range_checked():
    hub, m, sig = make()
    assert m.getTargetPositionTolerance() == 5
    m.setTargetPosition(100)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    sig.set(ticks=90)  # 10 off
    m.setTargetPositionTolerance(20)
    assert m.getTargetPositionTolerance() == 20
    assert reg(hub, "tolerance") == 5
    assert m.isBusy() is True  # changing it alone changes nothing
    m.setTargetPosition(100)
    assert reg(hub, "tolerance") == 20
    assert m.isBusy() is False
    for bad in (-1, 65536, 100_000):
        m.setTargetPositionTolerance(bad)  # stored without complaint
        with pytest.raises(IllegalArgumentException) as e:
            m.setTargetPosition(200)
        assert str(e.value) == f"illegal tolerance: {bad}"
        assert isinstance(e.value, ValueError)
        assert m.getTargetPosition() == 100  # nothing sent
    for ok in (0, 65535):
        m.setTargetPositionTolerance(ok)
        m.setTargetPosition(150)
        assert reg(hub, "tolerance") == ok


# -- Direction ----------------------------------------------------------------------------------------------
def test_direction_reverse_negates_sent_and_read_values_and_setdirection_sends_nothing():
    hub, m, sig = make()  # NeveRest 20 is a CW type: FORWARD is the raw direction
    m.setDirection(Direction.REVERSE)
    assert m.getDirection() is Direction.REVERSE
    m.setTargetPosition(100)
    assert reg(hub, "target_position") == -100 and m.getTargetPosition() == 100
    m.setPower(0.5)  # RUN_WITHOUT_ENCODER
    assert reg(hub, "constant_power") == -16383 and m.getPower() == 0.5
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setPower(0.5)
    assert reg(hub, "velocity_target") == -int(0.5 * NR20_MAX_TPS)
    m.setVelocity(300)
    assert reg(hub, "velocity_target") == -300
    sig.set(ticks=50, tps=120)
    assert m.getCurrentPosition() == -50 and m.getVelocity() == -120.0
    assert m.getPhysicalPositionTicks() == 50
    # flipping a running motor changes the readings, not the motion
    m.setMode(RunMode.RUN_WITHOUT_ENCODER)
    m.setPower(0.25)
    before = reg(hub, "constant_power")
    m.setDirection(Direction.FORWARD)
    assert reg(hub, "constant_power") == before
    assert m.getCurrentPosition() == 50 and m.getVelocity() == 120.0


def test_direction_of_ccw_types_is_inverted_by_orientation_as_the_sdk():
    # DcMotorImpl.getOperationalDirection(): a CCW motor type inverts the user's direction.
    hub, m, sig = make(GOBILDA_5203_312, raw_sign=-1, cpr=28.0)
    m.setPower(0.5)  # FORWARD on a CCW type: raw power negated
    assert reg(hub, "constant_power") == -16383
    assert m.getPower() == 0.5
    d = duty(hub, sig)
    assert d == pytest.approx(0.5, abs=1e-4)  # mechanism frame: FORWARD + positive power turns positive
    sig.set(ticks=-40)  # raw count -40
    assert m.getPhysicalPositionTicks() == -40 and m.getCurrentPosition() == 40


# -- Encoder reset ----------------------------------------------------------------------------------------
def test_stop_and_reset_zeroes_count_stops_shaft_and_keeps_power_for_next_mode():
    hub, m, sig = make()
    sig.set(ticks=500)
    m.setPower(0.6)
    assert duty(hub, sig) == int(0.6 * 32767) / 32767
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    assert m.getCurrentPosition() == 0
    assert m.getMode() is RunMode.STOP_AND_RESET_ENCODER
    assert duty(hub, sig) == 0.0  # shaft stopped
    assert m.getPower() == 0.6  # the last power is kept
    sig.set(ticks=530)
    assert m.getCurrentPosition() == 30
    m.setMode(RunMode.RUN_WITHOUT_ENCODER)  # ...and re-sent
    assert reg(hub, "constant_power") == int(0.6 * 32767)
    assert duty(hub, sig) == int(0.6 * 32767) / 32767
    # in RUN_USING_ENCODER the stop is a zero velocity target
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    assert reg(hub, "velocity_target") == 0
    m.setMode(RunMode.RUN_USING_ENCODER)
    assert reg(hub, "velocity_target") == int(0.6 * NR20_MAX_TPS)


# -- Leaving RUN_TO_POSITION -----------------------------------------------------------------------------
def test_leaving_rtp_resends_abs_power_without_direction():
    hub, m, sig = make()
    m.setDirection(Direction.REVERSE)
    m.setTargetPosition(800)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(-0.5)
    assert m.getPower() == 0.5
    m.setMode(RunMode.RUN_USING_ENCODER)
    # runs at that power in the positive raw direction, although the motor is REVERSE
    assert reg(hub, "velocity_target") == int(0.5 * NR20_MAX_TPS) > 0
    assert m.getPower() == -0.5  # and reads back direction-adjusted
    m.setTargetPosition(800)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.7)
    m.setMode(RunMode.RUN_WITHOUT_ENCODER)
    assert reg(hub, "constant_power") == int(0.7 * 32767) > 0


# -- setVelocity ----------------------------------------------------------------------------------------------
def test_setvelocity_mode_switch_rounding_clipping_and_angleunit():
    hub, m, sig = make()
    m.setVelocity(100.4)
    assert m.getMode() is RunMode.RUN_USING_ENCODER
    assert reg(hub, "velocity_target") == 100
    for v, sent in ((100.5, 101), (-100.5, -100), (-100.6, -101), (40000, 32767), (-40000, -32767),
                    (32767.4, 32767)):
        m.setVelocity(v)
        assert reg(hub, "velocity_target") == sent, v  # Java Math.round, then clip to +-32767
    m.setTargetPosition(10)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setVelocity(200)
    assert m.getMode() is RunMode.RUN_TO_POSITION  # not switched
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    m.setVelocity(50)
    assert m.getMode() is RunMode.RUN_USING_ENCODER
    # AngleUnit: through the configured ticksPerRev (560 for NeveRest 20)
    m.setVelocity(90, AngleUnit.DEGREES)
    assert reg(hub, "velocity_target") == 140
    m.setVelocity(math.pi, AngleUnit.RADIANS)
    assert reg(hub, "velocity_target") == 280
    m.setVelocity(720, AngleUnit.DEGREES)  # rates are not normalised
    assert reg(hub, "velocity_target") == 1120
    m.setDirection(Direction.REVERSE)
    m.setVelocity(90, AngleUnit.DEGREES)
    assert reg(hub, "velocity_target") == -140
    # the configured type's ticksPerRev, not the physical counts (UltraPlanetary: 560 configured)
    hub2 = Hub()
    m2 = hub2.motor(2, FakeMech("u", REV_ULTRAPLANETARY))
    m2.setVelocity(360, AngleUnit.DEGREES)
    assert hub2.registers(2)["velocity_target"] == 560


# -- getVelocity -----------------------------------------------------------------------------------------------
def test_getvelocity_whole_ticks_and_angleunit_of_that_whole_number():
    hub, m, sig = make()
    for raw, whole in ((123.4, 123), (123.6, 124), (-123.6, -124), (0.3, 0)):
        sig.set(tps=raw)
        assert m.getVelocity() == whole
    sig.set(tps=123.6)
    assert m.getVelocity(AngleUnit.DEGREES) == pytest.approx(124 / 560 * 360, rel=1e-12)
    assert m.getVelocity(AngleUnit.RADIANS) == pytest.approx(124 / 560 * 2 * math.pi, rel=1e-12)
    m.setDirection(Direction.REVERSE)
    assert m.getVelocity(AngleUnit.DEGREES) == pytest.approx(-124 / 560 * 360, rel=1e-12)


# -- PIDF: errors, quantisation, accepted modes, reset -----------------------------------------------------------
def test_pidf_errors_non_pid_mode_and_rtp_unsupported_with_sdk_spelling():
    hub, m, sig = make()
    for mode in (RunMode.RUN_WITHOUT_ENCODER, RunMode.STOP_AND_RESET_ENCODER):
        with pytest.raises(IllegalArgumentException) as e:
            m.setPIDFCoefficients(mode, PIDFCoefficients(1, 0, 0, 0))
        assert str(e.value) == f"motor 0: mode {mode.name} is invalid as PID Mode"
        assert isinstance(e.value, ValueError)
    before = m.getPIDFCoefficients(RunMode.RUN_TO_POSITION)
    with pytest.raises(UnsupportedOperationException) as e:
        m.setPIDFCoefficients(RunMode.RUN_TO_POSITION, PIDFCoefficients(5, 0.5, 0, 0, MotorControlAlgorithm.PIDF))
    assert str(e.value) == ("setting of pidf coefficents not supported: motor=0 mode=RUN_TO_POSITION "
                            "pidf=PIDFCoefficients(p=5.000000 i=0.500000 d=0.000000 f=0.000000 alg=PIDF)")
    assert isinstance(e.value, NotImplementedError) and isinstance(e.value, RuntimeError)
    assert m.getPIDFCoefficients(RunMode.RUN_TO_POSITION) == before  # nothing changed
    for c in (PIDFCoefficients(5, 0, 1, 0), PIDFCoefficients(5, 0, 0, 2)):
        with pytest.raises(UnsupportedOperationException):
            m.setPIDFCoefficients(RunMode.RUN_TO_POSITION, c)
    # LegacyPID is exempt; P alone under PIDF is fine
    m.setPIDFCoefficients(RunMode.RUN_TO_POSITION, PIDFCoefficients(5, 0.5, 0.25, 0, MotorControlAlgorithm.LegacyPID))
    got = m.getPIDFCoefficients(RunMode.RUN_TO_POSITION)
    assert (got.p, got.i, got.d, got.algorithm) == (5, 0.5, 0.25, MotorControlAlgorithm.LegacyPID)
    m.setPositionPIDFCoefficients(7)
    assert m.getPIDFCoefficients(RunMode.RUN_TO_POSITION).p == 7


def _q(c):  # the table's round(abs(c) * 65536) * sign(c), magnitude rounded half up, / 65536
    return math.copysign(math.floor(abs(c) * 65536 + 0.5), c) / 65536 if c else 0.0


def test_pidf_quantized_to_1_over_65536():
    hub, m, sig = make()
    values = (1.23456789, 0.1, -0.3, 2.5 / 65536)
    m.setVelocityPIDFCoefficients(*values)
    got = m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    assert (got.p, got.i, got.d, got.f) == tuple(_q(v) for v in values)
    assert got.f == 3 / 65536  # the half rounds up in magnitude
    assert got.d == -19661 / 65536  # -0.3 * 65536 = -19660.8
    assert got.p != 1.23456789
    m.setPIDFCoefficients(RunMode.RUN_USING_ENCODER, PIDFCoefficients(-2.5 / 65536, 0, 0, 0))
    assert m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER).p == -3 / 65536
    assert m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER).algorithm is MotorControlAlgorithm.PIDF
    m.setPIDCoefficients(RunMode.RUN_USING_ENCODER, PIDCoefficients(0.1, 0.2, 0.3))
    pid = m.getPIDCoefficients(RunMode.RUN_USING_ENCODER)
    assert (pid.p, pid.i, pid.d) == (_q(0.1), _q(0.2), _q(0.3))
    assert m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER).algorithm is MotorControlAlgorithm.LegacyPID


def test_get_pidf_and_pid_accept_exactly_rue_and_rtp():
    hub, m, sig = make()
    for mode in (RunMode.RUN_USING_ENCODER, RunMode.RUN_TO_POSITION):
        m.getPIDFCoefficients(mode)
        m.getPIDCoefficients(mode)
    for mode in (RunMode.RUN_WITHOUT_ENCODER, RunMode.STOP_AND_RESET_ENCODER, RunMode.RUN_USING_ENCODERS):
        for get in (m.getPIDFCoefficients, m.getPIDCoefficients):
            with pytest.raises(IllegalArgumentException, match=f"^illegal mode: {mode.name}$"):
                get(mode)


def test_reset_device_configuration_puts_default_gains_back():
    hub, m, sig = make()
    m.setVelocityPIDFCoefficients(1, 2, 3, 4)
    m.setPositionPIDFCoefficients(7)
    m.setDirection(Direction.REVERSE)
    m.resetDeviceConfigurationForOpMode()
    v = m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    p = m.getPIDFCoefficients(RunMode.RUN_TO_POSITION)
    # the seed's defaults: velocity 10/3/0/0, position 10/0/0/0, PIDF
    assert (v.p, v.i, v.d, v.f, v.algorithm) == (10, 3, 0, 0, MotorControlAlgorithm.PIDF)
    assert (p.p, p.i, p.d, p.f, p.algorithm) == (10, 0, 0, 0, MotorControlAlgorithm.PIDF)
    assert m.getDirection() is Direction.FORWARD
    # a type that declares gains gets those back (Core Hex: LegacyPID, position I = 0.05)
    hub2 = Hub()
    c = hub2.motor(3, FakeMech("c", REV_CORE_HEX))
    c.setVelocityPIDFCoefficients(1, 1, 1, 1)
    c.resetDeviceConfigurationForOpMode()
    v = c.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    p = c.getPIDFCoefficients(RunMode.RUN_TO_POSITION)
    assert (v.p, v.i, v.d, v.f, v.algorithm) == (10, 3, 0, 0, MotorControlAlgorithm.LegacyPID)
    assert (p.p, p.i, p.algorithm) == (10, _q(0.05), MotorControlAlgorithm.LegacyPID)


# -- Structure ---------------------------------------------------------------------------------------------------
def test_structure_position_loop_feeds_velocity_loop():
    """In RUN_TO_POSITION the position error sets a velocity target that a velocity loop tracks:
    at a measured speed equal to P_pos * error (below the cap) the velocity error, and with F = 0
    the first pass's output, is zero; slower drives harder, faster brakes."""
    signs = []
    for measured in (-100, 0, +100):
        hub, m, sig = make()
        pp = m.getPIDFCoefficients(RunMode.RUN_TO_POSITION).p
        m.setTargetPosition(100)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(1.0)
        v_sp = pp * 100  # ticks/s asked by the position loop
        assert v_sp < NR20_MAX_TPS
        sig.set(tps=v_sp + measured)
        signs.append(_sign(duty(hub, sig)))
    assert signs == [1, 0, -1]


def test_namespaces_read_like_java():
    assert DcMotor.RunMode.RUN_TO_POSITION is RunMode.RUN_TO_POSITION
    assert DcMotor.ZeroPowerBehavior.BRAKE is ZeroPowerBehavior.BRAKE
    assert DcMotor.Direction.REVERSE.inverted() is Direction.FORWARD
    assert RunMode.RESET_ENCODERS.migrate() is RunMode.STOP_AND_RESET_ENCODER
    assert CurrentUnit.AMPS.convert(1500.0, CurrentUnit.MILLIAMPS) == 1.5


# -- Review additions ------------------------------------------------------------------------------------
from simcore.controllers.hub import FirmwareConstants  # noqa: E402


def _make_with(firmware):
    hub = Hub(firmware=firmware)
    m = hub.motor(0, FakeMech("m", NEVEREST_20))
    sig = Sig("m", NR20_CPR, 1)
    hub.firmware_step(0.0, sig)
    return hub, m, sig


def test_missing_target_leaves_channel_off_whatever_the_firmware_approximations():
    """Missing-target row: "with the channel off" is exact, so it must not depend on the APPROXIMATION
    constants: the refused enable itself switches the channel off (an earlier version relied on a
    mode-change constant for it), and with forget_target_on_reset=True a re-entered RUN_TO_POSITION
    must not keep driving to the forgotten target."""
    hub, m, sig = _make_with(FirmwareConstants())
    m.setPower(0.5)
    sig.set(ticks=-400)  # away from the (never sent) target register 0
    with pytest.raises(TargetPositionNotSetException, match="^" + MSG + "$"):
        m.setMode(RunMode.RUN_TO_POSITION)
    assert m.getMode() is RunMode.RUN_TO_POSITION
    assert m.isMotorEnabled() is False
    assert duty(hub, sig) == 0.0
    m.setTargetPosition(0)
    m.setPower(0.5)
    assert m.isMotorEnabled() is True and duty(hub, sig) > 0

    hub, m, sig = _make_with(FirmwareConstants(forget_target_on_reset=True))
    m.setTargetPosition(300)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    with pytest.raises(TargetPositionNotSetException):
        m.setMode(RunMode.RUN_TO_POSITION)
    assert m.isMotorEnabled() is False
    assert duty(hub, sig) == 0.0  # not driving towards the forgotten 300
    for call in (lambda: m.setPower(0.3), lambda: m.setVelocity(100), m.setMotorEnable):
        with pytest.raises(TargetPositionNotSetException):
            call()
        assert m.isMotorEnabled() is False and duty(hub, sig) == 0.0


def test_unsupported_pidf_message_formats_numbers_as_java_does():
    """The message is the SDK's to the character, and PIDFCoefficients.toString() is Java's "%f":
    the digits of Double.toString rounded half up (0.0078125 -> 0.007813, 5e-7 -> 0.000001), NaN and
    Infinity spelled as Java spells them. Python's "%.6f" gave 0.007812 and 0.000000."""
    hub, m, sig = make()
    with pytest.raises(UnsupportedOperationException) as e:
        m.setPIDFCoefficients(RunMode.RUN_TO_POSITION, PIDFCoefficients(0.0078125, 5e-7, 0, 0))
    assert str(e.value) == ("setting of pidf coefficents not supported: motor=0 mode=RUN_TO_POSITION "
                            "pidf=PIDFCoefficients(p=0.007813 i=0.000001 d=0.000000 f=0.000000 alg=PIDF)")
    assert PIDFCoefficients(float("nan"), float("inf"), -float("inf"), -0.0).toString() == \
        "PIDFCoefficients(p=NaN i=Infinity d=-Infinity f=-0.000000 alg=PIDF)"


def test_pidf_quantization_saturates_as_java_int_cast():
    """(int)(abs(c) * 65536 + 0.5) * (int)signum(c): Java's cast saturates at Integer.MAX_VALUE, also for
    an infinite gain (the code raised OverflowError)."""
    hub, m, sig = make()
    m.setVelocityPIDFCoefficients(float("inf"), -float("inf"), 1e12, 0.0)
    got = m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    assert (got.p, got.i, got.d, got.f) == ((2 ** 31 - 1) / 65536, -(2 ** 31 - 1) / 65536, (2 ** 31 - 1) / 65536, 0.0)


# A NaN command is refused (issue 11 reverses the earlier choice of sending the SDK's 0): the SDK would
# send (int) of NaN = 0 and silently stop the motor; the simulator is there to find that bug first.
def test_nan_power_is_refused_naming_the_motor_and_nothing_is_sent():
    hub, m, sig = make()
    m.setPower(0.5)
    for mode, register, sent in ((RunMode.RUN_WITHOUT_ENCODER, "constant_power", int(0.5 * 32767)),
                                 (RunMode.RUN_USING_ENCODER, "velocity_target", int(0.5 * NR20_MAX_TPS))):
        m.setMode(mode)
        with pytest.raises(NonFiniteError) as e:
            m.setPower(float("nan"))
        assert "setPower" in str(e.value) and "port 0" in str(e.value) and math.isnan(e.value.value)
        assert "silently stops" in "\n".join(e.value.__notes__)
        assert reg(hub, register) == sent and m.getPower() == 0.5  # nothing sent, nothing cached


def test_nan_velocity_and_nan_gains_are_refused_and_nothing_is_sent():
    hub, m, sig = make()
    m.setVelocity(100)
    with pytest.raises(NonFiniteError, match="setVelocity") as e:
        m.setVelocity(float("nan"))
    assert "silently stops" in "\n".join(e.value.__notes__)
    with pytest.raises(NonFiniteError, match="setVelocity"):
        m.setVelocity(float("nan"), AngleUnit.DEGREES)
    assert reg(hub, "velocity_target") == 100
    before = m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER)
    for gains in ((float("nan"), 0, 0, 0), (1, float("nan"), 0, 0), (1, 0, float("nan"), 0), (1, 0, 0, float("nan"))):
        with pytest.raises(NonFiniteError, match="setPIDFCoefficients"):
            m.setVelocityPIDFCoefficients(*gains)
    with pytest.raises(NonFiniteError, match="setPIDFCoefficients p"):
        m.setPositionPIDFCoefficients(float("nan"))
    with pytest.raises(NonFiniteError):
        m.setPIDCoefficients(RunMode.RUN_USING_ENCODER, PIDCoefficients(1, float("nan"), 0))
    assert m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER) == before


def test_power_scale_follows_the_configured_type_not_the_physical_one():
    """Power row: maxTicksPerSecond is the *configured* type's getAchieveableMaxTicksPerSecondRounded(),
    also after setMotorType; the direction keeps the orientation of the type the handle was built with
    (DcMotorImpl.motorType). The other power tests configure the physical type, so could not tell."""
    hub = Hub()
    m = hub.motor(0, FakeMech("g", GOBILDA_5203_312), GOBILDA_5202_SDK)  # SDK's goBILDA type on a 312 rpm motor
    sdk_max = math.floor(2786 * 60 * 0.85 / 60 + 0.5)  # 2368; the 312 rpm type would give 2377
    m.setMode(RunMode.RUN_USING_ENCODER)
    m.setPower(1.0)
    assert hub.registers(0)["velocity_target"] == -sdk_max  # CCW type: FORWARD is raw-negative
    m.setMotorType(NEVEREST_20)  # a CW type with another speed
    m.setPower(1.0)
    assert hub.registers(0)["velocity_target"] == -NR20_MAX_TPS  # new scale, direction still the CCW handle's
    assert m.getMotorType() is NEVEREST_20


# REFERENCE.md section 2's goBILDA 5203 table, copied by hand: (nominal rpm, ratio to 4 digits, counts/rev).
GOBILDA_TABLE = [(6000, 1, 28), (1620, 3.706, 103.8), (1150, 5.182, 145.1), (435, 13.73, 384.5),
                 (312, 19.20, 537.7), (223, 26.85, 751.8), (117, 50.89, 1425.1), (84, 71.16, 1993.6),
                 (60, 99.51, 2786.2), (43, 139.1, 3895.9), (30, 188.6, 5281.1)]


@pytest.mark.parametrize("rpm, ratio, counts", GOBILDA_TABLE)
def test_gobilda_types_carry_the_published_counts_and_the_physical_ratio(rpm, ratio, counts):
    from simcore.models import ftc_motor_types as types

    t = getattr(types, f"GOBILDA_5203_{rpm}")
    assert t.getTicksPerRev() == counts  # what a team declares, as published
    assert t.max_rpm == rpm
    assert float(f"{t.gear_ratio:.4g}") == ratio  # the planetary product, to the table's digits
    assert t.encoder_counts_per_motor_rev == 28
    assert t.getAchieveableMaxTicksPerSecondRounded() == math.floor(counts * rpm * 0.85 / 60 + 0.5)


def test_java_round_is_the_closest_integer_with_ties_up():
    """Math.round(double) since Java 7: 0.49999999999999994 (the double below 1/2) gives 0, not floor(x + 0.5) = 1;
    halves go towards positive infinity; NaN gives 0; the long range saturates."""
    from simcore.models.ftc_motor_types import java_round
    below_half = math.nextafter(0.5, 0.0)
    assert below_half == 0.49999999999999994 and math.floor(below_half + 0.5) == 1
    cases = {below_half: 0, 0.5: 1, -0.5: 0, -1.5: -1, 1.5: 2, 2.5: 3, -2.5: -2, -0.49999999999999994: 0,
             math.nextafter(-0.5, -1.0): -1, 4503599627370497.0: 4503599627370497, -7.0: -7, 0.0: 0,
             math.nan: 0, math.inf: 2 ** 63 - 1, -math.inf: -2 ** 63, 1e300: 2 ** 63 - 1}
    for x, expected in cases.items():
        assert java_round(x) == expected, x
