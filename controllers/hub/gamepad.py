"""Gamepads scripted as functions of simulation time.

The op mode reads ``gamepad1`` / ``gamepad2`` with the SDK's field names
(``left_stick_x``, ``left_stick_y``, ``right_stick_x``, ``right_stick_y``,
``left_trigger``, ``right_trigger``, ``a``, ``b``, ``x``, ``y``, ``dpad_up``, ...,
``left_bumper``, ``right_bumper``, ...; the PlayStation names ``cross``,
``circle``, ``square``, ``triangle``, ``share``, ``options`` read the same
buttons). A script is a function ``f(t) -> {field: value}`` of the simulation
time (s); the fields it leaves out are at rest (sticks and triggers 0, buttons
released). As on a robot, pushing a stick forward gives a *negative*
``left_stick_y``.

The gamepad is refreshed each time the op mode resumes (its tick): the SDK
copies each new Driver Station packet in as it arrives, but the op mode only
sees the values when it runs.
"""
from __future__ import annotations

import math
import numbers
from typing import Callable, Mapping, Optional

from simcore.errors import ConfigError, ConfigTypeError

__all__ = ["Gamepad", "STICKS", "TRIGGERS", "BUTTONS"]

#: Stick axes, in [-1, 1].
STICKS = ("left_stick_x", "left_stick_y", "right_stick_x", "right_stick_y")
#: Triggers, in [0, 1].
TRIGGERS = ("left_trigger", "right_trigger")
#: Buttons, True while pressed.
BUTTONS = ("a", "b", "x", "y", "dpad_up", "dpad_down", "dpad_left", "dpad_right", "left_bumper", "right_bumper",
           "left_stick_button", "right_stick_button", "guide", "start", "back", "touchpad")
#: PlayStation names of the same buttons.
ALIASES = {"cross": "a", "circle": "b", "square": "x", "triangle": "y", "share": "back", "options": "start",
           "ps": "guide"}
#: Every field at rest: sticks and triggers at 0, buttons released.
_AT_REST = {**dict.fromkeys(STICKS + TRIGGERS, 0.0), **dict.fromkeys(BUTTONS, False)}


class Gamepad:
    """A gamepad whose state a script sets (see the module docstring).

    Parameters
    ----------
    script : callable ``f(t) -> mapping``, optional
        The gamepad's state at simulation time ``t`` (s). None: at rest throughout.
    name : str
        ``"gamepad1"`` or ``"gamepad2"``, for error messages.
    """

    def __init__(self, script: Optional[Callable[[float], Mapping]] = None, name: str = "gamepad1"):
        if script is not None and not callable(script):
            raise ConfigTypeError(name, script, "None or a function f(t) -> {field: value} (a scripted gamepad)")
        self._script = script
        self._name = name
        self._rest()

    def _rest(self) -> None:
        self.__dict__.update(_AT_REST)  # one call: this runs at every tick of an op mode

    def refresh(self, t: float) -> None:
        """Set the state the script gives for time ``t`` (s)."""
        self._rest()
        if self._script is None:
            return
        state = self._script(t)
        if not isinstance(state, Mapping):
            raise ConfigTypeError(f"{self._name}({t!r})", state, "a mapping {field: value}")
        for field, value in state.items():
            field = ALIASES.get(field, field)
            where = f"{self._name}({t!r})[{field!r}]"
            if field in BUTTONS:
                if not isinstance(value, bool):
                    raise ConfigTypeError(where, value, "True or False (a button)")
                setattr(self, field, value)
            elif field in STICKS or field in TRIGGERS:
                low = -1.0 if field in STICKS else 0.0
                if isinstance(value, bool) or not isinstance(value, numbers.Real):
                    raise ConfigTypeError(where, value, f"a number in [{low:g}, 1]")
                if not (math.isfinite(value) and low <= value <= 1.0):
                    raise ConfigError(where, value, f"a number in [{low:g}, 1]")
                setattr(self, field, float(value))
            else:
                raise ConfigError(f"{self._name} field", field,
                                  "one of " + ", ".join(STICKS + TRIGGERS + BUTTONS + tuple(ALIASES)))

    # the PlayStation names
    cross = property(lambda self: self.a)
    circle = property(lambda self: self.b)
    square = property(lambda self: self.x)
    triangle = property(lambda self: self.y)
    share = property(lambda self: self.back)
    options = property(lambda self: self.start)
    ps = property(lambda self: self.guide)

    def atRest(self) -> bool:
        """True when every stick and trigger is at 0 (the SDK's ``atRest``)."""
        return all(getattr(self, f) == 0.0 for f in STICKS + TRIGGERS)

    def __repr__(self):
        pressed = [f for f in BUTTONS if getattr(self, f)]
        moved = {f: getattr(self, f) for f in STICKS + TRIGGERS if getattr(self, f)}
        return f"Gamepad({self._name}: {moved or 'sticks at rest'}, pressed={pressed})"
