"""simcore's SDK calls run without the op mode thread's line counter.

A Java-style op mode's thread counts the lines of robot code it runs between
hand-overs (``max_lines_without_handover``, :mod:`simcore.controllers.hub.linear`)
with ``sys.settrace``. simcore's own frames are not counted, but while a trace
function is set, CPython 3.11 still calls it at every frame that starts and runs
every instruction of every frame on that thread through its tracing path
(unspecialised, with a line check per instruction). An SDK method decorated with
:func:`sdk_method` therefore switches the counter off for its own duration
(``sys.settrace(None)``) and back on before it returns (or raises): the op mode's
frames keep the trace function they were given (``f_trace``), so its lines are
counted exactly as before, and simcore's code runs at full speed.

Robot code never runs with the counter off: the switch is made only when the
call cannot reach robot code, that is when the object and every argument are of
types whose methods are simcore's, the standard library's or C (``int``,
``float``, ``str``, numpy scalars, the SDK's enums, simcore's devices; see
:func:`plain_type`), and no keyword argument is given. Anything else (a robot
code subclass, an object with its own ``__float__`` or ``__str__``, an instance
attribute named as a method of its class, a sample op mode or device, which are
robot code) runs the call traced, as before, so a
loop that never hands over inside such a callback is still caught. Any other
trace function (a debugger's, coverage's) is left alone.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Callable

import numpy as np

__all__ = ["sdk_method", "plain_type", "register_line_counter", "unregister_line_counter"]

_gettrace, _settrace = sys.gettrace, sys.settrace
#: Whether SDK calls switch the line counter off (CPython 3.11, where it was measured; see sdk_method).
_SWITCH_TRACING = sys.version_info < (3, 12)

#: The trace functions of the running op modes' line counters (each set on its own op mode thread).
_LINE_COUNTERS: set = set()

_HUB_DIR = os.path.dirname(__file__)
#: The sample op modes (the ``samples`` package) and devices ship with simcore but are robot code.
_ROBOT_CODE = (os.path.join(_HUB_DIR, "samples", ""), os.path.join(_HUB_DIR, "device_samples.py"))
#: Built-in types whose methods are C and call no other object's: an argument of one runs no robot code.
_SCALARS = frozenset({int, float, bool, complex, str, bytes, type(None)})
#: What a robot code subclass of a simcore class may define and still be called untraced: its own new names,
#: its constructor (not called by SDK methods) and ``runOpMode`` (the robot code itself, never called by them).
_HARMLESS = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__init__",
                       "__annotations__", "__firstlineno__", "__static_attributes__", "runOpMode"})
#: type -> whether calling simcore's code with it (as the object or an argument) cannot run robot code.
_PLAIN: dict = dict.fromkeys(_SCALARS, True)
#: type -> the names its classes define (an instance attribute of one of these names may be robot code).
_CLASS_NAMES: dict = {tp: frozenset(vars(tp)) for tp in _SCALARS}


def register_line_counter(tracer: Callable) -> None:
    """Make ``tracer`` (an op mode's line counter, about to be ``sys.settrace``-d on its thread) known here."""
    _LINE_COUNTERS.add(tracer)


def unregister_line_counter(tracer: Callable) -> None:
    """Forget ``tracer`` (its op mode ended)."""
    _LINE_COUNTERS.discard(tracer)


def _simcore_class(c: type) -> bool:
    """Whether class ``c`` is simcore's own code (the sample op modes and devices are robot code)."""
    name = c.__module__
    if not (name == "simcore" or name.startswith("simcore.")):
        return False
    return not (getattr(sys.modules.get(name), "__file__", None) or "").startswith(_ROBOT_CODE)


def _library_class(c: type) -> bool:
    """Whether class ``c``'s methods run no robot code: object, the C scalars, the standard enum's and abc's
    classes, numpy's scalars."""
    return c is object or c in _SCALARS or c.__module__ in ("enum", "abc") or (
        c.__module__ == "numpy" and issubclass(c, np.generic))


def plain_type(tp: type) -> bool:
    """Whether simcore's code can be handed an object of type ``tp`` untraced: it runs no robot code.

    True for C scalars (int, float, str, ...), numpy scalars, and classes made of simcore's, the standard
    ``enum``'s and ``abc``'s classes, with a plain metaclass; a class of robot code counts when it adds names of
    its own only (it overrides nothing simcore's classes define, and defines no special method). Containers,
    functions and arrays are not plain (they may hold or be robot code). Decided once per type (a class changed
    after its first SDK call keeps that decision). :func:`sdk_method` also traces a call whose object or argument
    holds an instance attribute named as something its class defines (``self.idle = robot_function``).
    """
    plain = _PLAIN.get(tp)
    if plain is None:
        _CLASS_NAMES[tp] = frozenset().union(*(vars(c) for c in tp.__mro__))
        plain = _PLAIN[tp] = _decide(tp)
    return plain


def _decide(tp: type) -> bool:
    if not (type(tp) is type or _simcore_class(type(tp)) or _library_class(type(tp))):
        return False
    robot = [c for c in tp.__mro__ if not (_simcore_class(c) or _library_class(c))]
    if not robot:
        return True
    inherited = set().union(*(vars(c) for c in tp.__mro__ if c not in robot and c is not object))
    # A data descriptor (a property) of robot code may shadow an attribute simcore's methods read.
    return all(name in _HARMLESS or not (name in inherited or name.startswith("__")
                                         or hasattr(type(value), "__set__"))
               for c in robot for name, value in vars(c).items())


def sdk_method(method: Callable) -> Callable:
    """``method`` (an SDK method of a simcore class) run with the op mode thread's line counter off when the call
    cannot reach robot code (see the module docstring). From Python 3.12 on ``sys.settrace`` is built on
    ``sys.monitoring``, whose switching was not measured here: ``method`` is returned as it is."""
    if not _SWITCH_TRACING:
        return method

    plain, names = _PLAIN.get, _CLASS_NAMES.get

    @functools.wraps(method)
    def untraced(self, *args, **kwargs):
        tracer = _gettrace()
        if tracer is None or kwargs or tracer not in _LINE_COUNTERS:
            return method(self, *args, **kwargs)
        # (inlined: a call made here is a frame the line counter sees) each object's type plain, and no instance
        # attribute shadowing a name of its class (``self.idle = robot_function``)
        for a in (self,) + args:
            tp = type(a)
            if not (plain(tp) or plain_type(tp)):
                return method(self, *args)
            own = getattr(a, "__dict__", None)
            if own and not names(tp).isdisjoint(own):
                return method(self, *args)
        _settrace(None)
        try:
            return method(self, *args)
        finally:
            _settrace(tracer)
    return untraced
