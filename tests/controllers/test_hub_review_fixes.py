"""Review fixes to the hub: Java int targets, FirmwareConstants validation, the time of a non-finite
external torque, and the real-hub check's handling of real logs. Each test failed before its fix."""
import io
import math

import numpy as np
import pytest

import simcore
from simcore.controllers import hub_check
from simcore.controllers.hub import Direction, FirmwareConstants, Hub
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError

from test_hub_exact import make, reg

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1  # Java int


# -- 1. setTargetPosition takes a Java int ---------------------------------------------------------------
def test_target_position_outside_the_java_int_range_is_refused_and_nothing_is_sent():
    hub, m, sig = make()
    m.setTargetPosition(100)
    for bad in (2 ** 40, INT_MAX + 1, INT_MIN - 1, -2 ** 40):
        with pytest.raises(ConfigError) as e:
            m.setTargetPosition(bad)
        msg = str(e.value)
        assert msg.startswith(f"position={bad!r}") and f"[{INT_MIN}, {INT_MAX}]" in msg
        assert reg(hub, "target_position") == 100 and m.getTargetPosition() == 100
    for ok in (INT_MAX, INT_MIN, np.int64(178)):
        m.setTargetPosition(ok)
        assert reg(hub, "target_position") == ok and type(reg(hub, "target_position")) is int


def test_target_position_under_reverse_refuses_int_min_whose_java_negation_overflows():
    hub, m, sig = make()  # NeveRest 20 is a CW type: REVERSE is the operational direction
    m.setDirection(Direction.REVERSE)
    m.setTargetPosition(INT_MIN + 1)
    assert reg(hub, "target_position") == INT_MAX and m.getTargetPosition() == INT_MIN + 1
    m.setTargetPosition(INT_MAX)
    assert reg(hub, "target_position") == -INT_MAX
    with pytest.raises(ConfigError) as e:
        m.setTargetPosition(INT_MIN)  # Java: -Integer.MIN_VALUE == Integer.MIN_VALUE
    assert str(e.value).startswith(f"position={INT_MIN}") and f"[{INT_MIN + 1}, {INT_MAX}]" in str(e.value)
    assert "REVERSE" in str(e.value)
    assert reg(hub, "target_position") == -INT_MAX  # nothing sent


def test_target_position_must_be_an_integer_as_in_java():
    hub, m, sig = make()
    m.setTargetPosition(7)
    # a float is refused (Java needs an explicit (int) cast), integral or not: the existing behaviour, kept
    for bad in (True, False, "178", 178.0, 178.5, math.nan, math.inf, None):
        with pytest.raises(ConfigTypeError, match="position"):
            m.setTargetPosition(bad)
        assert reg(hub, "target_position") == 7
    with pytest.raises(TypeError):  # ConfigTypeError is still a TypeError
        m.setTargetPosition(1.0)


def test_tolerance_is_a_java_int_too_but_its_hub_range_is_still_checked_by_the_next_target():
    hub, m, sig = make()
    with pytest.raises(ConfigError, match="tolerance"):
        m.setTargetPositionTolerance(2 ** 40)
    with pytest.raises(ConfigTypeError, match="tolerance"):
        m.setTargetPositionTolerance(True)
    assert m.getTargetPositionTolerance() == 5


# -- 2. FirmwareConstants validation ------------------------------------------------------------------------
def test_velocity_report_bits_must_be_an_int():
    for bad in (16.0, True, "16", None):
        with pytest.raises(ConfigTypeError, match="velocity_report_bits"):
            FirmwareConstants(velocity_report_bits=bad)
    with pytest.raises(ConfigError, match="velocity_report_bits"):
        FirmwareConstants(velocity_report_bits=8)
    fw = FirmwareConstants(velocity_report_bits=np.int64(16))
    assert type(fw.velocity_report_bits) is int and fw.velocity_report_bits == 16


@pytest.mark.parametrize("name", ["i_clamp", "position_i_clamp"])
def test_integral_clamps_refuse_bools_and_non_finite_values(name):
    for bad in (True, False, "1000"):
        with pytest.raises(ConfigTypeError, match=name):
            FirmwareConstants(**{name: bad})
    for bad in (math.inf, math.nan, -1.0):
        with pytest.raises(ConfigError, match=name):
            FirmwareConstants(**{name: bad})
    assert getattr(FirmwareConstants(**{name: 0}), name) == 0  # no integral action: allowed


def test_loop_period_must_be_positive_and_finite_and_is_named_as_such():
    for bad in (math.inf, math.nan, -0.01, 0.0):
        with pytest.raises(ConfigError, match="loop_period"):
            FirmwareConstants(loop_period=bad)
        with pytest.raises(ConfigError, match="loop_period"):
            Hub(loop_period=bad)
    with pytest.raises(ConfigTypeError, match="loop_period"):
        FirmwareConstants(loop_period=True)
    assert FirmwareConstants(loop_period=np.float64(0.02)).loop_period == 0.02


# -- 3. a non-finite external torque is reported with the simulation time ------------------------------------
def test_non_finite_external_torque_at_the_start_reports_time_zero():
    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([HubMotor(GOBILDA_5203_312, external_torque=lambda a: float("nan"), name="z")], 0.1)
    assert e.value.t == 0.0 and math.isfinite(e.value.t)
    assert "external_torque" in str(e.value) and "'z'" in str(e.value) and "t=0.0 s" in str(e.value)


def test_non_finite_external_torque_while_moving_reports_when_it_happened():
    mech = HubMotor(GOBILDA_5203_312, external_torque=lambda a: 0.5 if a < 0.3 else math.inf, name="z")
    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([mech], 3.0)
    assert 0.0 < e.value.t < 3.0 and "external_torque" in str(e.value) and "inf" in str(e.value)


def test_non_finite_external_torque_found_by_an_event_guard_reports_its_time():
    # at rest against static friction the load is only evaluated by the breakaway guards (and the mode)
    state = {"bad": False}
    mech = HubMotor(GOBILDA_5203_312, external_torque=lambda a: math.nan if state["bad"] else 0.0,
                    static_friction=0.5, name="z")

    def spoil(t, signals):
        if t >= 0.05:
            state["bad"] = True

    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([mech], 0.1, controllers=[simcore.PeriodicController(0.01, spoil)])
    assert e.value.t == pytest.approx(0.05) and "external_torque" in str(e.value)


# -- 4. the real-hub check with real logs ------------------------------------------------------------------
def _log(tmp_path, lines, name="real.csv"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _main(*argv):
    out = io.StringIO()
    assert hub_check.main(list(argv), stream=out) == 0
    return out.getvalue()


def _real(text, key, section):
    """The 'real' value printed for figure ``key`` in the section titled ``section``."""
    part = text.split(section, 1)[1]
    line = next(ln for ln in part.splitlines() if ln.strip().startswith(key + " "))
    return line.split(" real ", 1)[1].strip() if " real " in line else None


def test_position_step_log_without_busy_prints_every_figure_that_does_not_need_it(tmp_path):
    pos = [0, 500, 1000, 1500, 1990, 2012, 2004, 2000, 2000, 2000]
    vel = [0, 2400, 2500, 2500, 1200, 300, -200, 0, 0, 0]
    lines = ["experiment,t,position,velocity,current"]
    lines += [f"position_step_1.0,{k * 0.2},{p},{v}," for k, (p, v) in enumerate(zip(pos, vel))]
    text = _main("--csv", str(_log(tmp_path, lines)))
    section = "4. Position step, power 1.0"
    cap = GOBILDA_5203_312.getAchieveableMaxTicksPerSecondRounded()
    assert float(_real(text, "peak_overshoot_ticks", section)) == 12
    assert float(_real(text, "peak_speed_tps", section)) == 2500
    assert float(_real(text, "peak_speed_over_cap", section)) == pytest.approx(2500 / cap, rel=1e-3)
    assert _real(text, "peak_speed_over_free", section) is not None
    assert _real(text, "first_not_busy_s", section) == "n/a (no busy column)"
    assert _real(text, "busy_flickers", section) == "n/a (no busy column)"
    tr = hub_check.Trace(np.arange(10) * 0.2, np.array(pos, float), np.array(vel, float))
    f = hub_check.position_step_figures(tr, 2000)
    assert f["peak_overshoot_ticks"] == 12 and f["first_not_busy_s"] == "n/a (no busy column)"


def test_non_numeric_cell_names_the_file_the_line_and_the_column(tmp_path, capsys):
    path = _log(tmp_path, ["experiment,t,position,velocity,busy",
                           "velocity_step,0,0,0,",
                           "velocity_step,0.01,1o,5,"])
    with pytest.raises(ValueError) as e:
        hub_check.read_csv(path)
    msg = str(e.value)
    assert str(path) in msg and "line 3" in msg and "'position'" in msg and "'1o'" in msg
    with pytest.raises(SystemExit) as ex:
        hub_check.main(["--csv", str(path)], stream=io.StringIO())
    assert ex.value.code == 2 and "line 3" in capsys.readouterr().err
    # a required cell left empty is an error too; an optional one is not
    bad = _log(tmp_path, ["experiment,t,position,velocity,busy", "velocity_step,0,,0,"], "empty.csv")
    with pytest.raises(ValueError, match="line 2, column 'position'"):
        hub_check.read_csv(bad)
    bad_busy = _log(tmp_path, ["experiment,t,position,velocity,busy", "position_step_1.0,0,0,0,yes"], "busy.csv")
    with pytest.raises(ValueError, match="line 2, column 'busy'"):
        hub_check.read_csv(bad_busy)


def test_holding_log_with_a_push_column_gets_a_return_time(tmp_path):
    lines = ["experiment,t,position,velocity,busy,current,push"]
    for k in range(301):
        t = k * 0.01
        pushed = 150 <= k < 180  # pushed from 1.5 s; the first row after the push is at 1.8 s
        if k < 150:
            p = 3
        elif pushed:
            p = -200 * (k - 149) / 30
        else:
            p = min(-200 + 1000 * (k - 180) * 0.01, 0)  # back within 5 ticks at k = 200: 0.2 s after
        lines.append(f"holding,{t},{p},0,1,0.8,{int(pushed)}")
    path = _log(tmp_path, lines)
    tr = hub_check.read_csv(path)["holding"]
    assert tr.push is not None and tr.push.sum() == 30
    text = _main("--csv", str(path))
    section = "5. Holding under load"
    assert float(_real(text, "return_s", section)) == pytest.approx(0.2, abs=1e-9)
    assert float(_real(text, "steady_error_ticks", section)) == pytest.approx(-3.0)
    assert float(_real(text, "current_A", section)) == pytest.approx(0.8)
    assert float(_real(text, "max_error_ticks", section)) == pytest.approx(200.0)
    # without the column nothing marks the push: the return time is reported as missing, not invented
    no_push = _log(tmp_path, [ln.rsplit(",", 1)[0] for ln in lines], "nopush.csv")
    text = _main("--csv", str(no_push))
    assert _real(text, "return_s", section) == "n/a (no push column)"


def test_missing_csv_file_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        hub_check.main(["--csv", str(tmp_path / "nope.csv")], stream=io.StringIO())
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "nope.csv" in err and "no such file" in err.lower()
    with pytest.raises(SystemExit) as e:  # a directory is no log either
        hub_check.main(["--csv", str(tmp_path)], stream=io.StringIO())
    assert e.value.code == 2 and str(tmp_path) in capsys.readouterr().err
