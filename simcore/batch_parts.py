"""The built-in parts of a batch for its ``N`` variants: each variant's kernel parameters, and what the
ticks and the recorder evaluate with them.

A :class:`PartVariants` stands for one model object (a :class:`~simcore.models.GearedMechanism`: a
Flywheel, Arm, Elevator or HubMotor) in :func:`simcore.simulate_batch`. Its variants' parameters come
from the model's own derivation (:meth:`~simcore.models.GearedMechanism.kernel_parameters`, which the
constructor uses too), and everything evaluated on them comes from the compiled kernel's functions
that a serial run uses: the initial modes, the outputs (currents, voltages, torques) at the rows the
recorder keeps and at the ticks the controllers read. The states, inputs and modes it is given are
arrays with a variant axis last (``x`` (n_states, m), ``u`` (n_inputs, m), ``mode`` (m,)), for ``m`` of
the variants (:meth:`take` selects them).

numba is imported here: this module is imported only when a batch runs.
"""
from __future__ import annotations

import numpy as np

from .errors import ConfigError
from .kernel import layout as kl
from .kernel import parts as kp

__all__ = ["PartVariants", "EventKind"]


class EventKind:
    """One event of a part, as the batch names it: ``name``, the modes it is armed in (``active``, a bool per
    mode code), whether its guard reads the held inputs (``reads_inputs``: then a tick's writes can
    trigger it), and its kernel id."""

    __slots__ = ("name", "active", "reads_inputs", "kernel_id")

    def __init__(self, name, active, reads_inputs, kernel_id):
        self.name, self.active, self.reads_inputs, self.kernel_id = name, active, reads_inputs, kernel_id


class PartVariants:
    """A built-in part for ``n`` variants (see the module docstring).

    Parameters
    ----------
    model : GearedMechanism
        The model object: names, units, input ranges, start values, its parameters not varied.
    form : tuple
        Its ``kernel_form()``.
    params : mapping
        The batch's parameters of this part (name -> ``n`` values), as ``kernel_parameters`` takes them.
    n : int
        Number of variants.
    """

    def __init__(self, model, form, params, n):
        self.model, self.n = model, n
        self.kind, _, self.MODES = form
        self.name = model.name
        self.state_names, self.input_names = model.state_names, model.input_names
        self.output_names, self.units, self.input_ranges = model.output_names, model.units, model.input_ranges
        self.P = np.ascontiguousarray(model.kernel_parameters(params or None, n))
        self.min_position, self.max_position = model.min_position, model.max_position
        ids = np.empty(kl.MAX_ACTIVE, dtype=np.int64)
        armed = {}
        for code in range(len(self.MODES)):
            for i in kp.active_events_of(self.kind, self.P[0], code, ids):
                armed.setdefault(int(i), set()).add(code)
        self.events = tuple(
            EventKind(model.kernel_events[i].name, np.array([c in armed.get(i, ()) for c in range(len(self.MODES))]),
                      model.kernel_events[i].kernel_guard in kl.GUARDS_READING_INPUTS, i)
            for i in sorted(model.kernel_events))
        self._table = np.array([[self.kind, 0, len(self.state_names), 0, 0]], dtype=np.int64)
        self._y_offsets = kp.output_offsets([self.kind])

    def take(self, idx) -> "PartVariants":
        """The same part for the variants ``idx`` (indices into this one's)."""
        new = object.__new__(PartVariants)
        new.__dict__.update(self.__dict__)
        new.P = np.ascontiguousarray(self.P.take(idx, axis=0))
        new.n = len(idx)
        return new

    def couplings(self, systems) -> list:
        return []

    # -- start -----------------------------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        return np.repeat(np.asarray(self.model.initial_state(), dtype=float)[:, None], self.n, axis=1)

    def initial_inputs(self) -> list:
        return [np.full(self.n, float(v)) for v in self.model.initial_inputs()]

    def initial_mode(self, t, x, u) -> np.ndarray:
        """Each variant's mode code at the start, as its own model's ``initial_mode`` (which refuses a start
        outside the stops or moving into one, naming the variant here)."""
        q, v = x[0], x[1]
        bad = (q < self.min_position) | (q > self.max_position)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ConfigError(f"{self.name} position (variant {j})", float(q[j]),
                              f"a value within the stops [{self.min_position}, {self.max_position}]")
        into = ((q <= self.min_position) & (v < 0)) | ((q >= self.max_position) & (v > 0))
        if into.any():
            j = int(np.flatnonzero(into)[0])
            upper = bool(q[j] >= self.max_position)
            units = self.units
            raise ConfigError(f"{self.name} velocity (variant {j})", float(v[j]),
                              f"no velocity into the hard stop it starts on (velocity {float(v[j])!r} "
                              f"{units['velocity']} at the {'upper' if upper else 'lower'} stop "
                              f"{self.max_position if upper else self.min_position!r} {units[self.state_names[0]]})")
        out = np.empty((self.n, 1), dtype=np.int64)
        kp.initial_modes(self._table, self.P, np.ascontiguousarray(u.T), np.ascontiguousarray(x.T), out)
        return out[:, 0].astype(np.int8)

    # -- outputs -----------------------------------------------------------------------------------------------
    def outputs(self, t, x, u, mode) -> np.ndarray:
        """Every output of each variant at ``(t, x, u, mode)``, (n_outputs, m) (the kernel's outputs, as the
        model's ``outputs`` gives them)."""
        m = x.shape[1]
        out = np.empty((m, self._y_offsets[-1]))
        kp.outputs_of_rows(self._table, self.P, np.ascontiguousarray(u.T, dtype=float),
                           np.ascontiguousarray(np.asarray(mode, dtype=np.int64)[:, None]),
                           np.ascontiguousarray(np.broadcast_to(t, (m,)), dtype=float),
                           np.ascontiguousarray(x.T, dtype=float), self._y_offsets, out)
        return out.T
