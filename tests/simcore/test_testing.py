"""simcore.testing against analytic step responses (figures computed independently here)."""
import math
import re

import numpy as np
import pytest
from scipy.optimize import brentq

from simcore.errors import ConfigError
from simcore.result import Result
from simcore.testing import (StepInfo, assert_overshoot_below, assert_peak_below, assert_settles,
                             current_stats, energy, expect, step_info)
from simcore.units import ureg


def second_order(t, zeta, wn, y0=0.0, y1=1.0):
    """Underdamped unit-gain 2nd-order step response from y0 to y1."""
    wd = wn * math.sqrt(1 - zeta ** 2)
    s = zeta * wn
    return y0 + (y1 - y0) * (1 - np.exp(-s * t) * (np.cos(wd * t) + s / wd * np.sin(wd * t)))


def analytic_settling(zeta, wn, band, t_end):
    """Last instant |n(t) - 1| = band, by brentq on the analytic response.

    The bracket comes from scanning the analytic function on a grid 50x finer
    than the one the code sees.
    """
    f = lambda t: abs(second_order(t, zeta, wn) - 1.0) - band  # noqa: E731
    ts = np.linspace(0.0, t_end, 1_000_001)
    out = np.flatnonzero(f(ts) > 0)
    i = out[-1]
    return brentq(f, ts[i], ts[i + 1], xtol=1e-14, rtol=1e-15)


@pytest.mark.parametrize("zeta, wn", [(0.3, 5.0), (0.2, 8.0), (0.5, 3.0)])
@pytest.mark.parametrize("y0, y1", [(0.0, 1.0), (2.0, -1.5)])   # up and down
def test_second_order_figures_match_analytic(zeta, wn, y0, y1):
    t = np.linspace(0.0, 10.0, 20001)
    res = Result.from_arrays(t, {"arm.angle": second_order(t, zeta, wn, y0, y1)}, units={"arm.angle": "rad"})
    info = step_info(res, "arm.angle", y1, band=0.02)
    assert isinstance(info, StepInfo)
    wd = wn * math.sqrt(1 - zeta ** 2)
    os_ = math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2))
    assert info.overshoot == pytest.approx(os_, abs=1e-6)
    assert info.peak_time == pytest.approx(math.pi / wd, abs=1e-6)
    assert info.peak == pytest.approx(y1 + os_ * (y1 - y0), abs=1e-6 * abs(y1 - y0))
    assert info.settling_time == pytest.approx(analytic_settling(zeta, wn, 0.02, 10.0), abs=1e-6)
    assert info.initial == y0 and info.target == y1 and info.unit == "rad"


def test_rise_time_and_integrals_first_order():
    # y = 1 - exp(-t/tau): rise 10->90 % is tau*ln 9; IAE = tau (1 - e^{-T/tau});
    # ISE = tau/2 (1 - e^{-2T/tau}); ITAE = tau^2 (1 - e^{-T/tau}(1 + T/tau)).
    tau, T = 0.2, 3.0
    t = np.linspace(0.0, T, 30001)
    res = Result.from_arrays(t, {"m.w": 5.0 * (1 - np.exp(-t / tau))}, units={"m.w": "rad/s"})
    info = step_info(res, "m.w", 5.0)
    assert info.rise_time == pytest.approx(tau * math.log(9.0), abs=1e-6)
    assert info.overshoot == 0.0
    E = math.exp(-T / tau)
    assert info.iae == pytest.approx(5.0 * tau * (1 - E), rel=1e-6)
    assert info.ise == pytest.approx(25.0 * tau / 2 * (1 - E ** 2), rel=1e-6)
    assert info.itae == pytest.approx(5.0 * tau ** 2 * (1 - E * (1 + T / tau)), rel=1e-6)
    assert info.steady_state_error == pytest.approx(5.0 * E, rel=1e-12)
    # settling: 5 e^{-t/tau} = 0.02*5 at t = tau ln 50
    assert info.settling_time == pytest.approx(tau * math.log(50.0), abs=1e-6)


def test_second_order_ise_closed_form():
    zeta, wn = 0.4, 6.0
    t = np.linspace(0.0, 15.0, 60001)
    res = Result.from_arrays(t, {"a.x": second_order(t, zeta, wn)})
    # ISE of e = 1 - y for wn^2/(s^2+2 zeta wn s+wn^2): (1 + 4 zeta^2) / (4 zeta wn)
    assert step_info(res, "a.x", 1.0).ise == pytest.approx((1 + 4 * zeta ** 2) / (4 * zeta * wn), rel=1e-6)


def test_duplicate_rows_and_t_start():
    # Held at 0 until a tick at t=1, where it jumps to 0.5, then ramps to 1 at t=2 and stays.
    ramp = np.linspace(1.0, 2.0, 1001)
    t = np.concatenate(([0.0, 0.5, 1.0], ramp, [3.0]))
    y = np.concatenate(([0.0, 0.0, 0.0], 0.5 + 0.5 * (ramp - 1.0), [1.0]))
    assert t[2] == t[3]          # the duplicated instant
    res = Result.from_arrays(t, {"e.h": y}, units={"e.h": "m"})
    info = step_info(res, "e.h", 1.0, t_start=1.0)
    # From t_start the signal is 0.5 (right-continuous) -> initial 0.5, step 0.5.
    assert info.initial == 0.5
    # n = (y-0.5)/0.5 = t-1 on [1,2]: 10 % at 1.1, 90 % at 1.9, enters the 2 % band at 1.98.
    assert info.rise_time == pytest.approx(0.8, abs=1e-12)
    assert info.settling_time == pytest.approx(0.98, abs=1e-12)
    # Integrals from t_start, |e| = 0.5 (2 - t) on [1, 2], 0 after (exact integrals;
    # the trapezoid error on this grid is below 1e-6).
    assert info.iae == pytest.approx(0.25, abs=1e-12)          # linear: trapezoid is exact
    assert info.ise == pytest.approx(0.25 / 3, abs=1e-6)
    assert info.itae == pytest.approx(0.5 * (1 / 2 - 1 / 3), abs=1e-6)
    # Whole record, initial 0: the jump takes zero width; e = 1 on [0, 1)
    whole = step_info(res, "e.h", 1.0)
    assert whole.iae == pytest.approx(1.0 + 0.25, abs=1e-12)
    assert whole.ise == pytest.approx(1.0 + 0.25 / 3, abs=1e-6)
    # ITAE: ∫0^1 t dt + ∫1^2 t·0.5(2-t) dt = 1/2 + 1/3
    assert whole.itae == pytest.approx(0.5 + 1 / 3, abs=1e-6)
    # 10 % is reached on the jump (t=1) and 90 % at t=1.8
    assert whole.rise_time == pytest.approx(0.8, abs=1e-12)


def test_never_settles_and_never_rises():
    t = np.linspace(0, 1, 101)
    res = Result.from_arrays(t, {"s.x": 0.5 * t})
    info = step_info(res, "s.x", 1.0)
    assert info.settling_time == math.inf
    assert math.isnan(info.rise_time)
    with pytest.raises(AssertionError, match="settles"):
        assert_settles(res, "s.x", 1.0, within=10.0)


def test_bad_inputs_raise_config_error():
    t = np.linspace(0, 1, 11)
    res = Result.from_arrays(t, {"s.x": t})
    with pytest.raises(ConfigError, match="band"):
        step_info(res, "s.x", 1.0, band=1.5)
    with pytest.raises(ConfigError, match="signal"):
        step_info(res, "s.nope", 1.0)
    with pytest.raises(ConfigError, match="target"):
        step_info(res, "s.x", 0.0)          # zero step
    with pytest.raises(ConfigError, match="t_start"):
        step_info(res, "s.x", 1.0, t_start=5.0)
    with pytest.raises(ConfigError, match="target"):
        step_info(res, "s.x", float("nan"))


def test_quantity_target_converted():
    t = np.linspace(0, 5, 5001)
    res = Result.from_arrays(t, {"a.x": 1 - np.exp(-t)}, units={"a.x": "rad"})
    info = step_info(res, "a.x", (180 / math.pi) * ureg.degree)
    assert info.target == pytest.approx(1.0)


def test_current_stats_and_energy():
    T = 2.0
    t = np.linspace(0.0, T, 40001)
    w = 2 * math.pi * 3.0
    i = 10.0 * np.sin(w * t)                     # A
    v = 12.0 * np.ones_like(t) + 0 * t           # V
    res = Result.from_arrays(t, {"m.i": i, "m.v": v, "m.i_mA": 1000 * i},
                             units={"m.i": "A", "m.v": "V", "m.i_mA": "mA"})
    st = current_stats(res, "m.i")
    assert st.peak == pytest.approx(10.0, rel=1e-6)
    assert st.rms == pytest.approx(10.0 / math.sqrt(2), rel=1e-6)   # whole periods
    assert st.unit == "A"
    # E = ∫ 12 * 10 sin(wt) dt over 6 whole periods = 0; use |sin| via I^2 R instead:
    res2 = Result.from_arrays(t, {"m.i": i, "m.v": 0.5 * i}, units={"m.i": "A", "m.v": "V"})
    assert energy(res2, "m.v", "m.i") == pytest.approx(0.5 * 100.0 * T / 2, rel=1e-6)
    assert energy(res, "m.v", "m.i_mA") == pytest.approx(energy(res, "m.v", "m.i"), abs=1e-9)
    assert energy(res, "m.v", "m.i") == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ConfigError, match="signal"):
        energy(res, "m.i", "m.v")   # an A signal given as the voltage


def test_current_stats_rms_with_duplicate_rows():
    # 2 A for 1 s, jump at t=1 to 4 A for 1 s: rms = sqrt((4 + 16)/2)
    t = np.array([0.0, 1.0, 1.0, 2.0])
    res = Result.from_arrays(t, {"m.i": np.array([2.0, 2.0, -4.0, -4.0])}, units={"m.i": "A"})
    st = current_stats(res, "m.i")
    assert st.rms == pytest.approx(math.sqrt(10.0), abs=1e-12)
    assert st.peak == 4.0 and st.peak_time == 1.0
    assert st.mean == pytest.approx(-1.0, abs=1e-12)


@pytest.fixture
def underdamped():
    t = np.linspace(0.0, 10.0, 20001)
    zeta, wn = 0.3, 5.0
    return Result.from_arrays(t, {"arm.angle": second_order(t, zeta, wn), "arm.current": 50 * np.exp(-t)},
                              units={"arm.angle": "rad", "arm.current": "A"}), zeta, wn


def test_assertions_pass_and_fail_with_figures(underdamped):
    res, zeta, wn = underdamped
    os_ = math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2))   # ~0.372
    ts = analytic_settling(zeta, wn, 0.02, 10.0)
    expect(res, "arm.angle", 1.0).settles_within(ts + 1e-3).overshoot_below(os_ + 1e-3)
    assert_settles(res, "arm.angle", 1.0, within=ts + 1e-3)
    assert_overshoot_below(res, "arm.angle", 1.0, os_ + 1e-3)
    with pytest.raises(AssertionError) as ei:
        expect(res, "arm.angle", 1.0).settles_within(ts - 1e-3)
    msg = str(ei.value)
    assert f"{ts:.4g}" in msg and "s" in msg and "overshoot" in msg and "rad" in msg
    with pytest.raises(AssertionError) as ei:
        expect(res, "arm.angle", 1.0).settles_within(ts + 1e-3).overshoot_below(0.05)
    got = float(re.search(r"overshoots by ([0-9.]+) %", str(ei.value)).group(1))
    assert got == pytest.approx(100 * os_, abs=0.01)
    assert_peak_below(res, "arm.current", 50.0 + 1e-9)
    with pytest.raises(AssertionError, match=r"50 A.*above 40 A"):
        assert_peak_below(res, "arm.current", 40.0)
    with pytest.raises(AssertionError, match="peaks"):
        expect(res, "arm.angle", 1.0).peak_below(1.2)
    expect(res, "arm.angle", 1.0).peak_below(1.0 + os_ + 1e-6).rise_time_below(1.0)
    with pytest.raises(AssertionError, match=r"ends off its target by .* \(target - final\)"):
        expect(res, "arm.angle", 1.0).steady_state_error_below(0.0)


def test_negative_bounds_are_refused():
    t = np.linspace(0.0, 2.0, 201)
    res = Result.from_arrays(t, {"arm.angle": 1 - np.exp(-t / 0.1)}, units={"arm.angle": "rad"})
    for call, parameter in ((lambda e: e.settles_within(-1.0), "seconds"),
                            (lambda e: e.rise_time_below(-0.1), "seconds"),
                            (lambda e: e.overshoot_below(-0.05), "fraction"),
                            (lambda e: e.steady_state_error_below(-1e-3), "tolerance")):
        with pytest.raises(ConfigError) as ei:
            call(expect(res, "arm.angle", 1.0))
        assert ei.value.parameter == parameter
