"""The FTC SDK's ``Range`` (``com.qualcomm.robotcore.util.Range``): clip, scale and validate a number.

Exact, as the SDK's static methods compute them:

* ``Range.clip(number, min, max)``: ``min`` if ``number < min``, else ``max`` if
  ``number > max``, else ``number`` (the argument itself: an int stays an int,
  as the SDK's int, short and byte overloads; ``min > max`` gives ``min`` below
  it and ``max`` above, as the Java does; a NaN ``number`` is neither below nor
  above, so it comes back NaN, which ``setPower`` then refuses);
* ``Range.scale(n, x1, x2, y1, y2)``: the line through ``(x1, y1)`` and
  ``(x2, y2)`` at ``n``, ``a n + b`` with ``a = (y1 - y2) / (x1 - x2)`` and
  ``b = y1 - x1 (y1 - y2) / (x1 - x2)``, not clipped (``n`` outside
  ``[x1, x2]`` extrapolates);
* ``Range.throwIfRangeIsInvalid(number, min, max)``: ``IllegalArgumentException``
  ``"number %f is invalid; valid ranges are %f..%f"`` (``%d`` when all three
  are ints, the SDK's int overload) when ``number < min`` or ``number > max``.

Where the simulator refuses what Java would let through (named, as every bad
value here): an argument that is not a number (a str, a bool, None: Java
would not compile it) raises :class:`~simcore.errors.ConfigTypeError` naming
the parameter; ``scale`` with ``x1 == x2`` (Java divides by zero and returns
NaN or an infinity) raises :class:`~simcore.errors.ConfigError` naming ``x2``;
and ``throwIfRangeIsInvalid`` treats a NaN ``number`` (or bound) as invalid,
which Java's comparisons would let pass.
"""
from __future__ import annotations

import math
import numbers

from simcore.errors import ConfigError, ConfigTypeError

from .sdk import IllegalArgumentException, java_format_f

__all__ = ["Range"]


def _number(parameter: str, value):
    """``value`` if it is a real number (not a bool), else ConfigTypeError naming ``parameter``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigTypeError(parameter, value, "a number (a Java double or int)")
    return value


class Range:
    """``Range``: static helpers with the SDK's names (see the module docstring)."""

    def __init__(self):
        raise TypeError("Range has only static methods (the SDK's constructor is private)")

    @staticmethod
    def clip(number, min, max):  # noqa: A002 - the SDK's parameter names
        """``number`` clipped to ``[min, max]``.

        Parameters
        ----------
        number, min, max : float or int
            Any unit, the same for all three.
        """
        number, low, high = _number("number", number), _number("min", min), _number("max", max)
        if number < low:
            return low
        if number > high:
            return high
        return number

    @staticmethod
    def scale(n, x1, x2, y1, y2) -> float:
        """``n`` mapped linearly from the range ``x1..x2`` onto ``y1..y2`` (not clipped).

        Raises
        ------
        ConfigError
            ``x2 == x1``: the input range is empty (Java would return NaN or an infinity).
        """
        n, x1, x2, y1, y2 = (float(_number(p, v)) for p, v in (("n", n), ("x1", x1), ("x2", x2), ("y1", y1),
                                                                 ("y2", y2)))
        if x1 == x2:
            raise ConfigError("x2", x2, f"a value other than x1={x1!r}: the range to scale from is empty")
        a = (y1 - y2) / (x1 - x2)
        b = y1 - x1 * (y1 - y2) / (x1 - x2)
        return a * n + b

    @staticmethod
    def throwIfRangeIsInvalid(number, min, max) -> None:  # noqa: A002
        """Raise the SDK's ``IllegalArgumentException`` when ``number`` is outside ``[min, max]`` (or NaN).

        Raises
        ------
        IllegalArgumentException
            ``"number %f is invalid; valid ranges are %f..%f"``, as the SDK's message.
        """
        values = [_number(p, v) for p, v in (("number", number), ("min", min), ("max", max))]
        number, low, high = values
        if number < low or number > high or any(math.isnan(v) for v in values):
            if all(isinstance(v, numbers.Integral) for v in values):
                shown = [str(int(v)) for v in values]
            else:
                shown = [java_format_f(float(v)) for v in values]
            raise IllegalArgumentException(f"number {shown[0]} is invalid; valid ranges are {shown[1]}..{shown[2]}")
