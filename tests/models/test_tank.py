"""Tank drivetrains against analytic solutions, WPILib's plant, and pyfrc's equations."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import expm

import simcore
from simcore import ConfigError, PeriodicController
from simcore.models.battery import Battery
from simcore.models.motors import CIM, DCMotor
from simcore.models.tank import TankDrive, rectangle_moi
from simcore.controllers.drive_control import tank_drive_controller
from simcore.controllers.kinematics import ChassisSpeeds

# Datasheet CIM (REFERENCE.md section 1), 12 V; constants derived here, not by the model.
V_NOM, T_STALL, I_STALL, I_FREE, RPM_FREE = 12.0, 2.42, 133.0, 2.7, 5310.0
N, G, RADIUS, TRACK, MASS, MOI = 2, 10.71, 0.0762, 0.6, 50.0, 5.0


def cim_group_constants(n):
    R = V_NOM / (n * I_STALL)
    Kt = n * T_STALL / (n * I_STALL)
    w_free = RPM_FREE * 2 * math.pi / 60
    Kv = w_free / (V_NOM - R * n * I_FREE)
    return R, Kt, Kv


def make(**kw):
    # viscous_friction=0: the motors without their free-current friction, as the references below (WPILib's plant)
    args = dict(n_motors_per_side=N, wheel_radius=RADIUS, track_width=TRACK, mass=MASS, moi=MOI, viscous_friction=0)
    args.update(kw)
    return TankDrive(CIM, G, **args)


def test_straight_run_reaches_terminal_speed():
    drive = make()
    res = simcore.simulate([drive], 5.0, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    _, _, Kv = cim_group_constants(N)
    v_term = 12.0 * Kv * RADIUS / G
    assert res.final("drive.left_velocity") == pytest.approx(v_term, rel=1e-6)
    assert res.final("drive.right_velocity") == pytest.approx(v_term, rel=1e-6)
    assert res.final("drive.velocity") == pytest.approx(v_term, rel=1e-6)
    # Symmetric sides: no turn and no sideways motion, up to the solver's rounding.
    assert np.max(np.abs(res["drive.heading"])) < 1e-12
    assert np.max(np.abs(res["drive.y"])) < 1e-12
    assert res.final("drive.x") == pytest.approx(res.final("drive.left_position"), rel=1e-12)


def test_spin_reaches_analytic_yaw_rate():
    drive = make()
    res = simcore.simulate([drive], 5.0, inputs={"drive.left_voltage": -9.0, "drive.right_voltage": 9.0})
    _, _, Kv = cim_group_constants(N)
    w_term = 2 * 9.0 * Kv * RADIUS / G / TRACK
    assert res.final("drive.yaw_rate") == pytest.approx(w_term, rel=1e-6)
    assert abs(res.final("drive.velocity")) < 1e-9
    assert res.final("drive.heading") > 0


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau"])
def test_side_speeds_follow_wpilib_drivetrain_plant(method):
    """C1..C4 plant (REFERENCE.md section 3), solved by the matrix exponential."""
    R, Kt, Kv = cim_group_constants(N)
    C1 = -G ** 2 * Kt / (Kv * R * RADIUS ** 2)
    C2 = G * Kt / (R * RADIUS)
    rb = TRACK / 2
    C3 = 1 / MASS + rb ** 2 / MOI
    C4 = 1 / MASS - rb ** 2 / MOI
    A = np.array([[C3 * C1, C4 * C1], [C4 * C1, C3 * C1]])
    B = np.array([[C3 * C2, C4 * C2], [C4 * C2, C3 * C2]])
    u = np.array([4.0, 10.0])
    # augmented [v; p] with dp/dt = v
    M = np.zeros((6, 6))
    M[:2, :2] = A
    M[:2, 4:] = B
    M[2:4, :2] = np.eye(2)
    drive = make()
    # a controller that writes nothing puts rows on its ticks (sample() interpolates between rows)
    res = simcore.simulate([drive], 1.0, [PeriodicController(0.05, lambda t, s: None)],
                           inputs={"drive.left_voltage": u[0], "drive.right_voltage": u[1]},
                           method=method, rtol=1e-10, atol=1e-12)
    for t in (0.05, 0.2, 0.5, 1.0):
        z = expm(M * t) @ np.r_[0, 0, 0, 0, u]
        assert res.sample("drive.left_velocity", [t])[0] == pytest.approx(z[0], rel=1e-6, abs=1e-9)
        assert res.sample("drive.right_velocity", [t])[0] == pytest.approx(z[1], rel=1e-6, abs=1e-9)
    zf = expm(M * 1.0) @ np.r_[0, 0, 0, 0, u]
    assert res.final("drive.left_position") == pytest.approx(zf[2], rel=1e-6)
    assert res.final("drive.right_position") == pytest.approx(zf[3], rel=1e-6)


# -- pyfrc ----------------------------------------------------------------------------------
IN = 0.0254
PYFRC_KITBOT = dict(x_wheelbase=21 * IN, robot_width=27.5 * IN, robot_length=36.5 * IN, wheel_diameter=6 * IN)


def pyfrc_reference(pct_segments, *, mass, gearing, nmotors, vintercept=1.3):
    """pyfrc TankModel.theory's equations, written out from pyfrc's source, integrated by solve_ivp."""
    d = PYFRC_KITBOT["wheel_diameter"]
    free_rps = RPM_FREE / 60.0  # pyfrc: freeSpeed in counts (revolutions) per minute
    vmax = free_rps * math.pi * d / gearing
    amax = 2.0 * nmotors * T_STALL * gearing / (d * mass)
    kv, ka = V_NOM / vmax, V_NOM / amax
    J = mass * (PYFRC_KITBOT["robot_length"] ** 2 + PYFRC_KITBOT["robot_width"] ** 2) / 12.0
    bm = PYFRC_KITBOT["x_wheelbase"] / 2.0 * mass

    def applied(p):
        v = V_NOM * p
        return math.copysign(max(abs(v) - vintercept, 0.0), v)

    def rhs(t, z, vl_in, vr_in):
        x, y, th, l, r, pl, pr = z
        v = 0.5 * (l + r)
        return [v * math.cos(th), v * math.sin(th), bm * (r - l) / J,
                (vl_in - kv * l) / ka, (vr_in - kv * r) / ka, l, r]

    z = np.zeros(7)
    t = 0.0
    out = []
    for dur, (pl, pr) in pct_segments:
        sol = solve_ivp(rhs, (t, t + dur), z, args=(applied(pl), applied(pr)), method="DOP853",
                        rtol=1e-12, atol=1e-12)
        z = sol.y[:, -1]
        t += dur
        out.append((t, z.copy()))
    return out


SEGMENTS = [(0.6, (0.8, 0.5)), (0.4, (-0.3, 0.6)), (0.5, (0.05, 0.05)), (0.5, (1.0, 1.0)), (0.5, (0.0, -0.7))]


def test_pyfrc_theory_matches_independent_integration():
    drive = TankDrive.pyfrc_theory(CIM, 50.0, 10.71, n_motors=2, **PYFRC_KITBOT)
    starts = np.cumsum([0.0] + [d for d, _ in SEGMENTS])

    def cmd(t, s):
        k = min(int(np.searchsorted(starts, t + 1e-12, side="right")) - 1, len(SEGMENTS) - 1)
        pl, pr = SEGMENTS[k][1]
        return {"drive.left_voltage": 12.0 * pl, "drive.right_voltage": 12.0 * pr}

    # segment ends fall on ticks, so they are rows of the result (no interpolation)
    res = simcore.simulate([drive], starts[-1], [PeriodicController(0.1, cmd)], rtol=1e-11, atol=1e-12)
    ref = pyfrc_reference(SEGMENTS, mass=50.0, gearing=10.71, nmotors=2)
    names = ["x", "y", "heading", "left_velocity", "right_velocity", "left_position", "right_position"]
    for t, z in ref:
        got = np.array([res.sample(f"drive.{n}", [t])[0] for n in names])
        np.testing.assert_allclose(got, z, rtol=0, atol=1e-6)
    # the run turned and moved: the comparison is not trivial
    assert abs(ref[-1][1][2]) > 0.3 and abs(ref[-1][1][0]) > 1.0


def test_pyfrc_vintercept_is_a_deadband():
    drive = TankDrive.pyfrc_theory(CIM, 50.0, 10.71, n_motors=2)
    res = simcore.simulate([drive], 1.0, inputs={"drive.left_voltage": 1.2, "drive.right_voltage": -1.2})
    assert res.final("drive.left_velocity") == 0.0 and res.final("drive.heading") == 0.0


def test_rectangle_moi_is_pyfrcs_estimate():
    assert rectangle_moi(60.0, 0.7, 0.9) == pytest.approx(60.0 * (0.49 + 0.81) / 12.0, rel=1e-15)
    assert TankDrive.estimate_moi(60.0, 0.7, 0.9) == rectangle_moi(60.0, 0.7, 0.9)


def test_characterized_gains_mean_what_sysid_measures():
    kvl, kal, kva, kaa, ks, tw = 2.5, 0.4, 1.1, 0.25, 0.3, 0.65
    drive = TankDrive.characterized(kv_linear=kvl, ka_linear=kal, kv_angular=kva, ka_angular=kaa, ks=ks,
                                    track_width=tw)
    # Straight: V = ks + kv_lin v + ka_lin a on both sides.
    res = simcore.simulate([drive], 4.0, inputs={"drive.left_voltage": 6.0, "drive.right_voltage": 6.0})
    assert res["drive.left_acceleration"][0] == pytest.approx((6.0 - ks) / kal, rel=1e-12)
    assert res.final("drive.velocity") == pytest.approx((6.0 - ks) / kvl, rel=1e-6)
    # Turning in place: V = ks + kv_ang omega + ka_ang alpha on the right, minus on the left.
    res = simcore.simulate([drive], 4.0, inputs={"drive.left_voltage": -6.0, "drive.right_voltage": 6.0})
    alpha0 = (res["drive.right_acceleration"][0] - res["drive.left_acceleration"][0]) / tw
    assert alpha0 == pytest.approx((6.0 - ks) / kaa, rel=1e-12)
    assert res.final("drive.yaw_rate") == pytest.approx((6.0 - ks) / kva, rel=1e-6)


def test_characterized_accepts_quantities():
    from simcore import ureg
    a = TankDrive.characterized(kv_linear=2.0 * ureg("V*s/m"), ka_linear=0.3, kv_angular=1.0, ka_angular=0.2,
                                track_width=0.6)
    b = TankDrive.characterized(kv_linear=2.0 * 0.3048 * ureg("V*s/ft"), ka_linear=0.3, kv_angular=1.0,
                                ka_angular=0.2, track_width=0.6)
    assert a.A1 == pytest.approx(b.A1, rel=1e-12)


# -- traction, energy, battery ---------------------------------------------------------------
def energy_residual(res, name, kinds=("copper_loss", "conversion_loss", "gear_loss", "friction_loss")):
    e_in = res.final(f"{name}.energy_in")
    dke = res.final(f"{name}.kinetic_energy") - res[f"{name}.kinetic_energy"][0]
    losses = sum(res.final(f"{name}.{k}") for k in kinds)
    return (e_in - dke - losses) / e_in


def test_traction_limit_slips_and_audit_closes():
    drive = make(friction_coefficient=0.5, track_energy=True, efficiency=0.85, rotor_inertia=1e-4)
    res = simcore.simulate([drive], 2.0, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": 10.0})
    assert res["drive.left_slip_speed"].max() > 0.5
    # friction caps the ground force (mu N per side) and the acceleration (mu g)
    # (exact Coulomb friction while slipping: the force is the limit itself)
    assert np.all(np.abs(res["drive.left_ground_force"]) <= 0.5 * MASS * 9.80665 / 2)
    assert res["drive.acceleration"].max() <= 0.5 * 9.80665
    assert res.final("drive.left_position") > res.final("drive.x")  # wheels spun faster than the robot moved
    assert res.final("drive.friction_loss") > 1.0
    assert abs(energy_residual(res, "drive")) < 1e-6


def test_high_friction_terminal_speed_matches_no_slip():
    drive = make(friction_coefficient=1.5)
    res = simcore.simulate([drive], 5.0, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    _, _, Kv = cim_group_constants(N)
    assert res.final("drive.velocity") == pytest.approx(12.0 * Kv * RADIUS / G, rel=1e-6)


def test_energy_audit_no_slip_with_battery_and_losses():
    # 40 A on each motor's controller: N motors per side share an 80 A side limit.
    drive = make(track_energy=True, efficiency=0.8, rotor_inertia=5e-5, stator_current_limit=40.0)
    batt = Battery()

    def cmd(t, s):
        return {"drive.left_voltage": 12.0 if t < 1.0 else 0.0, "drive.right_voltage": 8.0 if t < 1.0 else -3.0}

    res = simcore.simulate([drive, batt], 2.0, [PeriodicController(0.02, cmd)])
    assert res["battery.voltage"].min() < 11.0
    np.testing.assert_allclose(res["battery.current"], res["drive.supply_current"], rtol=1e-12, atol=1e-12)
    assert res.final("drive.friction_loss") == 0.0
    assert abs(energy_residual(res, "drive")) < 1e-6
    assert res["drive.left_stator_current"].max() <= N * 40.0 + 1e-9
    assert res["drive.left_stator_current"].max() == pytest.approx(N * 40.0, abs=1e-9)  # the limit engaged


def test_consistent_motor_has_no_conversion_loss():
    # Kt * Kv = 1 exactly: no free current and T_stall * w_free = V * I_stall.
    motor = DCMotor(12.0, 1.0, 100.0, 0.0, 1200.0, "ideal")
    drive = TankDrive(motor, 10.0, n_motors_per_side=1, wheel_radius=0.05, track_width=0.5, mass=30.0, moi=2.0,
                      friction_coefficient=0.8, track_energy=True)
    res = simcore.simulate([drive], 1.5, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": -4.0})
    assert abs(res.final("drive.conversion_loss")) < 1e-9 * res.final("drive.energy_in")
    assert abs(energy_residual(res, "drive", ("copper_loss", "gear_loss", "friction_loss"))) < 1e-6


def test_coast_keeps_rolling_brake_stops():
    for mode, moving in (("coast", True), ("brake", False)):
        drive = make(neutral_mode=mode)
        res = simcore.simulate([drive], 2.0, x0={"drive.left_velocity": 2.0, "drive.right_velocity": 2.0})
        if moving:
            assert res.final("drive.velocity") == pytest.approx(2.0, rel=1e-12)
            assert np.all(res["drive.left_stator_current"] == 0.0)
        else:
            assert res.final("drive.velocity") < 0.01
            assert res["drive.left_stator_current"][0] < -10.0


def test_tank_drive_controller_reaches_commanded_speeds():
    drive = make()
    ctrl = tank_drive_controller(drive, lambda t, s: (1.5, 0.0, 0.8))
    res = simcore.simulate([drive], 4.0, [ctrl])
    assert res.final("drive.velocity") == pytest.approx(1.5, rel=1e-6)
    assert res.final("drive.yaw_rate") == pytest.approx(0.8, rel=1e-6)


def test_tank_drive_controller_on_characterized_model():
    drive = TankDrive.characterized(kv_linear=2.5, ka_linear=0.4, kv_angular=1.1, ka_angular=0.25, ks=0.3,
                                    track_width=0.65)
    res = simcore.simulate([drive], 4.0, [tank_drive_controller(drive, lambda t, s: ChassisSpeeds(1.2, 0.0, -0.6))])
    assert res.final("drive.velocity") == pytest.approx(1.2, rel=1e-6)
    assert res.final("drive.yaw_rate") == pytest.approx(-0.6, rel=1e-6)


def test_per_side_outputs_present():
    drive = make()
    for side in ("left", "right"):
        for o in ("stator_current", "supply_current", "applied_voltage", "rotor_velocity", "torque",
                  "motor_torque", "saturated", "current_limited", "supply_voltage", "acceleration"):
            assert f"{side}_{o}" in drive.output_names
    assert drive.state_names[:7] == ("x", "y", "heading", "left_velocity", "right_velocity", "left_position",
                                     "right_position")
    assert drive.input_names == ("left_voltage", "right_voltage", "brake", "external_force_x", "external_force_y",
                                 "external_torque", "bus_voltage")


@pytest.mark.parametrize("param,value", [("track_width", 0.0), ("track_width", -0.5), ("wheel_radius", -0.05),
                                         ("wheel_radius", 0.0), ("mass", 0.0), ("moi", -1.0)])
def test_bad_geometry_raises(param, value):
    with pytest.raises(ConfigError) as info:
        make(**{param: value})
    assert info.value.parameter == param


def test_bad_characterized_track_width():
    with pytest.raises(ConfigError) as info:
        TankDrive.characterized(kv_linear=2, ka_linear=0.3, kv_angular=1, ka_angular=0.2, track_width=0.0)
    assert info.value.parameter == "track_width"


def test_traction_needs_rotating_inertia():
    with pytest.raises(ConfigError) as info:
        make(friction_coefficient=1.0, wheel_inertia=0.0)
    assert info.value.parameter == "wheel_inertia"


def test_lossy_gearbox_with_traction_passes_through_zero_wheel_speed():
    # Reviewed defect: the traction tank stalled the solver at a wheel's zero speed with efficiency < 1.
    def cmd(t, s):
        return {"drive.left_voltage": 12.0 if t < 0.6 else (0.0 if t < 1.0 else -12.0),
                "drive.right_voltage": 6.0 if t < 0.6 else (-12.0 if t < 1.0 else 3.0),
                "drive.brake": 1.0 if t < 0.8 else 0.0}

    tk = TankDrive(CIM, 8.0, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0, moi=5.0,
                   friction_coefficient=0.8, efficiency=0.85, rotor_inertia=1e-4, stator_current_limit=120.0,
                   supply_current_limit=60.0)
    r = simcore.simulate([tk, Battery(resistance=0.03)], 1.5, [PeriodicController(0.02, cmd, name="c")],
                         method="LSODA")
    assert r.t[-1] == 1.5 and r.stats["n_steps"] < 20000
    assert r["drive.right_velocity"].min() < 0 < r["drive.right_velocity"].max()
