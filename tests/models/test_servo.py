"""The servo mechanism against its datasheet and the analytic DC-motor and proportional-loop relations."""
import math

import numpy as np
import pytest

import simcore
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models.servo import (GOBILDA_SPEED_SERVO, GOBILDA_SUPER_SPEED_SERVO, GOBILDA_TORQUE_SERVO, KG_CM,
                                  REV_SMART_ROBOT_SERVO, ServoMechanism, ServoType)

SERVOS = [GOBILDA_TORQUE_SERVO, GOBILDA_SPEED_SERVO, GOBILDA_SUPER_SPEED_SERVO, REV_SMART_ROBOT_SERVO]
# At 1e-9 a servo resting on its target makes RK45 report stiffness (its loop's fast mode); RK45 still steps
# it cheaply, where the tight-tolerance Radau "auto" switches to is slow.
pytestmark = pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")
TIGHT = dict(rtol=1e-9, atol=1e-12, method="RK45")  # RK45: the servo is not stiff at its own rates


def pulse_for(servo_type, degrees):
    """The pulse, µs, whose position-mode target is ``degrees``: the type's pulse range spans its travel."""
    us_per_rad = (servo_type.pulse_max - servo_type.pulse_min) / servo_type.travel
    return 0.5 * (servo_type.pulse_min + servo_type.pulse_max) + math.radians(degrees) * us_per_rad


def run(servo, t_end, pulse, enabled=1.0):
    return simcore.simulate([servo], t_end, inputs={f"{servo.name}.pulse_width": pulse,
                                                    f"{servo.name}.pwm_enabled": enabled}, **TIGHT)


def crossing(res, key, value):
    """First time ``res[key]`` reaches ``value`` (rising), by linear interpolation between samples."""
    y, t = res[key], res.t
    k = int(np.argmax(y >= value))
    return t[k - 1] + (value - y[k - 1]) * (t[k] - t[k - 1]) / (y[k] - y[k - 1])


@pytest.mark.parametrize("servo_type", SERVOS, ids=lambda s: s.name)
def test_no_load_servo_turns_60_degrees_in_the_datasheet_time(servo_type):
    # At the datasheet voltage with no load, the slew between -30 and +30 degrees of a move from -130 to +130
    # degrees (the servo long past its spin-up, at full speed) takes the datasheet's seconds per 60 degrees.
    servo = ServoMechanism(servo_type, rail_voltage=servo_type.nominal_voltage, start_angle=math.radians(-130.0),
                           name="s")
    res = run(servo, 3.0 * servo_type.seconds_per_60deg * 260 / 60, pulse_for(servo_type, 130.0))
    t60 = crossing(res, "s.angle", math.radians(30.0)) - crossing(res, "s.angle", math.radians(-30.0))
    assert t60 == pytest.approx(servo_type.seconds_per_60deg, rel=1e-4)
    assert res["s.angle"][-1] == pytest.approx(math.radians(130.0), abs=1e-6)


def test_the_60_degree_step_lags_the_slew_by_the_spin_up_and_the_approach():
    # From rest the first 60 degrees take a little longer than the slew alone (rotor spin-up), never less.
    st = GOBILDA_TORQUE_SERVO
    servo = ServoMechanism(st, rail_voltage=st.nominal_voltage, name="s")
    res = run(servo, 1.0, pulse_for(st, 150.0))
    t = crossing(res, "s.angle", math.radians(60.0))
    assert st.seconds_per_60deg < t < st.seconds_per_60deg + 3 * st.mechanical_time_constant


def test_no_load_speed_is_proportional_to_the_rail_voltage():
    # A DC motor whose friction is its free current at free speed turns at w_free * V / V_nominal with no load.
    st = GOBILDA_SPEED_SERVO
    servo = ServoMechanism(st, name="s", start_angle=math.radians(-130.0))  # the hub's 5 V rail
    res = run(servo, 1.0, pulse_for(st, 130.0))
    t60 = crossing(res, "s.angle", math.radians(30.0)) - crossing(res, "s.angle", math.radians(-30.0))
    assert t60 == pytest.approx(st.seconds_per_60deg * st.nominal_voltage / 5.0, rel=1e-4)


def test_claw_closing_on_a_game_piece_stalls_on_it_drawing_the_stall_current():
    # The piece is a stop at 40 degrees; commanded to 60 degrees the loop saturates (20 degrees of error, far
    # beyond its proportional band) and the motor stalls: V_rail / R = I_stall * V_rail / V_nominal.
    st = GOBILDA_TORQUE_SERVO
    claw = ServoMechanism(st, max_angle=math.radians(40.0), name="claw")
    res = run(claw, 0.5, pulse_for(st, 60.0))
    assert res["claw.angle"][-1] == math.radians(40.0)
    assert res["claw.velocity"][-1] == 0.0
    assert res["claw.stator_current"][-1] == pytest.approx(st.stall_current * 5.0 / st.nominal_voltage, rel=1e-9)
    assert res["claw.torque"][-1] == pytest.approx(st.stall_torque * 5.0 / st.nominal_voltage, rel=1e-9)
    assert any(e.name == "upper_stop" for e in res.events)


def test_a_load_above_the_stall_torque_back_drives_the_servo():
    st = REV_SMART_ROBOT_SERVO
    stall = st.stall_torque  # at the datasheet voltage
    servo = ServoMechanism(st, rail_voltage=st.nominal_voltage, load_torque=lambda a: -1.2 * stall, name="s")
    res = run(servo, 0.3, pulse_for(st, 0.0))
    assert res["s.angle"][-1] < -math.radians(5.0)  # it cannot hold: it turns the way the load pushes
    assert res["s.velocity"][-1] < 0.0
    # At the first instant (at rest, full duty against the error the load is about to make) it draws no
    # more than the stall current, and while pushed back its current exceeds the stall current (back-EMF adds).
    assert res["s.stator_current"][res.t == 0.0].max() <= st.stall_current * (1 + 1e-12)
    assert res["s.stator_current"][-1] > st.stall_current


def test_a_load_below_the_stall_torque_droops_the_servo_by_its_proportional_band():
    # A proportional loop holds a load T with duty T / T_stall(V), so the error is band * T / T_stall(V).
    st = GOBILDA_TORQUE_SERVO
    load = 0.5 * st.stall_torque
    servo = ServoMechanism(st, rail_voltage=st.nominal_voltage, load_torque=lambda a: -load, name="wrist",
                           load_inertia=1e-4)
    res = run(servo, 1.0, pulse_for(st, 30.0))
    droop = st.proportional_band * load / st.stall_torque
    assert res["wrist.angle"][-1] == pytest.approx(math.radians(30.0) - droop, abs=1e-7)
    assert res["wrist.stator_current"][-1] == pytest.approx(0.5 * st.stall_current, rel=1e-6)


def test_continuous_rotation_speed_follows_the_pulse():
    # Half of the full-speed offset from the centre: half duty, so half the no-load speed at the rail voltage.
    st = GOBILDA_SPEED_SERVO
    cr = ServoMechanism(st, continuous=True, rail_voltage=st.nominal_voltage, name="cr")
    res = run(cr, 1.0, 1500.0 + 0.5 * st.continuous_full_speed_pulse)
    assert res["cr.velocity"][-1] == pytest.approx(0.5 * st.free_speed, rel=1e-6)


def test_without_pulses_the_servo_goes_limp():
    st = GOBILDA_TORQUE_SERVO
    servo = ServoMechanism(st, load_torque=lambda a: -0.1 * st.stall_torque, name="s", load_inertia=1e-3)
    res = run(servo, 0.2, pulse_for(st, 0.0), enabled=0.0)
    assert res["s.angle"][-1] < -0.1  # it falls with the load
    # An open bridge carries no current while the back-EMF is below the rail (below the rail's no-load speed;
    # beyond it the body diodes conduct, as the motor law says).
    slow = np.abs(res["s.velocity"]) < 0.9 * st.free_speed * 5.0 / st.nominal_voltage
    assert slow.sum() > 10 and np.all(res["s.stator_current"][slow] == 0.0)


# The datasheets' figures at 6 V, written here from the sources (goBILDA's product pages for 2000-0025-0002 and
# -0003: 300 oz-in and 50 rpm, 130 oz-in and 115 rpm, 2.5 A; REV's Smart Robot Servo documentation: 13.5 kg-cm,
# 0.13 s/60 deg, 2.0 A, 270 degrees), in their own units.
OZ_IN = 0.0070615518  # N*m
DATASHEET_AT_6V = {  # (stall torque N*m, no-load speed rad/s, stall current A, travel deg)
    "torque": (GOBILDA_TORQUE_SERVO, 300.0 * OZ_IN, 50.0 * 2 * math.pi / 60, 2.5, 300.0),
    "speed": (GOBILDA_SPEED_SERVO, 130.0 * OZ_IN, 115.0 * 2 * math.pi / 60, 2.5, 300.0),
    "rev": (REV_SMART_ROBOT_SERVO, 13.5 * 0.0980665, math.radians(60.0) / 0.13, 2.0, 270.0),
}


@pytest.mark.parametrize("key", sorted(DATASHEET_AT_6V))
def test_datasheet_values_in_SI(key):
    servo_type, torque, speed, current, travel = DATASHEET_AT_6V[key]
    assert servo_type.nominal_voltage == 6.0
    # The datasheets round: 130 oz-in is 9.3 kg-cm to 0.7 %, 115 rpm is 0.09 s/60 deg to 3.5 %.
    assert servo_type.stall_torque == pytest.approx(torque, rel=1e-2)
    assert servo_type.free_speed == pytest.approx(speed, rel=0.04)
    assert servo_type.stall_current == current
    assert servo_type.travel == pytest.approx(math.radians(travel))
    assert "free_current" in servo_type.approximate  # no datasheet gives it


def test_the_kilogram_force_centimetre_is_the_si_value():
    assert KG_CM == pytest.approx(9.80665 * 0.01, rel=1e-15)  # standard gravity (N per kgf) times 1 cm


def test_super_speed_servo_speed_is_its_230_rpm():
    assert GOBILDA_SUPER_SPEED_SERVO.free_speed == pytest.approx(230.0 * 2 * math.pi / 60, rel=0.02)  # 0.043 s is 233 rpm
    assert {"stall_torque", "stall_current"} <= set(GOBILDA_SUPER_SPEED_SERVO.approximate)


def test_bad_servo_values_are_named():
    with pytest.raises(ConfigError, match="seconds_per_60deg"):
        ServoType("x", nominal_voltage=6.0, seconds_per_60deg=-0.1, stall_torque=1.0, stall_current=2.0,
                  free_current=0.1, travel=1.0)
    with pytest.raises(ConfigError, match="free_current"):
        ServoType("x", nominal_voltage=6.0, seconds_per_60deg=0.1, stall_torque=1.0, stall_current=2.0,
                  free_current=3.0, travel=1.0)
    with pytest.raises(ConfigTypeError, match="servo_type"):
        ServoMechanism("goBILDA torque")
    with pytest.raises(ConfigTypeError, match="load_torque"):
        ServoMechanism(GOBILDA_TORQUE_SERVO, load_torque=3.0)
    with pytest.raises(ConfigError, match="rail_voltage"):
        ServoMechanism(GOBILDA_TORQUE_SERVO, rail_voltage=float("nan"))


def test_a_wrist_under_gravity_droops_where_its_loop_balances_the_weight():
    # A 0.3 kg claw 0.12 m out, commanded to 67.5 degrees: at rest the motor's torque is duty * T_stall(V) with
    # duty = droop / band, and it holds the weight's m g d cos(67.5 deg - droop): solved here by bisection.
    st = GOBILDA_TORQUE_SERVO
    m, d, g = 0.3, 0.12, 9.80665
    target = math.radians(67.5)
    stall = st.stall_torque * 5.0 / st.nominal_voltage

    def imbalance(droop):
        return droop / st.proportional_band * stall - m * g * d * math.cos(target - droop)

    lo, hi = 0.0, st.proportional_band
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if imbalance(mid) < 0 else (lo, mid)
    wrist = ServoMechanism(st, name="wrist", load_mass=m, load_com_distance=d)
    assert wrist.load_mass == pytest.approx(m * d * d, rel=1e-15)  # the point mass's inertia, m d²
    res = run(wrist, 1.0, pulse_for(st, 67.5))
    assert target - res["wrist.angle"][-1] == pytest.approx(lo, rel=1e-6)
    assert res["wrist.motor_torque"][-1] == pytest.approx(m * g * d * math.cos(target - lo), rel=1e-6)


def test_gravity_on_the_load_is_the_torque_a_team_would_write():
    # load_mass / load_com_distance / gravity_direction against the same gravity written as load_torque (the
    # Python path): the same motion to the integration tolerance. Gravity at 30 degrees off straight down.
    st = REV_SMART_ROBOT_SERVO
    m, d, direction = 0.4, 0.1, -math.pi / 2 + math.radians(30.0)
    a = ServoMechanism(st, name="s", load_mass=m, load_com_distance=d, load_inertia=5e-3, gravity_direction=direction)
    b = ServoMechanism(st, name="s", load_inertia=5e-3,
                       load_torque=lambda q: m * 9.80665 * d * math.sin(direction - q))
    assert a.kernel_form() is not None and b.kernel_form() is None
    ra, rb = run(a, 0.6, pulse_for(st, 100.0)), run(b, 0.6, pulse_for(st, 100.0))
    np.testing.assert_allclose(ra.sample("s.angle", rb.t), rb["s.angle"], atol=1e-7)
    assert a.potential_energy(math.pi / 3) == pytest.approx(m * 9.80665 * d * (math.cos(direction)
                                                                               - math.cos(direction - math.pi / 3)))


def test_bad_gravity_load_values_are_named():
    with pytest.raises(ConfigError, match="load_mass"):
        ServoMechanism(GOBILDA_TORQUE_SERVO, load_mass=-0.1, load_com_distance=0.1)
    with pytest.raises(ConfigError, match="load_com_distance"):
        ServoMechanism(GOBILDA_TORQUE_SERVO, load_mass=0.1, load_com_distance=float("inf"))
    with pytest.raises(ConfigError, match="gravity_direction"):
        ServoMechanism(GOBILDA_TORQUE_SERVO, gravity_direction=float("nan"))


def test_energy_ledger_of_a_wrist_lifting_a_claw_onto_its_stop_closes():
    # Drawn from the rail = kinetic + gravity's potential m g d (sin q1 - sin q0) + the losses (copper, friction,
    # the stop's impact, the datasheet motor's conversion mismatch). The inertia is the claw's m d² plus the
    # servo's rotor, T_stall tau / w_free reflected to the output.
    st = GOBILDA_TORQUE_SERVO
    m, d = 0.3, 0.12
    wrist = ServoMechanism(st, name="w", load_mass=m, load_com_distance=d, max_angle=math.radians(50.0),
                           start_angle=math.radians(-30.0), static_friction=0.02, track_energy=True)
    res = run(wrist, 0.6, pulse_for(st, 70.0))
    assert [e.name for e in res.events][-1] == "upper_stop"
    J = m * d * d + st.stall_torque * st.mechanical_time_constant / st.free_speed
    q0, q1 = res["w.angle"][0], res.final("w.angle")
    ke = 0.5 * J * res.final("w.velocity") ** 2
    pe = m * 9.80665 * d * (math.sin(q1) - math.sin(q0))
    losses = sum(res.final(f"w.{k}") for k in ("copper_loss", "gear_loss", "friction_loss", "impact_loss",
                                               "conversion_loss"))
    assert res.final("w.impact_loss") > 0
    assert res.final("w.energy_in") == pytest.approx(ke + pe + losses, rel=1e-6)
