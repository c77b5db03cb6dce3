"""Arm, elevator, flywheel and battery against independently derived physics (issue 3)."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import simcore.models as models
from simcore.controllers import PIDController, control_loop
from simcore.models.mechanism import BREAKAWAY_MARGIN
from simcore.models.motors import FALCON_500, KRAKEN_X60, NEO, VEX_775PRO
from simcore import ConfigError, PeriodicController, Q_, simulate

RPM = 2 * math.pi / 60


def datasheet(stall_torque, stall_current, free_current, free_rpm, n=1, V=12.0):
    """R, Kt, Kv of n motors computed straight from the datasheet (independent of simcore.models.motors)."""
    R = V / (stall_current * n)
    Kt = stall_torque / stall_current
    Kv = free_rpm * RPM / (V - R * free_current * n)
    return R, Kt, Kv


NEO_DS = (2.6, 105, 1.8, 5676)
FALCON_DS = (4.69, 257, 1.5, 6380)
PRO775_DS = (0.71, 134, 0.7, 18730)


def held(value_by_time, name):
    """A 10 ms controller writing ``value_by_time(t)`` to ``name``."""
    return PeriodicController(0.01, lambda t, s: {name: value_by_time(t)}, name="drive")


# -- 2. velocity dynamics equal WPILib's LinearSystemId A and B ---------------------------------------
@pytest.mark.parametrize("n", [1, 2])
def test_flywheel_and_arm_match_linear_system_id(n):
    R, Kt, Kv = datasheet(*NEO_DS, n=n)
    G, J = 5.0, 0.02
    A = -G * G * Kt / (Kv * R * J)
    B = G * Kt / (R * J)
    fw = models.Flywheel(NEO, G, J, n_motors=n, viscous_friction=0)
    arm = models.Arm(NEO, G, mass=1.0, com_distance=0.2, moi=J, min_angle=None, max_angle=None, gravity=False,
                     n_motors=n, viscous_friction=0)
    for sys_ in (fw, arm):
        for v, V in [(0.0, 12.0), (10.0, 6.0), (-30.0, -9.0), (50.0, 0.5)]:
            d = sys_.derivatives(0.0, np.array([0.3, v]), np.array([V, 1.0, 12.0]))
            assert d[0] == v
            assert d[1] == pytest.approx(A * v + B * V, rel=1e-12)


def test_elevator_matches_linear_system_id():
    R, Kt, Kv = datasheet(*FALCON_DS, n=2)
    G, r, m = 8.0, 0.025, 6.0
    A = -G * G * Kt / (R * r * r * m * Kv)
    B = G * Kt / (R * r * m)
    el = models.Elevator(FALCON_500, G, carriage_mass=m, drum_radius=r, min_height=0.0, max_height=2.0,
                         gravity=False, n_motors=2, viscous_friction=0)
    for v, V in [(0.0, 12.0), (0.4, 3.0), (-1.0, -12.0)]:
        d = el.derivatives(0.0, np.array([1.0, v]), np.array([V, 1.0, 12.0]))
        assert d[1] == pytest.approx(A * v + B * V, rel=1e-12)


def test_from_wpilib_constructors():
    # SingleJointedArmSim: alpha = -(3/2) g cos(theta) / L with g = 9.8, whatever J is.
    arm = models.Arm.from_wpilib(NEO, 100.0, 0.5, 0.7, -1.0, 2.0, True, 0.3)
    d = arm.derivatives(0.0, np.array([0.3, 0.0]), np.array([0.0, 0.0, 12.0]))
    assert d[1] == pytest.approx(-1.5 * 9.8 * math.cos(0.3) / 0.7, rel=1e-12)
    el = models.Elevator.from_wpilib(NEO, 10.0, 4.0, 0.02, 0.0, 1.5, True, 0.5)
    d = el.derivatives(0.0, np.array([0.5, 0.0]), np.array([0.0, 0.0, 12.0]))
    assert d[1] == pytest.approx(-9.8, rel=1e-12)
    assert el.start_position == 0.5 and el.max_position == 1.5


def test_tilted_gravity_direction():
    # Gravity along -x in the arm's plane: the torque is m g d sin(-pi - theta) = m g d sin(theta).
    arm = models.Arm(NEO, 50, mass=2.0, com_distance=0.25, moi=0.2, min_angle=None, max_angle=None,
                     gravity_direction=-math.pi, g=9.81)
    assert arm.gravity_torque(0.4) == pytest.approx(2.0 * 9.81 * 0.25 * math.sin(0.4), rel=1e-12)
    assert models.Arm.rod_moi(3.0, 0.6) == pytest.approx(3.0 * 0.36 / 3)


# -- 1. energy audit ------------------------------------------------------------------------------------
def _audit(r, name, ke, pe):
    e = {k: r.final(f"{name}.{k}") for k in ("energy_in", "copper_loss", "gear_loss", "friction_loss",
                                              "impact_loss", "conversion_loss")}
    rhs = ke + pe + e["copper_loss"] + e["gear_loss"] + e["friction_loss"] + e["impact_loss"] + \
        e["conversion_loss"]
    assert e["energy_in"] > 0
    assert abs(e["energy_in"] - rhs) <= 1e-6 * e["energy_in"], (e, ke, pe)
    return e


def test_energy_audit_closed_loop_arm_on_battery_with_stop_impact():
    m, d, J = 2.5, 0.3, 0.25
    arm = models.Arm(NEO, 60.0, mass=m, com_distance=d, moi=J, min_angle=-0.5, max_angle=1.0, start_angle=-0.5,
                     efficiency=0.85, viscous_friction=0.05, static_friction=0.4, track_energy=True,
                     stator_current_limit=50.0)
    loop = control_loop(PIDController(30.0, 5.0, 0.5), measure="arm.angle", command="arm.voltage",
                        setpoint=lambda t: 1.3 if t < 1.5 else 0.2, output_limits=(-12, 12))
    r = simulate([models.Battery(resistance=0.03), arm], 3.0, [loop], rtol=1e-10, atol=1e-12)
    assert "upper_stop" in [ev.name for ev in r.events]  # the setpoint lies beyond the stop
    q0, q1 = r["arm.angle"][0], r.final("arm.angle")
    ke = 0.5 * J * (r.final("arm.velocity") ** 2 - r["arm.velocity"][0] ** 2)
    pe = m * 9.80665 * d * (math.sin(q1) - math.sin(q0))
    e = _audit(r, "arm", ke, pe)
    assert e["impact_loss"] > 0 and e["gear_loss"] > 0 and e["friction_loss"] > 0


def test_energy_audit_closes_on_physical_losses_for_an_energy_consistent_motor():
    # A motor whose datasheet satisfies Kt * Kv = 1: stall 1.2 N*m at 100 A, 12 V, free 2 A.
    R, Kt = 12.0 / 100.0, 1.2 / 100.0
    w_free = (12.0 - R * 2.0) / Kt  # Kv = 1 / Kt
    motor = models.DCMotor(12.0, 1.2, 100.0, 2.0, w_free, "consistent")
    assert motor.Kt * motor.Kv == pytest.approx(1.0, rel=1e-14)
    m, d, J = 2.0, 0.25, 0.15
    arm = models.Arm(motor, 40.0, mass=m, com_distance=d, moi=J, min_angle=-1.0, max_angle=1.0, start_angle=-1.0,
                     efficiency=0.9, viscous_friction=0.02, static_friction=0.2, track_energy=True)
    r = simulate(arm, 2.0, [held(lambda t: 10.0 if t < 1.0 else -3.0, "arm.voltage")], rtol=1e-10, atol=1e-12)
    e = {k: r.final(f"arm.{k}") for k in ("energy_in", "copper_loss", "gear_loss", "friction_loss",
                                           "impact_loss", "conversion_loss")}
    assert abs(e["conversion_loss"]) <= 1e-9 * e["energy_in"]
    ke = 0.5 * J * r.final("arm.velocity") ** 2
    pe = m * 9.80665 * d * (math.sin(r.final("arm.angle")) - math.sin(-1.0))
    physical = ke + pe + e["copper_loss"] + e["gear_loss"] + e["friction_loss"] + e["impact_loss"]
    assert abs(e["energy_in"] - physical) <= 1e-6 * e["energy_in"]
    assert e["impact_loss"] > 0  # it reached the upper stop


def test_wpilib_motor_constants_are_not_energy_consistent():
    # Documented in models/mechanism.py: the NEO's datasheet gives Kt * Kv = 1.25.
    R, Kt, Kv = datasheet(*NEO_DS)
    assert Kt * Kv == pytest.approx(NEO.Kt * NEO.Kv) and Kt * Kv > 1.2


def test_energy_audit_elevator_with_spring_and_counterweight():
    mc, mw, F, rd = 6.0, 2.0, 15.0, 0.02
    el = models.Elevator(FALCON_500, 12.0, carriage_mass=mc, drum_radius=rd, min_height=0.0, max_height=1.2,
                         counterweight_mass=mw, constant_force=F, efficiency=0.9, viscous_friction=2.0,
                         static_friction=5.0, track_energy=True)
    drive = held(lambda t: 10.0 if t < 0.6 else (-4.0 if t < 1.2 else 2.0), "elevator.voltage")
    r = simulate(el, 2.0, [drive], rtol=1e-10, atol=1e-12)
    h0, h1 = r["elevator.position"][0], r.final("elevator.position")
    ke = 0.5 * (mc + mw) * r.final("elevator.velocity") ** 2
    pe = (mc - mw) * 9.80665 * (h1 - h0) - F * (h1 - h0)
    _audit(r, "elevator", ke, pe)


# -- 3. hard stop: located impact, resting at stall current, release at the reversing tick ------------------
def test_elevator_hits_upper_stop_at_located_time_rests_and_leaves_at_tick():
    R, Kt, Kv = datasheet(*FALCON_DS)
    G, r_d, m, top = 10.0, 0.02, 5.0, 1.0
    g = 9.80665

    def f(t, x):  # independent elevator at 12 V
        return [x[1], (G * Kt / (R * r_d) * (12.0 - G * x[1] / (Kv * r_d)) - m * g) / m]

    hit = lambda t, x: x[0] - top  # noqa: E731
    hit.terminal, hit.direction = True, 1
    ref = solve_ivp(f, (0, 5), [0.0, 0.0], events=hit, rtol=1e-13, atol=1e-14, method="DOP853")
    t_hit = ref.t_events[0][0]

    el = models.Elevator(FALCON_500, G, carriage_mass=m, drum_radius=r_d, min_height=0.0, max_height=top,
                         viscous_friction=0)
    res = simulate(el, 2.0, [held(lambda t: 12.0 if t < 1.5 else -12.0, "elevator.voltage")],
                   rtol=1e-10, atol=1e-12)
    ev = [e for e in res.events if e.name == "upper_stop"]
    assert len(ev) == 1
    assert ev[0].t == pytest.approx(t_hit, abs=1e-9)
    resting = (res.t > ev[0].t) & (res.t < 1.5)
    assert np.all(res["elevator.velocity"][resting] == 0.0)
    assert np.all(res["elevator.position"][resting] == top)
    np.testing.assert_allclose(res["elevator.stator_current"][resting], 12.0 / R, rtol=1e-12)
    leave = [e for e in res.events if e.name == "leave_upper_stop"]
    assert len(leave) == 1 and leave[0].t == 1.5 and leave[0].at_tick
    assert res.final("elevator.position") < top
    # Few solver steps while resting: the mode, not a clamp, holds it.
    rest_rows = np.count_nonzero(resting)
    assert rest_rows <= 3 * 50  # at most a few rows per 10 ms tick interval


def test_arm_resting_on_lower_stop_under_gravity():
    arm = models.Arm(NEO, 50.0, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.5, start_angle=-0.5,
                     neutral_mode="coast")
    r = simulate(arm, 1.0)
    assert set(r.modes["arm"]) == {"lower_stop"}
    assert np.all(r["arm.angle"] == -0.5) and np.all(r["arm.velocity"] == 0.0)


# -- 4. stiction ------------------------------------------------------------------------------------------
def _stiction_flywheel(**kw):
    return models.Flywheel(VEX_775PRO, 10.0, 0.01, static_friction=0.3, **kw)


def _breakaway_voltage():
    R, Kt, _ = datasheet(*PRO775_DS)
    return 0.3 * R / (Kt * 10.0)


def test_below_breakaway_nothing_moves():
    vb = _breakaway_voltage()
    r = simulate(_stiction_flywheel(), 1.0, [held(lambda t: 0.99 * vb, "flywheel.voltage")])
    assert np.all(r["flywheel.velocity"] == 0.0) and np.all(r["flywheel.angle"] == 0.0)
    assert set(r.modes["flywheel"][2:]) == {"stuck"}


def test_above_breakaway_motion_starts_at_the_tick():
    vb = _breakaway_voltage()
    r = simulate(_stiction_flywheel(), 1.0, [held(lambda t: 0.9 * vb if t < 0.5 else 1.1 * vb,
                                                  "flywheel.voltage")])
    ev = [e for e in r.events if e.name == "breakaway_forward"]
    assert len(ev) == 1 and ev[0].t == 0.5 and ev[0].at_tick
    assert np.all(r["flywheel.velocity"][r.t <= 0.5] == 0.0)
    assert np.all(r["flywheel.velocity"][r.t > 0.5] > 0.0)


def test_breakaway_located_between_ticks_as_the_bus_recovers():
    # A second flywheel's spin-up sags the bus; as its current falls the bus recovers and the
    # stuck flywheel's duty * V_bus crosses the breakaway voltage between ticks.
    vb = _breakaway_voltage()
    duty = 1.05 * vb / 12.0
    big = models.Flywheel(KRAKEN_X60, 1.0, 0.002, n_motors=2, name="big")
    small = _stiction_flywheel(command="duty")
    r = simulate([models.Battery(resistance=0.05), big, small], 1.0,
                 [PeriodicController(0.02, lambda t, s: {"big.voltage": 6.0, "flywheel.duty": duty}, name="d")],
                 rtol=1e-10, atol=1e-12)
    ev = [e for e in r.events if e.name == "breakaway_forward"]
    assert len(ev) == 1 and not ev[0].at_tick
    te = ev[0].t
    assert 0 < te < 1.0 and abs(te / 0.02 - round(te / 0.02)) > 1e-6  # not on a tick
    row = np.flatnonzero(r.t == te)[0]
    v_bus = r["battery.voltage"][row]
    # The guard's root: drive torque = breakaway torque, static friction plus the documented margin.
    R, Kt, _ = datasheet(*PRO775_DS)
    v_break = (0.3 * (1 + BREAKAWAY_MARGIN) + 1e-12) * R / (Kt * 10.0)
    assert duty * v_bus == pytest.approx(v_break, rel=1e-9)
    assert np.all(r["flywheel.velocity"][r.t < te] == 0.0)
    assert np.all(r["flywheel.velocity"][r.t > te + 1e-9] > 0.0)


def test_drive_converging_on_breakaway_comes_to_rest_without_event_chatter():
    # A P-only loop with a feedforward lowers the drive towards static friction from above: the
    # carriage creeps to a stop. It must stop once, not re-fire velocity-zero at round-off speeds.
    el = models.Elevator(KRAKEN_X60, 8.0, n_motors=2, carriage_mass=8.0, drum_radius=0.025, min_height=0.0,
                         max_height=1.2, static_friction=Q_(0.4, "V"))
    loop = control_loop(PIDController(120.0, 0.0, 0.0, period=0.02), measure="elevator.position",
                        command="elevator.voltage", setpoint=0.8, feedforward=lambda t, r, s: 0.2075,
                        output_limits=(-12, 12))
    r = simulate(el, 2.0, [loop])
    stops = [e for e in r.events if e.name == "velocity_zero"]
    assert len(stops) == 1 and stops[0].mode_after == "stuck"
    assert r.final("elevator.velocity") == 0.0


@pytest.mark.parametrize("reverse_factor, sticks", [(0.5, True), (2.0, False)])
def test_run_through_zero_speed_sticks_or_reverses(reverse_factor, sticks):
    R, Kt, Kv = datasheet(*PRO775_DS)
    G, J, Fs, w0 = 10.0, 0.01, 0.3, 40.0
    vb = Fs * R / (Kt * G)
    V = -reverse_factor * vb
    fw = models.Flywheel(VEX_775PRO, G, J, static_friction=Fs, start_velocity=w0, viscous_friction=0)
    release_at = 1.0
    r = simulate(fw, 1.5, [held(lambda t: V if t < release_at else 2.0 * vb, "flywheel.voltage")],
                 rtol=1e-11, atol=1e-12)
    # Forward sliding: J w' = G Kt (V - G w / Kv) / R - Fs  =>  w = w_inf + (w0 - w_inf) exp(-c t).
    a, c = G * Kt / (R * J), G * G * Kt / (R * Kv * J)
    w_inf = (a * V - Fs / J) / c
    t_zero = math.log((w0 - w_inf) / -w_inf) / c
    ev = r.events[0]
    assert ev.name == "velocity_zero" and ev.t == pytest.approx(t_zero, abs=1e-9)
    if sticks:
        assert ev.mode_after == "stuck"
        after_reset = np.flatnonzero(r.t == ev.t)[1]  # the row after the event's reset
        until = np.flatnonzero(r.t == release_at)[0]
        assert np.all(r["flywheel.velocity"][after_reset:until + 1] == 0.0)
        rel = [e for e in r.events if e.name == "breakaway_forward"]
        assert len(rel) == 1 and rel[0].t == release_at
        assert r.final("flywheel.velocity") > 0
    else:
        assert ev.mode_after == "reverse"
        w_inf2 = (a * V + Fs / J) / c  # now sliding backwards: friction pushes forward
        t = 0.9
        expect = w_inf2 * (1 - math.exp(-c * (t - t_zero)))
        assert r.sample("flywheel.velocity", [t])[0] == pytest.approx(expect, rel=1e-7)


# -- 5. battery -------------------------------------------------------------------------------------------
def test_two_mechanisms_on_one_battery_and_brownout():
    bat = models.Battery(resistance=0.02, brownout_voltage=6.8)
    fw = models.Flywheel(KRAKEN_X60, 1.0, 0.02, n_motors=2)
    el = models.Elevator(FALCON_500, 10.0, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0)
    r = simulate([bat, fw, el], 1.0, [PeriodicController(
        0.02, lambda t, s: {"flywheel.voltage": 12.0, "elevator.voltage": 12.0 if t < 0.5 else -6.0}, name="d")])
    total = r["flywheel.supply_current"] + r["elevator.supply_current"]
    np.testing.assert_allclose(r["battery.voltage"], 12.0 - 0.02 * total, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r["battery.current"], total, rtol=1e-12)
    np.testing.assert_array_equal(r["battery.brownout"], (r["battery.voltage"] < 6.8).astype(float))
    assert r["battery.brownout"].max() == 1.0 and r["battery.brownout"][-1] == 0.0
    # Every motor sees the same bus.
    np.testing.assert_allclose(r["flywheel.supply_voltage"], r["battery.voltage"], rtol=1e-15)


def test_supply_current_is_duty_times_stator_current():
    fw = models.Flywheel(NEO, 3.0, 0.01, command="duty")
    r = simulate([models.Battery(), fw], 0.5, [held(lambda t: 0.6, "flywheel.duty")])
    rows = r.t > 0
    np.testing.assert_allclose(r["flywheel.applied_voltage"][rows], 0.6 * r["battery.voltage"][rows], rtol=1e-12)
    np.testing.assert_allclose(r["flywheel.supply_current"][rows], 0.6 * r["flywheel.stator_current"][rows],
                               rtol=1e-12)


# -- 6. brake vs coast ------------------------------------------------------------------------------------
def test_brake_decelerates_faster_and_draws_back_emf_current():
    R, Kt, Kv = datasheet(*NEO_DS)
    runs = {}
    for mode in ("brake", "coast"):
        fw = models.Flywheel(NEO, 2.0, 0.01, neutral_mode=mode, viscous_friction=0.001, start_velocity=200.0)
        runs[mode] = simulate(fw, 1.0)
    b, c = runs["brake"], runs["coast"]
    assert b.final("flywheel.velocity") < 0.5 * c.final("flywheel.velocity")
    # Brake: windings shorted, I = -E / R with E = G w / Kv.
    np.testing.assert_allclose(b["flywheel.stator_current"], -2.0 * b["flywheel.velocity"] / Kv / R, rtol=1e-12)
    assert b["flywheel.stator_current"][0] < -10.0
    assert np.all(c["flywheel.stator_current"] == 0.0) and np.all(c["flywheel.supply_current"] == 0.0)
    # Coast decays by viscous friction alone: w = w0 exp(-b t / J).
    np.testing.assert_allclose(c["flywheel.velocity"], 200.0 * np.exp(-0.001 * c.t / 0.01), rtol=1e-7)


def test_coast_regenerates_only_when_back_emf_exceeds_bus():
    R, Kt, Kv = datasheet(*NEO_DS)
    # Spinning the rotor above free speed: E = 1.5 * 12 V > bus, the body diodes conduct.
    fw = models.Flywheel(NEO, 1.0, 0.01, neutral_mode="coast", start_velocity=1.5 * 12.0 * Kv)
    r = simulate(fw, 0.05)
    e0 = 1.5 * 12.0
    assert r["flywheel.stator_current"][0] == pytest.approx((12.0 - e0) / R, rel=1e-12)
    assert r["flywheel.supply_current"][0] < 0  # current flows back into the bus


# -- 7. current limits ----------------------------------------------------------------------------------------
def test_stator_current_limit_both_directions():
    drive = held(lambda t: 12.0 if t < 0.5 else -12.0, "flywheel.voltage")
    free = simulate(models.Flywheel(FALCON_500, 1.0, 0.05), 1.0, [drive])
    assert np.abs(free["flywheel.stator_current"]).max() > 100.0  # the limit matters
    lim = simulate(models.Flywheel(FALCON_500, 1.0, 0.05, stator_current_limit=40.0), 1.0, [drive])
    i = lim["flywheel.stator_current"]
    assert np.all(np.abs(i) <= 40.0 + 1e-6)
    assert i.max() == pytest.approx(40.0, abs=1e-9) and i.min() == pytest.approx(-40.0, abs=1e-9)
    assert lim["flywheel.current_limited"].max() == 1.0


def test_supply_current_limit():
    drive = held(lambda t: 12.0 if t < 0.5 else -12.0, "flywheel.voltage")
    lim = simulate(models.Flywheel(FALCON_500, 1.0, 0.05, supply_current_limit=30.0), 1.0, [drive])
    assert np.all(np.abs(lim["flywheel.supply_current"]) <= 30.0 + 1e-6)
    assert lim["flywheel.supply_current"].max() == pytest.approx(30.0, abs=1e-9)


def test_saturation_flag_when_command_exceeds_bus():
    r = simulate([models.Battery(), models.Flywheel(NEO, 2.0, 0.01)], 0.2,
                 [held(lambda t: 13.0, "flywheel.voltage")])
    rows = r.t > 0
    assert np.all(r["flywheel.saturated"][rows] == 1.0)
    np.testing.assert_allclose(r["flywheel.applied_voltage"][rows], r["battery.voltage"][rows], rtol=1e-15)


# -- 8. bad parameters ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, parameter", [
    (lambda: models.Arm(NEO, 50, mass=-1.0, com_distance=0.3, min_angle=0, max_angle=1), "mass"),
    (lambda: models.Arm(NEO, 50, mass=1.0, com_distance=0.3, min_angle=1.0, max_angle=1.0), "min_angle"),
    (lambda: models.Arm(NEO, 50, mass=1.0, com_distance=0.3, min_angle=0, max_angle=1, start_angle=2.0),
     "start_angle"),
    (lambda: models.Arm(NEO, 50, mass=1.0, com_distance=0.3, min_angle=0, max_angle=1, efficiency=1.2),
     "efficiency"),
    (lambda: models.Arm(NEO, 50, mass=1.0, com_distance=0.3, min_angle=0, max_angle=1, efficiency=0.0),
     "efficiency"),
    (lambda: models.Elevator(NEO, 10, carriage_mass=5, drum_radius=-0.02, min_height=0, max_height=1),
     "drum_radius"),
    (lambda: models.Elevator(NEO, 10, carriage_mass=-5, drum_radius=0.02, min_height=0, max_height=1),
     "carriage_mass"),
    (lambda: models.Elevator(NEO, 10, carriage_mass=5, drum_radius=0.02, min_height=1, max_height=0),
     "min_height"),
    (lambda: models.Elevator(NEO, 10, carriage_mass=5, drum_radius=0.02, min_height=0, max_height=1,
                             start_height=-0.1), "start_height"),
    (lambda: models.Flywheel(NEO, -2.0, 0.01), "gearing"),
    (lambda: models.Flywheel(NEO, 2.0, 0.01, neutral_mode="float"), "neutral_mode"),
    (lambda: models.Flywheel(NEO, 2.0, 0.01, stator_current_limit=0.0), "stator_current_limit"),
    (lambda: models.Battery(resistance=-0.01), "resistance"),
])
def test_bad_parameters_raise_config_error_naming_them(build, parameter):
    with pytest.raises(ConfigError) as ei:
        build()
    assert ei.value.parameter == parameter


def test_quantities_accepted_at_the_boundary():
    el = models.Elevator(NEO, 10, carriage_mass=Q_(11.0, "lb"), drum_radius=Q_(1.0, "inch"),
                         min_height=0.0, max_height=Q_(48, "inch"))
    assert el.carriage_mass == pytest.approx(11.0 * 0.45359237)
    assert el.drum_radius == pytest.approx(0.0254) and el.max_position == pytest.approx(48 * 0.0254)
    with pytest.raises(ConfigError, match="drum_radius"):
        models.Elevator(NEO, 10, carriage_mass=5.0, drum_radius=Q_(1.0, "kg"), min_height=0, max_height=1)


# -- found in the independent physics review ---------------------------------------------------------------
def _feasible(d, v, emf, vb):
    R = d.R
    i = (v - emf) / R
    ok_bus = -vb - 1e-9 <= v <= vb + 1e-9
    ok_stator = abs(i) <= d.stator_current_limit * (1 + 1e-9) + 1e-9
    ok_supply = abs(v * i / vb) <= d.supply_current_limit * (1 + 1e-9) + 1e-9
    return ok_bus, ok_stator, ok_supply


def test_limits_project_the_request_onto_the_allowed_voltages_regeneration_included():
    # Brute force: over a dense grid of terminal voltages, the allowed one nearest the request.
    rng = np.random.default_rng(7)
    d = models.MotorDrive(FALCON_500, 1.0, stator_current_limit=120.0, supply_current_limit=40.0)
    R, Kv = d.R, d.Kv
    for _ in range(2000):
        vb = rng.uniform(6.0, 13.0)
        emf = rng.uniform(-16.0, 16.0)
        v_req = rng.uniform(-14.0, 14.0)
        v, i, isup, sat, lim = d.electrical(emf * Kv, v_req, 1.0, vb)
        grid = np.linspace(-vb, vb, 40001)
        cur = (grid - emf) / R
        allowed = (np.abs(cur) <= 120.0) & (np.abs(grid * cur / vb) <= 40.0)
        if allowed.any():
            assert all(_feasible(d, v, emf, vb)), (vb, emf, v_req, v)
            best = grid[allowed][np.argmin(np.abs(grid[allowed] - v_req))]
            assert abs(abs(v - v_req) - abs(best - v_req)) <= 2 * (2 * vb / 40000), (vb, emf, v_req, v, best)
        else:
            # Supply limit unreachable: the bus and stator limits still hold where they can.
            ok_bus, ok_stator, _ = _feasible(d, v, emf, vb)
            assert ok_bus


def test_plugging_with_both_limits_respects_the_stator_limit():
    fw = models.Flywheel(FALCON_500, 1.0, 0.01, stator_current_limit=150.0, supply_current_limit=30.0,
                         start_velocity=0.95 * FALCON_500.free_speed)
    r = simulate(fw, 0.3, [held(lambda t: -12.0, "flywheel.voltage")], rtol=1e-9, atol=1e-9)
    driven = r["flywheel.voltage"] != 0.0  # the t0 row before the first write is neutral (brake, unlimited)
    assert np.abs(r["flywheel.stator_current"][driven]).max() <= 150.0 + 1e-6
    assert np.abs(r["flywheel.supply_current"][driven]).max() <= 30.0 + 1e-6
    assert np.all(np.abs(r["flywheel.applied_voltage"]) <= 12.0 + 1e-12)


def test_current_limits_are_per_motor_controller():
    # Two Falcons, each controller limited to 40 A: the pair draws at most 80 A in total.
    fw = models.Flywheel(FALCON_500, 1.0, 0.05, n_motors=2, stator_current_limit=40.0)
    r = simulate(fw, 0.2, [held(lambda t: 12.0, "flywheel.voltage")])
    assert r["flywheel.stator_current"].max() == pytest.approx(80.0, abs=1e-9)


def test_lossy_gearbox_holds_a_load_in_its_self_locking_band():
    # Between eta and 1/eta times the holding torque the gears hold the carriage: it must stay
    # exactly still (stuck), and the run must finish in a handful of steps.
    m, r_d, G, eta = 8.0, 0.025, 8.0, 0.9
    el = models.Elevator(KRAKEN_X60, G, n_motors=2, carriage_mass=m, drum_radius=r_d, min_height=0.0,
                         max_height=1.2, start_height=0.5, efficiency=eta)
    R, Kt = 12.0 / (2 * 366), 7.09 / 366
    v_hold = m * 9.80665 * r_d / G * R / Kt  # holding voltage of an ideal gearbox
    r = simulate(el, 1.0, [held(lambda t: v_hold, "elevator.voltage")])
    assert np.all(r["elevator.position"] == 0.5)
    assert set(r.modes["elevator"][1:]) == {"stuck"}  # from the first write on (row 0 has no command yet)
    assert r.stats["n_steps"] < 300
    # Outside the band it moves: below eta * hold it sinks, above hold / eta it rises.
    for factor, sign in ((0.95 * eta, -1), (1.05 / eta, +1)):
        el = models.Elevator(KRAKEN_X60, G, n_motors=2, carriage_mass=m, drum_radius=r_d, min_height=0.0,
                             max_height=1.2, start_height=0.5, efficiency=eta)
        r = simulate(el, 0.5, [held(lambda t, f=factor: f * v_hold, "elevator.voltage")])
        assert sign * (r.final("elevator.position") - 0.5) > 1e-4


def test_lossy_gearbox_energy_audit_through_zero_speed():
    m, d, J = 2.0, 0.25, 0.15
    arm = models.Arm(NEO, 40.0, mass=m, com_distance=d, moi=J, min_angle=None, max_angle=None, efficiency=0.7,
                     track_energy=True)
    r = simulate(arm, 2.0, [held(lambda t: 6.0 * math.sin(4.0 * t), "arm.voltage")], rtol=1e-10, atol=1e-12)
    e = {k: r.final(f"arm.{k}") for k in ("energy_in", "copper_loss", "gear_loss", "friction_loss",
                                           "impact_loss", "conversion_loss")}
    assert e["gear_loss"] > 0
    ke = 0.5 * J * r.final("arm.velocity") ** 2
    pe = m * 9.80665 * d * math.sin(r.final("arm.angle"))
    total = ke + pe + sum(e[k] for k in e if k != "energy_in")
    assert abs(e["energy_in"] - total) <= 1e-6 * max(abs(e["energy_in"]), e["copper_loss"])


def test_kinetic_friction_alone_never_drives_the_body_backwards():
    fw = models.Flywheel(VEX_775PRO, 10.0, 0.01, kinetic_friction=0.3)
    R, Kt, _ = datasheet(*PRO775_DS)
    V = 0.1 * R / (Kt * 10.0)  # +0.1 N*m at the flywheel, below the 0.3 N*m Coulomb friction
    r = simulate(fw, 0.5, inputs={"flywheel.voltage": V})
    assert np.all(r["flywheel.velocity"] == 0.0)
    V = 0.5 * R / (Kt * 10.0)  # above it: moves forward, never backwards
    r = simulate(models.Flywheel(VEX_775PRO, 10.0, 0.01, kinetic_friction=0.3), 0.5,
                 inputs={"flywheel.voltage": V})
    assert r["flywheel.velocity"].min() >= 0.0 and r.final("flywheel.velocity") > 0


def test_starting_on_a_stop_moving_into_it_is_rejected():
    with pytest.raises(ConfigError) as ei:
        models.Arm(NEO, 50.0, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.5, start_angle=-0.5,
                   start_velocity=-1.0)
    assert ei.value.parameter == "start_velocity"
    el = models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0)
    with pytest.raises(ConfigError, match="elevator velocity"):
        simulate(el, 0.1, x0={"elevator.position": 1.0, "elevator.velocity": 0.5})
    with pytest.raises(ConfigError, match="elevator position"):
        simulate(el, 0.1, x0={"elevator.position": 1.2})


def test_battery_equation_holds_when_plugging_collapses_the_bus():
    fws = [models.Flywheel(KRAKEN_X60, 1.0, 0.05, name=f"f{k}", start_velocity=-0.95 * KRAKEN_X60.free_speed)
           for k in range(4)]
    r = simulate([models.Battery(resistance=0.02)] + fws, 0.02,
                 [PeriodicController(0.01, lambda t, s: {f"f{k}.voltage": 12.0 for k in range(4)}, name="d")])
    np.testing.assert_allclose(12.0 - 0.02 * r["battery.current"], r["battery.voltage"], atol=1e-9)
    assert r["battery.brownout"][-1] == 1.0


def test_hub_motor_potential_energy_of_its_external_torque():
    hm = models.HubMotor(models.hub_motor.GOBILDA_5203_312, external_torque=lambda a: -0.3 * math.cos(a))
    # F = -dPE/dq with F = -0.3 T cos(q)  =>  PE = 0.3 T sin(q)
    assert hm.potential_energy(1.0) == pytest.approx(0.3 * hm.stall_torque_output * math.sin(1.0), rel=1e-12)


def test_hub_motor_free_point_is_the_datasheets_and_it_coasts_down_on_that_friction():
    T = models.hub_motor.GOBILDA_5203_312
    mot = T.motor
    hm = models.HubMotor(T, name="m")
    full = PeriodicController(0.01, lambda t, s: {"m.duty": 1.0}, name="d")
    r = simulate(hm, 2.0, [full])
    # No load at 12 V: the datasheet's free speed and free current (the free current is the friction).
    assert r.final("m.rotor_velocity") == pytest.approx(mot.free_speed, rel=1e-6)
    assert r.final("m.stator_current") == pytest.approx(mot.free_current, rel=1e-5)
    # Coast (FLOAT, duty 0, open bridge) from free speed: only that friction slows it, so
    # w(t) = w0 exp(-t / tau) with tau = J b^-1 = I_stall / (UNLOADED_ACCELERATION * I_free) at the rotor.
    tau = mot.stall_current / (models.hub_motor.UNLOADED_ACCELERATION * mot.free_current)
    c = simulate(models.HubMotor(T, name="m", neutral_mode="coast", start_velocity=mot.free_speed / T.gear_ratio),
                 2.0)
    assert len(c.t) > 5
    np.testing.assert_allclose(c["m.rotor_velocity"], mot.free_speed * np.exp(-c.t / tau), rtol=1e-6)
    assert c["m.stator_current"].max() == 0.0  # no back-EMF beyond the bus: the windings carry nothing
    # viscous_friction=0 gives the ideal motor of WPILib's model: no-load speed V * Kv, zero current.
    i = simulate(models.HubMotor(T, name="m", viscous_friction=0.0), 2.0, [full])
    assert i.final("m.rotor_velocity") == pytest.approx(mot.nominal_voltage * mot.Kv, rel=1e-6)


@pytest.mark.parametrize("command, request_", [("duty", 0.5), ("duty", 1.0), ("duty", -0.3), ("voltage", 6.0),
                                               ("voltage", -6.0)])
@pytest.mark.parametrize("limit", [None, 10.0])
def test_supply_current_on_a_dead_bus_is_the_limit_of_a_vanishing_bus(command, request_, limit):
    # A collapsed battery reads 0 V. The supply current (duty x stator current) there must be the
    # limit as the bus goes to zero: a duty command keeps its duty, a voltage request a full bridge,
    # both cut by the supply limit. It was +17.4 A for duty 0.5 while regenerating -17.4 A stator.
    d = models.MotorDrive(NEO, 5.0, command=command, supply_current_limit=limit)
    w = 100.0  # rad/s at the rotor, regenerating: stator current -E/R
    near = d.electrical(w, request_, 1.0, 1e-7)
    dead = d.electrical(w, request_, 1.0, 0.0)
    assert dead[0] == 0.0 and dead[1] == pytest.approx(-w / NEO.Kv / NEO.R, rel=1e-12)
    assert dead[2] == pytest.approx(near[2], rel=1e-5)
    duty = request_ if command == "duty" else math.copysign(1.0, request_)
    expected = duty * dead[1]
    if limit is not None and abs(expected) > limit:
        expected = math.copysign(limit, expected)
    assert dead[2] == pytest.approx(expected, rel=1e-5)


def test_hub_motor_potential_energy_over_many_turns_is_quiet_and_exact():
    hm = models.HubMotor(models.hub_motor.GOBILDA_5203_312, external_torque=lambda a: -0.3 * math.cos(a))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the quadrature used to warn of round-off past ~50 rad
        for q in (50.0, 1000.0, -1e4):
            assert hm.potential_energy(q) == pytest.approx(0.3 * hm.stall_torque_output * math.sin(q),
                                                           abs=1e-9 * hm.stall_torque_output)
