"""State events: guard functions located by root finding, with half-open semantics.

An event fires when its guard ``g(t, x, u)`` changes sign in the event's direction
inside an integration interval ``(t_a, t_b]``:

* ``direction=+1``: from ``g < 0`` to ``g >= 0`` (rising);
* ``direction=-1``: from ``g > 0`` to ``g <= 0`` (falling);
* ``direction=0``: either.

A guard that is exactly zero at the start of an interval does not fire (the interval
is half-open). After an event fires, its guard sits at its root, +-round-off; the
engine looks where it is heading a moment later (a short probe of the motion): back
to the side it came from (a bounce) and its next crossing is sought from that moment
on, so it is caught however soon; on through, as it came (an event that only counts
or switches modes, or whose reset leaves the guard's rate alone) and it does not
fire again; on through although its reset changed the guard's rate (a stop whose
reset does not hold the body), or after the same event fired within 1e-12 s, and it
fires again at once. Events that keep coming within
1e-12 s (relative) of each other, more than ``MAX_EVENTS_AT_ONE_INSTANT`` in a row,
stop the run with an IntegrationError (Zeno); hold a body on a stop with a mode, not a
reset. Several events located at one instant (in one system or several) all fire, in
order, each re-checked on the state the earlier ones left.
The instant is found by Brent's method on the solver's dense output to
:data:`EVENT_TIME_TOLERANCE`.

Inputs are held constant between controller ticks, so a guard that depends on an
input can also change sign *at* a tick, when a controller writes: the engine
compares each guard just before and just after the tick and fires the event at the
tick instant. This is how a block resting on a stop is released exactly at the tick
where the push reverses.

When an event fires the engine records the state before, applies ``reset`` (a new
state), switches the system's mode to ``mode`` when one is given, records the state
after, and continues from the event time; a ``terminal`` event ends the run there.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["StateEvent", "EventRecord", "KEEP_MODE", "EVENT_TIME_TOLERANCE", "on_floats"]

#: Absolute tolerance, s, to which event instants are located on the dense output.
EVENT_TIME_TOLERANCE = 1e-13


class _KeepMode:
    def __repr__(self):
        return "KEEP_MODE"


#: Sentinel for "this event does not change the mode".
KEEP_MODE = _KeepMode()


def on_floats(guard: Callable) -> Callable:
    """Mark a guard function as one that also takes ``x`` and ``u`` as lists of Python floats.

    For a guard that only indexes the state and the inputs and does scalar arithmetic
    (``lambda t, x, u: x[0] - stop``), and never modifies them. On a small system whose active
    guards are all marked (and no battery couples it), the engine samples them on lists at
    each step's interior points, a fraction of the cost of the array calls; a marked guard
    that fails on lists is evaluated on arrays from then on. Returns ``guard`` itself.
    """
    from .errors import ConfigTypeError

    if not callable(guard):
        raise ConfigTypeError("guard", guard, "a callable guard(t, x, u) -> float")
    try:
        guard.takes_floats = True
    except AttributeError:  # a bound method or a builtin: wrap it in a function or lambda to mark it
        raise ConfigTypeError("guard", guard, "a function or lambda (on_floats marks it with an attribute)") from None
    return guard


class StateEvent:
    """A zero crossing of a guard function, with an optional reset and mode switch.

    Parameters
    ----------
    guard : callable ``guard(t, x, u) -> float``
        ``x`` and ``u`` are the owning system's state and input arrays.
    direction : {-1, 0, +1}
        Which sign change fires the event (see module docstring).
    reset : callable ``reset(t, x, u) -> new x``, optional
        The state after the event; the default keeps the state.
    terminal : bool
        End the simulation at this event.
    name : str, optional
        Recorded in the event log; defaults to the guard's ``__name__``.
    mode : object or callable ``mode(t, x, u) -> new mode``, optional
        The system's discrete mode after the event (evaluated on the reset
        state); the default keeps the current mode.
    """

    __slots__ = ("guard", "direction", "reset", "terminal", "name", "mode", "kernel_guard")

    def __init__(self, guard: Callable, *, direction: int = 0, reset: Callable | None = None,
                 terminal: bool = False, name: str | None = None, mode=KEEP_MODE):
        from .errors import ConfigError, ConfigTypeError, check_bool

        if not callable(guard):
            raise ConfigTypeError("guard", guard, "a callable guard(t, x, u) -> float")
        if isinstance(direction, bool) or direction not in (-1, 0, 1):
            raise ConfigError("direction", direction, "-1, 0 or +1")
        if reset is not None and not callable(reset):
            raise ConfigTypeError("reset", reset, "None or a callable reset(t, x, u) -> new state")
        self.guard = guard
        self.direction = int(direction)
        self.reset = reset
        self.terminal = check_bool("terminal", terminal)  # bool("no") would be True
        if name is not None and not (isinstance(name, str) and name):
            raise ConfigTypeError("name", name, "None or a non-empty string (the event's name in results)")
        self.name = name if name is not None else getattr(guard, "__name__", "event")
        self.mode = mode
        #: A built-in part's guard code in the compiled kernel (its ``GUARD_*``), or None.
        self.kernel_guard = None

    def crosses(self, g_a: float, g_b: float) -> bool:
        """Whether a guard going from ``g_a`` to ``g_b`` fires this event (half-open at ``g_a``)."""
        if g_a < 0.0 and g_b >= 0.0:
            return self.direction >= 0
        if g_a > 0.0 and g_b <= 0.0:
            return self.direction <= 0
        return False

    def __repr__(self):
        return f"StateEvent({self.name!r}, direction={self.direction})"


class EventRecord:
    """One fired event, as kept in :attr:`Result.events`.

    Attributes
    ----------
    t : float
        Event instant, s.
    name : str
        Event name.
    system : str
        Name of the system that owns the event.
    x_before, x_after : numpy.ndarray
        That system's state just before and just after the reset.
    mode_before, mode_after : object
        That system's mode before and after.
    at_tick : bool
        True when the guard changed sign at a controller tick (an input jump)
        rather than inside an integration interval.
    """

    __slots__ = ("t", "name", "system", "x_before", "x_after", "mode_before", "mode_after", "at_tick")

    def __init__(self, t, name, system, x_before, x_after, mode_before, mode_after, at_tick=False):
        self.t = t
        self.name = name
        self.system = system
        self.x_before = x_before
        self.x_after = x_after
        self.mode_before = mode_before
        self.mode_after = mode_after
        self.at_tick = at_tick

    def __repr__(self):
        return (f"EventRecord(t={self.t!r}, name={self.name!r}, system={self.system!r}, "
                f"mode {self.mode_before!r} -> {self.mode_after!r})")
