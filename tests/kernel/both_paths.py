"""Running one simulation on both paths: the compiled kernel and the Python path (a helper of the tests here)."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import simcore.models as models
from simcore.models.battery import Battery
from simcore.models.motors import NEO

import simcore
import simcore.engine as engine
import simcore.solvers as solvers

#: A long run of the compiled kernel against Python ticks or serial runs: interpreted (``NUMBA_DISABLE_JIT=1``,
#: CI's second pass) it repeats at many times the cost what its compiled run checks, so that pass keeps to its
#: lighter neighbours (one figure, the refusals, the laws), which run every line of the same code.
compiled_only = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="a long kernel run, checked compiled; its "
                                   "lighter neighbours run this code interpreted")


def run_on_path(kernel: bool, make, t_end, **options):
    """``make()``'s ``(systems, controllers)`` simulated to ``t_end`` in the kernel (``kernel``) or on the Python
    path, checking which one ran; its Result.

    The Python path steps with simcore.dopri5 (whose stage sums are the kernel's) at any number of states: above
    ``dopri5.SMALL`` it would take scipy's RK45, whose stage sums BLAS orders, and a system of that many states
    would agree with the kernel to the tolerance, not to the bit.
    """
    old, small = engine.USE_KERNEL, solvers.SMALL
    engine.USE_KERNEL = kernel
    solvers.SMALL = 10_000
    try:
        systems, controllers = make()
        sim = simcore.Simulator(systems, controllers, **options)
        assert (sim._compiled is not None) == kernel
        sim.run_until(t_end)
        return sim.result()
    finally:
        engine.USE_KERNEL, solvers.SMALL = old, small


def assert_same_runs(a, b) -> None:
    """Results ``a`` and ``b`` are the same run to the bit: times, every signal (states, inputs with a coupled bus,
    outputs), the stats, every event with its states before and after."""
    assert np.array_equal(a.t, b.t)
    assert a.names == b.names
    for name in a.names:
        assert np.array_equal(a[name], b[name], equal_nan=True), name
    assert a.stats == b.stats
    assert [(e.t, e.name, e.system, e.mode_before, e.mode_after) for e in a.events] == \
        [(e.t, e.name, e.system, e.mode_before, e.mode_after) for e in b.events]
    for ea, eb in zip(a.events, b.events):
        assert np.array_equal(ea.x_before, eb.x_before) and np.array_equal(ea.x_after, eb.x_after)


def with_battery(drive, battery: str) -> list:
    """``drive`` and what ``battery`` names: ``"none"``; ``"default"`` (a Battery); ``"stiff"`` (one without
    internal resistance); ``"with_arm"`` (a NEO arm on a 0.03 ohm battery's bus beside it, named ``arm``)."""
    systems = [drive]
    if battery == "default":
        systems.append(Battery())
    elif battery == "stiff":
        systems.append(Battery(resistance=0.0))
    elif battery == "with_arm":
        systems += [models.Arm(NEO, 60.0, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.5),
                    Battery(resistance=0.03)]
    return systems
