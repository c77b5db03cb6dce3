"""The per-variant parameter arrays of a batch (``simulate_batch(params=...)``): units and checks.

A params value is one number per variant: a 1-D array-like of reals, or a pint Quantity of one,
converted once here to the SI unit the serial constructor converts that parameter to (a
Quantity of the wrong dimension is refused, as the constructor refuses it). Errors name the
key as the user wrote it, ``params['<owner>.<parameter>']``, and the first bad variant's index
and value.
"""
from __future__ import annotations

import numpy as np

from . import checks
from .errors import ConfigError

__all__ = ["as_sequence", "is_quantity", "variant_values"]


def is_quantity(value) -> bool:
    """Whether ``value`` is a pint Quantity (duck-typed: a magnitude and a unit conversion)."""
    return hasattr(value, "magnitude") and hasattr(value, "to")


def as_sequence(value):
    """``value``, or a numpy array of it when it is another array-like (a pandas Series, a ``range``),
    which :func:`simcore.checks.number` takes only as a list, tuple or ndarray."""
    if isinstance(value, (list, tuple, np.ndarray, str, bytes)) or is_quantity(value) or checks.is_scalar(value):
        return value
    if hasattr(value, "__array__") or hasattr(value, "__len__"):
        try:
            return np.asarray(value)
        except (TypeError, ValueError):  # ragged: left to the checks, which name it
            return value
    return value


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
        Booleans, strings, None or anything else that is not real numbers (as
        :func:`simcore.checks.number` refuses them for ``simulate``).
    ConfigError
        A Quantity of another dimension, a non-finite value, or one out of range (naming the variant).
    """
    # simulate's own conversion (booleans, strings and None refused, a Quantity converted to ``unit``); the
    # non-finite values are named below with their variant
    arr = np.asarray(checks.number(label, as_sequence(value), unit, allow_inf=True, allow_nan=True,
                                   allow_array=True, expected="numbers (one per variant)"), dtype=float)
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
