"""Swerve drive: commanded speeds, pure translation, optimization, slip, odometry, energy, geometry."""
import math

import numpy as np
import pytest

import simcore
from simcore import ConfigError, PeriodicController
from simcore.models.battery import Battery
from simcore.models.motors import FALCON_500, KRAKEN_X60, DCMotor
from simcore.models.swerve import SwerveDrive
from simcore.controllers.drive_control import swerve_module_controllers
from simcore.controllers.geometry import Pose2d, wrap_angle
from simcore.controllers.kinematics import ChassisSpeeds, SwerveKinematics
from simcore.controllers.odometry import SwerveOdometry

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def make(**kw):
    # viscous_friction=0: motors without their free-current friction, as the references below
    args = dict(module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0,
                moi=6.0, viscous_friction=0, steer_viscous_friction=0)
    args.update(kw)
    return SwerveDrive(KRAKEN_X60, FALCON_500, **args)


def run(swerve, command, t_end, **kw):
    ctrls = swerve_module_controllers(swerve, SwerveKinematics(POS), command, **kw)
    return simcore.simulate([swerve], t_end, ctrls), ctrls


@pytest.mark.parametrize("target", [(1.5, 0.8, 0.0), (-2.0, 1.0, 0.0), (0.0, 0.0, 2.0)])
def test_commanded_chassis_speeds_are_reached(target):
    sw = make()
    res, _ = run(sw, lambda t, s: ChassisSpeeds(*target), 2.0)
    got = (res.final("swerve.robot_vx"), res.final("swerve.robot_vy"), res.final("swerve.omega"))
    scale = max(abs(v) for v in target)
    for g, want in zip(got, target):
        assert abs(g - want) <= 0.01 * scale


def test_translation_while_rotating_within_one_percent():
    # Constant robot-relative speeds while turning need a centripetal force: tyre creep, not zero.
    target = (1.0, 0.5, 1.0)
    sw = make()
    res, _ = run(sw, lambda t, s: ChassisSpeeds(*target), 2.5)
    got = (res.final("swerve.robot_vx"), res.final("swerve.robot_vy"), res.final("swerve.omega"))
    for g, want in zip(got, target):
        assert g == pytest.approx(want, rel=0.01)


def test_parallel_modules_give_pure_translation():
    angle = 0.7
    sw = make(start_steer_angles=[angle] * 4, start_pose=(1.0, 2.0, 0.3))
    inputs = {f"swerve.drive_voltage_{i}": 8.0 for i in range(4)}
    res = simcore.simulate([sw], 1.5, inputs=inputs)
    assert np.max(np.abs(res["swerve.omega"])) < 1e-9
    assert np.max(np.abs(res["swerve.heading"] - 0.3)) < 1e-9
    direction = math.atan2(res.final("swerve.y") - 2.0, res.final("swerve.x") - 1.0)
    assert direction == pytest.approx(0.3 + angle, abs=1e-9)
    # all wheels terminal at the no-load speed of the motor
    Kv = KRAKEN_X60.free_speed / (12 - 12 / 366 * 2.0)
    assert res.final("swerve.wheel_speed_2") == pytest.approx(8.0 * Kv * 0.0508 / 6.75, rel=1e-6)


def _record_steering(ctrls, swerve):
    """Wrap each module loop to record (current angle, target angle) at every tick."""
    cmd = ctrls[0].command
    log = []
    for i, c in enumerate(ctrls[1:]):
        inner = c.fn

        def fn(t, s, inner=inner, i=i):
            current = s[f"{swerve.name}.steer_angle_{i}"]
            out = inner(t, s)
            log.append((current, cmd.targets[i].angle))
            return out

        c.fn = fn
    return log


@pytest.mark.parametrize("optimize", [True, False])
def test_module_optimization_never_turns_more_than_90_degrees(optimize):
    sequence = [(0.0, (1.0, 0.0, 0.0)), (0.6, (-1.0, 0.0, 0.0)), (1.2, (0.0, -1.0, 0.0)),
                (1.8, (-0.7, 0.7, 0.0)), (2.4, (0.5, 0.5, 1.0))]

    def command(t, s):
        return [c for t0, c in sequence if t >= t0 - 1e-9][-1]

    sw = make()
    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS), command, optimize=optimize)
    log = _record_steering(ctrls, sw)
    res = simcore.simulate([sw], 3.0, ctrls)
    turns = np.array([abs(wrap_angle(target - current)) for current, target in log])
    if optimize:
        assert turns.max() <= math.pi / 2 + 1e-12
        # forward then backward: the wheels reverse instead of turning around
        first = res.sample("swerve.steer_angle_0", [1.1])[0]
        assert abs(first) < 0.05
    else:
        assert turns.max() > math.pi / 2 + 0.1  # the check above can fail


def wheel_odometry(res, name, times):
    """SwerveOdometry fed the drive encoders, steer angles and true heading (a perfect gyro)."""
    kin = SwerveKinematics(POS)

    def modules(t):
        return [(res.sample(f"{name}.wheel_distance_{i}", [t])[0], res.sample(f"{name}.steer_angle_{i}", [t])[0])
                for i in range(4)]

    def true_pose(t):
        return Pose2d(*(res.sample(f"{name}.{k}", [t])[0] for k in ("x", "y", "heading")))

    odo = SwerveOdometry(kin, true_pose(times[0]).heading, modules(times[0]), true_pose(times[0]))
    errors = []
    for t in times[1:]:
        est = odo.update(res.sample(f"{name}.heading", [t])[0], modules(t))
        tp = true_pose(t)
        errors.append(math.hypot(est.x - tp.x, est.y - tp.y))
    return np.array(errors)


def test_low_friction_hard_acceleration_slips_and_odometry_diverges():
    sw = make(friction_coefficient=0.15)
    inputs = {f"swerve.drive_voltage_{i}": 12.0 for i in range(4)}
    times = np.linspace(0.0, 1.0, 101)
    res = simcore.simulate([sw], 1.0, [PeriodicController(0.01, lambda t, s: None)], inputs=inputs)
    assert res["swerve.slip_speed_0"].max() > 1.0
    # friction limits the acceleration to mu g
    assert res["swerve.vx"][-1] <= 0.15 * 9.80665 * 1.0 + 1e-9
    errors = wheel_odometry(res, "swerve", times)
    assert errors[-1] > 1.0


def test_high_friction_gentle_motion_odometry_tracks_to_a_millimetre():
    def command(t, s):
        # trapezoid of speed 0.4 m/s along a diagonal, with a slow turn
        ramp = min(t / 1.0, 1.0, max(0.0, (3.0 - t) / 1.0))
        return ChassisSpeeds(0.32 * ramp, 0.24 * ramp, 0.2 * ramp)

    sw = make(friction_coefficient=1.2)
    res, _ = run(sw, command, 3.5)
    times = np.arange(0.0, 3.5 + 1e-9, 0.004)
    errors = wheel_odometry(res, "swerve", times)
    assert errors.max() < 1e-3
    assert math.hypot(res.final("swerve.x"), res.final("swerve.y")) > 0.6  # it did move
    assert res["swerve.slip_speed_0"].max() > 0  # creep exists; it is just small


def energy_residual(res, name):
    e_in = res.final(f"{name}.energy_in")
    dke = res.final(f"{name}.kinetic_energy") - res[f"{name}.kinetic_energy"][0]
    losses = sum(res.final(f"{name}.{k}") for k in ("copper_loss", "conversion_loss", "gear_loss",
                                                       "friction_loss"))
    return (e_in - dke - losses) / e_in


@pytest.mark.parametrize("mu", [0.3, 1.2])
def test_energy_audit_closes_with_battery(mu):
    sw = make(friction_coefficient=mu, track_energy=True, efficiency=0.9, steer_efficiency=0.8,
              steer_stator_current_limit=40.0, drive_rotor_inertia=4e-5)
    batt = Battery()

    def command(t, s):
        return ChassisSpeeds(4.0, -1.0, 2.0) if t < 1.0 else ChassisSpeeds(-3.0, 2.0, -1.0)

    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS), command)
    res = simcore.simulate([sw, batt], 2.0, ctrls)
    assert res.final("swerve.friction_loss") > 0
    assert res["battery.voltage"].min() < 11.5
    # Battery current = the loads' supply current; where the unlimited motors' plugging collapses the
    # bus (0 V), the battery is shorted: V_oc / R (models/battery.py).
    collapsed = res["battery.voltage"] == 0.0
    expected = np.where(collapsed, 12.0 / 0.02, res["swerve.supply_current"])
    np.testing.assert_allclose(res["battery.current"], expected, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(res["battery.voltage"], 12.0 - 0.02 * res["battery.current"], atol=1e-9)
    assert abs(energy_residual(res, "swerve")) < 1e-6


def test_consistent_motors_have_no_conversion_loss():
    ideal = DCMotor(12.0, 2.0, 200.0, 0.0, 1200.0, "ideal")
    sw = SwerveDrive(ideal, ideal, module_positions=POS, drive_gearing=6.75, steer_gearing=20.0,
                     wheel_radius=0.05, mass=50.0, moi=5.0, friction_coefficient=0.4, track_energy=True)
    res, _ = run(sw, lambda t, s: ChassisSpeeds(3.0, 1.0, 1.0), 1.0)
    assert abs(res.final("swerve.conversion_loss")) < 1e-9 * res.final("swerve.energy_in")
    assert abs(energy_residual(res, "swerve")) < 1e-6


@pytest.mark.parametrize("kw,param", [
    (dict(module_positions=[(0.3, 0.3)]), "module_positions"),
    (dict(module_positions=[]), "module_positions"),
    (dict(module_positions=[(0.3, 0.3), (0.3, 0.3), (-0.3, 0.0)]), "module_positions"),
    (dict(wheel_radius=-0.05), "wheel_radius"),
    (dict(mass=0.0), "mass"),
    (dict(friction_coefficient=0.0), "friction_coefficient"),
    (dict(steer_inertia=0.0), "steer_inertia"),
])
def test_bad_geometry_raises(kw, param):
    with pytest.raises(ConfigError) as info:
        make(**kw)
    assert info.value.parameter == param


def test_signal_names():
    sw = make(track_energy=True)
    for i in range(4):
        for s in ("steer_angle", "steer_rate", "wheel_speed", "wheel_distance"):
            assert f"{s}_{i}" in sw.state_names
        assert f"drive_voltage_{i}" in sw.input_names and f"steer_voltage_{i}" in sw.input_names
        assert f"slip_speed_{i}" in sw.output_names
    assert sw.state_names[:6] == ("x", "y", "heading", "vx", "vy", "omega")
    assert "bus_voltage" in sw.input_names


@pytest.mark.parametrize("steer_moi", [0.005, 0.5])
def test_default_steer_gains_put_the_slowest_steer_pole_at_one_over_tau(steer_moi):
    from simcore.controllers.drive_control import steer_gains

    sw = make(steer_inertia=steer_moi)
    G = sw.steer.gearing
    R, Kt = 12.0 / 257.0, 4.69 / 257.0  # Falcon 500 datasheet
    Kv = 6380 * 2 * math.pi / 60 / (12.0 - R * 1.5)
    g, b = Kt * G / R, Kt * G * G / (R * Kv)
    kp, kd = steer_gains(sw, tau=0.01)
    poles = np.roots([steer_moi, b + g * kd, g * kp])
    assert np.all(poles.real < 0)
    assert max(poles.real) == pytest.approx(-100.0, rel=1e-9)


def test_lossy_drive_gearbox_passes_through_zero_wheel_speed():
    # Reviewed defect: with efficiency < 1 the gearbox torque jumped as a wheel passed zero speed under
    # load, and the solver could not step over it. Drive forward, then a mild reverse command: the wheels
    # pass through zero while the chassis still rolls.
    sw = make(efficiency=0.9)
    c = lambda t, s: {f"swerve.drive_voltage_{i}": 12.0 if t < 0.5 else -2.0 for i in range(4)}  # noqa: E731
    r = simcore.simulate([sw], 2.0, [PeriodicController(0.02, c, name="c")])
    assert r.t[-1] == 2.0 and r.stats["n_steps"] < 20000
    assert r["swerve.wheel_speed_0"].min() < 0 < r["swerve.wheel_speed_0"].max()


def test_one_bus_so_one_nominal_bus_voltage():
    with pytest.raises(ConfigError, match=r"steer_nominal_bus_voltage=10.0"):
        make(steer_nominal_bus_voltage=10)
    sw = make(nominal_bus_voltage=10, steer_nominal_bus_voltage=10)
    assert sw.initial_inputs()[-1] == 10.0
