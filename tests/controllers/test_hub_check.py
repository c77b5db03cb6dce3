"""The real-hub check (simcore.controllers.hub_check): its seven experiments on the simulator, and the overlay of a
real hub's CSV log, checked against synthetic logs whose figures are known analytically."""
import io
import math

import numpy as np
import pytest

from simcore.controllers import hub_check
from simcore.controllers.hub import FirmwareConstants
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T

HALF = T.motor.free_speed / (2 * math.pi) * 28 / 2  # half the free speed the check assumes (datasheet), ticks/s


def test_figures_of_analytic_traces():
    tau = 0.05
    t = np.arange(0, 1.5, 0.01)
    v = HALF * (1 - np.exp(-t / tau))
    f = hub_check.velocity_step_figures(hub_check.Trace(t, np.zeros_like(t), v), HALF)
    assert f["t98_s"] == pytest.approx(math.ceil(tau * math.log(50) / 0.01) * 0.01)  # first sample past tau ln 50
    assert f["overshoot"] == pytest.approx(0.0, abs=1e-9)
    assert f["steady_error_tps"] == pytest.approx(0.0, abs=1e-6)
    busy = np.array([1, 1, 1, 0, 1, 0, 0, 1, 0, 0], float)
    pos = np.array([0, 900, 1900, 1998, 2012, 2003, 2001, 1994, 2000, 2000], float)
    g = hub_check.position_step_figures(hub_check.Trace(np.arange(10) * 0.1, pos, np.gradient(pos, 0.1), busy), 2000)
    assert g["first_not_busy_s"] == pytest.approx(0.3)
    assert g["peak_overshoot_ticks"] == 12
    assert g["busy_flickers"] == 2


def test_simulated_check_reports_the_seven_items():
    res = hub_check.run_simulated(T, 12.0)
    gains = res["default_gains"][0]
    assert gains["RUN_USING_ENCODER"] == "PIDFCoefficients(p=10.000000 i=3.000000 d=0.000000 f=0.000000 alg=PIDF)"
    assert gains["RUN_TO_POSITION"] == "PIDFCoefficients(p=10.000000 i=0.000000 d=0.000000 f=0.000000 alg=PIDF)"
    assert 0 < res["velocity_step"][0]["t98_s"] < 0.5
    assert res["feedforward"][0]["settled_ratio"] == pytest.approx(1.0, abs=0.01)
    p1, p3 = res["position_step_1.0"][0], res["position_step_0.3"][0]
    assert p1["first_not_busy_s"] < p3["first_not_busy_s"]
    assert 0.95 < p3["peak_speed_over_cap"] < 1.2
    hold = res["holding"][0]
    assert abs(hold["steady_error_ticks"]) <= 5 and hold["max_error_ticks"] > 5 and 0 < hold["return_s"] < 1.0
    # holding 30 % of stall at standstill: |supply current| = duty * stator = 0.3 * 0.3 * I_stall
    assert hold["current_A"] == pytest.approx(0.09 * T.motor.stall_current, rel=0.05)
    assert res["tolerance_boundary"][0] == {"isBusy_at_position_plus_5": False}
    assert res["target_after_reset"][0] == {"throws_TargetPositionNotSetException": False}


def test_check_detects_the_approximations_it_is_meant_to_check():
    fw = FirmwareConstants(at_target_inclusive=False, forget_target_on_reset=True)
    res = hub_check.run_simulated(T, 12.0, firmware=fw)
    assert res["tolerance_boundary"][0] == {"isBusy_at_position_plus_5": True}
    assert res["target_after_reset"][0] == {"throws_TargetPositionNotSetException": True}


def test_main_prints_every_item_overlays_csv_and_writes_plots(tmp_path):
    tau = 0.05
    log = tmp_path / "real.csv"
    lines = ["experiment,t,position,velocity,busy,current"]
    for k in range(151):
        t = k * 0.01
        lines.append(f"velocity_step,{t},{0},{HALF * (1 - math.exp(-t / tau))},,")
    lines.append("something_else,0,0,0,0,0")
    log.write_text("\n".join(lines) + "\n")
    out = io.StringIO()
    assert hub_check.main(["--csv", str(log), "--out", str(tmp_path / "o")], stream=out) == 0
    text = out.getvalue()
    for title in ("1. Default gains", "2. Velocity step", "3. Feedforward units", "4. Position step, power 1.0",
                  "4. Position step, power 0.3", "5. Holding under load", "6. Tolerance boundary",
                  "7. Target after reset"):
        assert title in text
    line = next(l for l in text.splitlines() if l.strip().startswith("t98_s"))
    real_t98 = float(line.split("real")[1])
    assert real_t98 == pytest.approx(math.ceil(tau * math.log(50) / 0.01) * 0.01)
    assert (tmp_path / "o" / "velocity_step.png").stat().st_size > 1000
    assert (tmp_path / "o" / "sim_position_step_1.0.csv").read_text().startswith("experiment,t,position")


def test_csv_missing_columns_is_an_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("t,position\n0,0\n")
    with pytest.raises(ValueError, match="velocity"):
        hub_check.read_csv(bad)


# -- real logs ------------------------------------------------------------------
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
    cap = T.getAchieveableMaxTicksPerSecondRounded()
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


# -- the first crossing and the settling time; the cruise criterion --------------------------------------------
def test_velocity_step_has_a_first_crossing_and_a_2_percent_settling_time():
    """A trace built by hand: at rest, 110 % from 0.1 s, 97 % from 0.3 s, 101 % from 0.5 s."""
    t = np.arange(0, 1.0, 0.01)
    v = HALF * np.select([t < 0.1 - 1e-9, t < 0.3 - 1e-9, t < 0.5 - 1e-9], [0.0, 1.1, 0.97], 1.01)
    f = hub_check.velocity_step_figures(hub_check.Trace(t, np.zeros_like(t), v), HALF)
    assert f["t98_s"] == pytest.approx(0.1) and f["settling_2pct_s"] == pytest.approx(0.5)
    g = hub_check.velocity_step_figures(hub_check.Trace(t, np.zeros_like(t), np.where(t < 0.9, HALF, 0.5 * HALF)),
                                        HALF)
    assert math.isnan(g["settling_2pct_s"])  # leaves the band at the end: never settled


def test_the_seed_s_about_0_3_s_is_the_settling_time_and_both_are_printed():
    f = hub_check.run_simulated(T, 12.0)["velocity_step"][0]
    assert f["t98_s"] < f["settling_2pct_s"]
    assert f["settling_2pct_s"] == pytest.approx(0.3, abs=0.1)  # the seed: "reaches 98 % in about 0.3 s"
    out = io.StringIO()
    hub_check.main([], stream=out)
    text = out.getvalue()
    assert "t98_s (first crossing of 98 %)" in text and "settling_2pct_s (within 2 % from then on)" in text


def test_cruise_speed_is_the_median_over_the_middle_half_of_the_move():
    pos = np.array([0, 100, 400, 500, 900, 1500, 1600, 1990, 2000], float)
    vel = np.array([0, 900, 1200, 1190, 1210, 1200, 800, 100, 0], float)  # middle half: 500, 900, 1500 ticks
    f = hub_check._position_step_all(hub_check.Trace(np.arange(9) * 0.1, pos, vel, np.zeros(9)), 1.0, T)
    assert f["cruise_speed_over_cap"] == pytest.approx(1200 / T.getAchieveableMaxTicksPerSecondRounded())


@pytest.mark.parametrize("power", [1.0, 0.3])
def test_simulated_run_to_position_cruises_within_5_and_peaks_within_15_percent_of_the_cap(power):
    f = hub_check.run_simulated(T, 12.0)[f"position_step_{power:.1f}"][0]
    assert f["cruise_speed_over_cap"] == pytest.approx(1.0, abs=0.05)
    assert f["peak_speed_over_cap"] == pytest.approx(1.0, abs=0.15)


# -- what the log reader refuses and warns about ---------------------------------------------------------------
def _velocity_lines(n):
    return [f"velocity_step,{k * 0.01},0,{HALF * (1 - math.exp(-k * 0.01 / 0.05))},," for k in range(n)]


def test_a_spreadsheet_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(("\ufeffexperiment,t,position,velocity,busy,current\n" + "\n".join(_velocity_lines(150)) + "\n")
                     .encode("utf-8"))
    tr = hub_check.read_csv(path)["velocity_step"]
    assert len(tr.t) == 150 and tr.velocity[-1] == pytest.approx(HALF, rel=1e-9)


@pytest.mark.parametrize("header, rows, expected", [
    ("experiment,t,position,velocity,velocity", ["velocity_step,0,0,0,1"], "columns named twice: ['velocity']"),
    ("experiment,t,position,velocity,busy", ["velocity_step,0,0,0," + "1" * 5000], "a cell of 5000 characters"),
    ("experiment,t,position,velocity,busy", ["velocity_step,0,0,0,1", "x" * 200_000], "field larger than"),
])
def test_duplicate_columns_and_over_long_cells_are_usage_errors(tmp_path, capsys, header, rows, expected):
    path = tmp_path / "bad.csv"
    path.write_text("\n".join([header] + rows) + "\n")
    with pytest.raises(ValueError) as e:
        hub_check.read_csv(path)
    assert expected in str(e.value) and str(path) in str(e.value)
    with pytest.raises(SystemExit) as ex:
        hub_check.main(["--csv", str(path)], stream=io.StringIO())
    assert ex.value.code == 2 and expected in capsys.readouterr().err


def test_a_log_too_short_to_measure_is_read_with_a_warning(tmp_path):
    path = tmp_path / "short.csv"
    path.write_text("\n".join(["experiment,t,position,velocity,busy,current"] + _velocity_lines(4)) + "\n")
    with pytest.warns(hub_check.ShortLogWarning, match="'velocity_step' has 4 rows"):
        tr = hub_check.read_csv(path)["velocity_step"]
    assert len(tr.t) == 4
    long = tmp_path / "long.csv"
    long.write_text("\n".join(["experiment,t,position,velocity,busy,current"] + _velocity_lines(10)) + "\n")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hub_check.read_csv(long)
