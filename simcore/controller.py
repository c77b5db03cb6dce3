"""Periodic digital controllers as zero-order holds.

A :class:`PeriodicController` is a function called at ``t0 + offset + k*period``
(integer nanoseconds, see :mod:`simcore.clock`). It reads every signal of every
system at the tick (states as they are just before any update at that instant,
outputs, and held inputs) and returns the inputs it writes; those are held
constant until a controller writes them again. Controllers due at the same instant
run in the order they were given to the simulation, each seeing the inputs written
by those before it.
"""
from __future__ import annotations

from typing import Callable, Mapping

from .clock import to_ns
from .errors import ConfigError, ConfigTypeError

__all__ = ["PeriodicController"]


class PeriodicController:
    """A function run at a fixed rate whose outputs are held between ticks.

    Parameters
    ----------
    period : float or Quantity
        Time between ticks, s (resolved to whole nanoseconds).
    fn : callable ``fn(t, signals) -> mapping or None``
        ``t`` is the tick time in s; ``signals`` maps ``"system.signal"`` to a
        float. Return ``{"system.input": value}`` for the inputs to write (or
        ``None`` to write nothing).
    name : str, optional
        Used in tick logs and error messages; defaults to ``fn``'s name.
    offset : float or Quantity
        Delay of the first tick after the run's start time, s (>= 0).
    on_start : callable ``on_start(t, signals)``, optional
        Called once per run, just before this controller's first tick, with the
        same arguments as ``fn``. Put state resets here (an integrator, a
        profile's start) so that a controller object reused in a second
        simulation starts it as it started the first.

    Examples
    --------
    >>> pc = PeriodicController(0.01, lambda t, s: {"flywheel.voltage": 12.0}, name="open_loop")
    """

    def __init__(self, period, fn: Callable[[float, Mapping[str, float]], Mapping[str, float] | None], *,
                 name: str | None = None, offset=0.0, on_start: Callable | None = None):
        if not callable(fn):
            raise ConfigTypeError("fn", fn, "a callable fn(t, signals) -> {'system.input': value}")
        if on_start is not None and not callable(on_start):
            raise ConfigTypeError("on_start", on_start, "None or a callable on_start(t, signals)")
        self.on_start = on_start
        self.period_ns = to_ns("period", period, positive=True)
        self.offset_ns = to_ns("offset", offset, nonnegative=True)
        self.fn = fn
        if name is None:
            name = getattr(fn, "__name__", None) or type(fn).__name__
            if name == "<lambda>":
                name = "controller"
        if not isinstance(name, str) or not name:
            raise ConfigError("name", name, "a non-empty string")
        self.name = name

    @property
    def period(self) -> float:
        """Period in seconds."""
        return self.period_ns / 1e9

    @property
    def offset(self) -> float:
        """Offset in seconds."""
        return self.offset_ns / 1e9

    def __call__(self, t: float, signals: Mapping[str, float]):
        return self.fn(t, signals)

    def __repr__(self):
        return f"PeriodicController({self.name!r}, period={self.period!r} s, offset={self.offset!r} s)"


def note_controller_error(exc: BaseException, name: str, t: float, where: str) -> None:
    """Mark ``exc``, raised by controller ``name`` at simulation time ``t`` (s), with that time.

    Robot code's own exception type is kept; it learns when it happened (``exc.sim_time``, and
    a note naming the controller; ``where`` says in what: "tick", "in a batch").
    """
    exc.sim_time = t
    if hasattr(exc, "add_note"):
        exc.add_note(f"raised by controller {name!r} at simulation time t={t!r} s ({where})")


def checked_writes(name: str, written) -> Mapping:
    """A controller's return value as the mapping of inputs it writes (``None`` writes nothing)."""
    if type(written) is dict:  # the common case, without isinstance's abstract-class check on every tick
        return written
    if written is None:
        return {}
    if not isinstance(written, Mapping):
        raise ConfigTypeError(f"controller {name!r} return value", written,
                              "a mapping {'system.input': value} or None")
    return written
