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

from collections.abc import Mapping
from types import MappingProxyType
from typing import Sequence

import numpy as np

from .errors import ConfigError

__all__ = ["System", "validate_name"]


def validate_name(parameter: str, name) -> str:
    """Check that a system or signal name is a non-empty string without a dot."""
    if not isinstance(name, str) or not name or "." in name or name.strip() != name:
        raise ConfigError(parameter, name, "a non-empty name without dots or surrounding spaces")
    return name


class System:
    """A continuous-time mechanism with named states, inputs and outputs.

    Subclasses set ``name``, ``state_names``, ``input_names`` and
    ``output_names`` in their constructor (or pass them here) and override
    :meth:`derivatives`, :meth:`outputs` and, when they have them,
    :meth:`events`, :meth:`initial_state`, :meth:`initial_inputs` and
    :meth:`initial_mode`.

    Parameters
    ----------
    name : str
        Prefix of every signal of this system: ``"<name>.<signal>"``.
    state_names, input_names, output_names : sequence of str
        Names of the continuous states, held inputs and outputs.
    units : mapping of str to str, optional
        Unit of each signal (pint-parsable, e.g. ``"rad/s"``); used by
        :meth:`Result.quantity` and on plot axes. Missing entries are
        dimensionless.
    """

    #: Current discrete mode; written by the engine only.
    mode = None

    #: Allowed closed ranges of some inputs, ``{input_name: (low, high)}``; a write
    #: outside its range raises ConfigError (e.g. a negative bus voltage, a brake
    #: flag of 2). Inputs not listed take any finite value.
    input_ranges: Mapping = MappingProxyType({})  # read-only: assign a dict per system, never mutate this

    def __init__(self, name: str, state_names: Sequence[str] = (), input_names: Sequence[str] = (),
                 output_names: Sequence[str] = (), units: dict | None = None):
        self.name = validate_name("name", name)
        self.state_names = tuple(state_names)
        self.input_names = tuple(input_names)
        self.output_names = tuple(output_names)
        self.units = dict(units or {})
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
