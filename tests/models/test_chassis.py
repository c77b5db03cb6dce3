"""The chassis physics of issue 12 against independent calculations: scrub, weight transfer, tipping,
walls, external forces, roller friction, the swerve's coupling and scrub, and the energy ledgers."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

import simcore
from simcore import PeriodicController
from simcore.field import FRC_FIELD
from simcore.models.mecanum import WHEELS, MecanumDrive
from simcore.models.motors import CIM, FALCON_500, GOBILDA_BARE, KRAKEN_X60
from simcore.models.swerve import SwerveDrive
from simcore.models.tank import TankDrive

G0 = 9.80665
# Datasheet CIM, 12 V (REFERENCE.md section 1); the constants of a 2-motor group derived here.
V_NOM, T_STALL, I_STALL, I_FREE, RPM_FREE = 12.0, 2.42, 133.0, 2.7, 5310.0
N, G, RADIUS, TRACK, MASS, MOI = 2, 10.71, 0.0762, 0.6, 50.0, 5.0


def cim_pair():
    R = V_NOM / (N * I_STALL)
    Kt = T_STALL / I_STALL
    Kv = RPM_FREE * 2 * math.pi / 60 / (V_NOM - R * N * I_FREE)
    return R, Kt, Kv


def tank(**kw):
    args = dict(n_motors_per_side=N, wheel_radius=RADIUS, track_width=TRACK, mass=MASS, moi=MOI, viscous_friction=0)
    args.update(kw)
    return TankDrive(CIM, G, **args)


def side_force(V, w):
    """A CIM pair's force at the rim, N, at side voltage V and rim speed w (no friction, eta = 1)."""
    R, Kt, Kv = cim_pair()
    return G / RADIUS * Kt * (V - G / RADIUS * w / Kv) / R


def energy_residual(res, name, track=("copper_loss", "conversion_loss", "gear_loss", "friction_loss",
                                      "impact_loss")):
    e_in = res.final(f"{name}.energy_in") + res.final(f"{name}.external_work")
    dke = res.final(f"{name}.kinetic_energy") - res[f"{name}.kinetic_energy"][0]
    losses = sum(res.final(f"{name}.{k}") for k in track)
    return (e_in - dke - losses) / max(abs(e_in), abs(dke), 1e-300)


# -- tank scrub ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("wheelbase", [0.5, 0.6])
def test_turning_in_place_balances_motor_torque_against_the_scrub_torque(wheelbase):
    mu_lat, eps, V = 1.0, 0.02, 9.0
    drive = tank(wheelbase=wheelbase, lateral_friction_coefficient=mu_lat, slip_epsilon=eps)
    res = simcosim(drive, 6.0, {"drive.left_voltage": -V, "drive.right_voltage": V})
    # Independent: at a steady turn in place each side rolls at w = omega b/2, the end axles slide sideways
    # at omega L/2 with the regularized Coulomb force mu N s/sqrt(s^2+eps^2), N = m g/4 per contact:
    #     b D(V, omega b/2) = mu m g (L/2) phi(omega L/2).
    half = wheelbase / 2

    def balance(om):
        s = om * half
        return TRACK * side_force(V, om * TRACK / 2) - mu_lat * MASS * G0 * half * s / math.sqrt(s * s + eps * eps)

    om = brentq(balance, 1e-9, 100.0, xtol=1e-15)
    assert res.final("drive.yaw_rate") == pytest.approx(om, rel=1e-6)
    assert abs(res.final("drive.velocity")) < 1e-9 and abs(res.final("drive.lateral_velocity")) < 1e-9
    # without the wheelbase the turn is the scrub-free spin, much faster
    free = simcosim(tank(), 6.0, {"drive.left_voltage": -V, "drive.right_voltage": V})
    assert free.final("drive.yaw_rate") > 1.5 * om


def simcosim(system, t_end, inputs, systems=(), controllers=(), **kw):
    return simcore.simulate([system, *systems], t_end, list(controllers), inputs=inputs, **kw)


def test_straight_driving_is_unchanged_by_scrub():
    inputs = {"drive.left_voltage": 10.0, "drive.right_voltage": 10.0}
    rows = [PeriodicController(0.1, lambda t, s: None)]  # rows at the ticks, compared there
    a = simcosim(tank(), 3.0, inputs, controllers=rows)
    b = simcosim(tank(wheelbase=0.6), 3.0, inputs, controllers=rows)
    ticks = a.ticks("controller")
    for s in ("x", "left_velocity", "right_velocity", "left_position"):
        np.testing.assert_allclose(b.sample(f"drive.{s}", ticks), a.sample(f"drive.{s}", ticks), rtol=1e-9,
                                   atol=1e-12)
    assert np.max(np.abs(b["drive.lateral_velocity"])) == 0.0 and np.max(np.abs(b["drive.heading"])) == 0.0


def test_omni_end_axles_make_turning_easier_than_traction_wheels():
    V = 9.0
    inputs = {"drive.left_voltage": -V, "drive.right_voltage": V}
    traction = simcosim(tank(axle_positions=(0.3, 0.0, -0.3), lateral_friction_coefficient=1.0), 4.0, inputs)
    omni = simcosim(tank(axle_positions=(0.3, 0.0, -0.3), lateral_friction_coefficient=(0.05, 1.0, 0.05)), 4.0,
                    inputs)
    assert omni.final("drive.yaw_rate") > 1.2 * traction.final("drive.yaw_rate")


# -- weight transfer and tipping ---------------------------------------------------------------------------
def test_normal_forces_sum_to_the_weight_and_shift_by_m_a_h_over_l():
    # Driven by its motors from rest: every horizontal force on the robot comes from the ground, so the
    # pitch balance about the centre of mass moves m a h / L from the front axle to the rear.
    h, L, V = 0.4, 0.55, 3.0
    drive = tank(wheelbase=L, cog_height=h, friction_coefficient=1.0)
    res = simcosim(drive, 1.0, {"drive.left_voltage": V, "drive.right_voltage": V})
    n = np.array([res[f"drive.normal_force_{j}"] for j in range(4)])
    np.testing.assert_allclose(n.sum(axis=0), MASS * G0, rtol=1e-9)
    # at rest each side's stall force accelerates chassis and rolling sides: a0 = 2 D / (m + 2 M_w)
    a = res["drive.acceleration"]
    assert a[0] == pytest.approx(2 * side_force(V, 0.0) / (MASS + 2 * drive.side_rotating_mass), rel=1e-9)
    rear, front = n[2] + n[3], n[0] + n[1]  # contacts: front axle (left, right), rear axle (left, right)
    np.testing.assert_allclose(rear - MASS * G0 / 2, MASS * a * h / L, rtol=1e-6)
    np.testing.assert_allclose(rear - front, 2 * MASS * a * h / L, rtol=1e-6)


def test_a_push_through_the_centre_of_mass_pitches_only_by_the_wheels_spin_up():
    # review-12 finding 1: a coasting tank pushed by F at its centre-of-mass height. The ground forces
    # (at depth h) are only the rolling sides' spin-up reactions, -M_w a each, so the pitch balance
    # about the centre of mass gives rear - front = 2 h (-2 M_w a) / L, not 2 m a h / L.
    h, L, F = 0.4, 0.55, 120.0
    drive = tank(wheelbase=L, cog_height=h, friction_coefficient=1.0, neutral_mode="coast")
    res = simcosim(drive, 0.2, {"drive.external_force_x": F})
    n = np.array([res[f"drive.normal_force_{j}"] for j in range(4)])
    Mw = drive.side_rotating_mass
    a = F / (MASS + 2 * Mw)
    np.testing.assert_allclose(res["drive.acceleration"], a, rtol=1e-9)
    expected = 2 * h * (-2 * Mw * a) / L  # about -5.8 N here
    assert -6.0 < expected < -5.6
    np.testing.assert_allclose(n[2] + n[3] - n[0] - n[1], expected, rtol=1e-6)
    np.testing.assert_allclose(n.sum(axis=0), MASS * G0, rtol=1e-9)


@pytest.mark.parametrize("kind", ["swerve", "mecanum"])
def test_swerve_and_mecanum_normal_forces_sum_to_the_weight_and_shift_by_m_a_h_over_l(kind):
    # Driven from rest by the drive motors, wheels straight ahead: every wheel rolls (a mecanum's rollers
    # stand still driving straight), so a0 = 4 D0 / (m + 4 M_w), D0 each wheel's stall force at its rim
    # (stall torque scales with the voltage), M_w its rotating mass at the rim. All horizontal forces
    # come from the ground: rear - front = 2 m a h / L.
    h = 0.35
    if kind == "swerve":  # modules in POS order: front left, front right, rear left, rear right
        V, L, mass = 0.25, 2 * POS[0][0], 55.0
        drive = swerve(cog_height=h)
        d0 = 6.75 / 0.0508 * 7.09 * V / 12.0  # Kraken X60 datasheet stall torque 7.09 N*m at 12 V
        inputs = {f"swerve.drive_voltage_{i}": V for i in range(4)}
    else:  # wheels FL, FR, RL, RR on a 0.30 m wheelbase
        V, L, mass = 1.0, 0.30, MM
        drive = mecanum(cog_height=h, roller_friction=0.0)
        d0 = MG / MR * GB["T"] * V / 12.0
        inputs = {f"mecanum.{w}_voltage": V for w in ("front_left", "front_right", "rear_left", "rear_right")}
    name, front, rear = kind, [0, 1], [2, 3]
    res = simcosim(drive, 0.2, inputs)
    n = np.array([res[f"{name}.normal_force_{j}"] for j in range(4)])
    np.testing.assert_allclose(n.sum(axis=0), mass * G0, rtol=1e-9)
    a0 = 4 * d0 / (mass + 4 * drive.wheel_mass)
    shift = n[rear].sum(axis=0) - n[front].sum(axis=0)
    assert shift[0] == pytest.approx(2 * mass * a0 * h / L, rel=1e-6)


def test_tip_event_at_the_analytic_lateral_acceleration():
    h = 0.45
    drive = tank(cog_height=h)  # sides roll; no wheelbase: only the roll over the outer side
    res = simcosim(drive, 6.0, {"drive.left_voltage": 12.0, "drive.right_voltage": 4.0})
    tips = [e for e in res.events if e.name == "tip"]
    assert len(tips) == 1 and res.t[-1] == tips[0].t < 6.0
    x = tips[0].x_before
    v, om = 0.5 * (x[3] + x[4]), (x[4] - x[3]) / TRACK
    # the inner (right) side unloads when the centripetal m omega v h / b reaches m g / 2
    assert -om * v == pytest.approx(G0 * TRACK / (2 * h), rel=1e-9)
    assert res["drive.normal_force_1"][-1] == pytest.approx(0.0, abs=1e-6 * MASS * G0)


# -- walls ---------------------------------------------------------------------------------------------------
def test_wall_contact_located_no_penetration_and_pushing_slips_at_the_limit():
    bumper, mu, v0, x0 = (0.9, 0.8), 1.0, 1.5, 15.0
    drive = tank(friction_coefficient=mu, bumper=bumper, field=FRC_FIELD, start_pose=(x0, 4.0, 0.0),
                 neutral_mode="coast")

    def push(t, s):
        return {"drive.left_voltage": 12.0 if t >= 1.0 else 0.0, "drive.right_voltage": 12.0 if t >= 1.0 else 0.0}

    res = simcore.simulate([drive], 2.0, [PeriodicController(0.02, push)],
                           x0={"drive.velocity": v0, "drive.left_velocity": v0, "drive.right_velocity": v0})
    walls = [e for e in res.events if e.name == "wall"]
    # Independent: coasting (no current below the bus, no friction) at v0, the bumper front reaches x = 16.54.
    t_contact = (FRC_FIELD[0] - bumper[0] / 2 - x0) / v0
    assert walls[0].t == pytest.approx(t_contact, abs=1e-9)
    front = res["drive.x"] + bumper[0] / 2
    assert front.max() <= FRC_FIELD[0] + 1e-9
    pushing = res.t > 1.2
    # the wheels spin (slip) and each side pushes with exactly mu N into the wall
    assert res["drive.left_slip_speed"][pushing].min() > 0.1
    np.testing.assert_allclose(res["drive.left_ground_force"][pushing], mu * MASS * G0 / 2, rtol=1e-12)
    np.testing.assert_allclose(res["drive.wall_force"][pushing], mu * MASS * G0, rtol=1e-9)


def test_pushing_a_wall_pitches_the_robot_by_its_ground_force():
    # Pinned against the wall, wheels spinning: a = 0, the ground pushes mu m g forward at depth h and the
    # wall pushes back at the centre-of-mass height, so rear - front = 2 h mu m g / L (no acceleration).
    bumper, mu, h, L, x0 = (0.9, 0.8), 1.0, 0.15, 0.55, FRC_FIELD[0] - 0.45 - 0.05  # h mu / L < 1/2: no tip
    drive = tank(friction_coefficient=mu, bumper=bumper, field=FRC_FIELD, start_pose=(x0, 4.0, 0.0),
                 wheelbase=L, cog_height=h)
    res = simcosim(drive, 1.0, {"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    n = np.array([res[f"drive.normal_force_{j}"] for j in range(4)])
    pushing = res["drive.wall_force"] > 0.0
    assert pushing[-10:].all()
    np.testing.assert_allclose(res["drive.wall_force"][pushing], mu * MASS * G0, rtol=1e-9)
    np.testing.assert_allclose((n[2] + n[3] - n[0] - n[1])[pushing], 2 * h * mu * MASS * G0 / L, rtol=1e-9)
    np.testing.assert_allclose(n.sum(axis=0), MASS * G0, rtol=1e-9)


def test_an_angled_wall_hit_brings_both_corners_to_the_wall_without_penetration():
    """One corner hits, the robot swings about it, the other corner hits while the first still touches:
    the second impact must stop both corners (an impulse on the second alone would drive the first in)."""
    bumper, heading, x0 = (0.85, 0.85), 0.35, 14.5
    drive = tank(friction_coefficient=1.1, wheelbase=0.6, bumper=bumper, field=FRC_FIELD, track_energy=True,
                 start_pose=(x0, 4.0, heading), stator_current_limit=60.0)
    res = simcosim(drive, 1.0, {"drive.left_voltage": 8.0, "drive.right_voltage": 8.0})
    hits = [e for e in res.events if e.name == "wall"]
    assert len(hits) >= 2
    # Independent: every bumper corner's x from the pose, against the field's far wall x = 16.54.
    c, s = np.cos(res["drive.heading"]), np.sin(res["drive.heading"])
    for ex, ey in [(1, 1), (1, -1), (-1, 1), (-1, -1)]:
        px, py = ex * bumper[0] / 2, ey * bumper[1] / 2
        assert (res["drive.x"] + c * px - s * py).max() <= FRC_FIELD[0] + 1e-9
    # flat against the wall at the end: heading 0, both front corners at x = 16.54
    assert res.final("drive.heading") == pytest.approx(0.0, abs=1e-9)
    assert res.final("drive.x") == pytest.approx(FRC_FIELD[0] - bumper[0] / 2, abs=1e-9)
    assert abs(energy_residual(res, "drive")) < 1e-6


def test_external_force_and_torque_move_a_coasting_robot_as_newton_says():
    drive = tank(wheelbase=0.6, friction_coefficient=1.0, neutral_mode="coast", start_pose=(0.0, 0.0, 0.5))
    F = 80.0
    res = simcosim(drive, 0.5, {"drive.external_force_x": F * math.cos(0.5), "drive.external_force_y": F * math.sin(0.5)})
    a = F / (MASS + 2 * drive.side_rotating_mass)
    assert res.final("drive.velocity") == pytest.approx(a * 0.5, rel=1e-9)
    assert res.final("drive.x") == pytest.approx(0.5 * a * 0.25 * math.cos(0.5), rel=1e-9)


# -- mecanum rollers -------------------------------------------------------------------------------------------
# goBILDA bare motor (gm0 table): 0.19 N m and 11 A stall, 0.3 A and 5900 rpm free at 12 V.
GB = dict(T=0.19, Is=11.0, If=0.3, w=5900 * 2 * math.pi / 60)
MG, MR, MM = 19.2, 0.048, 12.0


def mecanum(**kw):
    args = dict(track_width=0.36, wheelbase=0.30, wheel_radius=MR, mass=MM, moi=0.35, viscous_friction=0)
    args.update(kw)
    return MecanumDrive(GOBILDA_BARE, MG, **args)


def test_strafe_is_slower_and_draws_more_current_by_the_roller_model():
    crr, eps, V, b_rim = 0.03, 0.02, 9.0, 0.8  # b_rim: a motor friction, so that driving forward draws current
    R, Kt = 12.0 / GB["Is"], GB["T"] / GB["Is"]
    Kv = GB["w"] / (12.0 - R * GB["If"])
    k = MG / MR  # rotor rad/s per rim m/s
    b_rotor = b_rim / (k * k)
    made = dict(roller_friction=crr, viscous_friction=b_rim)
    fwd = simcosim(mecanum(**made), 4.0, {f"mecanum.{w}_voltage": V for w in WHEELS})
    strafe = simcosim(mecanum(**made), 4.0,
                      {f"mecanum.{w}_voltage": v for w, v in zip(WHEELS, (-V, V, V, -V))})
    # Independent. Forward: the rollers do not turn; each motor's torque meets its own friction only,
    # Kt i = b w_rotor with V = i R + w_rotor / Kv.
    w_f = V / (b_rotor * R / Kt + 1.0 / Kv)
    v_f, i_f = w_f / k, b_rotor * w_f / Kt
    # Strafe at v: each rim turns at v, each roller rolls at sqrt(2) v against crr N (N = m g / 4); the
    # roller forces' sideways shares balance the drive: D(v) = sqrt(2) crr N phi(sqrt(2) v).
    N4 = MM * G0 / 4

    def drive_force(v):
        wr = k * v
        return k * (Kt * (V - wr / Kv) / R - b_rotor * wr)

    def balance(v):
        s = math.sqrt(2.0) * v
        return drive_force(v) - math.sqrt(2.0) * crr * N4 * s / math.sqrt(s * s + eps * eps)

    v_s = brentq(balance, 1e-6, v_f, xtol=1e-15)
    i_s = (V - k * v_s / Kv) / R
    assert fwd.final("mecanum.robot_vx") == pytest.approx(v_f, rel=1e-6)
    assert strafe.final("mecanum.robot_vy") == pytest.approx(v_s, rel=1e-6)
    ratio = strafe.final("mecanum.robot_vy") / fwd.final("mecanum.robot_vx")
    assert ratio == pytest.approx(v_s / v_f, rel=1e-6) and ratio < 1.0
    current = (strafe.final("mecanum.front_right_stator_current") / fwd.final("mecanum.front_right_stator_current"))
    assert current == pytest.approx(i_s / i_f, rel=1e-6) and current > 1.0


def test_mecanum_energy_ledger_closes_with_rollers_slip_transfer_and_a_push():
    drive = mecanum(track_energy=True, command="duty", friction_coefficient=0.6, cog_height=0.1,
                    viscous_friction=None, efficiency=0.9)  # the motors' free-current friction

    def cmd(t, s):
        p = (1.0, -0.5, 0.8, 0.2) if t < 0.5 else (-0.6, 0.6, 0.6, -0.6)
        out = {f"mecanum.{w}_duty": v for w, v in zip(WHEELS, p)}
        out["mecanum.external_force_x"] = 15.0 if t > 0.7 else 0.0
        out["mecanum.external_torque"] = -2.0 if t > 0.8 else 0.0
        return out

    from simcore.models.battery import Battery
    res = simcore.simulate([drive, Battery(resistance=0.1)], 1.2, [PeriodicController(0.01, cmd)])
    assert res.final("mecanum.friction_loss") > 0 and res.final("mecanum.external_work") != 0.0
    assert abs(energy_residual(res, "mecanum")) < 1e-6


# -- swerve: coupling, scrub torque, steering reaction --------------------------------------------------------
POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def swerve(**kw):
    args = dict(module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0,
                moi=6.0, viscous_friction=0, steer_viscous_friction=0)
    args.update(kw)
    return SwerveDrive(KRAKEN_X60, FALCON_500, **args)


def test_steering_a_standing_module_turns_its_drive_motor_by_the_couple_ratio():
    # An SDS MK4i-like module: couple ratio 50/14, L2 6.75:1, 2 in wheels; steer each module by 90 degrees
    # with a position loop while the robot stands.
    c, Gd, r = 50 / 14, 6.75, 0.0508
    sw = swerve(couple_ratio=c)

    # diagonal modules turned opposite ways, so that the steering reactions on the chassis cancel
    targets = (math.pi / 2, -math.pi / 2, -math.pi / 2, math.pi / 2)

    def steer(t, s):
        return {f"swerve.steer_voltage_{i}": 4.0 * (targets[i] - s[f"swerve.steer_angle_{i}"])
                - 0.2 * s[f"swerve.steer_rate_{i}"] for i in range(4)}

    # the drive motor coasting (a braked one drags the wheel round: it slips, and the rotor turns less)
    res = simcore.simulate([sw], 1.0, [PeriodicController(0.001, steer)], inputs={"swerve.drive_brake": 0.0})
    turned = res.final("swerve.steer_angle_0") - res["swerve.steer_angle_0"][0]
    assert turned == pytest.approx(math.pi / 2, abs=0.01)
    # the wheel stood on the ground (no rolling), so the drive rotor turned by c x the steer angle:
    rotor = res.final("swerve.drive_rotor_position_0") - res["swerve.drive_rotor_position_0"][0]
    assert rotor == pytest.approx(c * turned, rel=1e-6)
    # what the drive encoder reports as travel: c r phi / G_d, about 42 mm for the 90 degrees
    assert rotor * r / Gd == pytest.approx(c * r * turned / Gd, rel=1e-6)
    assert 0.040 < rotor * r / Gd < 0.043
    assert abs(res.final("swerve.wheel_distance_0")) < 1e-6


def test_scrub_torque_is_the_coulomb_twist_at_rest_and_fades_with_rolling_speed():
    rho, mu, eps = 0.0064, 1.2, 0.02
    sw = swerve(scrub_radius=rho, friction_coefficient=mu, slip_epsilon=eps)
    N = 55.0 * G0 / 4
    x = sw.initial_state()
    u = sw.initial_inputs()
    sw.mode = sw.initial_mode(0.0, x, u)
    for om_s, v in [(2.0, 0.0), (-5.0, 0.0), (2.0, 1.5), (0.3, 3.0)]:
        x = sw.initial_state()
        x[10:14] = om_s  # steer rates
        x[3] = v  # driving forward at v (modules straight ahead): the wheels roll at v
        x[14:18] = v
        tw = rho * om_s
        expected = -mu * N * rho * tw / math.sqrt(tw * tw + v * v + eps * eps)
        got = sw.outputs(0.0, x, u)[sw.output_names.index("scrub_torque_0")]
        assert got == pytest.approx(expected, rel=1e-12)


def test_steering_reaction_spins_the_chassis_the_other_way():
    # On ice (tiny friction) no ground torque: the modules' spin-up is met by the chassis' counter-rotation,
    # J omega + sum J_s (omega + steer_rate) stays zero.
    sw = swerve(friction_coefficient=1e-9, scrub_radius=0.0)
    res = simcosim(sw, 0.3, {f"swerve.steer_voltage_{i}": 6.0 for i in range(4)})
    om = res["swerve.omega"]
    spin = sum(res[f"swerve.steer_rate_{i}"] for i in range(4))
    momentum = 6.0 * om + sw.steer_moi * (4 * om + spin)
    # (the friction left, 1e-9, makes a torque of order 1e-7 N m: far below the modules' spin momentum)
    assert np.max(np.abs(momentum)) < 1e-6 * np.max(np.abs(sw.steer_moi * spin))
    assert om[-1] < -1e-3  # it turned the other way


def test_swerve_energy_ledger_closes_with_coupling_scrub_transfer_and_battery():
    from simcore.controllers.drive_control import swerve_module_controllers
    from simcore.controllers.kinematics import ChassisSpeeds, SwerveKinematics
    from simcore.models.battery import Battery
    sw = swerve(track_energy=True, couple_ratio=3.5, cog_height=0.2, friction_coefficient=0.5,
                viscous_friction=2.0, steer_viscous_friction=0.01, efficiency=0.9, steer_efficiency=0.8)
    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS),
                                      lambda t, s: ChassisSpeeds(3.0, -1.0, 2.0) if t < 0.4 else
                                      ChassisSpeeds(-2.0, 1.5, -1.0))
    res = simcore.simulate([sw, Battery()], 0.8, ctrls)
    assert res.final("swerve.friction_loss") > 0
    assert abs(energy_residual(res, "swerve")) < 1e-6


# -- hub-drivable drivetrains (issue 15 item 1, the model side) -------------------------------------------
def test_a_mecanum_built_from_an_ftc_motor_type_is_hub_drivable_wheel_by_wheel():
    from simcore import ConfigError
    from simcore.models.hub_motor import GOBILDA_5203_312
    mec = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35)
    assert mec.motor_type is GOBILDA_5203_312 and mec.drive.command == "duty"
    assert mec.gearing == GOBILDA_5203_312.gear_ratio and mec.motor is GOBILDA_5203_312.motor
    for w in WHEELS:
        assert f"{w}_duty" in mec.input_names and f"{w}_brake" in mec.input_names
        for o in ("rotor_position", "rotor_velocity", "stator_current", "supply_current"):
            assert f"{w}_{o}" in mec.output_names
    assert "supply_voltage" in mec.output_names and "brake" not in mec.input_names
    with pytest.raises(ConfigError) as info:
        MecanumDrive(GOBILDA_5203_312, 19.2, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                     moi=0.35)
    assert info.value.parameter == "gearing"
    # One wheel powered: the chassis moves and carries the other wheels (their rotors turn); each wheel's
    # brake input is its own (the coasting one draws nothing, the braked ones brake).
    res = simcosim(mec, 0.5, {"mecanum.front_left_duty": 0.8, "mecanum.front_right_brake": 0.0})
    k = GOBILDA_5203_312.gear_ratio / 0.048
    for w in WHEELS:
        np.testing.assert_allclose(res[f"mecanum.{w}_rotor_position"], k * res[f"mecanum.{w}_position"], rtol=1e-12)
    assert abs(res.final("mecanum.rear_left_rotor_position")) > 0.1
    assert np.all(res["mecanum.front_right_stator_current"] == 0.0)
    assert res["mecanum.rear_left_stator_current"].max() > 0.01 or res["mecanum.rear_left_stator_current"].min() < -0.01


def test_a_tank_built_from_an_ftc_motor_type_has_per_side_hub_channels():
    from simcore.models.hub_motor import GOBILDA_5203_435
    tk = TankDrive(GOBILDA_5203_435, n_motors_per_side=2, wheel_radius=0.048, track_width=0.4, mass=12.0, moi=0.4)
    assert tk.motor_type is GOBILDA_5203_435 and tk.drive.command == "duty"
    assert tk.input_names[:4] == ("left_duty", "right_duty", "left_brake", "right_brake")
    for side in ("left", "right"):
        for o in ("rotor_position", "rotor_velocity", "stator_current", "supply_current"):
            assert f"{side}_{o}" in tk.output_names
    res = simcosim(tk, 0.5, {"drive.left_duty": 0.5, "drive.right_duty": 0.5})
    assert res.final("drive.supply_voltage") == 12.0 and res.final("drive.velocity") > 0.1


def test_a_tank_on_an_ftc_hub_its_sides_coupled_through_the_chassis():
    """One side driven by its hub channel at power 0.6, the other floating (no current, no force): from rest
    the floating side's encoder counts (1/m - b^2/4J) / (1/m + b^2/4J) of the driven side's (massless wheels)."""
    from simcore.controllers.hub import Direction, Hub, ZeroPowerBehavior, linear_opmode
    from simcore.models.hub_motor import GOBILDA_5203_312
    m, J, b = 10.0, 0.5, 0.4
    tk = TankDrive(GOBILDA_5203_312, n_motors_per_side=1, wheel_radius=0.048, track_width=b, mass=m, moi=J,
                   viscous_friction=0)  # an ideal floating motor: no force at all
    hub = Hub()
    left, right = hub.motor(0, tk, wheel="left"), hub.motor(1, tk, wheel="right")
    log = []

    def code():
        left.setDirection(Direction.REVERSE)  # the left motor is mounted mirrored: the SDK samples' direction line
        right.setZeroPowerBehavior(ZeroPowerBehavior.FLOAT)
        left.setPower(0.6)
        while True:
            log.append((left.getCurrentPosition(), right.getCurrentPosition()))
            yield

    res = simcore.simulate([tk], 0.5, [linear_opmode(code, period=0.01, hubs=[hub]), *hub.controllers()])
    assert np.all(res["drive.right_stator_current"] == 0.0) and res["drive.left_duty"][-1] > 0.5
    pl, pr = log[-1]
    assert pl > 500 and pr / pl == pytest.approx((1 / m - b * b / (4 * J)) / (1 / m + b * b / (4 * J)), abs=2 / pl)


def test_a_drivetrain_motor_at_free_speed_draws_its_datasheet_free_current():
    """The default viscous friction is the free current's: at the nominal voltage and no load, each motor turns at
    the datasheet free speed drawing the datasheet free current."""
    sw = swerve(viscous_friction=None, steer_viscous_friction=None)
    tk = TankDrive(KRAKEN_X60, 6.0, n_motors_per_side=2, wheel_radius=0.05, track_width=0.5, mass=40.0, moi=3.0)
    res = simcosim(tk, 12.0, {"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    w_free = 6000 * 2 * math.pi / 60  # Kraken X60 datasheet: 6000 rpm, 2 A free (REFERENCE.md section 1)
    assert res.final("drive.left_rotor_velocity") == pytest.approx(w_free, rel=1e-6)
    assert res.final("drive.left_stator_current") == pytest.approx(2 * 2.0, rel=1e-6)  # two motors
    assert tk.free_speed(12.0) == pytest.approx(w_free * 0.05 / 6.0, rel=1e-12)
    assert sw.drive_free_speed(12.0) == pytest.approx(w_free * 0.0508 / 6.75, rel=1e-12)


def test_swerve_motor_keywords_are_plain_and_steer_prefixed_with_the_old_dicts_deprecated():
    from simcore import ConfigError
    sw = swerve(stator_current_limit=60.0, steer_stator_current_limit=30.0, steer_efficiency=0.9, n_motors=1)
    assert sw.drive.stator_current_limit == 60.0 and sw.steer.stator_current_limit == 30.0
    assert sw.steer.efficiency == 0.9 and sw.drive.efficiency == 1.0
    with pytest.warns(DeprecationWarning, match="drive_options"):
        old = swerve(drive_options={"stator_current_limit": 60.0})
    assert old.drive.stator_current_limit == 60.0
    with pytest.raises(ConfigError) as info:
        swerve(steer_efficiency=1.5)
    assert info.value.parameter == "steer_efficiency"
    with pytest.raises(ConfigError) as info:
        swerve(steer_n_motors=0)
    assert info.value.parameter == "steer_n_motors"
    with pytest.raises(TypeError, match="SwerveDrive"):
        swerve(stator_curent_limit=60.0)
    with pytest.raises(ConfigError) as info:
        swerve(drive_gearing=0.0)
    assert info.value.parameter == "drive_gearing"
    with pytest.raises(ConfigError) as info:
        swerve(steer_gearing=-2.0)
    assert info.value.parameter == "steer_gearing"


def test_the_axle_solve_of_a_tank_without_wheelbase_is_the_general_solve():
    from simcore.models.chassis import BACKWARD, FORWARD, ROLL
    drive = tank(friction_coefficient=0.9, viscous_friction=None)
    ch = drive.chassis
    rng = np.random.default_rng(3)
    for _ in range(200):
        v, om, fx, tz = rng.normal(0, 2, 4)
        D = tuple(rng.normal(0, 300, 2))
        modes = tuple(rng.choice([ROLL, FORWARD, BACKWARD], 2))
        general = ch.solve(v, 0.0, om, drive._ones2, drive._zeros2, drive._arms, (0.0, 0.0), D, modes,
                           drive._free_dirs, drive._free_arm, drive._zeros, fx, 0.0, tz, (), om * v)
        axle = ch.solve_axle(D, modes, drive._arms, fx, tz, om * v)
        for name in ("ax", "ay", "alpha", "normal", "traction", "wheel_accel"):
            np.testing.assert_allclose(getattr(axle, name), getattr(general, name), rtol=1e-14, atol=1e-12)


def test_a_layout_too_large_to_square_names_the_users_parameter_without_a_warning():
    import warnings
    from simcore import ConfigError
    cases = [(tank, "wheelbase", 1e200), (tank, "wheelbase", 1e308), (tank, "track_width", 1e200),
             (tank, "axle_positions", (1e200, 0.0, -1e200)), (mecanum, "wheelbase", 1e200),
             (swerve, "module_positions", [(1e200, 1e200), (1e200, -1e200), (-1e200, 1e200), (-1e200, -1e200)])]
    for make, parameter, value in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no overflow RuntimeWarning on the way
            with pytest.raises(ConfigError) as info:
                make(**{parameter: value})
        assert info.value.parameter == parameter and info.value.value == value


@pytest.mark.parametrize("make", [lambda: mecanum(friction_coefficient=0.7, roller_friction=0.05),
                                  lambda: tank(friction_coefficient=0.9, wheelbase=0.6)])
def test_the_fixed_geometry_solve_is_the_general_solve(make):
    """Wheels that do not steer: the matrix formed once per mode gives the general solve's numbers."""
    from simcore.models.chassis import BACKWARD, FORWARD, ROLL
    drive = make()
    ch = drive.chassis
    dx, dy, arm, free_dirs, free_arm = ch.geometry
    n, nc = ch.n_wheels, len(ch.contacts)
    rng = np.random.default_rng(5)
    for _ in range(200):
        hterm, D = tuple(rng.normal(0, 2, n)), tuple(rng.normal(0, 100, n))
        coef = tuple(rng.normal(0, 0.3, nc) * (rng.random(nc) < 0.8))  # some contacts without a free force
        fx, fy, tz = rng.normal(0, 20, 3)
        modes = tuple(int(m) for m in rng.choice([ROLL, FORWARD, BACKWARD], n))
        general = ch.solve(0.0, 0.0, 0.0, dx, dy, arm, hterm, D, modes, free_dirs, free_arm, coef, fx, fy, tz, ())
        fixed = ch.solve_fixed(hterm, D, modes, coef, fx, fy, tz, ())
        for name in ("ax", "ay", "alpha", "normal", "free_force", "traction", "wheel_accel"):
            np.testing.assert_array_equal(getattr(fixed, name), getattr(general, name))
        # A lateral acceleration held fixed (a tank without scrub) is the general solve's too.
        ay = float(rng.normal(0, 3))
        general = ch.solve(0.0, 0.0, 0.0, dx, dy, arm, hterm, D, modes, free_dirs, free_arm, coef, fx, fy, tz, (), ay)
        fixed = ch.solve_fixed(hterm, D, modes, coef, fx, fy, tz, (), ay)
        assert fixed.ay == pytest.approx(ay, rel=1e-12)  # held (to the round-off of the 3x3 solve)
        for name in ("ax", "ay", "alpha", "normal", "free_force", "traction", "wheel_accel"):
            np.testing.assert_array_equal(getattr(fixed, name), getattr(general, name))


@pytest.mark.parametrize("make", [lambda: mecanum(friction_coefficient=0.7, roller_friction=0.05),
                                  lambda: tank(friction_coefficient=0.9, wheelbase=0.6)])
def test_a_run_reads_the_chassis_parameters_afresh(make):
    """The matrices cached per mode are rebuilt when a simulation starts: a drivetrain whose chassis
    mass was changed after a first run gives what one built with that mass gives (review of dt3)."""
    from simcore import simulate

    def run(drive):  # the left side driven: the robot turns, scrubbing
        left = [k for k in drive.input_names if "left" in k and k.endswith(("_voltage", "_duty"))]
        return simulate(drive, 0.4, inputs={f"{drive.name}.{k}": 0.5 if k.endswith("_duty") else 6.0 for k in left},
                        method="RK45")

    used = make()
    first = run(used)
    used.chassis.mass *= 1.4
    again = run(used)
    fresh = make()
    fresh.chassis.mass *= 1.4
    ref = run(fresh)
    name = f"{used.name}.x"
    assert again.final(name) != first.final(name)
    np.testing.assert_array_equal(again[name], ref[name])
    with pytest.raises(TypeError):
        used.channels.viscous[0] = 0.01  # fixed at construction, as the channels' constants built from it
