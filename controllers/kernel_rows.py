"""A controller's numbers in the kernel's vectors: one parameter vector and one state vector for one
controller, one row of each per element for a batch.

The built-in controllers whose law is written in kernel form (:mod:`simcore.kernel`) keep their numbers
where the kernel's functions read them: :class:`KernelRows` holds them and widens them into a batch when a
value given is an array (numpy's broadcasting rules; each new row a copy of the row it broadcasts from), and
remembers which values were given as arrays, so that reading one back gives what was given: an array
where an array was given, else a float.
"""
from __future__ import annotations

__all__ = ["KernelRows"]

import math

import numpy as np

from simcore.errors import ConfigError


class KernelRows:
    """The storage a kernel-form controller subclasses: ``_p`` and ``_s`` (1-D for one controller, one row
    per batch element otherwise), ``_shape`` (the batch's shape, ``()`` for one controller) and ``_arrays``
    (the names of the values given as arrays). A subclass sets ``_p`` and ``_s`` to the kernel's vectors
    and ``_shape = ()``, ``_arrays = frozenset()`` before any other value."""

    def _widen(self, **given) -> None:
        """Make the controller a batch of the shape its own and the ``given`` values' broadcast to
        (numpy's rules), each new row a copy of the row it broadcasts from.

        Raises
        ------
        ConfigError
            A given array's shape does not broadcast with the batch's (naming it).
        """
        shape = self._shape
        for parameter, value in given.items():
            try:
                shape = np.broadcast_shapes(shape, np.shape(value))
            except ValueError:
                raise ConfigError(parameter, value, f"a number or an array whose shape broadcasts with the "
                                                    f"controller's batch shape {shape}") from None
        if shape == self._shape:
            return
        n = math.prod(shape)
        for name in ("_p", "_s"):
            rows = getattr(self, name)
            width = rows.shape[-1]
            wide = np.broadcast_to(rows.reshape(self._shape + (width,)), shape + (width,))
            setattr(self, name, np.array(wide.reshape(n, width), order="C"))  # own, writable rows
        self._shape = shape

    def _rows(self, value) -> np.ndarray:
        """``value`` (a number or an array that broadcasts to the batch's shape) as one float per row."""
        return np.ascontiguousarray(np.broadcast_to(value, self._shape), dtype=float).reshape(-1)

    def _put(self, name: str, vector: str, slot: int, value) -> None:
        """Write ``value`` (a float, or an array: the controller becomes a batch) into ``slot`` of every
        row of ``vector`` (``"_p"`` or ``"_s"``); ``name`` remembers whether it was an array."""
        if isinstance(value, np.ndarray):
            self._widen(**{name: value})
            getattr(self, vector)[:, slot] = self._rows(value)
            self._arrays |= {name}
        else:
            getattr(self, vector)[..., slot] = value
            self._arrays -= {name}

    def _given(self, name: str, vector: str, slot: int):
        """A value given to the controller: an array where an array was given, else a float."""
        rows = getattr(self, vector)
        if name in self._arrays:
            return rows[:, slot].reshape(self._shape).copy()
        return float(rows.reshape(-1)[slot])

    def _computed(self, slot: int):
        """A state value the law computes: a float for one controller, an array for a batch."""
        if self._s.ndim == 1:
            return float(self._s[slot])
        return self._s[:, slot].reshape(self._shape).copy()

    def _parameter(self, slot: int) -> float:
        """A parameter every row shares (the period, the ranges)."""
        return float(self._p.reshape(-1)[slot])
