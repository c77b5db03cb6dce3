"""SysId both ways: mechanisms built from gains obey SysId's model; the routine, its WPILOG and the fit."""
import math

import numpy as np
import pytest

import simcore
import simcore.models as models
import simcore.sysid as sysid
from simcore import ConfigError, Result
from simcore.models.motors import KRAKEN_X60, NEO

# ---------------------------------------------------------------------------------------------
# from_sysid: the model each constructor builds is SysId's V = kS sgn(v) + kV v + kA a (+ kG ...)
# ---------------------------------------------------------------------------------------------
KS, KV, KA = 0.2, 0.12, 0.01


def _step(system, volts, t_end, **kw):
    hold = simcore.PeriodicController(1.0, lambda t, s: {f"{system.name}.voltage": volts}, name="hold")
    return simcore.simulate(system, t_end, [hold], rtol=1e-10, atol=1e-12, **kw)


@pytest.mark.parametrize("motor", [None, KRAKEN_X60])
def test_flywheel_from_sysid_follows_the_first_order_law(motor):
    kw = {} if motor is None else {"motor": motor, "gearing": 2.0}
    fw = models.Flywheel.from_sysid(KS, KV, KA, **kw)
    r = _step(fw, 6.0, 0.5)
    tau, w_inf = KA / KV, (6.0 - KS) / KV
    t = r.t[r.t > 0.01]
    np.testing.assert_allclose(r.sample("flywheel.velocity", t), w_inf * (1 - np.exp(-t / tau)), rtol=1e-6)
    if motor is not None:  # a real motor's current: (V - k w / Kv) / R
        i = (r["flywheel.applied_voltage"] - 2.0 * r["flywheel.velocity"] / motor.Kv) / motor.R
        np.testing.assert_allclose(r["flywheel.stator_current"], i, rtol=1e-9)


def test_flywheel_below_kS_stays_put_and_arm_and_elevator_hold_against_gravity():
    assert _step(models.Flywheel.from_sysid(KS, KV, KA), 0.9 * KS, 0.2).final("flywheel.velocity") == 0.0
    arm = models.Arm.from_sysid(0.3, 0.8, 1.5, 0.05, min_angle=-1.5, max_angle=1.5, start_angle=0.6)
    hold = 0.8 * math.cos(0.6)  # kG cos(angle): inside the stiction band [hold - kS, hold + kS] it rests
    assert _step(arm, hold + 0.25, 0.3).final("arm.velocity") == 0.0
    assert _step(arm, hold - 0.25, 0.3).final("arm.velocity") == 0.0
    r = _step(arm, hold + 0.35, 0.002)  # past breakaway, at rest: a = (V - kG cos - kS) / kA
    np.testing.assert_allclose(r["arm.acceleration"][1], (0.35 - 0.3) / 0.05, rtol=1e-9)
    el = models.Elevator.from_sysid(0.25, 0.6, 8.0, 0.3, min_height=0, max_height=1.5, start_height=0.5)
    r = _step(el, 6.0, 1.0)  # steady climb: v = (V - kG - kS) / kV
    np.testing.assert_allclose(r.final("elevator.velocity"), (6.0 - 0.6 - 0.25) / 8.0, rtol=1e-9)


def test_tank_drive_from_sysid_drives_at_the_fitted_speed_and_turns_about_its_centre():
    drive = models.TankDrive.from_sysid(0.5, 2.5, 0.4, track_width=0.6)
    both = simcore.PeriodicController(1.0, lambda t, s: {"drive.left_voltage": 6.0, "drive.right_voltage": 6.0})
    r = simcore.simulate(drive, 3.0, [both])
    np.testing.assert_allclose(r.final("drive.velocity"), (6.0 - 0.5) / 2.5, rtol=1e-6)
    spin = simcore.PeriodicController(1.0, lambda t, s: {"drive.left_voltage": -6.0, "drive.right_voltage": 6.0})
    r = simcore.simulate(drive, 3.0, [spin])
    np.testing.assert_allclose(r.final("drive.yaw_rate"), 2 * (6.0 - 0.5) / 2.5 / 0.6, rtol=1e-6)
    assert abs(r.final("drive.x")) < 1e-12


def _tank_run(drive, left, right, t_end, command="voltage"):
    c = simcore.PeriodicController(0.001, lambda t, s: {f"drive.left_{command}": left(t),
                                                         f"drive.right_{command}": right(t)})
    return simcore.simulate(drive, t_end, [c], rtol=1e-10, atol=1e-12)


def test_tank_drive_from_sysid_coasts_and_brakes_by_sysids_law():
    """SysId's V = kS sgn(v) + kV v + kA a on each side: at 0 V a side decelerates at (kS + kV v)/kA,
    v(t) = (v0 + kS/kV) e^(-t/tau) - kS/kV, and stops at tau ln(1 + kV v0/kS); braking at -3 V the same with
    V - kS sgn(v) in place of -kS."""
    ks, kv, ka = 0.5, 2.5, 0.4
    tau = ka / kv
    drive = models.TankDrive.from_sysid(ks, kv, ka, track_width=0.6)
    six_then = lambda after: (lambda t: 6.0 if t < 2.0 else after)  # noqa: E731
    for after in (0.0, -3.0):
        r = _tank_run(drive, six_then(after), six_then(after), 4.0)
        v_inf = (6.0 - ks) / kv
        v0 = v_inf * (1.0 - math.exp(-2.0 / tau))  # the step response at t = 2 s
        assert r.sample("drive.velocity", [2.0])[0] == pytest.approx(v0, rel=1e-7)
        drag = (ks - after) / kv  # the speed offset that decays: kS and the braking voltage both oppose v
        t_stop = 2.0 + tau * math.log(1.0 + v0 / drag)
        rows = (r.t > 2.0) & (r.t < t_stop)  # recorded rows (no interpolation)
        tt = r.t[rows]
        np.testing.assert_allclose(r["drive.left_velocity"][rows], (v0 + drag) * np.exp(-(tt - 2.0) / tau) - drag,
                                   rtol=1e-6, atol=1e-8)
        v1 = r["drive.left_velocity"][rows]
        np.testing.assert_allclose(r["drive.left_acceleration"][rows], (after - ks - kv * v1) / ka, rtol=1e-12)
        stops = [e.t for e in r.events if e.name == "left_velocity_zero"]
        assert stops and stops[0] == pytest.approx(t_stop, abs=1e-9)
        if after == 0.0:  # at rest under 0 V static friction holds it
            assert r.final("drive.left_velocity") == 0.0 and r.final("drive.right_velocity") == 0.0
        else:  # -3 V exceeds kS: after stopping it drives backwards towards (-3 + kS)/kV
            assert r.final("drive.left_velocity") == pytest.approx((after + ks) / kv, rel=1e-3)


def test_tank_drive_from_sysid_holds_below_ks_and_takes_a_duty_command():
    ks, kv, ka = 0.5, 2.5, 0.4
    drive = models.TankDrive.from_sysid(ks, kv, ka, track_width=0.6)
    r = _tank_run(drive, lambda t: 0.9 * ks, lambda t: -0.9 * ks, 1.0)
    assert r.final("drive.x") == 0.0 and r.final("drive.heading") == 0.0
    duty = models.TankDrive.from_sysid(ks, kv, ka, track_width=0.6, command="duty")
    assert "left_duty" in duty.input_names and "left_voltage" not in duty.input_names
    r = _tank_run(duty, lambda t: 0.5, lambda t: 0.5, 3.0, command="duty")
    v_inf = (0.5 * 12.0 - ks) / kv
    assert r.final("drive.velocity") == pytest.approx(v_inf * (1 - math.exp(-3.0 * kv / ka)), rel=1e-7)
    assert r.final("drive.left_applied_voltage") == 6.0


def test_from_sysid_refuses_gains_no_mechanism_has():
    with pytest.raises(ConfigError, match="back-EMF"):
        models.Flywheel.from_sysid(KS, 0.001, KA, motor=NEO, gearing=1.0)  # below the NEO's own back-EMF gain
    with pytest.raises(ConfigError, match="at most g"):
        models.Elevator.from_sysid(0.1, 5.0, 8.0, 0.3, min_height=0, max_height=1)
    with pytest.raises(ConfigError, match="efficiency"):
        models.Flywheel.from_sysid(KS, KV, KA, efficiency=0.9)
    with pytest.raises(ConfigError, match="kv"):
        models.Flywheel.from_sysid(KS, -1.0, KA)
    with pytest.raises(TypeError, match="static_friction"):
        models.Arm.from_sysid(0.1, 0.5, 1.0, 0.05, min_angle=-1, max_angle=1, static_friction=0.2)


@pytest.mark.parametrize("kw, error, words", [
    ({"gearing": 0}, ConfigError, "gearing=0"), ({"gearing": -2.0}, ConfigError, "gearing=-2"),
    ({"motor": "NEO"}, TypeError, "motor='NEO'"), ({"n_motors": 0}, ConfigError, "n_motors=0"),
    ({"gearng": 2.0}, TypeError, r"Flywheel.from_sysid\(\) keyword='gearng'.*did you mean 'gearing'"),
])
def test_from_sysid_names_what_the_user_passed(kw, error, words):
    with pytest.raises(error, match=words):
        models.Flywheel.from_sysid(KS, KV, KA, **kw)
    with pytest.raises(error, match=words.replace("Flywheel", "Arm")):
        models.Arm.from_sysid(0.1, 0.5, 1.0, 0.05, min_angle=-1, max_angle=1, **kw)


# ---------------------------------------------------------------------------------------------
# the routine, its log and the fit
# ---------------------------------------------------------------------------------------------
CASES = {
    "flywheel": (lambda: sysid.flywheel(KS, KV, KA), {"quasistatic_time": 8.0, "dynamic_time": 1.5},
                 {"ks": KS, "kv": KV, "ka": KA}),
    "arm": (lambda: sysid.arm(0.3, 0.8, 1.5, 0.08, min_angle=-1.5, max_angle=1.5),
            {"quasistatic_time": 6.0, "dynamic_time": 1.0}, {"ks": 0.3, "kv": 1.5, "ka": 0.08, "kg": 0.8}),
    "elevator": (lambda: sysid.elevator(0.25, 0.6, 8.0, 0.3, min_height=0, max_height=1.5, start_height=0.75),
                 {"quasistatic_time": 6.0, "dynamic_time": 1.0}, {"ks": 0.25, "kv": 8.0, "ka": 0.3, "kg": 0.6}),
}


@pytest.fixture(scope="module")
def runs():
    return {name: sysid.run(make(), **kw) for name, (make, kw, _) in CASES.items()}


def test_the_routine_ramps_and_steps_forward_and_reverse_as_sysidroutine(runs):
    r = runs["flywheel"]
    code, V, t = r["sysid.state"], r["flywheel.voltage"], r.t
    for k, name in enumerate(sysid.TESTS, start=1):
        on = code == k
        assert on.any(), name
        tt = t[on] - t[on][0]
        sign = 1.0 if name.endswith("forward") else -1.0
        expected = sign * 1.0 * tt if name.startswith("quasistatic") else np.full(tt.size, sign * 7.0)
        np.testing.assert_allclose(V[on], expected, atol=1e-12)
    assert np.all(np.diff(t) > 0) and np.allclose(np.diff(t), 0.005)
    assert (code == 0).sum() == 4 and code[-1] == 0  # one "none" sample after each test
    # the arm's tests end at the soft limits (5 % of the range inside the stops), so it never reaches a stop
    arm = runs["arm"]
    x, V, code = arm["arm.position"], arm["arm.voltage"], arm["sysid.state"]
    forward, reverse = np.isin(code, (1, 3)), np.isin(code, (2, 4))
    assert x[forward].max() < 1.35 <= x.max() and x[reverse].min() > -1.35 >= x.min()
    assert -1.5 < x.min() and x.max() < 1.5


@pytest.mark.parametrize("name", list(CASES))
def test_fit_of_the_routine_log_recovers_the_gains_to_one_percent(runs, name, tmp_path):
    pytest.importorskip("wpiutil.log")
    r = runs[name]
    path = tmp_path / f"{name}.wpilog"
    sysid.write_log(r, path)
    for source in (r, path):
        f = sysid.fit(source, analysis=None if source is r else sysid._analysis_of(CASES[name][0]()))
        for gain, value in CASES[name][2].items():
            assert getattr(f, gain) == pytest.approx(value, rel=0.01), (gain, str(f))
        assert f.r_squared > 0.999


def test_the_log_has_sysidroutinelog_layout(runs, tmp_path):
    wpilog = pytest.importorskip("wpiutil.log")
    r = runs["arm"]
    path = tmp_path / "arm.wpilog"
    sysid.write_log(r, path)
    entries, ids, values = {}, {}, {}
    for rec in wpilog.DataLogReader(str(path)):
        if rec.isStart():
            d = rec.getStartData()
            ids[d.entry] = d.name
            entries[d.name] = (d.type, d.metadata)
            values[d.name] = []
        elif not rec.isControl():
            name = ids[rec.getEntry()]
            values[name].append(rec.getString() if entries[name][0] == "string" else rec.getDouble())
    assert entries == {"sysid-test-state-arm": ("string", ""), "voltage-arm-arm": ("double", "Volt"),
                       "position-arm-arm": ("double", "Rotation"),
                       "velocity-arm-arm": ("double", "Rotation per Second")}
    assert set(values["sysid-test-state-arm"]) == {"none", *sysid.TESTS}
    np.testing.assert_allclose(values["position-arm-arm"], r["arm.position"] / (2 * math.pi), rtol=1e-15)


@pytest.mark.parametrize("name", list(CASES))
def test_with_velocity_noise_the_errors_are_within_the_reported_uncertainty(runs, name):
    """Noise on the logged velocity (1 % of the top speed) and position: over 30 noisy copies of one run,
    each gain's error divided by its reported standard error must look like a standard normal draw
    (its root mean square within [0.6, 1.5], none beyond 4), and the reported errors must be small
    enough to matter (each under 5 % of its gain)."""
    r = runs[name]
    true = CASES[name][2]
    m = r.stats["sysid"]["motors"][0]
    vmax = np.abs(r[f"{m}.velocity"]).max()
    rng = np.random.default_rng(2026)
    z = {g: [] for g in true}
    for _ in range(30):
        data = {n: r[n].copy() for n in r.names}
        data[f"{m}.velocity"] += rng.normal(0.0, 0.01 * vmax, r.t.size)
        data[f"{m}.position"] += rng.normal(0.0, 1e-3, r.t.size)
        f = sysid.fit(Result(r.t, data, units=r.units, stats=r.stats))
        assert f.velocity_noise == pytest.approx(0.01 * vmax, rel=0.1)
        for g, value in true.items():
            std = getattr(f, f"{g}_std")
            assert 0 < std < 0.05 * value, (g, std)
            z[g].append((getattr(f, g) - value) / std)
    for g, zs in z.items():
        zs = np.array(zs)
        assert 0.6 < np.sqrt(np.mean(zs ** 2)) < 1.5, (g, zs)
        assert np.abs(zs).max() < 4.0, (g, zs)


def test_fit_and_run_name_what_is_wrong(runs, tmp_path):
    with pytest.raises(ConfigError, match="tests"):
        sysid.run(sysid.flywheel(KS, KV, KA), tests=["sideways"])
    with pytest.raises(ConfigError, match="analysis"):
        sysid.fit(runs["flywheel"], analysis="pendulum")
    with pytest.raises(ConfigError, match="sysid.run"):
        sysid.fit(Result([0.0, 1.0], {"a.x": [0.0, 1.0]}))
    with pytest.raises(ConfigError, match="motor"):
        sysid.fit(runs["flywheel"], motor="left")


@pytest.mark.parametrize("kw, parameter", [
    ({"tests": []}, "tests"), ({"tests": 3}, "tests"),
    ({"ramp_rate": 0.0}, "ramp_rate"), ({"ramp_rate": -1.0}, "ramp_rate"), ({"ramp_rate": math.nan}, "ramp_rate"),
    ({"step_voltage": -7.0}, "step_voltage"), ({"step_voltage": math.inf}, "step_voltage"),
    ({"period": 0.0}, "period"), ({"period": math.nan}, "period"), ({"quasistatic_time": math.nan}, "quasistatic_time"),
    ({"limits": (math.nan, 1.0)}, r"limits\[0\]"), ({"limits": (1.0, -1.0)}, "limits"),
    ({"limit_margin": 0.6}, "limit_margin"), ({"limit_margin": math.nan}, "limit_margin"),
    ({"limit_margin": -0.1}, "limit_margin"),
])
def test_run_refuses_settings_that_would_corrupt_the_identification(kw, parameter):
    arm = sysid.arm(0.3, 0.8, 1.5, 0.08, min_angle=-1.5, max_angle=1.5)
    with pytest.raises((ConfigError, TypeError), match=parameter):
        sysid.run(arm, **kw)


def test_a_step_above_the_bus_logs_the_applied_voltage_and_the_fit_still_recovers_the_gains():
    """A 16 V step on the ideal 12 V bus: the mechanism gets 12 V, the log says 12 V, and the fit, which
    assumed the logged voltage, recovers the model's gains (a log of the 16 V request gave kS = -0.9 V)."""
    r = sysid.run(sysid.flywheel(KS, KV, KA), step_voltage=16.0, quasistatic_time=8.0, dynamic_time=1.5)
    code, V = r["sysid.state"], r["flywheel.voltage"]
    np.testing.assert_array_equal(V[code == 3], 12.0)
    np.testing.assert_array_equal(V[code == 4], -12.0)
    f = sysid.fit(r)
    for gain, value in {"ks": KS, "kv": KV, "ka": KA}.items():
        assert getattr(f, gain) == pytest.approx(value, rel=0.01), (gain, str(f))
