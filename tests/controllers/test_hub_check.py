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
