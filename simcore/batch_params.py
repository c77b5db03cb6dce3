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

__all__ = ["as_sequence", "has_units", "is_quantity", "magnitudes", "numbers", "variant_values"]


def is_quantity(value) -> bool:
    """Whether ``value`` is a pint Quantity (duck-typed: a magnitude and a unit conversion)."""
    return hasattr(value, "magnitude") and hasattr(value, "to")


def has_units(value) -> bool:
    """Whether ``value`` is a Quantity or holds one: a list, tuple, object array or pandas Series of them
    (``[Q_(30, "deg"), Q_(60, "deg")]``); a value whose unit the part that owns the parameter converts."""
    if is_quantity(value):
        return True
    value = as_sequence(value)
    if isinstance(value, np.ndarray):
        return value.dtype == object and any(has_units(v) for v in value.ravel())
    return isinstance(value, (list, tuple)) and any(has_units(v) for v in value)


def magnitudes(value):
    """``value`` with every Quantity in it replaced by its magnitude (to count and shape it, not to use)."""
    if is_quantity(value):
        return value.magnitude
    value = as_sequence(value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([magnitudes(v) for v in value.ravel()], dtype=object).reshape(value.shape)
    if isinstance(value, (list, tuple)):
        return [magnitudes(v) for v in value]
    return value


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


def numbers(label: str, value, unit: str = "", *, expected: str) -> np.ndarray:
    """``value`` converted by simulate's own conversion (:func:`simcore.checks.number`, NaN and
    infinities let through), as a float array, or a scalar's 0-d one.

    A sequence refused for one of its elements is refused naming that element: the first variant
    ``j`` the conversion refuses alone, as ``<label>[j]`` with its value and ``(variant j)`` (the
    conversion itself names only the whole array, or the element without its index).

    Parameters
    ----------
    label : str
        How the user addressed it, e.g. ``"params['arm.mass']"`` or ``"x0['arm.angle']"``.
    value : number, array-like or pint.Quantity
    unit : str
        The SI unit a Quantity converts to (``""``: dimensionless).
    expected : str
        What was expected of the whole value, for an error about the whole of it.

    Raises
    ------
    ConfigTypeError, ConfigError
        As :func:`simcore.checks.number`, naming the variant when one element is to blame.
    """
    value = as_sequence(value)
    try:
        return np.asarray(checks.number(label, value, unit, allow_inf=True, allow_nan=True, allow_array=True,
                                        expected=expected), dtype=float)
    except ConfigError as whole:
        elements = value.magnitude if is_quantity(value) else value
        if not isinstance(elements, (list, tuple, np.ndarray)) or getattr(elements, "ndim", 1) != 1:
            raise
        for j, v in enumerate(elements):  # (only on the way to an error: the loop is not the batch's)
            if is_quantity(value):
                v = v * value.units
            try:
                checks.number(label, v, unit, allow_inf=True, allow_nan=True)
            except ConfigError as one:
                # a boolean is "a number" to float(), so say it is refused for being one (as for a list of them)
                expected = f"{one.expected}, not True/False" if isinstance(v, (bool, np.bool_)) else one.expected
                raise type(one)(f"{label}[{j}]", v, f"{expected} (variant {j})") from whole
        raise


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
    arr = numbers(label, value, unit, expected="numbers (one per variant)")
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
