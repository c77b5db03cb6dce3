"""Running one simulation on both paths: the compiled kernel and the Python path (a helper of the tests here)."""
from __future__ import annotations

import simcore
import simcore.engine as engine
import simcore.solvers as solvers


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
