"""Validation helpers for model and controller authors (public).

Every helper takes the parameter's name *as the user wrote it* and the value the
user gave, and returns the checked value converted to SI, or raises:

* :class:`~simcore.errors.ConfigTypeError` (also a ``TypeError``) when the value is
  not of an accepted kind: strings (``"5"`` is a typo, not a number), ``None``,
  ``True``/``False`` where a number is wanted (``bool`` is an ``int`` to Python,
  not to a user), complex numbers, a sequence where a scalar is wanted;
* :class:`~simcore.errors.ConfigError` (also a ``ValueError``) when it is a value
  of the right kind outside what is allowed: NaN, an infinity, a negative mass, a
  pint Quantity of the wrong dimension.

The message names the parameter, the value and what was expected
(``mass=-1.0: expected a positive mass in kg``).

Numbers may be plain (taken to be in SI already: angles in rad, angular rates in
rad/s) or pint Quantities of any registry, converted to ``unit`` here, once.
``unit=""`` means dimensionless: a plain number, or a Quantity that reduces to one.
Helpers with ``allow_array=True`` also accept a 1-D or N-D array (a parameter
varied over a batch of variants) and check every element.

Example, in a model's constructor::

    from simcore import checks

    self.mass = checks.positive("mass", mass, "kg", what="mass")
    self.start_pose = checks.pose("start_pose", start_pose)
    self.track_energy = checks.flag("track_energy", track_energy)
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import pint

from .errors import ConfigError, ConfigTypeError

__all__ = ["STANDARD_GRAVITY", "number", "real", "finite", "positive", "nonnegative", "tolerance", "fraction",
           "integer", "flag", "choice", "one_or_many", "is_scalar", "unpack", "point", "pose", "angle", "angles",
           "duration", "period_from_rate"]

#: Standard acceleration of gravity, m/s²: the conventional value fixed by the 3rd General
#: Conference on Weights and Measures (1901), the one SI and NIST tables quote.
STANDARD_GRAVITY = 9.80665

#: What float() would convert (or try to) but is not a number a user meant: "5" is a typo, True a flag,
#: a complex number has no order.
_NOT_NUMBERS = (str, bytes, bytearray, bool, np.bool_, complex, np.complexfloating)
_FLOAT64 = np.float64
_INT_FLOAT_LIMIT = 2 ** 1023  # ints below this convert to a finite float


def _in(unit: str) -> str:
    return f" in {unit}" if unit else ""


def number(parameter: str, value, unit: str = "", *, allow_inf: bool = False, allow_nan: bool = False,
           allow_array: bool = False, expected: str | None = None):
    """``value`` as a float in ``unit`` (or a float array with ``allow_array``).

    The one conversion every other helper builds on. Refuses strings, bools,
    ``None`` and anything ``float()`` cannot convert (ConfigTypeError), a Quantity
    of another dimension (ConfigError), and NaN and infinities unless allowed.

    Parameters
    ----------
    parameter : str
        Name in the error message.
    value : float, int, numpy scalar, pint.Quantity, or array with ``allow_array``
    unit : str
        SI unit to convert a Quantity to (``""``: dimensionless).
    allow_inf, allow_nan : bool
        Accept infinities / NaN.
    allow_array : bool
        Accept sequences and arrays (returned as float ndarrays).
    expected : str, optional
        Wording of "what was expected" for a value of the wrong kind (default
        ``"a number in <unit>"``).
    """
    # Fast path: a plain finite float or int (numpy's float64 included), the common case inside
    # control loops: type identity, no isinstance against ABCs or pint.
    kind = type(value)
    if kind is float or kind is _FLOAT64:
        if value - value == 0.0:
            return float(value)
    elif kind is int and -_INT_FLOAT_LIMIT < value < _INT_FLOAT_LIMIT:
        return float(value)
    elif (kind is np.ndarray and allow_array and not (allow_inf or allow_nan) and value.dtype == np.float64
          and value.ndim and value.size and np.isfinite(value).all()):
        # Fast path: a non-empty float array, all finite (a batch's signals at each tick): what _array
        # returns for it, a float copy, without its checks' Python wrappers. Anything else, a refused
        # array included, takes the general path below, which words the error.
        return value.astype(float)
    want = expected or f"a number{_in(unit)}"
    mag = value
    if isinstance(value, pint.Quantity):
        try:
            mag = value.to(unit).magnitude if unit else value.to("").magnitude
        except pint.DimensionalityError:
            raise ConfigError(parameter, value, f"a quantity convertible to {unit or 'dimensionless'}") from None
        if value.dimensionality and _turns_and_cycles_mixed(value, unit):
            raise ConfigError(parameter, value, f"a quantity in {unit or 'a dimensionless unit'} (not converted "
                                                f"between frequencies and angular rates: pint takes the radian "
                                                f"as 1, so Hz to rad/s or rpm to Hz would lose the factor 2 pi)")
    if isinstance(mag, (list, tuple)) or (isinstance(mag, np.ndarray) and mag.ndim):
        if not allow_array:
            raise ConfigTypeError(parameter, value, f"a scalar{_in(unit)}")
        return _array(parameter, value, mag, unit, allow_inf, allow_nan)
    if isinstance(mag, _NOT_NUMBERS) or (isinstance(mag, np.ndarray) and mag.dtype.kind not in "iuf"):
        raise ConfigTypeError(parameter, value, want)
    try:
        f = float(mag)
    except OverflowError:  # an int beyond the float range
        raise ConfigError(parameter, value, f"a finite number{_in(unit)}") from None
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, value, want) from None
    if f != f and not allow_nan:
        raise ConfigError(parameter, value, "a number, not NaN" if allow_inf else f"a finite number{_in(unit)}")
    if f in (math.inf, -math.inf) and not allow_inf:
        raise ConfigError(parameter, value, f"a finite number{_in(unit)}")
    return f


def _holds_bool(seq) -> bool:
    """Whether a (nested) list or tuple holds a bool, which numpy would silently make 1.0 or 0.0."""
    return any(isinstance(v, (bool, np.bool_)) or (isinstance(v, (list, tuple)) and _holds_bool(v)) for v in seq)


def _holds_quantity(seq) -> bool:
    """Whether a (nested) list or tuple holds a pint Quantity."""
    return any(isinstance(v, pint.Quantity) or (isinstance(v, (list, tuple)) and _holds_quantity(v)) for v in seq)


def _turns_and_cycles_mixed(value, unit: str) -> bool:
    """Whether converting ``value`` to ``unit`` mixes an angular rate with a frequency.

    pint treats the radian as dimensionless, so ``Q_(10, "Hz").to("rad/s")`` is 10 and
    ``Q_(3000, "rpm").to("Hz")`` 314: each off by 2 pi. Refused when the powers of
    the radian in the two units differ and one of them is written in hertz, or the
    value carries an angle (rpm, deg/s); a plain ``1/s`` to ``rad/s`` stays allowed.
    """
    registry = value._REGISTRY
    src = registry.get_root_units(value.units)[1]._units  # unit name -> power (pint's UnitsContainer)
    dst = registry.get_root_units(unit)[1]._units if unit else {}
    if src.get("radian", 0) == dst.get("radian", 0):
        return False
    written = set(value.units._units) | (set(registry.parse_units(unit)._units) if unit else set())
    return src.get("radian", 0) != 0 or "hertz" in written


def _array(parameter, value, mag, unit, allow_inf, allow_nan) -> np.ndarray:
    if isinstance(mag, (list, tuple)) and _holds_bool(mag):
        raise ConfigTypeError(parameter, value, f"numbers{_in(unit)}, not True/False")
    try:
        if isinstance(mag, (list, tuple)) and _holds_quantity(mag):
            # numpy would stack Quantities by their dimensionless magnitudes, in their own dtype: a list of
            # whole-number degrees became whole radians (30 deg -> 0) and kilograms were refused
            raise TypeError("Quantities are converted one by one")
        raw = mag if isinstance(mag, np.ndarray) else np.asarray(mag)
    except (TypeError, ValueError, pint.DimensionalityError):  # ragged, or Quantities
        raw = np.empty(len(mag), dtype=object)
        raw[:] = list(mag)
    if raw.dtype.kind in "iuf":
        arr = raw.astype(float)
    elif raw.dtype.kind == "O":  # mixed objects (Quantities, Fractions...): each element on its own
        arr = np.array([number(parameter, v, unit, allow_inf=True, allow_nan=True) for v in raw.ravel()],
                       dtype=float).reshape(raw.shape)
    else:  # bools, strings, complex numbers, dates
        raise ConfigTypeError(parameter, value, f"numbers{_in(unit)}")
    if arr.size == 0:
        raise ConfigError(parameter, value, f"at least one number{_in(unit)}")
    if (not allow_nan and np.isnan(arr).any()) or (not allow_inf and np.isinf(arr).any()):
        raise ConfigError(parameter, value,
                          f"numbers{_in(unit)}, not NaN" if allow_inf else f"finite numbers{_in(unit)}")
    return arr


def real(parameter: str, value, unit: str = ""):
    """Any real number but NaN, infinities included (a limit that may be ``math.inf``)."""
    return number(parameter, value, unit, allow_inf=True)


def finite(parameter: str, value, unit: str = "", *, allow_array: bool = False):
    """A finite real number (or, with ``allow_array``, an array of them)."""
    return number(parameter, value, unit, allow_array=allow_array)


def positive(parameter: str, value, unit: str = "", *, what: str = "number", allow_array: bool = False):
    """A finite number > 0; ``what`` words the message (``positive("mass", m, "kg", what="mass")``)."""
    v = number(parameter, value, unit, allow_array=allow_array)
    if not (v > 0.0 if type(v) is float else np.all(np.asarray(v) > 0.0)):  # (a float: no numpy call)
        raise ConfigError(parameter, value, f"a positive {what}{_in(unit)}")
    return v


def nonnegative(parameter: str, value, unit: str = "", *, what: str = "number", allow_array: bool = False):
    """A finite number >= 0."""
    v = number(parameter, value, unit, allow_array=allow_array)
    if not (v >= 0.0 if type(v) is float else np.all(np.asarray(v) >= 0.0)):
        raise ConfigError(parameter, value, f"a non-negative {what}{_in(unit)}")
    return v


def tolerance(parameter: str, value, unit: str = "") -> float:
    """A number >= 0 where ``math.inf`` means "no limit"."""
    v = number(parameter, value, unit, allow_inf=True)
    if not v >= 0.0:
        raise ConfigError(parameter, value, f"a non-negative number{_in(unit)} or math.inf")
    return v


def fraction(parameter: str, value, *, low: float = 0.0, high: float = 1.0, low_open: bool = False) -> float:
    """A dimensionless number in ``[low, high]`` (``(low, high]`` with ``low_open``), e.g. an efficiency."""
    v = number(parameter, value)
    if not ((low < v) if low_open else (low <= v)) or not v <= high:
        raise ConfigError(parameter, value, f"a number in {'(' if low_open else '['}{low!r}, {high!r}]")
    return v


def duration(parameter: str, value, *, positive: bool = False) -> float:
    """A time, s, >= 0 (> 0 with ``positive``), that the integer-nanosecond clock can count exactly.

    A time that is not a whole number of nanoseconds within 1e-6 of itself (1e-12 s)
    or too long to count (1e308 s) is ConfigError, never an OverflowError.
    """
    from .clock import to_ns

    t = number(parameter, value, "s")
    if not t >= 0.0:  # checked before rounding to the nanosecond, which would make -1e-300 s zero
        raise ConfigError(parameter, value, "a non-negative time in s")
    try:
        to_ns(parameter, t, positive=positive, nonnegative=True)
    except OverflowError:
        raise ConfigError(parameter, value, "a time the clock can count in nanoseconds") from None
    return t


def period_from_rate(parameter: str, rate) -> float:
    """The period ``1 / rate``, s, of a positive rate in Hz that the nanosecond clock can tick at.

    A rate so high or so low that its period is not a whole number of nanoseconds
    (within 1e-6 of itself), or overflows, is refused naming ``parameter`` (the rate
    the user gave), not the period derived from it.
    """
    r = positive(parameter, rate, "Hz", what="rate")
    period = 1.0 / r
    try:
        return duration(parameter, period, positive=True)
    except ConfigError as exc:
        raise ConfigError(parameter, rate, f"a rate in Hz whose period 1/rate = {period!r} s is "
                                           f"{exc.expected}") from None


def integer(parameter: str, value, *, minimum: int | None = None, what: str = "a whole number") -> int:
    """A Python int (numpy integers accepted; bools and floats such as ``2.0`` refused).

    Ints beyond the float range are refused too: every count meets float arithmetic
    (``n_motors * stall_torque``), where they would raise OverflowError.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ConfigTypeError(parameter, value, what if minimum is None else f"{what} >= {minimum}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ConfigError(parameter, value, f"{what} >= {minimum}")
    if not -_INT_FLOAT_LIMIT < v < _INT_FLOAT_LIMIT:
        raise ConfigError(parameter, value, f"{what} within the float range (below 2**1023)")
    return v


def flag(parameter: str, value) -> bool:
    """``True`` or ``False`` (numpy bools accepted); ``bool("no")`` is True, so nothing else is converted."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ConfigTypeError(parameter, value, "True or False")


def choice(parameter: str, value, options):
    """One of ``options`` (compared with ``==``; a string is not matched case-insensitively)."""
    options = tuple(options)
    if not isinstance(value, (bool, np.bool_)):
        for o in options:
            if isinstance(value, type(o)) and o == value:
                return o
    raise ConfigError(parameter, value, "one of " + ", ".join(repr(o) for o in options))


def one_or_many(parameter: str, value, cls) -> list:
    """``value`` as a list of ``cls`` instances: a single instance, or any iterable of them.

    ``cls`` may be a class or a tuple of classes, as for ``isinstance``.
    """
    kind = cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls)
    if isinstance(value, cls):
        return [value]
    if isinstance(value, (str, bytes, set, frozenset, dict)) or not hasattr(value, "__iter__"):
        raise ConfigTypeError(parameter, value, f"a {kind} or a sequence of {kind}")
    items = list(value)
    bad = next((item for item in items if not isinstance(item, cls)), None)
    if bad is not None:
        raise ConfigTypeError(parameter, bad, f"{kind} instances")
    return items


def is_scalar(value) -> bool:
    """Whether ``value`` is one number (a float, an int, a numpy scalar or 0-d array, a scalar Quantity)
    rather than a sequence: a Quantity has ``__len__`` and ``__iter__`` whatever its shape."""
    if isinstance(value, pint.Quantity):
        return np.ndim(value.magnitude) == 0
    if isinstance(value, np.ndarray):
        return value.ndim == 0
    return isinstance(value, (numbers.Number, np.generic))


def unpack(parameter: str, value, n: int, expected: str) -> tuple:
    """The ``n`` items of a tuple-like ``value`` (a pair, a triple, a NamedTuple), unchecked.

    Refuses (ConfigTypeError naming ``parameter``, with ``expected`` as what was
    expected) strings, None, scalars (a scalar Quantity or 0-d array, too), sets and
    dicts, whose order is arbitrary, and sequences of another length.
    """
    if isinstance(value, (str, bytes, set, frozenset, dict)) or value is None or is_scalar(value):
        raise ConfigTypeError(parameter, value, expected)
    try:
        items = tuple(value)
    except TypeError:
        raise ConfigTypeError(parameter, value, expected) from None
    if len(items) != n:
        raise ConfigTypeError(parameter, value, expected)
    return items


def point(parameter: str, value, unit: str = "m") -> tuple[float, float]:
    """An ``(x, y)`` pair of finite numbers in ``unit`` (default m)."""
    x, y = unpack(parameter, value, 2, f"an (x, y) pair in {unit}")
    return finite(f"{parameter}[0]", x, unit), finite(f"{parameter}[1]", y, unit)


def pose(parameter: str, value) -> tuple[float, float, float]:
    """An ``(x m, y m, heading rad)`` triple of finite numbers (a ``Pose2d`` unpacks to one)."""
    x, y, h = unpack(parameter, value, 3, "an (x m, y m, heading rad) triple")
    return (finite(f"{parameter}[0]", x, "m"), finite(f"{parameter}[1]", y, "m"),
            finite(f"{parameter}[2]", h, "rad"))


def angle(parameter: str, value) -> float:
    """A finite angle, rad (a Quantity in degrees is converted)."""
    return number(parameter, value, "rad")


def angles(parameter: str, values, count: int | None = None) -> tuple[float, ...]:
    """A sequence of finite angles, rad (exactly ``count`` of them when given)."""
    expected = f"{count} angles in rad" if count is not None else "a sequence of angles in rad"
    if isinstance(values, pint.Quantity):
        values = [values[i] for i in range(len(values))] if np.ndim(values.magnitude) else values
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ConfigTypeError(parameter, values, expected)
    items = tuple(values)
    if count is not None and len(items) != count:
        raise ConfigError(parameter, values, expected)
    return tuple(angle(f"{parameter}[{i}]", a) for i, a in enumerate(items))
