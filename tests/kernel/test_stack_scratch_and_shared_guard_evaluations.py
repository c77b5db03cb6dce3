"""Two ways the kernel saves work on a drivetrain's evaluations, and what they must keep:

* :func:`simcore.kernel.jit.scratch` / ``scratch_2d``: an array of constant size in the calling kernel function's
  stack frame, so that a function making its scratch there needs no allocation and no reference counting; its
  size must be a constant (numba refuses anything else when it compiles);
* :func:`simcore.kernel.parts.guards`: the armed guards at one state, consecutive guards of one drivetrain sharing
  one evaluation of it; each value must be :func:`simcore.kernel.parts.guard`'s, called one by one, to the bit,
  and the held inputs (the bus the guards solve) left as those calls leave them.
"""
import math

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import simcore  # noqa: E402
from simcore.controllers.drive_control import swerve_module_controllers  # noqa: E402
from simcore.controllers.kinematics import ChassisSpeeds, SwerveKinematics  # noqa: E402
from simcore.kernel import parts  # noqa: E402
from simcore.kernel.jit import jit, scratch, scratch_2d  # noqa: E402
from simcore.models.battery import Battery  # noqa: E402
from simcore.models.motors import FALCON_500, KRAKEN_X60  # noqa: E402
from simcore.kernel.swerve_layout import SWERVE_GUARD_BASE  # noqa: E402
from simcore.models.swerve import SwerveDrive  # noqa: E402

from both_paths import compiled_only  # noqa: E402

N_ROWS, N_COLS = 3, 4


@jit
def _triangle_sums(n):
    """Sum over ``n`` calls of the entries of a 5-vector and a 3x4 matrix on the stack, filled with their index
    (+1) and ``10 r + c``."""
    total = 0.0
    for _ in range(n):
        v = scratch(5)
        m = scratch_2d(N_ROWS, N_COLS)
        for i in range(5):
            v[i] = i + 1.0
        for r in range(N_ROWS):
            for c in range(N_COLS):
                m[r, c] = 10.0 * r + c
        for i in range(5):
            total += v[i]
        for r in range(N_ROWS):
            for c in range(N_COLS):
                total += m[r, c]
    return total


def test_scratch_arrays_hold_what_is_written_call_after_call():
    # 1+..+5 = 15; sum over r<3, c<4 of 10r + c = 10*4*(0+1+2) + 3*(0+1+2+3) = 120 + 18 = 138
    assert _triangle_sums(1) == 153.0
    assert _triangle_sums(10_000) == 153.0 * 10_000  # (no growth of memory or state from one call to the next)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="a compile-time check: nothing is compiled")
def test_a_scratch_size_that_is_not_a_constant_is_refused_when_it_compiles():
    @jit
    def sized(n):
        a = scratch(n)
        a[0] = 1.0
        return a[0]

    with pytest.raises(numba.core.errors.TypingError, match="sizes must be positive integer constants"):
        sized(3)


@jit
def _guards(table, P, U, modes, m, ev_part, ev_code, t, X, out, col):
    parts.guards(table, P, U, modes, m, ev_part, ev_code, t, X, out, col)  # (a kernel-only function)


POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def _swerve_mid_run():
    sw = SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                     wheel_radius=0.0508, mass=55.0, moi=6.0)
    ctrls = swerve_module_controllers(sw, SwerveKinematics(POS), lambda t, s: ChassisSpeeds(1.0, 2.0, 1.5))
    sim = simcore.Simulator([sw, Battery()], ctrls)
    sim.advance(0.3)
    return sim._compiled


@compiled_only
def test_a_swerves_guards_sampled_together_equal_each_guard_alone_to_the_bit():
    cr = _swerve_mid_run()
    table, P, modes, X = cr.table, cr.P[0], cr.modes[0].copy(), cr.X[0].copy()
    ids = np.zeros(64, dtype=np.int64)
    n = parts.active_events(table, P, 0, modes[0], ids)
    assert n == 4  # a module's breakaway or grip each
    codes = SWERVE_GUARD_BASE + ids[:n]
    ev_part = np.zeros(n, dtype=np.int64)
    for state in (X, X * (1.0 + 1e-3)):  # two states: the bus the guards solve differs between them
        U_one, U_all = cr.U[0].copy(), cr.U[0].copy()
        alone = [parts.guard(table, P, U_one, modes, 0, int(c), 0.3, state) for c in codes]
        together = np.full((n, 2), math.nan)
        _guards(table, P, U_all, modes, n, ev_part, codes, 0.3, state, together, 1)
        assert together[:, 1].tobytes() == np.array(alone).tobytes()
        assert np.isnan(together[:, 0]).all()  # (only the column asked for)
        assert U_all.tobytes() == U_one.tobytes()
