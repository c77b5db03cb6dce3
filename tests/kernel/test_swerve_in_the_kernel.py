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


#: The outputs that are a hypot (slip_speed_i, ground_force_i).
HYPOT = np.array([name.startswith(("slip_speed", "ground_force")) for name in _swerve().output_names])
INSTANT_OPTIONS = [dict(), dict(track_energy=True, couple_ratio=3.5), dict(command="duty", track_energy=True),
                   dict(stator_current_limit=40.0, steer_supply_current_limit=20.0, track_energy=True),
                   dict(scrub_radius=0.0, efficiency=0.9, steer_efficiency=0.8, couple_ratio=-2.0),
                   dict(viscous_friction=0, steer_viscous_friction=0, drive_rotor_inertia=1e-4)]


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
        ya, yb = np.array(kernel.outputs(0.0, x, u)), np.array(python.outputs(0.0, x, u))
        assert np.array_equal(ya[~HYPOT], yb[~HYPOT])
        # (numba's math.hypot is the C library's, CPython's its own correctly rounded sum: the last bit may differ)
        assert np.allclose(ya[HYPOT], yb[HYPOT], rtol=1e-12, atol=0.0)
        assert kernel.supply_current_at(x, u, 11.0) == python.supply_current_at(x, u, 11.0)
        assert kernel.supply_current_at(x, u, 0.0) == python.supply_current_at(x, u, 0.0)
        ca, cb = kernel.supply_current_curve(x, u), python.supply_current_curve(x, u)
        assert (ca is None) == (cb is None)
        if ca is not None:
            assert ca.at(9.5) == cb.at(9.5)
        code = kernel._mode_code()
        assert kernel.KERNEL_MODES[kernel_swerve.settle(p, 0, code, x, 0, u, 0)] == \
            python._settle(x, u, ((0,) * 4, ()))
        for i, event in python.kernel_events.items():
            assert kernel_swerve.guard(p, 0, code, event.kernel_guard, x, 0, u, 0) == event.guard(0.0, x, u)
        x_fired = x.copy()
        mode_after = kernel_swerve.fire(p, 0, code, 0, x_fired, 0, u, 0)
        x_reset = python._reset_grip(0.0, x, u)
        assert np.array_equal(x_fired, x_reset)
        assert kernel.KERNEL_MODES[mode_after] == python._settle(x_reset, u, mode)
