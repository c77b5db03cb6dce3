"""The batch kernel's in-place form (from IN_PLACE_FROM columns) against independent references.

Below that many columns an RK45 attempt and a mechanism's right-hand side work out of place, from
there on in place; the 200-variant tests of ``test_batch.py`` exercise only the first form. Here the
second is checked against what does not share its code: the model object's own (scalar)
derivatives, and scipy's RK45 stepping one variant alone.
"""
import numpy as np
import pytest
from scipy.integrate import RK45

import simcore.models as models
from simcore import batch_rk
from simcore.models.motors import NEO


@pytest.mark.parametrize("options, mode", [
    ({}, "moving"),
    ({"stator_current_limit": 30.0, "supply_current_limit": 20.0}, "moving"),
    ({"command": "duty", "static_friction": 0.8, "efficiency": 0.7}, "forward"),
    ({"static_friction": 0.5, "viscous_friction": 0.05}, "reverse"),
])
def test_in_place_derivatives_of_many_columns_equal_the_model(options, mode):
    m = batch_rk.IN_PLACE_FROM + 5  # the in-place right-hand side: every column driven and moving
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0, **options)
    rng = np.random.default_rng(17)
    x = np.stack([rng.uniform(-0.9, 1.9, m), rng.uniform(-20.0, 20.0, m)])
    duty = options.get("command") == "duty"
    command = rng.uniform(0.05, 1.0, m) if duty else rng.uniform(0.5, 14.0, m)
    command *= np.where(rng.random(m) < 0.5, -1.0, 1.0)  # never neutral
    u = np.stack([command, np.zeros(m), rng.uniform(9.0, 13.0, m)])
    b = arm.batched({}, m)
    code = np.full(m, b.MODES.index(mode), dtype=np.int8)
    got = b.derivatives(None, x, u, code, pre=b.prepare(u, code))
    arm.mode = mode
    ref = np.stack([arm.derivatives(0.0, x[:, j], u[:, j]) for j in range(m)], axis=1)
    arm.mode = None
    np.testing.assert_array_equal(got, ref)


def test_an_in_place_attempt_of_many_columns_steps_as_the_serial_engine():
    # y' = -r y for IN_PLACE_FROM + 7 rates (some steps rejected): each column's attempt is the serial
    # engine's own first step of that variant alone (simcore.dopri5, which adds the stages in the same
    # order), accepted or not, with the step size it proposes or retries with. (scipy's RK45 leaves the
    # order of its stage sums to BLAS, which rounds differently on some processors: it agrees to the
    # tolerance, not to the bit.)
    from simcore.dopri5 import DormandPrince

    m = batch_rk.IN_PLACE_FROM + 7
    rates = np.geomspace(0.1, 4000.0, m)
    h0 = 0.01

    def rhs(t, Y, out=None):
        d = -rates * Y
        if out is None:
            return d
        out[...] = d

    y0 = np.ones((1, m))
    acc, t_new, y_new, K, h_next = batch_rk.attempt(rhs, np.zeros(m), y0, rhs(0.0, y0), np.full(m, h0), 5.0,
                                                    np.zeros(m, dtype=bool), rtol=1e-8, atol=1e-10, timed=False)
    assert acc.any() and not acc.all()
    for j in range(0, m, 37):
        ref = DormandPrince(lambda t, y, r=rates[j]: -r * y, 0.0, [1.0], 5.0, first_step=h0, rtol=1e-8, atol=1e-10)
        ref.step()
        first_accepted = ref.step_size == h0  # the serial step retries a rejected attempt within one step()
        assert bool(acc[j]) == first_accepted, j
        if first_accepted:
            assert ref.t == t_new[j]
            assert ref.y[0] == y_new[0, j]
            assert ref.h_abs == h_next[j]
        else:  # the serial retry starts from the size this attempt proposes (and may shrink it again)
            assert ref.step_size <= h_next[j] and h_next[j] < h0


def _split(m):
    """Two chunks of columns, each below IN_PLACE_FROM (so they take the out-of-place form)."""
    half = m // 2
    assert half < batch_rk.IN_PLACE_FROM <= m
    return [slice(0, half), slice(half, m)]


def test_an_in_place_attempt_is_the_out_of_place_attempt_to_the_bit():
    # Three coupled states (so the error norm sums over several rows) and a spread of step sizes, some
    # attempts rejected: the in-place form from IN_PLACE_FROM columns must give every column exactly what
    # the out-of-place form gives it in a narrower batch (a variant's answer may not depend on its batch).
    m = batch_rk.IN_PLACE_FROM + 9
    rng = np.random.default_rng(5)
    A = np.array([[-1.0, 2.0, 0.0], [-2.0, -0.5, 1.0], [0.3, -1.0, -40.0]])
    scale = rng.uniform(0.2, 3.0, m)

    def rhs(t, Y, out=None):
        d = (A @ Y) * scale[cols] + np.sin(t)
        if out is None:
            return d
        out[...] = d

    y0 = rng.normal(size=(3, m))
    t0 = rng.uniform(0.0, 1.0, m)
    h0 = rng.uniform(1e-4, 2e-2, m)
    rej = rng.random(m) < 0.3
    cols = slice(0, m)
    whole = batch_rk.attempt(rhs, t0, y0, rhs(t0, y0), h0, 2.0, rej, rtol=1e-8, atol=1e-10, timed=True)
    assert whole[0].any() and not whole[0].all()
    for cols in _split(m):
        part = batch_rk.attempt(rhs, t0[cols], y0[:, cols], rhs(t0[cols], y0[:, cols]), h0[cols], 2.0, rej[cols],
                                rtol=1e-8, atol=1e-10, timed=True)
        for w, p in zip(whole, part):
            np.testing.assert_array_equal(w[..., cols], p)


@pytest.mark.parametrize("make", [
    lambda: models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.5),
    lambda: models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.5,
                            stator_current_limit=25.0, command="duty"),
    lambda: models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0, efficiency=0.8),
])
def test_in_place_derivatives_are_the_out_of_place_ones_to_the_bit(make):
    m = batch_rk.IN_PLACE_FROM + 5
    system = make()
    rng = np.random.default_rng(23)
    x = np.stack([rng.uniform(0.1, 1.4, m), rng.uniform(-3.0, 3.0, m)])
    duty = system.drive.command == "duty"
    command = (rng.uniform(0.05, 1.0, m) if duty else rng.uniform(0.5, 14.0, m)) * np.where(rng.random(m) < 0.5,
                                                                                            -1.0, 1.0)
    u = np.stack([command, np.zeros(m), rng.uniform(9.0, 13.0, m)])
    b = system.batched({}, m)
    moving = "forward" if "forward" in b.MODES and system._directional else "moving"
    code = np.full(m, b.MODES.index(moving), dtype=np.int8)
    whole = b.derivatives(None, x, u, code, pre=b.prepare(u, code))
    for cols in _split(m):
        bc = system.batched({}, cols.stop - cols.start)
        part = bc.derivatives(None, x[:, cols], u[:, cols], code[cols], pre=bc.prepare(u[:, cols], code[cols]))
        np.testing.assert_array_equal(whole[:, cols], part)
