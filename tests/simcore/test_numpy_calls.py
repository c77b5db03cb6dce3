"""The numpy 1.x fallbacks of simcore._numpy_calls and batch_rk's explicit stage sum give the same bits.

numpy 2 is what a fresh install gets, so these paths are never taken in CI on their own: here they are
forced (the private entry points made unimportable, or the public functions patched in where the
kernel, the checks and the PID call them) and a batch through them is compared bit for bit with one
through numpy's C entry points. The public wrappers call the same C functions, so equal bits are
expected: what the comparison checks is that every call the kernel makes is valid through them (its
arguments, ``out=`` forms and results). Making the private modules unimportable under numpy 2 imports
numpy 2's ``numpy.core`` shim, not a real numpy 1.x (no CI job installs one).
"""
from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest

import simcore.models as models
from simcore import batch, batch_rk, checks, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.controllers import pid as pid_module
from simcore.models.motors import VEX_775PRO


def _batch():
    """Arm variants that reach the upper stop or not, with a PID whose integrator is clamped."""
    arm = models.Arm(VEX_775PRO, 200.0, mass=6.0, com_distance=0.381, moi=1.16, min_angle=-0.3, max_angle=1.3,
                     n_motors=2)
    pid = PIDController(40.0, 5.0, 2.0, period=0.02)
    pid.set_integrator_range(-2.0, 2.0)
    loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=1.25, output_limits=(-12.0, 12.0),
                        name="pid")
    rng = np.random.default_rng(11)
    n = batch_rk.IN_PLACE_FROM + 88  # both forms of an attempt run: in place at first, out of place as rounds shrink
    return simulate_batch(arm, 1.0, [loop], params={"arm.mass": rng.uniform(2.0, 10.0, n),
                                                    "pid.kp": rng.uniform(10.0, 160.0, n)})


def _same_bits(a, b):
    assert a.n == b.n
    for signal in ("arm.angle", "arm.velocity", "arm.stator_current", "arm.voltage"):
        np.testing.assert_array_equal(a.at_ticks(signal, "pid"), b.at_ticks(signal, "pid"))
    for k in (0, a.n - 1):
        np.testing.assert_array_equal(a[k].t, b[k].t)
        np.testing.assert_array_equal(a[k]["arm.angle"], b[k]["arm.angle"])
    np.testing.assert_array_equal(a.event_counts("upper_stop"), b.event_counts("upper_stop"))


def test_without_numpy_2s_private_entry_points_the_public_functions_stand_in(monkeypatch):
    for name in ("numpy._core._multiarray_umath", "numpy._core.umath"):
        monkeypatch.setitem(sys.modules, name, None)  # an import of it raises ImportError, as on numpy 1.24
    path = importlib.util.find_spec("simcore._numpy_calls").origin
    spec = importlib.util.spec_from_file_location("_numpy_calls_as_on_numpy_1", path)
    fallback = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy 2's numpy.core shim says it is deprecated
        spec.loader.exec_module(fallback)
    assert fallback.c_einsum is np.einsum and fallback.count_nonzero is np.count_nonzero
    x = np.array([-3.0, 0.5, np.inf, -np.inf, 2.0])
    np.testing.assert_array_equal(fallback.clip(x, -1.0, 1.0), np.clip(x, -1.0, 1.0))
    assert fallback.FLOAT64 is np.dtype(np.float64)


def test_a_batch_through_the_public_numpy_functions_has_the_same_bits(monkeypatch):
    fast = _batch()
    monkeypatch.setattr(batch_rk, "c_einsum", np.einsum)
    for module in (batch_rk, batch, checks):
        monkeypatch.setattr(module, "_count_nonzero", np.count_nonzero)
    monkeypatch.setattr(pid_module, "_clip", np.clip)
    _same_bits(_batch(), fast)


def test_the_explicit_stage_sum_has_einsums_bits(monkeypatch):
    if not batch_rk._EINSUM_EXACT:
        pytest.skip("this numpy's einsum is not exact: the kernel already uses the explicit sum")
    fast = _batch()
    monkeypatch.setattr(batch_rk, "_EINSUM_EXACT", False)
    _same_bits(_batch(), fast)
