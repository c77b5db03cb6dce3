"""The `System`: a mechanism written as a state-derivative function.

A system declares, at construction, its named continuous states, its named inputs
(values held by controllers, zero-order), and its named outputs (algebraic
functions of time, state and input: currents, voltages, encoder counts...). The
engine calls :meth:`System.derivatives` and :meth:`System.outputs` with plain
1-D float arrays ordered as :attr:`state_names` and :attr:`input_names`; no pint
is involved there.

Discrete modes (free / resting on the lower stop / stuck by static friction ...)
live in :attr:`System.mode`. The engine owns it: it sets it from
:meth:`System.initial_mode` when a run starts and changes it only through a
:class:`~simcore.events.StateEvent`'s ``mode``. ``derivatives``, ``outputs`` and
``events`` read it. Because the engine writes it, one system object must not be
simulated by two simulations at the same time.
"""
from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping
from types import MappingProxyType
from typing import Sequence

import numpy as np

from .errors import ConfigError, ConfigTypeError

__all__ = ["System", "validate_name", "names_of", "check_system", "derivatives_on_floats", "float_derivatives"]


def validate_name(parameter: str, name) -> str:
    """Check that a system or signal name is a non-empty string without a dot."""
    if not isinstance(name, str) or not name or "." in name or name.strip() != name:
        raise ConfigError(parameter, name, "a non-empty name without dots or surrounding spaces")
    return name


def names_of(parameter: str, names) -> tuple:
    """A sequence of signal names as a tuple; one string is refused (``"xy"`` is not ``("x", "y")``)."""
    if isinstance(names, (str, bytes)):
        raise ConfigTypeError(parameter, names, "a sequence of names such as ('x', 'v'), not one string")
    try:
        return tuple(names)
    except TypeError:
        raise ConfigTypeError(parameter, names, "a sequence of names such as ('x', 'v')") from None


def derivatives_on_floats(method):
    """Mark a system's ``derivatives`` as the array form of its ``derivatives_of_floats``.

    A system may give its derivatives a second form, ``derivatives_of_floats(t, x, u) -> list``,
    taking the state and the inputs as lists of Python floats (which it must not modify): for a
    mechanism of a few states, arithmetic on Python floats costs a fraction of the same
    arithmetic on numpy scalars and arrays. Its ``derivatives`` then returns the same values as
    an array, decorated with this: the engine calls the float form only when the system's
    ``derivatives`` is so marked, so a subclass or an instance that overrides ``derivatives``
    alone keeps its own. The engine uses it on a simulation of one system without couplings
    (no battery) stepped by ``RK45`` (or ``"auto"``'s RK45) with at most
    :data:`simcore.dopri5.SMALL` states; where the float form raises or returns anything but a
    list of finite floats, that evaluation is made again by ``derivatives`` (numpy's semantics:
    a division by zero gives inf, reported as a NonFiniteError naming the signal).
    """
    method.wraps_floats = True
    return method


def float_derivatives(system):
    """``system.derivatives_of_floats`` when ``system.derivatives`` is its array form
    (:func:`derivatives_on_floats`), else None."""
    if not getattr(getattr(system, "derivatives", None), "wraps_floats", False):  # the instance's own, if any
        return None
    return getattr(system, "derivatives_of_floats", None)


def check_system(system) -> None:
    """Check what the engine needs of a system, naming the system and the member at fault.

    Accepts the declarations made as class attributes or in a subclass's own
    ``__init__`` (with or without ``super().__init__()``): the names become tuples
    and ``units`` a dict on the instance.
    """
    cls = type(system).__name__
    name = getattr(system, "name", None)
    if name is None:
        raise ConfigError(f"{cls}.name", name, "a system name (a class attribute or set in __init__)")
    validate_name(f"{cls}.name", name)
    for group in ("state_names", "input_names", "output_names"):
        names = getattr(system, group, ())
        if type(names) is not tuple:
            setattr(system, group, names_of(f"{name}.{group}", names))
    units = getattr(system, "units", None)
    if not isinstance(units, Mapping):
        raise ConfigTypeError(f"{name}.units", units, "a mapping {signal_name: unit}")
    if type(units) is not dict:
        system.units = dict(units)
    ranges = getattr(system, "input_ranges", None)
    if not isinstance(ranges, Mapping):
        raise ConfigTypeError(f"{name}.input_ranges", ranges, "a mapping {input_name: (low, high)}")
    System._check_signal_names(system)
    _check_declared_units(system)
    _check_input_ranges(system)
    for method in ("derivatives", "outputs", "events", "initial_state", "initial_inputs", "initial_mode",
                   "couplings"):
        if not callable(getattr(system, method, None)):
            raise ConfigTypeError(f"{name}.{method}", getattr(system, method, None), "a method")


def _check_declared_units(system) -> None:
    """Every declared unit one pint can parse. (A key that is not a signal of the system is
    allowed: the models declare the units of every configuration at once, such as a
    mechanism's ``voltage`` input under ``command="duty"``, which then has none.)"""
    for key, unit in system.units.items():
        if not isinstance(unit, str) or not _parses(unit):
            raise ConfigError(f"{system.name}.units[{key!r}]", unit, "a unit pint can parse, such as 'rad/s'")


@functools.lru_cache(maxsize=512)
def _parses(unit: str) -> bool:
    from .units import ureg  # pint is loaded with simcore anyway; imported here to keep this module light

    try:
        ureg.parse_units(unit)
    except Exception:  # pint's UndefinedUnitError, or a syntax error of its parser
        return False
    return True


def _check_input_ranges(system) -> None:
    """Every ``input_ranges`` key an input of the system, every range ``(low, high)`` of real
    numbers with ``low <= high`` (an infinite end is an open side)."""
    name = system.name
    for key, rng in system.input_ranges.items():
        if key not in system.input_names:
            raise ConfigError(f"{name}.input_ranges", key,
                              "an input of the system, one of " + ", ".join(system.input_names))
        parameter = f"{name}.input_ranges[{key!r}]"
        try:
            low, high = rng
        except (TypeError, ValueError):
            raise ConfigTypeError(parameter, rng, "a pair (low, high) of numbers") from None
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (low, high)):
            raise ConfigTypeError(parameter, rng, "a pair (low, high) of numbers")
        if not low <= high:  # also refuses NaN
            raise ConfigError(parameter, rng, "a range (low, high) with low <= high")


class System:
    """A continuous-time mechanism with named states, inputs and outputs.

    Subclasses declare ``name``, ``state_names``, ``input_names`` and
    ``output_names`` (and ``units``) in any of three ways: as class attributes
    (no ``__init__`` needed), as instance attributes set in their own
    ``__init__`` (calling ``super().__init__()`` is optional), or as arguments to
    this constructor. They override :meth:`derivatives`, :meth:`outputs` and,
    when they have them, :meth:`events`, :meth:`initial_state`,
    :meth:`initial_inputs` and :meth:`initial_mode`. The declarations are checked
    when a simulation is built (:func:`check_system`). A small system may also give
    its derivatives on lists of Python floats (``derivatives_of_floats``, with
    :meth:`derivatives` its array form marked by :func:`derivatives_on_floats`; it
    must not modify the lists), which the engine then calls: several times cheaper
    than numpy on a few states.

    Parameters
    ----------
    name : str, optional
        Prefix of every signal of this system: ``"<name>.<signal>"``; default: the
        class's ``name`` attribute.
    state_names, input_names, output_names : sequence of str, optional
        Names of the continuous states, held inputs and outputs; default: the
        class's attributes of those names (none).
    units : mapping of str to str, optional
        Unit of each signal (pint-parsable, e.g. ``"rad/s"``); used by
        :meth:`Result.quantity`, on plot axes and to convert Quantities written to
        inputs. Missing entries are dimensionless.
    """

    #: Current discrete mode; written by the engine only.
    mode = None

    #: The system's name (declare it here, or pass it to the constructor).
    name: str | None = None
    #: Names of the continuous states, held inputs and outputs.
    state_names: Sequence[str] = ()
    input_names: Sequence[str] = ()
    output_names: Sequence[str] = ()
    #: Unit of each signal, ``{signal_name: unit}``.
    units: Mapping = MappingProxyType({})

    #: Allowed closed ranges of some inputs, ``{input_name: (low, high)}``; a write
    #: outside its range raises ConfigError (e.g. a negative bus voltage, a brake
    #: flag of 2). Inputs not listed take any finite value.
    input_ranges: Mapping = MappingProxyType({})  # read-only: assign a dict per system, never mutate this

    def __init__(self, name: str | None = None, state_names: Sequence[str] | None = None,
                 input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None,
                 units: dict | None = None):
        if name is None:
            name = getattr(self, "name", None)
            if name is None:
                raise ConfigError("name", name, f"a system name: pass name= or set {type(self).__name__}.name")
        self.name = validate_name("name", name)
        self.state_names = names_of("state_names", getattr(self, "state_names") if state_names is None
                                    else state_names)
        self.input_names = names_of("input_names", getattr(self, "input_names") if input_names is None
                                    else input_names)
        self.output_names = names_of("output_names", getattr(self, "output_names") if output_names is None
                                     else output_names)
        self.units = dict(getattr(self, "units") if units is None else units)
        self._check_signal_names()

    def _check_signal_names(self) -> None:
        seen = set()
        for group in ("state_names", "input_names", "output_names"):
            for s in getattr(self, group):
                validate_name(group, s)
                if s in seen:
                    raise ConfigError(group, s, f"a signal name not already used by system {self.name!r}")
                seen.add(s)

    # -- declared behaviour ------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        """State at the start of a run, ordered as :attr:`state_names` (SI units)."""
        return np.zeros(len(self.state_names))

    def initial_inputs(self) -> np.ndarray:
        """Held input values before any controller writes, ordered as :attr:`input_names`."""
        return np.zeros(len(self.input_names))

    def initial_mode(self, t: float, x: np.ndarray, u: np.ndarray):
        """Discrete mode at the start of a run, given the initial state and inputs.

        Called once, after the controllers due at ``t0`` have run.
        """
        return None

    def derivatives(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Time derivative of the state, ordered as :attr:`state_names`."""
        raise NotImplementedError(f"{type(self).__name__}.derivatives")

    def outputs(self, t: float, x: np.ndarray, u: np.ndarray) -> Sequence[float]:
        """Output values, ordered as :attr:`output_names`."""
        return ()

    def events(self) -> list:
        """State events active in the current :attr:`mode` (a list of StateEvent)."""
        return []

    def couplings(self, systems: Sequence["System"]) -> list:
        """Algebraic couplings this system imposes on the others of a simulation.

        Returns a list of :class:`~simcore.coupling.Coupling`; the default has none.
        A battery uses this to feed one bus voltage, solved without lag, to every
        motor that draws from it.
        """
        return []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
