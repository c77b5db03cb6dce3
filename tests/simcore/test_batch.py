"""simulate_batch: every variant of a batch equals its own serial simulate (issue 13, Done means 1 and 4).

The references are independent runs of the serial engine (``simulate(..., method="RK45")``)
on model objects built with each variant's parameters; the batch never sees them.
"""
import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, PeriodicController, System, simulate, simulate_batch, sweep
from simcore.batch import elementwise
from simcore.controllers import ArmFeedforward, PIDController, ProfiledPIDController, control_loop
from simcore.models.ftc_motor_types import REV_HD_HEX_20
from simcore.models.motors import NEO, VEX_775PRO

N = 200
ARM_T, ELEV_T = 1.0, 0.6
ARM_SIGNALS = ("arm.angle", "arm.velocity", "arm.voltage", "arm.stator_current", "arm.acceleration")
ELEV_SIGNALS = ("elevator.position", "elevator.velocity", "elevator.voltage", "elevator.stator_current",
                "elevator.supply_current", "elevator.bus_voltage", "battery.voltage", "battery.current")


def arm_parts(mass=6.0, gearing=200.0, kp=40.0, kd=2.0):
    arm = models.Arm(VEX_775PRO, gearing, mass=mass, com_distance=0.381, moi=1.16, min_angle=-0.3,
                     max_angle=1.3, n_motors=2)
    loop = control_loop(PIDController(kp, 0.0, kd, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.2, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def elevator_parts(carriage_mass=6.0, gearing=10.0, resistance=0.02, kp=60.0, kd=2.0, setpoint=1.0):
    elevator = models.Elevator(NEO, gearing, carriage_mass=carriage_mass, drum_radius=0.05, min_height=0.0,
                               max_height=1.2, static_friction=2.0, viscous_friction=0.5)
    battery = models.Battery(resistance=resistance)
    loop = control_loop(PIDController(kp, 0.0, kd, period=0.02), measure="elevator.position",
                        command="elevator.voltage", setpoint=setpoint, output_limits=(-12.0, 12.0), name="pid")
    return [elevator, battery], loop


@pytest.fixture(scope="module")
def arm_runs():
    rng = np.random.default_rng(13)
    p = {"mass": rng.uniform(2.0, 10.0, N), "gearing": rng.uniform(120.0, 260.0, N),
         "kp": rng.uniform(10.0, 120.0, N), "kd": rng.uniform(0.0, 6.0, N)}
    arm, loop = arm_parts()
    batch = simulate_batch(arm, ARM_T, [loop], params={"arm.mass": p["mass"], "arm.gearing": p["gearing"],
                                                       "pid.kp": p["kp"], "pid.kd": p["kd"]})
    serial = []
    for k in range(N):
        a, lp = arm_parts(p["mass"][k], p["gearing"][k], p["kp"][k], p["kd"][k])
        serial.append(simulate(a, ARM_T, [lp], method="RK45"))
    return batch, serial


@pytest.fixture(scope="module")
def elevator_runs():
    rng = np.random.default_rng(31)
    p = {"carriage_mass": rng.uniform(3.0, 12.0, N), "gearing": rng.uniform(8.0, 14.0, N),
         "resistance": rng.uniform(0.01, 0.06, N), "kp": rng.uniform(20.0, 150.0, N),
         "kd": rng.uniform(0.0, 4.0, N), "setpoint": rng.uniform(0.3, 1.4, N)}
    systems, loop = elevator_parts()
    batch = simulate_batch(systems, ELEV_T, [loop], params={
        "elevator.carriage_mass": p["carriage_mass"], "elevator.gearing": p["gearing"],
        "battery.resistance": p["resistance"], "pid.kp": p["kp"], "pid.kd": p["kd"], "pid.setpoint": p["setpoint"]})
    serial = []
    for k in range(N):
        s, lp = elevator_parts(**{key: v[k] for key, v in p.items()})
        serial.append(simulate(s, ELEV_T, [lp], method="RK45"))
    return batch, serial


def check_against_serial(batch, serial, signals):
    ticks = serial[0].ticks("pid")
    np.testing.assert_array_equal(batch.tick_times("pid"), ticks)
    for name in signals:
        got = batch.at_ticks(name, "pid")
        assert got.shape == (N, len(ticks))
        ref = np.stack([r.sample(name, ticks) for r in serial])
        # Relative to the value; a signal crossing zero is compared against 1e-3 of its range there
        # (an absolute floor of 1e-10 x range, the order of the integrator's atol).
        scale = np.maximum(np.abs(ref), 1e-3 * np.max(np.abs(ref)))
        worst = np.max(np.abs(got - ref) / scale)
        assert worst <= 1e-7, f"{name}: worst relative difference {worst:.3g}"
        np.testing.assert_allclose(batch.final(name), [r.final(name) for r in serial], rtol=1e-7,
                                   atol=1e-6 * np.max(np.abs(ref)))


def check_steps(batch, serial):
    # Each variant's own step control takes the steps its serial run takes (a rare flip of an
    # error test at round-off may add or remove one).
    same = np.array([batch[k].stats["n_steps"] == r.stats["n_steps"] for k, r in enumerate(serial)])
    assert same.mean() >= 0.95


def check_events(batch, serial):
    n_hit = 0
    for k, r in enumerate(serial):
        mine = batch[k].events
        assert [(e.name, e.mode_after) for e in mine] == [(e.name, e.mode_after) for e in r.events], k
        for a, b in zip(mine, r.events):
            assert abs(a.t - b.t) <= 1e-9, (k, a, b)
        n_hit += any(e.name.endswith("_stop") and not e.name.startswith("leave") for e in r.events)
    return n_hit


def test_arm_variants_equal_their_own_serial_runs_at_every_tick(arm_runs):
    batch, serial = arm_runs
    check_against_serial(batch, serial, ARM_SIGNALS)
    check_steps(batch, serial)


def test_arm_stop_impacts_at_the_serial_instants(arm_runs):
    batch, serial = arm_runs
    n_hit = check_events(batch, serial)
    assert 0 < n_hit < N  # some variants hit a stop, some do not
    np.testing.assert_array_equal(batch.event_counts("upper_stop"),
                                  [sum(e.name == "upper_stop" for e in r.events) for r in serial])


def test_elevator_on_a_battery_variants_equal_their_serial_runs(elevator_runs):
    batch, serial = elevator_runs
    check_against_serial(batch, serial, ELEV_SIGNALS)
    check_steps(batch, serial)
    n_hit = check_events(batch, serial)
    assert 0 < n_hit < N
    assert any(e.name == "velocity_zero" for r in serial for e in r.events)  # friction modes exercised too


def test_a_variant_as_a_full_result(arm_runs):
    batch, serial = arm_runs
    k = int(np.argmax([len(r.events) for r in serial]))
    mine, ref = batch[k], serial[k]
    assert len(mine.t) == len(ref.t)
    np.testing.assert_allclose(mine.t, ref.t, rtol=0, atol=1e-6)  # step instants: round-off in the error norms
    assert mine.modes["arm"] == ref.modes["arm"]
    assert mine.ticks("pid").tolist() == ref.ticks("pid").tolist()
    np.testing.assert_allclose([w["arm.voltage"] for _, w in mine.tick_log("pid")],
                               [w["arm.voltage"] for _, w in ref.tick_log("pid")], rtol=1e-7, atol=1e-9)
    for name in ("arm.angle", "arm.stator_current"):
        np.testing.assert_allclose(mine.sample(name, ref.ticks("pid")), ref.sample(name, ref.ticks("pid")),
                                   rtol=1e-7, atol=1e-9)
    assert mine.stats["n_steps"] == ref.stats["n_steps"]


def test_one_variant_batch_matches_simulate():
    arm, loop = arm_parts()
    batch = simulate_batch(arm, 0.5, [loop], params={"pid.kp": [40.0]})
    ref = simulate(arm, 0.5, [loop], method="RK45")
    np.testing.assert_allclose(batch.at_ticks("arm.angle", "pid")[0], ref.sample("arm.angle", ref.ticks("pid")),
                               rtol=1e-12, atol=1e-14)


def test_feedforward_gains_and_elementwise_controllers_batch():
    kg = np.array([0.0, 0.5, 1.0])
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.9)
    loop = control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=0.8, feedforward=ArmFeedforward(0.0, 0.3, 0.0), name="pid")
    batch = simulate_batch(arm, 0.4, [loop], params={"pid.kg": kg})
    for k, g in enumerate(kg):
        ref_loop = control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle",
                                command="arm.voltage", setpoint=0.8, feedforward=ArmFeedforward(0.0, g, 0.0))
        ref = simulate(arm, 0.4, [ref_loop], method="RK45")
        np.testing.assert_allclose(batch.at_ticks("arm.voltage", "pid")[k], ref.sample("arm.voltage", ref.ticks(
            ref_loop.name)), rtol=1e-9)
    # a PeriodicController written element-wise may batch once marked so
    fixed = elementwise(PeriodicController(0.02, lambda t, s: {"arm.voltage": 2.0 + 0.0 * s["arm.angle"]},
                                           name="open"))
    b = simulate_batch(arm, 0.2, [fixed], params={"arm.mass": [3.0, 5.0]})
    assert b.final("arm.angle")[0] > b.final("arm.angle")[1]


def test_parts_that_cannot_batch_raise_naming_themselves():
    arm, loop = arm_parts()

    class Custom(System):
        def __init__(self):
            super().__init__("custom", ["x"])

    with pytest.raises(ConfigError, match="custom"):
        simulate_batch(Custom(), 1.0, params={"custom.k": [1.0]})
    plain = PeriodicController(0.02, lambda t, s: {"arm.voltage": 1.0}, name="plain_loop")
    with pytest.raises(ConfigError, match="plain_loop"):
        simulate_batch(arm, 1.0, [plain], params={"arm.mass": [1.0, 2.0]})
    profiled = control_loop(ProfiledPIDController(1.0, 0.0, 0.0, 1.0, 1.0, period=0.02),
                            measure="arm.angle", command="arm.voltage", name="profiled")
    with pytest.raises(ConfigError, match="profiled"):
        simulate_batch(arm, 1.0, [profiled], params={"arm.mass": [1.0, 2.0]})
    hub = models.HubMotor(REV_HD_HEX_20, name="hub")
    with pytest.raises(ConfigError, match=r"params\['hub.gearing'\].*HubMotor 'hub' batches with its controllers'"):
        simulate_batch(hub, 1.0, params={"hub.gearing": [1.0]})


def test_bad_params_raise_config_error_naming_them():
    arm, loop = arm_parts()
    with pytest.raises(ConfigError, match=r"params\['pid.kd'\]"):
        simulate_batch(arm, 1.0, [loop], params={"pid.kp": [1.0, 2.0], "pid.kd": [1.0, 2.0, 3.0]})
    with pytest.raises(ConfigError, match=r"params\['arm.mas'\]"):
        simulate_batch(arm, 1.0, [loop], params={"arm.mas": [1.0, 2.0]})
    with pytest.raises(ConfigError, match=r"params\['pid.kpp'\]"):
        simulate_batch(arm, 1.0, [loop], params={"pid.kpp": [1.0, 2.0]})
    with pytest.raises(ConfigError, match=r"params\['armm.mass'\]"):
        simulate_batch(arm, 1.0, [loop], params={"armm.mass": [1.0, 2.0]})
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]"):
        simulate_batch(arm, 1.0, [loop], params={"arm.mass": [1.0, -2.0]})
    with pytest.raises(ConfigError, match=r"params\['pid.kp'\]"):
        simulate_batch(arm, 1.0, [loop], params={"pid.kp": [[1.0, 2.0]]})
    with pytest.raises(ConfigError, match="kp"):
        simulate_batch(arm, 1.0, [loop], params={"pid.kp": [1.0, -2.0]})
    with pytest.raises(ConfigError, match="params"):
        simulate_batch(arm, 1.0, [loop], params={})


def test_step_info_and_metrics_vectorized_over_the_variants(arm_runs):
    from simcore.testing import current_stats, energy, expect, step_info

    batch, serial = arm_runs
    info = step_info(batch, "arm.angle", 1.2)
    hit = np.array([bool(r.events) for r in serial])
    for field in ("rise_time", "settling_time", "overshoot", "peak", "steady_state_error", "iae", "ise", "itae",
                  "peak_time"):
        got = getattr(info, field)
        ref = np.array([getattr(step_info(r, "arm.angle", 1.2), field) for r in serial])
        if field == "peak_time":  # resting on a stop ties the maximum at many rows: compare the free ones
            got, ref = got[~hit], ref[~hit]
        assert got.shape == ref.shape
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref))
        fin = np.isfinite(ref)
        np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-6, atol=1e-9, err_msg=field)
    late = step_info(batch, "arm.angle", 1.2, t_start=0.3)
    np.testing.assert_allclose(late.iae, [step_info(r, "arm.angle", 1.2, t_start=0.3).iae for r in serial],
                               rtol=1e-6)
    stats = current_stats(batch, "arm.stator_current")
    np.testing.assert_allclose(stats.rms, [current_stats(r, "arm.stator_current").rms for r in serial], rtol=1e-6)
    np.testing.assert_allclose(energy(batch, "arm.applied_voltage", "arm.stator_current"),
                               [energy(r, "arm.applied_voltage", "arm.stator_current") for r in serial], rtol=1e-6)
    slow = info.settling_time > 0.3
    assert 0 < slow.sum() < N
    with pytest.raises(AssertionError, match=f"{slow.sum()} of {N} variants fail to settle within 0.3 s"):
        expect(batch, "arm.angle", 1.2).settles_within(0.3)
    expect(batch, "arm.angle", 1.2).overshoot_below(float(np.max(info.overshoot)))  # every variant passes


def test_a_variant_does_not_depend_on_the_batch_it_shares():
    # Chunks of a sweep run in different batches: each variant's result is bit-identical in any of them.
    # (300 variants take the kernel's many-column paths, 2 its few-column ones)
    rng = np.random.default_rng(5)
    p = {"arm.mass": rng.uniform(2.0, 10.0, 300), "pid.kp": rng.uniform(10.0, 120.0, 300)}
    arm, loop = arm_parts()
    whole = simulate_batch(arm, 0.3, [loop], params=p)
    part = simulate_batch(arm, 0.3, [loop], params={k: v[3:5] for k, v in p.items()})
    np.testing.assert_array_equal(part.at_ticks("arm.angle", "pid"), whole.at_ticks("arm.angle", "pid")[3:5])
    np.testing.assert_array_equal(part.final("arm.stator_current"), whole.final("arm.stator_current")[3:5])


def test_contract_of_simulate_batch_and_batch_result():
    import inspect

    from simcore import BatchResult

    sig = inspect.signature(simulate_batch).parameters
    assert list(sig)[:3] == ["systems", "t_end", "controllers"]
    assert {k: sig[k].default for k in ("t0", "x0", "inputs", "rtol", "atol")} == {
        "t0": 0.0, "x0": None, "inputs": None, "rtol": 1e-8, "atol": 1e-10}
    assert sig["params"].kind is inspect.Parameter.KEYWORD_ONLY
    for m in ("tick_times", "at_ticks", "final", "__getitem__"):
        assert hasattr(BatchResult, m)
    assert "batch" in inspect.signature(sweep).parameters


def test_per_variant_initial_states_a_late_start_and_tick_rows_only():
    arm, loop = arm_parts()
    starts = np.array([0.0, 0.4, 1.0])
    batch = simulate_batch(arm, 1.3, [loop], params={"pid.kp": [40.0, 40.0, 40.0]}, t0=0.3,
                           x0={"arm.angle": starts}, record="ticks")
    for k, a0 in enumerate(starts):
        ref = simulate(arm, 1.3, [loop], t0=0.3, x0={"arm.angle": a0}, method="RK45")
        np.testing.assert_allclose(batch.at_ticks("arm.angle", "pid")[k], ref.sample("arm.angle", ref.ticks("pid")),
                                   rtol=1e-7, atol=1e-10)
        rows = batch[k]
        assert set(rows.t) <= set(ref.t) | set(e.t for e in rows.events)  # ticks and events only
        assert len(rows.t) < len(ref.t)


# -- the kernel's fast paths (batchperf): each checked against the form it replaces -----------------------
