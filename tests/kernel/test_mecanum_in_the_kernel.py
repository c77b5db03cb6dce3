"""The mecanum drive in the compiled kernel: its run is the Python path's to the bit, its evaluation is the general
chassis solve's, its slipping rollers push with exactly ``mu N``, and the drives the kernel has no form of yet stay
on the Python path.

The Python path (``simcore.engine.USE_KERNEL = False``) steps with simcore.dopri5, locates the breakaway and grip
events with its own guards and scipy-semantics root finder, and solves the battery's bus with its Python coupling.
Random drives (energy ledger, voltage or duty commands, current limits, gearbox losses, roller friction or none,
battery or none, a geared arm on the same bus, external pushes), driven hard enough that the rollers break away and
grip.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
from both_paths import assert_same_runs, run_on_path, with_battery
from simcore import PeriodicController
from simcore.checks import STANDARD_GRAVITY
from simcore.kernel import mecanum as kernel_mecanum
from simcore.kernel import mecanum_layout, tank_layout
from simcore.models import chassis
from simcore.models.battery import Battery
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.mecanum import MecanumDrive
from simcore.models.motors import NEO
from simcore.models.odometry import OdometryPod


#: Two dead wheels: one along the robot's x axis on its left, one across it behind the centre, turned a little.
PODS = (OdometryPod("par", 0.05, 0.15, 0.0, 0.024, 2000.0), OdometryPod("perp", -0.1, 0.0, math.pi / 2 + 0.1,
                                                                        0.016, 8192.0))


def _mecanum(**kw):
    args = dict(track_width=0.5, wheelbase=0.45, wheel_radius=0.0508, mass=25.0, moi=1.6)
    args.update(kw)
    return MecanumDrive(NEO, 8.0, **args)


CASES = []
rng = np.random.default_rng(20261207)
for i in range(8):
    CASES.append(dict(
        seed=i,
        mu=float(rng.uniform(0.3, 1.0)),
        energy=bool(rng.integers(0, 2)),
        duty=bool(rng.integers(0, 2)),
        limit=None if rng.integers(0, 3) else float(rng.uniform(20, 50)),
        battery=str(rng.choice(["none", "default", "stiff", "with_arm"])),
        efficiency=float(rng.choice([1.0, 0.9])),
        rollers=float(rng.choice([0.0, 0.03, 0.08])),
        period=float(rng.choice([0.01, 0.02])),
        method=str(rng.choice(["auto", "RK45"])),
        push=bool(rng.integers(0, 2)),
        pods=i % 3,
    ))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"mecanum{c['seed']}")
def test_a_mecanum_in_the_kernel_is_the_python_path_to_the_bit(case):
    cmd = "duty" if case["duty"] else "voltage"
    scale = 1.0 if case["duty"] else 12.0

    def make():
        drive = _mecanum(friction_coefficient=case["mu"], track_energy=case["energy"], command=cmd,
                         stator_current_limit=case["limit"], efficiency=case["efficiency"],
                         roller_friction=case["rollers"], name="drive", odometry_pods=PODS[:case["pods"]])
        systems = with_battery(drive, case["battery"])

        def loop(t, s):
            # launches forward, strafes, turns and coasting (neutral), so that the rollers break away and grip
            phase = int(t / 0.3) % 5
            w = ((1.0, 1.0, 1.0, 1.0), (-1.0, 1.0, 1.0, -1.0), (0.7, -0.7, 0.7, -0.7), (0.0, 0.0, 0.0, 0.0),
                 (-1.0, -0.5, -1.0, -0.5))[phase]
            out = {f"drive.{name}_{cmd}": scale * v for name, v in zip(("front_left", "front_right", "rear_left",
                                                                        "rear_right"), w)}
            if case["push"]:
                out["drive.external_force_x"] = 60.0 * math.sin(3.0 * t)
                out["drive.external_force_y"] = 50.0 * math.cos(5.0 * t)
                out["drive.external_torque"] = 10.0 * math.cos(2.0 * t)
            if len(systems) == 3:
                out["arm.voltage"] = 6.0 * math.sin(4.0 * t)
            return out

        return systems, [PeriodicController(case["period"], loop, name="loop")]

    a = run_on_path(True, make, 1.6, method=case["method"])
    b = run_on_path(False, make, 1.6, method=case["method"])
    assert_same_runs(a, b)
    assert {e.name for e in a.events} >= {"breakaway", "grip"}  # the modes were exercised, in every case


def test_the_kernels_evaluation_is_the_general_chassis_solve():
    # The kernel forms the fixed-geometry system (Chassis.solve_fixed's sums); Chassis.solve builds it in general
    # (the form load transfer and walls use). Both are the same mechanics: at random states, inputs and modes
    # they agree to round-off.
    drive = _mecanum(friction_coefficient=0.7, roller_friction=0.05, track_energy=True)
    ch = drive.chassis
    rng = np.random.default_rng(3)
    dx, dy, arm, free_dirs, free_arm = ch.geometry
    for _ in range(200):
        x = drive.initial_state()
        x[:14] = rng.normal(size=14) * 2.0
        u = drive.initial_inputs()
        u[0:4] = rng.uniform(-12.0, 12.0, 4)
        u[drive._iext:drive._iext + 3] = rng.normal(size=3) * 40.0
        mode = (tuple(int(m) for m in rng.choice([0, 1, -1], 4)), ())
        smp = drive._evaluate(x, u, mode)
        c, s = smp.pose[2], smp.pose[3]
        fx, fy, tz = u[drive._iext:drive._iext + 3]
        D = [t / drive.wheel_radius for t in smp.channels.output_torque]
        kin = drive._kinematics(x.tolist())
        roll = smp.roller_speed
        coef = [drive.roller_friction * r / math.sqrt(r * r + drive.slip_epsilon ** 2) for r in roll]
        ref = ch.solve(0.0, 0.0, 0.0, dx, dy, arm, kin[8], D, mode[0], free_dirs, free_arm, coef,
                       c * fx + s * fy, -s * fx + c * fy, tz, ())
        scale = 1.0 + max(abs(v) for v in ref.traction + ref.wheel_accel + [ref.ax, ref.ay, ref.alpha])
        for got, want in ((smp.sol.ax, ref.ax), (smp.sol.ay, ref.ay), (smp.sol.alpha, ref.alpha)):
            assert abs(got - want) <= 1e-12 * scale
        np.testing.assert_allclose(smp.sol.traction, ref.traction, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(smp.sol.wheel_accel, ref.wheel_accel, rtol=0, atol=1e-12 * scale)
        np.testing.assert_array_equal(smp.sol.free_force, ref.free_force)


def test_slipping_rollers_push_with_exactly_mu_times_their_load():
    # Full voltage forward from rest on a slick floor with free rollers: every roller slides along its axle (45
    # degrees to the wheel) with mu N, N = m g / 4. The axles' sideways parts cancel in the "X", their forward
    # parts add: the chassis accelerates at 4 (mu m g / 4) cos 45 / m = mu g / sqrt 2, straight and without yaw.
    mu, m = 0.25, 20.0
    drive = _mecanum(friction_coefficient=mu, mass=m, roller_friction=0.0)
    inputs = {f"mecanum.{w}_voltage": 12.0 for w in ("front_left", "front_right", "rear_left", "rear_right")}
    res = simcore.simulate([drive], 0.3, inputs=inputs)
    assert drive.kernel_form() is not None
    slipping = res["mecanum.front_left_slip_speed"] > 0.0
    assert slipping[-1] and slipping.sum() > 5
    np.testing.assert_allclose(np.gradient(res["mecanum.vx"], res.t)[slipping][2:-2],
                               mu * STANDARD_GRAVITY / math.sqrt(2.0), rtol=1e-6)
    for i in range(4):
        np.testing.assert_allclose(res[f"mecanum.normal_force_{i}"], m * STANDARD_GRAVITY / 4.0, rtol=1e-15)
    assert np.all(np.abs(res["mecanum.omega"]) < 1e-12)
    assert np.all(np.abs(res["mecanum.vy"]) < 1e-12)


@pytest.mark.parametrize("options", [dict(cog_height=0.1),
                                     # (a bumper whose diagonal, 0.85 m, reaches two opposite walls of 0.8 m)
                                     dict(bumper=(0.6, 0.6), field=(-0.4, -0.4, 0.4, 0.4))])
def test_a_mecanum_the_kernel_has_no_form_of_yet_takes_the_python_path(options):
    drive = _mecanum(**options)
    assert drive.kernel_form() is None
    sim = simcore.Simulator([drive, Battery()], [])
    assert sim._compiled is None
    sim.run_until(0.1)


def test_a_mecanum_beside_a_disabling_battery_takes_the_python_path():
    # The kernel's brownout holds back the geared mechanisms' commands, not a drivetrain's four.
    sim = simcore.Simulator([_mecanum(), Battery(brownout_behaviour="disable")], [])
    assert sim._compiled is None
    assert simcore.Simulator([_mecanum(), Battery()], [])._compiled is not None


def test_an_ftc_drive_in_the_fields_walls_runs_in_the_kernel_and_a_road_runner_one_takes_the_python_path():
    walled = MecanumDrive(GOBILDA_5203_312, track_width=0.4, wheelbase=0.35, wheel_radius=0.048, mass=12.0,
                          moi=0.4)
    assert walled.field is not None and walled.kernel_form() is not None
    free = MecanumDrive(GOBILDA_5203_312, track_width=0.4, wheelbase=0.35, wheel_radius=0.048, mass=12.0,
                        moi=0.4, field=None)
    assert free.kernel_form() is not None
    rr = MecanumDrive.from_roadrunner(0.0005, 0.0005, 1000.0, 1.0, 0.005, 0.001, motor_type=GOBILDA_5203_312,
                                      mass=12.0, field=None)
    assert rr.kernel_form() is None  # (its motors' Coulomb friction is not the kernel's channel)

    class MyMecanum(MecanumDrive):
        pass

    assert MyMecanum(NEO, 8.0, track_width=0.5, wheelbase=0.45, wheel_radius=0.05, mass=25.0,
                     moi=1.6).kernel_form() is None


CHANNEL_SLOTS = ("R", "INV_KV", "KV", "KT", "GEARING", "EFFICIENCY", "DUTY", "LIMITED", "STATOR_LIMIT", "SUPPLY_LIMIT",
                 "B_ROTOR", "CONDUCTANCE", "CONVERSION")


def test_the_kernels_constants_are_the_chassis():
    assert (kernel_mecanum.ROLL, kernel_mecanum.FORWARD, kernel_mecanum.BACKWARD) == (chassis.ROLL, chassis.FORWARD,
                                                                                     chassis.BACKWARD)
    assert mecanum_layout.MECANUM_WHEEL_MODES == (chassis.ROLL, chassis.FORWARD, chassis.BACKWARD)
    assert kernel_mecanum.GRIP_SPEED == chassis.GRIP_SPEED
    assert mecanum_layout.IMPACT_LOSS == chassis.DRIVE_ENERGY_STATES.index("impact_loss")
    # the motor channel's slots are the tank's (simcore.models.tank.channel_parameters writes both)
    assert [getattr(mecanum_layout, "MP_" + k) for k in CHANNEL_SLOTS] == \
        [getattr(tank_layout, "TP_" + k) for k in CHANNEL_SLOTS] == list(range(13))
    modes = (0, 1, -1)
    assert [MecanumDrive.KERNEL_MODES[kernel_mecanum.mode_of(a, b, c, d)]
            for a in modes for b in modes for c in modes for d in modes] == \
        [((a, b, c, d), ()) for a in modes for b in modes for c in modes for d in modes]


def test_an_ftc_mecanum_driven_by_a_hub_in_the_kernel_is_the_python_path_to_the_bit():
    # A goBILDA mecanum on an open floor (field=None) driven through a REV hub's four channels (the hub's firmware
    # and the op mode run in Python at their ticks; the drive's duty and per-wheel brake inputs are plain inputs):
    # RUN_USING_ENCODER velocity control forward, then a strafe, then zero power with the BRAKE behaviour.
    from simcore.controllers.hub import Hub, RunMode, ZeroPowerBehavior, linear_opmode
    from simcore.models.mecanum import WHEELS

    def make():
        drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                             moi=0.35, field=None, friction_coefficient=0.5, name="drive")
        hub = Hub()
        motors = [hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)]

        def code():
            for m in motors:
                m.setMode(RunMode.RUN_USING_ENCODER)
                m.setZeroPowerBehavior(ZeroPowerBehavior.BRAKE)
            for powers, steps in (((1.0, 1.0, 1.0, 1.0), 40), ((-0.8, 0.8, 0.8, -0.8), 40), ((0.0,) * 4, 30)):
                for m, p in zip(motors, powers):
                    m.setPower(p)
                for _ in range(steps):
                    yield

        return [drive], [linear_opmode(code, period=0.01, hubs=[hub]), *hub.controllers()]

    a = run_on_path(True, make, 1.1)
    b = run_on_path(False, make, 1.1)
    assert_same_runs(a, b)
    assert {e.name for e in a.events} >= {"breakaway", "grip"}


@pytest.mark.parametrize("options", [dict(track_energy=True, roller_friction=0.05),
                                     dict(stator_current_limit=40.0, efficiency=0.9, roller_friction=0.0),
                                     dict(command="duty", neutral_mode="coast", viscous_friction=0.3,
                                          odometry_pods=PODS)])
def test_the_kernels_instant_is_the_python_forms_to_the_bit(options):
    # The Python form of the drive (MecanumDrive._evaluate and derivatives on the Python chassis solve, which the
    # drives with walls or load transfer still take) and the kernel's give the same bits at random states, inputs
    # and traction modes: evaluation, derivatives, outputs, supply current, settling, the grip reset and guards.
    kernel, python = _mecanum(friction_coefficient=0.7, **options), _mecanum(friction_coefficient=0.7, **options)
    python._kernel_on = False
    rng = np.random.default_rng(11)
    scale = 1.0 if options.get("command") == "duty" else 12.0
    for _ in range(100):
        x = kernel.initial_state()
        x[:] = rng.normal(size=len(x)) * 2.0
        u = kernel.initial_inputs()
        u[0:4] = rng.uniform(-1.0, 1.0, 4) * scale
        u[kernel._iext:kernel._iext + 3] = rng.normal(size=3) * 40.0
        u[kernel._ibus] = rng.uniform(6.0, 13.0)
        mode = (tuple(int(m) for m in rng.choice([0, 1, -1], 4)), ())
        kernel.mode = python.mode = mode
        for drive in (kernel, python):
            drive._samples.clear()
        a, b = kernel._evaluate(x, u, mode), python._evaluate(x, u, mode)
        for f in ("ax", "ay", "alpha", "normal", "traction", "free_force", "wheel_accel"):
            assert np.array_equal(getattr(a.sol, f), getattr(b.sol, f)), f
        assert np.array_equal(kernel.derivatives(0.0, x, u), python.derivatives(0.0, x, u))
        assert np.array_equal(kernel.outputs(0.0, x, u), python.outputs(0.0, x, u))
        assert kernel.supply_current_at(x, u, 11.0) == python.supply_current_at(x, u, 11.0)
        p, code = kernel._kernel_p, kernel._mode_code()
        assert kernel.KERNEL_MODES[kernel_mecanum.settle(p, 0, code, -1, x, 0, u, 0)] == \
            python._settle(x, u, ((0,) * 4, ()))
        for i, event in python.kernel_events.items():
            assert kernel_mecanum.guard(p, 0, code, event.kernel_guard, x, 0, u, 0) == event.guard(0.0, x, u)
        x_fired = x.copy()
        mode_after = kernel_mecanum.fire(p, 0, code, 0, x_fired, 0, u, 0)  # (event 0: wheel 0's breakaway)
        x_reset = python._reset_grip(0.0, x, u)
        assert np.array_equal(x_fired, x_reset)
        assert kernel.KERNEL_MODES[mode_after] == python._breakaway_mode(0)(0.0, x_reset, u)
