"""Algebraic couplings between systems, solved inside every evaluation (no lag).

Some quantities are shared instantaneously by several systems: the bus voltage of
a battery depends on the current every motor draws, and every motor's current
depends on the bus voltage. A :class:`Coupling` solves such a relation from the
states and held inputs of all systems and writes the result into designated input
slots (its ``targets``) before each derivative, output or guard evaluation. Those
inputs are then not held by controllers: writing one is an error.

A system contributes couplings through :meth:`simcore.System.couplings`, which
the engine calls once when a simulation is assembled.
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["Coupling"]


class Coupling:
    """Base class of an instantaneous relation between systems.

    Subclasses set ``targets`` (the ``"system.input"`` names they write) and
    implement :meth:`apply`.
    """

    targets: Sequence[str] = ()

    def apply(self, t: float, xs: Sequence, us: Sequence) -> None:
        """Write the coupled inputs.

        Parameters
        ----------
        t : float
            Time, s.
        xs, us : sequence of numpy.ndarray
            State and input arrays of every system of the simulation, in the
            order the systems were given; ``us`` entries are written in place.
        """
        raise NotImplementedError
