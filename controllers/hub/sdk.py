"""The FTC SDK's value types and exceptions, with the SDK's names and messages.

Exact (FTC SDK ``RobotCore``): the enums ``DcMotor.RunMode`` (deprecated aliases
included, with ``migrate()`` and ``isPIDMode()``), ``DcMotorSimple.Direction``,
``DcMotor.ZeroPowerBehavior``, ``MotorControlAlgorithm``, ``AngleUnit``,
``CurrentUnit``; the classes ``PIDFCoefficients`` / ``PIDCoefficients`` (public
mutable fields, the SDK's constructors and ``toString``); and the exceptions the
SDK throws, each also a fitting Python built-in so Pythonic code can catch them:

===================================  ==========================================
SDK exception                        Python base
===================================  ==========================================
``TargetPositionNotSetException``    ``RuntimeError`` (Java RuntimeException)
``IllegalArgumentException``         ``ValueError``
``UnsupportedOperationException``    ``NotImplementedError`` (a RuntimeError)
===================================  ==========================================

The 16.16 fixed-point wire format of hub gains (:func:`internal_coefficient_from_external`)
is the SDK's ``LynxSetMotorPIDControlLoopCoefficientsCommand`` conversion.
"""
from __future__ import annotations

import decimal
import enum
import math

from simcore.errors import ConfigTypeError, as_real

__all__ = ["RunMode", "Direction", "ZeroPowerBehavior", "MotorControlAlgorithm", "AngleUnit", "CurrentUnit",
           "PIDFCoefficients", "PIDCoefficients", "DcMotor", "DcMotorSimple",
           "TargetPositionNotSetException", "IllegalArgumentException", "UnsupportedOperationException",
           "internal_coefficient_from_external", "external_coefficient_from_internal", "java_format_f"]


# ------------------------------------------------------------------------------------------------
# Exceptions
# ------------------------------------------------------------------------------------------------
class TargetPositionNotSetException(RuntimeError):
    """The hub refused to enable a RUN_TO_POSITION channel that was never sent a target."""

    MESSAGE = ("Failed to enable motor. You must set a target position before switching to "
               "RUN_TO_POSITION mode")

    def __init__(self, message: str | None = None):
        super().__init__(self.MESSAGE if message is None else message)


class IllegalArgumentException(ValueError):
    """Java's ``IllegalArgumentException``: an argument the SDK rejects."""


class UnsupportedOperationException(NotImplementedError):
    """Java's ``UnsupportedOperationException`` (a ``RuntimeError`` through ``NotImplementedError``)."""


# ------------------------------------------------------------------------------------------------
# Enums
# ------------------------------------------------------------------------------------------------
class RunMode(enum.Enum):
    """``DcMotor.RunMode``, deprecated aliases included (``migrate()`` maps them)."""

    RUN_WITHOUT_ENCODER = "RUN_WITHOUT_ENCODER"
    RUN_USING_ENCODER = "RUN_USING_ENCODER"
    RUN_TO_POSITION = "RUN_TO_POSITION"
    STOP_AND_RESET_ENCODER = "STOP_AND_RESET_ENCODER"
    RUN_WITHOUT_ENCODERS = "RUN_WITHOUT_ENCODERS"  #: deprecated, use RUN_WITHOUT_ENCODER
    RUN_USING_ENCODERS = "RUN_USING_ENCODERS"  #: deprecated, use RUN_USING_ENCODER
    RESET_ENCODERS = "RESET_ENCODERS"  #: deprecated, use STOP_AND_RESET_ENCODER

    def migrate(self) -> "RunMode":
        """The current constant for a deprecated one (itself otherwise)."""
        return {RunMode.RUN_WITHOUT_ENCODERS: RunMode.RUN_WITHOUT_ENCODER,
                RunMode.RUN_USING_ENCODERS: RunMode.RUN_USING_ENCODER,
                RunMode.RESET_ENCODERS: RunMode.STOP_AND_RESET_ENCODER}.get(self, self)

    def isPIDMode(self) -> bool:
        """True for the modes that run a PID loop (RUN_USING_ENCODER(S), RUN_TO_POSITION)."""
        return self in (RunMode.RUN_USING_ENCODER, RunMode.RUN_USING_ENCODERS, RunMode.RUN_TO_POSITION)

    def __str__(self):
        return self.name


class Direction(enum.Enum):
    """``DcMotorSimple.Direction``."""

    FORWARD = "FORWARD"
    REVERSE = "REVERSE"

    def inverted(self) -> "Direction":
        """The other direction."""
        return Direction.REVERSE if self is Direction.FORWARD else Direction.FORWARD

    def __str__(self):
        return self.name


class ZeroPowerBehavior(enum.Enum):
    """``DcMotor.ZeroPowerBehavior``: BRAKE shorts the windings at zero power, FLOAT opens the bridge."""

    UNKNOWN = "UNKNOWN"
    BRAKE = "BRAKE"
    FLOAT = "FLOAT"

    def __str__(self):
        return self.name


class MotorControlAlgorithm(enum.Enum):
    """``MotorControlAlgorithm``."""

    Unknown = "Unknown"
    LegacyPID = "LegacyPID"
    PIDF = "PIDF"

    def __str__(self):
        return self.name


class AngleUnit(enum.Enum):
    """``AngleUnit`` (DEGREES, RADIANS).

    The ``from*``/``to*`` methods normalise to [-180, 180) degrees / [-pi, pi) as
    the SDK's do; the motor velocity overloads use the *unnormalised* conversions
    (:meth:`rate_to_degrees`, :meth:`rate_from_degrees`), as the SDK's
    ``UnnormalizedAngleUnit``.
    """

    DEGREES = 0
    RADIANS = 1

    def normalize(self, angle: float) -> float:
        """Wrap ``angle`` (in this unit) to [-180, 180) degrees or [-pi, pi) radians."""
        full = 360.0 if self is AngleUnit.DEGREES else 2 * math.pi
        while angle >= full / 2:
            angle -= full
        while angle < -full / 2:
            angle += full
        return angle

    def fromDegrees(self, degrees: float) -> float:
        """Degrees in this unit, normalised."""
        return self.normalize(degrees if self is AngleUnit.DEGREES else degrees / 180.0 * math.pi)

    def fromRadians(self, radians: float) -> float:
        """Radians in this unit, normalised."""
        return self.normalize(radians if self is AngleUnit.RADIANS else radians / math.pi * 180.0)

    def fromUnit(self, them: "AngleUnit", theirs: float) -> float:
        """A value in unit ``them`` in this unit, normalised."""
        return self.fromRadians(theirs) if them is AngleUnit.RADIANS else self.fromDegrees(theirs)

    def toDegrees(self, in_our_units: float) -> float:
        """This unit to degrees, normalised."""
        return AngleUnit.DEGREES.fromUnit(self, in_our_units)

    def toRadians(self, in_our_units: float) -> float:
        """This unit to radians, normalised."""
        return AngleUnit.RADIANS.fromUnit(self, in_our_units)

    # Unnormalised conversions (UnnormalizedAngleUnit), used for angular rates.
    def rate_to_degrees(self, rate: float) -> float:
        """An angular rate in this unit per second, in degrees per second (no wrapping)."""
        return rate if self is AngleUnit.DEGREES else rate / math.pi * 180.0

    def rate_from_degrees(self, degrees: float) -> float:
        """An angular rate in degrees per second, in this unit per second (no wrapping)."""
        return degrees if self is AngleUnit.DEGREES else degrees / 180.0 * math.pi

    def __str__(self):
        return self.name


class CurrentUnit(enum.Enum):
    """``CurrentUnit`` (AMPS, MILLIAMPS)."""

    AMPS = 1.0
    MILLIAMPS = 0.001

    def toAmps(self, value: float) -> float:
        """``value`` in this unit, in A."""
        return value * self.value / CurrentUnit.AMPS.value

    def toMilliAmps(self, value: float) -> float:
        """``value`` in this unit, in mA."""
        return value * self.value / CurrentUnit.MILLIAMPS.value

    def convert(self, value: float, unit: "CurrentUnit") -> float:
        """``value`` given in ``unit``, in this unit."""
        return unit.toAmps(value) if self is CurrentUnit.AMPS else unit.toMilliAmps(value)

    def __str__(self):
        return self.name


class DcMotorSimple:
    """Namespace so that ported Java reads ``DcMotorSimple.Direction.REVERSE``."""

    Direction = Direction


class DcMotor(DcMotorSimple):
    """Namespace so that ported Java reads ``DcMotor.RunMode.RUN_TO_POSITION``."""

    RunMode = RunMode
    ZeroPowerBehavior = ZeroPowerBehavior


# ------------------------------------------------------------------------------------------------
# Coefficients
# ------------------------------------------------------------------------------------------------
_JAVA_F_CONTEXT = decimal.Context(prec=1000)
_SIX_DECIMALS = decimal.Decimal("0.000001")


def java_format_f(x: float) -> str:
    """Java's ``String.format("%f", x)`` (six decimals), to the character.

    ``java.util.Formatter`` rounds the digits of ``Double.toString(x)`` (the
    shortest decimal that reads back as ``x``, Python's ``repr``) *half up*, where
    Python's ``%f`` rounds the exact binary value half to even: Java prints
    0.0078125 as ``0.007813`` and 5e-7 as ``0.000001`` (Python: ``0.007812``,
    ``0.000000``). Non-finite values print as ``NaN`` / ``Infinity`` / ``-Infinity``.
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    d = decimal.Decimal(repr(x)).quantize(_SIX_DECIMALS, rounding=decimal.ROUND_HALF_UP, context=_JAVA_F_CONTEXT)
    return format(d, "f")


class _Gain:
    """A public gain field (a Java ``double``): any real number is stored as a float, NaN and infinities
    included (the SDK stores them; ``setPIDFCoefficients`` refuses a NaN and saturates an infinity as Java's
    cast); a str, a bool or None raises ConfigTypeError naming the field, when constructed or assigned."""

    def __set_name__(self, owner, name):
        self.name, self.slot = name, "_" + name

    def __get__(self, obj, owner=None):
        return self if obj is None else getattr(obj, self.slot)

    def __set__(self, obj, value):
        setattr(obj, self.slot, as_real(self.name, value))


class PIDFCoefficients:
    """``PIDFCoefficients``: public mutable ``p, i, d, f`` and ``algorithm``.

    ``PIDFCoefficients()`` is all zero with PIDF; ``PIDFCoefficients(p, i, d, f)``
    uses PIDF; ``PIDFCoefficients(other)`` copies a PIDFCoefficients, or converts a
    :class:`PIDCoefficients` (f = 0, LegacyPID), as the SDK's constructors.
    Gains are in the hub's units (see :mod:`simcore.controllers.hub.firmware`).
    A gain that is not a number (a str, a bool, None: Java would not compile it)
    raises :class:`~simcore.errors.ConfigTypeError` naming the field (``p``,
    ``i``, ``d`` or ``f``), whether given to the constructor or assigned later;
    NaN and infinities are stored, as Java's ``double`` fields store them, and
    ``DcMotorEx.setPIDFCoefficients`` refuses a NaN gain naming it.
    """

    p = _Gain()
    i = _Gain()
    d = _Gain()
    f = _Gain()

    def __init__(self, p=0.0, i=0.0, d=0.0, f=0.0, algorithm: MotorControlAlgorithm = MotorControlAlgorithm.PIDF):
        if isinstance(p, PIDFCoefficients):
            p, i, d, f, algorithm = p.p, p.i, p.d, p.f, p.algorithm
        elif isinstance(p, PIDCoefficients):
            p, i, d, f, algorithm = p.p, p.i, p.d, 0.0, MotorControlAlgorithm.LegacyPID
        if not isinstance(algorithm, MotorControlAlgorithm):
            raise ConfigTypeError("algorithm", algorithm, "a MotorControlAlgorithm")
        self.p, self.i, self.d, self.f = p, i, d, f
        self.algorithm = algorithm

    def toString(self) -> str:
        """The SDK's ``toString``: ``PIDFCoefficients(p=10.000000 i=3.000000 d=0.000000 f=0.000000 alg=PIDF)``."""
        return (f"PIDFCoefficients(p={java_format_f(self.p)} i={java_format_f(self.i)} d={java_format_f(self.d)} "
                f"f={java_format_f(self.f)} alg={self.algorithm.name})")

    __str__ = toString

    def __repr__(self):
        return (f"PIDFCoefficients(p={self.p!r}, i={self.i!r}, d={self.d!r}, f={self.f!r}, "
                f"algorithm=MotorControlAlgorithm.{self.algorithm.name})")

    def __eq__(self, other):
        if not isinstance(other, PIDFCoefficients):
            return NotImplemented
        return (self.p, self.i, self.d, self.f, self.algorithm) == (other.p, other.i, other.d, other.f, other.algorithm)

    __hash__ = None


class PIDCoefficients:
    """``PIDCoefficients``: public mutable ``p, i, d`` (checked as :class:`PIDFCoefficients`' gains)."""

    p = _Gain()
    i = _Gain()
    d = _Gain()

    def __init__(self, p=0.0, i=0.0, d=0.0):
        if isinstance(p, PIDCoefficients):
            p, i, d = p.p, p.i, p.d
        self.p, self.i, self.d = p, i, d

    def toString(self) -> str:
        """Java-style string."""
        return f"PIDCoefficients(p={java_format_f(self.p)} i={java_format_f(self.i)} d={java_format_f(self.d)})"

    __str__ = toString

    def __repr__(self):
        return f"PIDCoefficients(p={self.p!r}, i={self.i!r}, d={self.d!r})"

    def __eq__(self, other):
        if not isinstance(other, PIDCoefficients):
            return NotImplemented
        return (self.p, self.i, self.d) == (other.p, other.i, other.d)

    __hash__ = None


_INT_MAX = 2 ** 31 - 1


def internal_coefficient_from_external(c: float) -> int:
    """A gain in the hub's 16.16 fixed point: ``round(abs(c) * 65536) * sign(c)``.

    Exactly the SDK's ``(int)(Math.abs(c) * 65536.0 + 0.5) * (int)Math.signum(c)``
    (magnitude rounded half up, Java's saturating cast to int).
    """
    c = float(c)
    if math.isnan(c):
        return 0
    scaled = abs(c) * 65536.0 + 0.5
    mag = _INT_MAX if scaled >= _INT_MAX else int(math.floor(scaled))
    return mag * (1 if c > 0 else -1 if c < 0 else 0)


def external_coefficient_from_internal(n: int) -> float:
    """A 16.16 fixed-point gain as a float: ``n / 65536``."""
    return n / 65536.0
