"""The op mode's ``telemetry``, recorded with simulation times.

The SDK's ``Telemetry`` calls robot code makes: ``addData(caption, value)``,
``addData(caption, format, *args)`` (Java's ``String.format``, here Python's
``%`` formatting, which reads the same for ``%d``, ``%7d``, ``%.2f``, ``%s``),
``addLine``, ``update``, ``clear``, ``setAutoClear``. Every ``update()`` is
recorded as a :class:`TelemetryFrame` at the simulation time of the op mode's
current tick (the Driver Station's 250 ms transmission throttle is not
modelled: every update is kept). :meth:`Telemetry.series` gives one caption's
values over the run. A run's :class:`~simcore.result.Result` carries them too:
``result.records[<op mode controller name>]`` is a :class:`TelemetryLog` of the
frames recorded up to then (see :func:`~simcore.controllers.hub.run_opmode`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore.errors import ConfigError, ConfigTypeError

from .timing import robot_clock
from .untraced import sdk_method

__all__ = ["Telemetry", "TelemetryFrame", "TelemetryLog"]


class TelemetryFrame(NamedTuple):
    """One ``telemetry.update()``: when, the lines as the Driver Station shows them, and the values given."""

    t: float  #: simulation time, s
    lines: tuple  #: ``"caption : value"`` strings (and bare lines), in order
    values: dict  #: caption -> the value passed (the argument tuple for a format string)


def _java_text(value) -> str:
    """How Java's ``String.valueOf`` prints a value (``true``, not ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class TelemetryLog:
    """The frames of an op mode's telemetry, in order (what a run's Result keeps of it).

    Parameters
    ----------
    frames : sequence of TelemetryFrame
    """

    def __init__(self, frames=()):
        self.frames = list(frames)

    def series(self, caption: str):
        """``(t, values)``: the times (s, an array) of the frames carrying ``caption`` and its values there (a list)."""
        rows = [(f.t, f.values[caption]) for f in self.frames if caption in f.values]
        if not rows:
            captions = sorted({c for f in self.frames for c in f.values})
            raise KeyError(f"no telemetry caption {caption!r}; captions: {', '.join(captions) or 'none'}")
        return np.array([r[0] for r in rows], dtype=float), [r[1] for r in rows]

    def __repr__(self):
        return f"<TelemetryLog {len(self.frames)} frames>"


class Telemetry(TelemetryLog):
    """Telemetry for one op mode run (see the module docstring)."""

    CAPTION_VALUE_SEPARATOR = " : "

    def __init__(self):
        self._items: list = []  # (caption or None, text, value)
        self._auto_clear = True
        self._ms_transmission_interval = 250
        super().__init__()

    def addData(self, caption, value, *args):
        """Add ``caption : value``; with more arguments, ``value`` is a format string for them."""
        if not isinstance(caption, str):
            raise ConfigTypeError("caption", caption, "a string")
        if args:
            if not isinstance(value, str):
                raise ConfigTypeError("format", value, "a format string when arguments follow it")
            try:
                text = value % args
            except (TypeError, ValueError) as exc:
                raise ConfigError("format", value, f"a format for the arguments {args!r} ({exc})") from None
            raw = args if len(args) > 1 else args[0]
        else:
            text, raw = _java_text(value), value
        self._items.append((caption, text, raw))

    def addLine(self, line_caption: str = "") -> None:
        """Add a line of text."""
        if not isinstance(line_caption, str):
            raise ConfigTypeError("lineCaption", line_caption, "a string")
        self._items.append((None, line_caption, None))

    def update(self) -> bool:
        """Record what was added (one frame at the current simulation time); clear it if auto-clear is on."""
        clock = robot_clock()
        t = clock.now if clock is not None else float("nan")
        lines = tuple(text if caption is None else f"{caption}{self.CAPTION_VALUE_SEPARATOR}{text}"
                      for caption, text, _ in self._items)
        values = {caption: raw for caption, _, raw in self._items if caption is not None}
        self.frames.append(TelemetryFrame(t, lines, values))
        if self._auto_clear:
            self._items.clear()
        return True

    def clear(self) -> None:
        """Remove what was added since the last update."""
        self._items.clear()

    def clearAll(self) -> None:
        """Remove everything that was added."""
        self._items.clear()

    def setAutoClear(self, auto_clear: bool) -> None:
        """Whether ``update()`` clears the items (default True)."""
        if not isinstance(auto_clear, bool):
            raise ConfigTypeError("autoClear", auto_clear, "True or False")
        self._auto_clear = auto_clear

    def isAutoClear(self) -> bool:
        """Whether ``update()`` clears the items."""
        return self._auto_clear

    def getMsTransmissionInterval(self) -> int:
        """The Driver Station interval, ms (stored only: every update is recorded)."""
        return self._ms_transmission_interval

    def setMsTransmissionInterval(self, ms: int) -> None:
        """Store the Driver Station interval, ms."""
        self._ms_transmission_interval = ms

    def __repr__(self):
        return f"<Telemetry {len(self.frames)} frames>"


#: Telemetry's SDK methods run with the op mode's line counter off (simcore's code: :mod:`.untraced`).
for _name in [n for n in vars(Telemetry) if n[:1].islower() and callable(vars(Telemetry)[n])]:
    setattr(Telemetry, _name, sdk_method(vars(Telemetry)[_name]))
del _name
