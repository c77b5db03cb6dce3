"""The per-variant parameter arrays of a batch (``simulate_batch(params=...)``): units and checks.

A params value is one number per variant: a 1-D array-like of reals, or a pint Quantity of one,
converted once here to the SI unit the serial constructor converts that parameter to (a
Quantity of the wrong dimension is refused, as the constructor refuses it). Errors name the
key as the user wrote it, ``params['<owner>.<parameter>']``, and the first bad variant's index
and value.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import checks
from .errors import ConfigError, ConfigTypeError

__all__ = ["is_quantity", "real_numbers", "variant_values"]


def is_quantity(value) -> bool:
    """Whether ``value`` is a pint Quantity (duck-typed: a magnitude and a unit conversion)."""
    return hasattr(value, "magnitude") and hasattr(value, "to")


def real_numbers(label: str, value, expected: str) -> np.ndarray:
    """``value``, a real number or an array-like of them, as a new float array.

    Booleans, strings, None and other objects are refused, as the serial checks refuse them
    (numpy would turn ``True`` into 1.0, ``"6"`` into 6.0 and None into NaN).

    Raises
    ------
    ConfigTypeError
        Naming ``label`` (with the index of the first bad entry of an array of objects), the
        value and ``expected``.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # a ragged nesting
        raise ConfigTypeError(label, value, expected) from None
    kind = arr.dtype.kind
    if kind == "O":  # numbers of several types, or not numbers
        for j, x in enumerate(arr.ravel()):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
                where = label if arr.ndim == 0 else f"{label}[{j}]"
                raise ConfigTypeError(where, x, f"{expected}, not {type(x).__name__}")
    elif kind not in "iuf":
        what = {"b": "booleans", "U": "strings", "S": "bytes", "c": "complex numbers"}.get(kind, str(arr.dtype))
        raise ConfigTypeError(label, value, f"{expected}, not {what}")
    return arr.astype(float)


def variant_values(label: str, value, unit: str = "", *, positive: bool = False,
                   nonnegative: bool = False) -> np.ndarray:
    """``value`` as a float array in ``unit`` (SI), checked variant by variant.

    Parameters
    ----------
    label : str
        How the user addressed it, e.g. ``"params['arm.mass']"``.
    value : array-like or pint.Quantity
        A plain number or array is taken to be in SI already.
    unit : str
        The SI unit of the parameter (``""``: dimensionless; degrees then become radians).
    positive, nonnegative : bool
        Require every value > 0 (>= 0).

    Raises
    ------
    ConfigTypeError
        Booleans, strings, None or anything else that is not real numbers (:func:`real_numbers`).
    ConfigError
        A Quantity of another dimension, a non-finite value, or one out of range (naming the variant).
    """
    if is_quantity(value):
        real_numbers(label, value.magnitude, "numbers (one per variant)")
        arr = np.asarray(checks.finite(label, value, unit, allow_array=True), dtype=float)
    else:
        arr = real_numbers(label, value, "numbers (one per variant)")
    bad = ~np.isfinite(arr)
    what = "a finite number"
    if not bad.any() and positive:
        bad, what = ~(arr > 0), "a positive number"
    elif not bad.any() and nonnegative:
        bad, what = ~(arr >= 0), "a non-negative number"
    if bad.any():
        if arr.ndim == 0:
            raise ConfigError(label, float(arr), what)
        j = int(np.flatnonzero(bad.ravel())[0])
        raise ConfigError(f"{label}[{j}]", float(arr.ravel()[j]), f"{what} (variant {j})")
    return arr
