"""The project's exception hierarchy.

Every error the simulator raises on purpose derives from :class:`SimError`, so a
notebook can catch the simulator's complaints without catching everything.
Configuration mistakes are also ``ValueError`` (or ``TypeError``) so that code
written against the standard library's conventions keeps working.
"""
from __future__ import annotations

__all__ = ["SimError", "ConfigError", "ConfigTypeError", "IntegrationError", "NonFiniteError", "ProtocolError",
           "as_real", "check_finite", "check_bool"]


class SimError(Exception):
    """Base class of every error raised by simcore, models and controllers."""


def _plain(value):
    """A numpy scalar as the Python number it holds, so messages read ``0.5`` not ``np.float64(0.5)``."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


class ConfigError(SimError, ValueError):
    """A parameter has a bad value.

    The message names the parameter, the value given and what was expected.

    Parameters
    ----------
    parameter : str
        Name of the offending parameter, as the user wrote it.
    value : object
        The value that was given.
    expected : str
        What would have been accepted, in words ("a positive number", ...).
    """

    def __init__(self, parameter: str, value, expected: str):
        self.parameter = parameter
        self.value = value = _plain(value)
        self.expected = expected
        super().__init__(f"{parameter}={value!r}: expected {expected}")

    def __reduce__(self):
        # Rebuild from the constructor's arguments so the error survives a process pool.
        return (type(self), (self.parameter, self.value, self.expected))


class ConfigTypeError(ConfigError, TypeError):
    """A parameter has the wrong type (also a ``TypeError``)."""


class ProtocolError(ConfigTypeError):
    """An object lacks a member a part of the simulator needs of it (see :mod:`simcore.protocols`).

    Parameters
    ----------
    parameter : str
        Where the object was given (``"systems"``, ``"mechanism"``, ...).
    value : object
        The object.
    expected : str
        What it must be, naming the missing member.
    member : str
        The missing (or wrong) member's name.
    """

    def __init__(self, parameter: str, value, expected: str, member: str = ""):
        super().__init__(parameter, value, expected)
        self.member = member

    def __reduce__(self):
        return (type(self), (self.parameter, self.value, self.expected, self.member))


class IntegrationError(SimError, RuntimeError):
    """The integration could not proceed.

    Parameters
    ----------
    message : str
        What went wrong (the solver's own message where there is one).
    t : float
        Simulation time reached, s.
    """

    def __init__(self, message: str, t: float):
        self.t = t = _plain(t)
        self.message = message
        super().__init__(f"at t={t!r} s: {message}")

    def __reduce__(self):
        return (type(self), (self.message, self.t))


class NonFiniteError(IntegrationError):
    """A derivative, input or output became NaN or infinite."""

    def __init__(self, kind: str, signal: str, value, t: float):
        self.kind = kind
        self.signal = signal
        self.value = value = _plain(value)
        super().__init__(f"{kind} {signal!r} is {value!r} (not finite)", t)

    def __reduce__(self):
        return (type(self), (self.kind, self.signal, self.value, self.t))

    def at(self, t: float) -> "NonFiniteError":
        """This error at simulation time ``t``: model code that does not know the time
        (a load function of position) raises with ``t = nan``; the engine, which
        knows it, re-raises with this."""
        return type(self)(self.kind, self.signal, self.value, t)


# Conversions kept under their historical names for the engine and older callers; the one
# implementation is simcore.checks (imported as a module here, so either module may load first).
from . import checks as _checks  # noqa: E402


def as_real(parameter: str, value) -> float:
    """``value`` as a float, NaN and infinities included (:func:`simcore.checks.number`): strings,
    bools and non-numbers raise ConfigTypeError."""
    return _checks.number(parameter, value, allow_inf=True, allow_nan=True, expected="a real number")


def check_finite(parameter: str, value) -> float:
    """:func:`simcore.checks.finite` (a finite real number, bools and strings refused)."""
    return _checks.finite(parameter, value)


def check_bool(parameter: str, value) -> bool:
    """:func:`simcore.checks.flag` (True or False only)."""
    return _checks.flag(parameter, value)
