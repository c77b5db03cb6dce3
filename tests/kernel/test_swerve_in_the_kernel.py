"""The swerve drive in the compiled kernel: its instant is the Python form's to the bit, its run is the Python
path's to the bit, a slipping tyre pushes with exactly ``mu N``, and the drives the kernel has no form of yet stay
on the Python path.

The Python form is SwerveDrive's own arithmetic (``_kernel_on`` off: ``_evaluate`` on ``Chassis.solve``, which the
drives with walls or load transfer still take). The Python path (``simcore.engine.USE_KERNEL = False``) steps
with simcore.dopri5, locates the breakaway and grip events with its own guards and root finder, and solves the
battery's bus with its Python coupling.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from both_paths import assert_same_runs, run_on_path, with_battery
from simcore import PeriodicController
from simcore.checks import STANDARD_GRAVITY
from simcore.kernel import swerve as kernel_swerve
from simcore.kernel import swerve_layout
from simcore.models import chassis
from simcore.models.battery import Battery
from simcore.models.motors import FALCON_500, KRAKEN_X60
from simcore.models.swerve import SwerveDrive

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def _swerve(**kw):
    args = dict(module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0,
                moi=6.0)
    args.update(kw)
    return SwerveDrive(KRAKEN_X60, FALCON_500, **args)


INSTANT_OPTIONS = [dict(), dict(track_energy=True, couple_ratio=3.5), dict(command="duty", track_energy=True),
                   dict(stator_current_limit=40.0, steer_supply_current_limit=20.0, track_energy=True),
                   dict(scrub_radius=0.0, efficiency=0.9, steer_efficiency=0.8, couple_ratio=-2.0),
                   dict(viscous_friction=0, steer_viscous_friction=0, drive_rotor_inertia=1e-4)]


def test_the_kernels_hypot_is_pythons_to_the_bit():
    # The outputs slip_speed_i and ground_force_i are a hypot: the kernel's is CPython's arithmetic (numba's
    # math.hypot is the C library's, which may differ from it in the last bit), over twenty decades, signs,
    # zeros, subnormals, huge values, infinities and NaN.
    rng = np.random.default_rng(5)
    a = rng.normal(size=20000) * 10.0 ** rng.uniform(-10.0, 10.0, 20000)
    b = rng.normal(size=20000) * 10.0 ** rng.uniform(-10.0, 10.0, 20000)
    special = [(0.0, 0.0), (-0.0, 3.0), (3.0, -4.0), (1e-320, 3e-321), (2e-309, 1e-310), (1e308, 1e308),
               (5e-324, 0.0), (math.inf, math.nan), (math.nan, -math.inf), (math.nan, 1.0)]
    for x, y in list(zip(a.tolist(), b.tolist())) + special:
        got, want = kernel_swerve.hypot(x, y), math.hypot(x, y)
        assert got == want or (math.isnan(got) and math.isnan(want)), (x, y)


@pytest.mark.parametrize("options", INSTANT_OPTIONS)
def test_the_kernels_instant_is_the_python_forms_to_the_bit(options):
    # Evaluation, derivatives, outputs, supply current and curve, settling, the grip reset and the guards at random
    # states, inputs and traction modes.
    kernel, python = _swerve(friction_coefficient=0.7, **options), _swerve(friction_coefficient=0.7, **options)
    python._kernel_on = False
    assert kernel._kernel_on and kernel.kernel_form() is not None
    rng = np.random.default_rng(11)
    scale = 1.0 if options.get("command") == "duty" else 12.0
    p = kernel._kernel_p
    for _ in range(100):
        x = kernel.initial_state()
        x[:] = rng.normal(size=len(x)) * 2.0
        u = kernel.initial_inputs()
        u[0:8] = rng.uniform(-1.0, 1.0, 8) * scale
        u[8:10] = rng.integers(0, 2, 2)
        u[kernel._iext:kernel._iext + 3] = rng.normal(size=3) * 40.0
        u[kernel._ibus] = rng.uniform(6.0, 13.0)
        mode = (tuple(int(m) for m in rng.choice([0, 1, -1], 4)), ())
        kernel.mode = python.mode = mode
        for drive in (kernel, python):
            drive._samples.clear()
        a, b = kernel._evaluate(x, u, mode), python._evaluate(x, u, mode)
        for f in ("ax", "ay", "alpha", "normal", "traction", "free_force", "wheel_accel"):
            assert np.array_equal(getattr(a.sol, f), getattr(b.sol, f)), f
        for f in ("slip", "slip_free", "lateral_slip", "scrub_torque", "steer_accel", "wheel_speed", "rotor_speed"):
            assert np.array_equal(getattr(a, f), getattr(b, f)), f
        assert np.array_equal(kernel.derivatives(0.0, x, u), python.derivatives(0.0, x, u))
        assert np.array_equal(kernel.outputs(0.0, x, u), python.outputs(0.0, x, u))
        assert kernel.supply_current_at(x, u, 11.0) == python.supply_current_at(x, u, 11.0)
        assert kernel.supply_current_at(x, u, 0.0) == python.supply_current_at(x, u, 0.0)
        ca, cb = kernel.supply_current_curve(x, u), python.supply_current_curve(x, u)
        assert (ca is None) == (cb is None)
        if ca is not None:
            assert ca.at(9.5) == cb.at(9.5)
        code = kernel._mode_code()
        assert kernel.KERNEL_MODES[kernel_swerve.settle(p, 0, code, -1, x, 0, u, 0)] == \
            python._settle(x, u, ((0,) * 4, ()))
        for i, event in python.kernel_events.items():
            assert kernel_swerve.guard(p, 0, code, event.kernel_guard, x, 0, u, 0) == event.guard(0.0, x, u)
        x_fired = x.copy()
        mode_after = kernel_swerve.fire(p, 0, code, 0, x_fired, 0, u, 0)  # (event 0: wheel 0's breakaway)
        x_reset = python._reset_grip(0.0, x, u)
        assert np.array_equal(x_fired, x_reset)
        assert kernel.KERNEL_MODES[mode_after] == python._breakaway_mode(0)(0.0, x_reset, u)
        x_fired = x.copy()
        mode_after = kernel_swerve.fire(p, 0, code, 6, x_fired, 0, u, 0)  # (event 6: wheel 1's grip, forward)
        assert kernel.KERNEL_MODES[mode_after] == python._settle(x_reset, u, mode)


CASES = []
rng = np.random.default_rng(20261208)
for i in range(6):
    CASES.append(dict(
        seed=i,
        mu=float(rng.uniform(0.3, 1.0)),
        energy=bool(rng.integers(0, 2)),
        duty=bool(rng.integers(0, 2)),
        limit=None if rng.integers(0, 3) else float(rng.uniform(30, 60)),
        battery=str(rng.choice(["none", "default", "stiff", "with_arm"])),
        couple=float(rng.choice([0.0, 3.5])),
        scrub=float(rng.choice([0.0, 0.0064])),
        period=float(rng.choice([0.01, 0.02])),
        method=str(rng.choice(["auto", "RK45"])),
        push=bool(rng.integers(0, 2)),
    ))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"swerve{c['seed']}")
def test_a_swerve_in_the_kernel_is_the_python_path_to_the_bit(case):
    cmd = "duty" if case["duty"] else "voltage"
    scale = 1.0 if case["duty"] else 12.0

    def make():
        drive = _swerve(friction_coefficient=case["mu"], track_energy=case["energy"], command=cmd,
                        steer_command=cmd, stator_current_limit=case["limit"], couple_ratio=case["couple"],
                        scrub_radius=case["scrub"], name="drive")
        systems = with_battery(drive, case["battery"])

        def loop(t, s):
            # launches, turns the modules, spins and coasts (neutral), so that the tyres break away and grip
            phase = int(t / 0.3) % 4
            d = ((1.0, 1.0, 1.0, 1.0), (1.0, -1.0, 1.0, -1.0), (0.0, 0.0, 0.0, 0.0), (-1.0, -0.6, -1.0, -0.6))[phase]
            st = ((0.0, 0.0, 0.0, 0.0), (0.3, 0.3, -0.3, -0.3), (0.5, -0.5, 0.5, -0.5), (-0.2, 0.0, 0.2, 0.0))[phase]
            out = {f"drive.drive_{cmd}_{i}": scale * v for i, v in enumerate(d)}
            out.update({f"drive.steer_{cmd}_{i}": scale * v for i, v in enumerate(st)})
            if case["push"]:
                out["drive.external_force_x"] = 80.0 * math.sin(3.0 * t)
                out["drive.external_force_y"] = 60.0 * math.cos(5.0 * t)
                out["drive.external_torque"] = 15.0 * math.cos(2.0 * t)
            if len(systems) == 3:
                out["arm.voltage"] = 6.0 * math.sin(4.0 * t)
            return out

        return systems, [PeriodicController(case["period"], loop, name="loop")]

    a = run_on_path(True, make, 1.2, method=case["method"])
    b = run_on_path(False, make, 1.2, method=case["method"])
    assert_same_runs(a, b)
    assert {e.name for e in a.events} >= {"breakaway", "grip"}  # the modes were exercised


def test_the_module_loops_and_a_battery_run_in_the_kernel_as_on_the_python_path():
    # The bench's swerve: four 1 kHz module loops (Python controllers) and the chassis loop, the modules turning,
    # on a battery's bus; the kernel integrates between their ticks.
    from simcore.controllers.drive_control import swerve_module_controllers
    from simcore.controllers.kinematics import SwerveKinematics

    def make():
        drive = _swerve(track_energy=True, couple_ratio=3.5, name="swerve")

        def command(t, s):
            return (2.0 * math.cos(2.0 * t), 1.5 * math.sin(2.0 * t), 1.0 if t > 0.3 else 0.0)

        return [drive, Battery()], swerve_module_controllers(drive, SwerveKinematics(POS), command)

    a = run_on_path(True, make, 0.6)
    b = run_on_path(False, make, 0.6)
    assert_same_runs(a, b)
    assert abs(a["swerve.omega"][-1]) > 0.1 and abs(a["swerve.steer_rate_0"]).max() > 1.0  # it turned


@pytest.mark.parametrize("mu", [0.3, 0.9])
def test_slipping_tyres_push_with_exactly_mu_times_their_load(mu):
    # A robot at rest on four modules pointing ahead, their wheels spun up so all four slip forward: each tyre
    # pushes with mu m g / 4 along the robot's x, nothing across, so the chassis accelerates at mu g.
    drive = _swerve(friction_coefficient=mu, mass=50.0, viscous_friction=0, steer_viscous_friction=0)
    assert drive.kernel_form() is not None
    x = drive.initial_state()
    x[swerve_layout.I_WHEEL_SPEED:swerve_layout.I_WHEEL_SPEED + 4] = 3.0
    u = drive.initial_inputs()
    drive.mode = ((chassis.FORWARD,) * 4, ())
    dx = drive.derivatives(0.0, x, u)
    assert dx[3] == pytest.approx(mu * STANDARD_GRAVITY, rel=1e-12)
    assert dx[4] == pytest.approx(0.0, abs=1e-12) and dx[5] == pytest.approx(0.0, abs=1e-12)
    y = dict(zip(drive.output_names, drive.outputs(0.0, x, u)))
    for i in range(4):
        assert y[f"ground_force_{i}"] == pytest.approx(mu * 50.0 * STANDARD_GRAVITY / 4, rel=1e-12)
        assert y[f"normal_force_{i}"] == pytest.approx(50.0 * STANDARD_GRAVITY / 4, rel=1e-12)
        assert y[f"slip_speed_{i}"] == pytest.approx(3.0, rel=1e-12)
    # settled from that state, every wheel slips forward (the mode the kernel picks)
    assert drive.KERNEL_MODES[kernel_swerve.initial_mode(drive._kernel_p, 0, x, 0, u, 0)] == ((1,) * 4, ())


def test_standing_steer_meets_the_full_coulomb_scrub_torque():
    # A standing wheel steered meets T = -mu N rho sign(Omega) (rho Omega >> eps): with the scrub radius 0.0064 m
    # and the steering at 5 rad/s, within eps^2 / (rho Omega)^2 / 2 of it.
    mu, rho, rate = 1.1, 0.0064, 5.0
    drive = _swerve(friction_coefficient=mu, mass=50.0, scrub_radius=rho, slip_epsilon=0.002)
    x = drive.initial_state()
    x[swerve_layout.I_STEER_RATE:swerve_layout.I_STEER_RATE + 4] = rate
    y = dict(zip(drive.output_names, drive.outputs(0.0, x, drive.initial_inputs())))
    full = mu * 50.0 * STANDARD_GRAVITY / 4 * rho
    for i in range(4):
        assert y[f"scrub_torque_{i}"] == pytest.approx(-full, rel=0.5 * (0.002 / (rho * rate)) ** 2 + 1e-12)


@pytest.mark.parametrize("options", [dict(cog_height=0.2),
                                     # (a bumper whose diagonal, 1.13 m, reaches two opposite walls of 1 m)
                                     dict(bumper=(0.8, 0.8), field=(-0.5, -0.5, 0.5, 0.5)),
                                     dict(module_positions=POS[:3])])
def test_a_swerve_the_kernel_has_no_form_of_yet_takes_the_python_path(options):
    drive = _swerve(**options)
    assert drive.kernel_form() is None and not drive._kernel_on
    sim = __import__("simcore").Simulator([drive], [])
    assert sim._compiled is None
    sim.run_until(0.05)


def test_a_swerve_subclass_and_one_beside_a_disabling_battery_take_the_python_path():
    import simcore

    class MySwerve(SwerveDrive):
        pass

    assert MySwerve(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                    wheel_radius=0.0508, mass=55.0, moi=6.0).kernel_form() is None
    assert simcore.Simulator([_swerve(), Battery(brownout_behaviour="disable")], [])._compiled is None
    assert simcore.Simulator([_swerve(), Battery()], [])._compiled is not None


def test_the_kernels_layout_fits_the_part_tables():
    from simcore.kernel import layout

    assert swerve_layout.N_SWERVE_EVENTS <= layout.N_EVENTS and swerve_layout.N_SWERVE_MODULES <= layout.MAX_ACTIVE
    assert len(_swerve().output_names) == swerve_layout.N_SWERVE_OUTPUTS
    assert kernel_swerve.IMPACT_LOSS == chassis.DRIVE_ENERGY_STATES.index("impact_loss")
    drive = _swerve(track_energy=True)
    assert drive.state_names.index("steer_angle_0") == swerve_layout.I_STEER_ANGLE
    assert drive.state_names.index("wheel_distance_0") == swerve_layout.I_WHEEL_DISTANCE
    assert drive.state_names.index(chassis.DRIVE_ENERGY_STATES[0]) == swerve_layout.I_ENERGY
