"""The C library's ``pow`` and ``sin`` over arrays, element by element.

numpy's own ``power`` and ``sin`` run SIMD implementations on some processors (AVX-512 among them)
that round differently from the C library in the last bit (measured here: ``np.power(x, -0.2)``
differed from ``math.pow`` on about 5 % of values). A serial run computes with the C library's
functions (Python's ``math`` and the compiled kernel alike); numpy's batch engine
(:mod:`simcore.batch_rk`, :mod:`simcore.models.batched`) calls these instead, so that a variant
computes what its own serial run does on any processor.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import jit

__all__ = ["power", "sin"]


@jit
def _power(x, e, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] ** e


@jit
def _sin(x, out):
    for i in range(x.size):
        out.flat[i] = math.sin(x.flat[i])


def power(x, e: float, out=None) -> np.ndarray:
    """``x ** e`` element by element with the C library's ``pow`` (a new array, or ``out``)."""
    x = np.ascontiguousarray(x, dtype=float)
    if out is None:
        out = np.empty_like(x)
    _power(x, float(e), out)
    return out


def sin(x, out=None) -> np.ndarray:
    """``sin(x)`` element by element with the C library's ``sin`` (a new array, or ``out``, which may be ``x``)."""
    x = np.ascontiguousarray(x, dtype=float)
    if out is None:
        out = np.empty_like(x)
    _sin(x, out)
    return out
