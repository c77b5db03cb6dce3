"""Parameter checks shared by the controllers package (private).

Every check raises :class:`simcore.errors.ConfigError` naming the parameter, so a
bad gain or constraint is reported where it was given rather than as a NaN later.
A gain may be a scalar (returned as a Python float) or, for batch simulations, an
array of gains (returned as a float ndarray); both are checked element-wise.
"""
from __future__ import annotations

import math

import numpy as np

from simcore.errors import ConfigError, ConfigTypeError, as_real, check_finite


def _as_array(parameter: str, value) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, value, "a real number or an array of them") from None


def finite(parameter: str, value):
    """Return ``value`` as a float (or float array); raise unless every element is finite."""
    if np.ndim(value) == 0:
        return check_finite(parameter, value)
    arr = _as_array(parameter, value)
    if not np.all(np.isfinite(arr)):
        raise ConfigError(parameter, value, "finite numbers")
    return arr


def nonnegative(parameter: str, value):
    """Return ``value`` as a float (or float array); raise unless finite and >= 0."""
    v = finite(parameter, value)
    if np.any(np.asarray(v) < 0.0):
        raise ConfigError(parameter, value, "a non-negative number")
    return v


def positive(parameter: str, value) -> float:
    """Return scalar ``value`` as a float; raise unless finite and > 0."""
    v = check_finite(parameter, value)
    if not v > 0.0:
        raise ConfigError(parameter, value, "a positive number")
    return v


def real(parameter: str, value) -> float:
    """Return a scalar as a float: any real number but NaN (``+-math.inf`` allowed)."""
    v = as_real(parameter, value)
    if math.isnan(v):
        raise ConfigError(parameter, value, "a number, not NaN")
    return v


def tolerance(parameter: str, value) -> float:
    """Return a tolerance as a float: >= 0, ``math.inf`` allowed (means "no limit")."""
    v = real(parameter, value)
    if v < 0.0:
        raise ConfigError(parameter, value, "a non-negative number or math.inf")
    return v


def is_scalar(*values) -> bool:
    """True when every value is a scalar (so the plain-float code path applies)."""
    return all(np.ndim(v) == 0 for v in values)
