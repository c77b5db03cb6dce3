"""Integer-nanosecond clock for periodic controllers.

Tick times are ``t0 + offset + k * period`` computed in integer nanoseconds, never
accumulated in floating point, so a 10 ms and a 30 ms controller coincide exactly
every 30 ms (in floats ``0.01 * 3 != 0.03``). A tick's float time is
``ns / 1e9``, the same float for every controller ticking at that instant.
"""
from __future__ import annotations

import math

from .errors import ConfigError, ConfigTypeError

__all__ = ["NS_PER_S", "to_ns", "to_seconds"]

NS_PER_S = 1_000_000_000


def to_ns(parameter: str, seconds, *, positive: bool = False, nonnegative: bool = False) -> int:
    """Convert a time in seconds (float or pint Quantity) to integer nanoseconds.

    Raises
    ------
    ConfigError
        Not a finite number, not representable to the nanosecond within 1e-6
        relative (e.g. a period of 1/3 s is accepted and rounded; 1e-12 s is not),
        or of the wrong sign.
    """
    from .units import to_si

    s = to_si(parameter, seconds, "s")
    ns_float = s * NS_PER_S
    ns = int(round(ns_float))
    # Rounding to the nanosecond may move a time by at most 1e-6 of itself (1/3 s is
    # fine); 1.4e-9 s or 1e-12 s would be changed by 30 % or to zero, so they raise.
    # The 1e-9 ns floor absorbs the float error of s * 1e9 for exact nanoseconds.
    if abs(ns - ns_float) > 1e-6 * abs(ns_float) + 1e-9:
        raise ConfigError(parameter, seconds, "a time representable in whole nanoseconds (within 1e-6 of itself)")
    if positive and ns <= 0:
        raise ConfigError(parameter, seconds, "a positive time of at least 1 ns")
    if nonnegative and ns < 0:
        raise ConfigError(parameter, seconds, "a non-negative time")
    return ns


def to_seconds(ns: int) -> float:
    """Float seconds of an integer nanosecond time (deterministic: one division)."""
    return ns / NS_PER_S


def first_tick_index(start_ns: int, offset_ns: int, period_ns: int, after_ns: int, inclusive: bool) -> int:
    """Smallest k >= 0 whose tick ``start + offset + k*period`` is >= (or >) ``after_ns``."""
    base = start_ns + offset_ns
    if inclusive:
        k = -((base - after_ns) // period_ns)  # ceil((after - base) / period)
    else:
        k = (after_ns - base) // period_ns + 1
    return max(k, 0)
