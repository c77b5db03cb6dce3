"""The physical tank drive in the compiled kernel: its run is the Python path's to the bit, its slipping wheels
push with exactly ``mu N``, turning in place its scrub resists with ``sum mu_a N_a |x_a|``, and the drives the
kernel has no form of yet stay on the Python path.

The Python path (``simcore.engine.USE_KERNEL = False``) steps with simcore.dopri5, locates the breakaway and
grip events with its own guards and scipy-semantics root finder, and solves the battery's bus with its
Python coupling. Random drives (traction or none, energy ledger, voltage or duty commands, current limits,
battery or none, a geared arm on the same bus, no axle line or two or three axles with sideways scrub), driven
hard enough that the wheels break away and grip.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.models as models
from both_paths import assert_same_runs, run_on_path, with_battery
from simcore import PeriodicController
from simcore.checks import STANDARD_GRAVITY
from simcore.kernel import tank as kernel_tank
from simcore.kernel import tank_layout
from simcore.models import chassis
from simcore.models.battery import Battery
from simcore.models.motors import CIM, FALCON_500
from simcore.models.odometry import OdometryPod
from simcore.models.tank import TankDrive


def _tank(**kw):
    args = dict(n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0, moi=5.0)
    args.update(kw)
    return TankDrive(CIM, 10.71, **args)


CASES = []
rng = np.random.default_rng(20261207)
for i in range(10):
    CASES.append(dict(
        seed=i,
        mu=None if i % 5 == 4 else float(rng.uniform(0.3, 1.2)),
        energy=bool(rng.integers(0, 2)),
        duty=bool(rng.integers(0, 2)),
        limit=None if rng.integers(0, 3) else float(rng.uniform(20, 60)),
        battery=str(rng.choice(["none", "default", "stiff", "with_arm"])),
        efficiency=float(rng.choice([1.0, 0.9])),
        period=float(rng.choice([0.01, 0.02])),
        method=str(rng.choice(["auto", "RK45"])),
        push=bool(rng.integers(0, 2)),
        axles=[None, (0.275, -0.275), (0.3, 0.0, -0.3)][i % 3],
    ))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"tank{c['seed']}")
def test_a_tank_in_the_kernel_is_the_python_path_to_the_bit(case):
    cmd = "duty" if case["duty"] else "voltage"
    scale = 1.0 if case["duty"] else 12.0

    def make():
        drive = _tank(friction_coefficient=case["mu"], track_energy=case["energy"], command=cmd,
                      stator_current_limit=case["limit"], efficiency=case["efficiency"], axle_positions=case["axles"],
                      lateral_friction_coefficient=None if case["axles"] is None else 0.6)
        systems = with_battery(drive, case["battery"])

        def loop(t, s):
            # hard launches, reversals and coasting (neutral), so that the wheels break away and grip again
            phase = int(t / 0.4) % 4
            left, right = ((1.0, 0.8), (-0.6, 0.6), (0.0, 0.0), (-1.0, -1.0))[phase]
            out = {f"drive.left_{cmd}": scale * left, f"drive.right_{cmd}": scale * right}
            if case["push"]:
                out["drive.external_force_x"] = 80.0 * math.sin(3.0 * t)
                out["drive.external_force_y"] = 60.0 * math.cos(5.0 * t)  # pushes sideways only with scrub
                out["drive.external_torque"] = 20.0 * math.cos(2.0 * t)
            if len(systems) == 3:
                out["arm.voltage"] = 6.0 * math.sin(4.0 * t)
            return out

        return systems, [PeriodicController(case["period"], loop, name="loop")]

    a = run_on_path(True, make, 1.7, method=case["method"])
    b = run_on_path(False, make, 1.7, method=case["method"])
    assert_same_runs(a, b)
    if case["mu"] is not None and case["limit"] is None and not case["duty"]:
        assert {e.name for e in a.events} >= {"breakaway", "grip"}  # the modes were exercised


def test_a_slipping_wheel_pushes_with_exactly_mu_times_its_load():
    # Full voltage from rest on a light robot on a slick floor: both sides break away at once and slip; the
    # ground force on each side is then mu N with N = m g / 2 (no load transfer).
    mu, m = 0.3, 30.0
    drive = _tank(friction_coefficient=mu, mass=m)
    res = simcore.simulate([drive], 0.3, inputs={"drive.left_voltage": 12.0, "drive.right_voltage": 12.0})
    assert drive.kernel_form() is not None
    slipping = res["drive.left_slip_speed"] > 0.0
    assert slipping[-1]
    limit = mu * m * STANDARD_GRAVITY / 2.0
    np.testing.assert_allclose(res["drive.left_ground_force"][slipping], limit, rtol=1e-12)
    np.testing.assert_allclose(res["drive.right_ground_force"][slipping], limit, rtol=1e-12)
    # the chassis then accelerates at mu g (2 mu N / m), straight
    np.testing.assert_allclose(res["drive.acceleration"][slipping], mu * STANDARD_GRAVITY, rtol=1e-12)
    assert np.all(res["drive.yaw_rate"] == 0.0)


def test_turning_in_place_the_scrub_torque_is_the_end_axles_friction():
    # A rolling drive (no traction limit, no rotating mass at the rims: the ground takes each side's rim force D)
    # turning in place, much faster than the slip epsilon at the axles: the end axles slide sideways at
    # |omega x_a|, each contact pushing back with mu_a N, a torque sum mu_a N_a |x_a| = mu m g L / 2 on a wheelbase
    # L. So J alpha = (D_R - D_L) b / 2 - mu m g L / 2 once it turns.
    mu, m, J, L, b, r = 0.8, 50.0, 5.0, 0.6, 0.6, 0.0762
    drive = _tank(wheelbase=L, lateral_friction_coefficient=mu, slip_epsilon=1e-4, mass=m, moi=J)
    assert drive.kernel_form() is not None
    res = simcore.simulate([drive], 0.5, inputs={"drive.left_voltage": -10.0, "drive.right_voltage": 10.0})
    turning = np.abs(res["drive.yaw_rate"]) * L / 2.0 > 0.05
    assert turning.sum() > 10
    rim_force = res["drive.right_torque"][turning] / r - res["drive.left_torque"][turning] / r
    scrub = mu * m * STANDARD_GRAVITY * L / 2.0
    np.testing.assert_allclose(J * res["drive.yaw_acceleration"][turning], rim_force * b / 2.0 - scrub,
                               rtol=1e-6, atol=1e-6 * scrub)
    np.testing.assert_allclose(res["drive.lateral_velocity"], 0.0, atol=1e-12)  # symmetric: no sideways motion


@pytest.mark.parametrize("options", [dict(cog_height=0.2, friction_coefficient=0.9),
                                     dict(axle_positions=(0.3, 0.1, -0.1, -0.2, -0.3), friction_coefficient=0.9),
                                     dict(bumper=(0.8, 0.8), field=(-4.0, -4.0, 4.0, 4.0), friction_coefficient=0.9),
                                     dict(odometry_pods=[OdometryPod("pod", 0.0, 0.1, 0.0, 0.016, 2000.0)])])
def test_a_tank_the_kernel_has_no_form_of_yet_takes_the_python_path(options):
    drive = _tank(**options)
    assert drive.kernel_form() is None
    sim = simcore.Simulator([drive, Battery()], [])
    assert sim._compiled is None
    sim.run_until(0.1)


def test_a_subclass_takes_the_python_path():
    class MyTank(TankDrive):
        pass

    assert MyTank(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                  moi=5.0).kernel_form() is None


def test_the_kernels_constants_are_the_chassis():
    assert (kernel_tank.ROLL, kernel_tank.FORWARD, kernel_tank.BACKWARD) == (chassis.ROLL, chassis.FORWARD,
                                                                             chassis.BACKWARD)
    assert tank_layout.TANK_WHEEL_MODES == (chassis.ROLL, chassis.FORWARD, chassis.BACKWARD)
    assert kernel_tank.GRIP_SPEED == chassis.GRIP_SPEED
    drive = _tank(friction_coefficient=0.8)
    assert drive.kernel_parameters()[0, tank_layout.TP_MU_BREAKAWAY] == 0.8 * (1.0 + chassis.BREAKAWAY_MARGIN)
    assert [drive.KERNEL_MODES[kernel_tank.mode_of(a, b)] for a in (0, 1, -1) for b in (0, 1, -1)] == \
        [((a, b), ()) for a in (0, 1, -1) for b in (0, 1, -1)]


def test_a_tank_found_stiff_hands_over_to_radau_as_the_python_path_does():
    # Spinning in place against the scrub of a 0.6 m wheelbase with current-limited Falcons on a battery: "auto"
    # finds it stiff and goes on with Radau, from the kernel's state and event search (the battery has no events).
    def make():
        drive = TankDrive(FALCON_500, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.56, mass=55.0,
                          moi=models.rectangle_moi(55.0, 0.8, 0.8), friction_coefficient=1.1,
                          stator_current_limit=60.0, wheelbase=0.6)
        return [drive, Battery()], []

    a = run_on_path(True, make, 1.5, inputs={"drive.left_voltage": -10.0, "drive.right_voltage": 10.0})
    b = run_on_path(False, make, 1.5, inputs={"drive.left_voltage": -10.0, "drive.right_voltage": 10.0})
    assert a.stats["intervals_by_method"].get("Radau", 0) >= 1
    assert_same_runs(a, b)
