"""The dispatch over the built-in parts: a simulation's stacked state, inputs and parameters.

A run made of built-in parts is described by a ``table`` (one row per part: :data:`T_KIND`,
:data:`T_X` the part's first state in the stacked state, :data:`T_NX` its number of states,
:data:`T_U` its first input in the stacked inputs, :data:`T_P` its first parameter), the stacked
parameters ``P``, inputs ``U`` and the parts' integer ``modes``. Parts are composed by an integer
kind, not by functions passed around, so that numba's disk cache serves every process; each part's
functions take the stacked arrays with its offsets (views cost more than the arithmetic here).

Outputs are stacked the same way: ``y_offsets[k]`` is part ``k``'s first output in the stacked outputs
(:func:`output_offsets` lays them out; a geared part has :data:`~simcore.kernel.layout.N_OUTPUTS`, the
first outputs of its Python class). :func:`outputs` fills one row, :func:`outputs_of_rows` many rows,
each with its own parameters, inputs, modes, time and state (variants, or recorded rows).
"""
from __future__ import annotations

import numpy as np

from . import geared
from .jit import jit
from .layout import N_OUTPUTS

KIND_GEARED = 1
T_KIND, T_X, T_NX, T_U, T_P = range(5)


@jit
def derivatives(table, P, U, modes, t, X, out):
    """Write the stacked dX/dt at time ``t`` into ``out``."""
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.derivatives(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], out)


@jit
def guard(table, P, U, part, code, t, X):
    """Guard ``code`` of part ``part`` at (t, X)."""
    return geared.guard(P, table[part, T_P], code, X, table[part, T_X], U, table[part, T_U])


def output_offsets(kinds) -> np.ndarray:
    """Each part's first output in the stacked outputs, for parts of kinds ``kinds`` (in table order), and
    after them their total number: an int64 array of ``len(kinds) + 1``."""
    sizes = {KIND_GEARED: N_OUTPUTS}
    off = np.zeros(len(kinds) + 1, dtype=np.int64)
    for k, kind in enumerate(kinds):
        off[k + 1] = off[k] + sizes[int(kind)]
    return off


@jit
def outputs(table, P, U, modes, t, X, y_offsets, out):
    """Write every part's outputs at time ``t`` and state ``X`` into ``out`` (part ``k``'s from
    ``y_offsets[k]``)."""
    for k in range(table.shape[0]):
        if table[k, T_KIND] == KIND_GEARED:
            geared.outputs(P, table[k, T_P], modes[k], X, table[k, T_X], U, table[k, T_U], t, out, y_offsets[k])


@jit
def outputs_of_rows(table, P, U, modes, T, X, y_offsets, OUT):
    """:func:`outputs` of many rows at once: row ``r`` from its own parameters ``P[r]``, inputs ``U[r]``,
    modes ``modes[r]``, time ``T[r]`` and state ``X[r]``, into ``OUT[r]``. Shapes: ``P (N, n_p)``,
    ``U (N, n_u)``, ``modes (N, n_parts)``, ``T (N,)``, ``X (N, n_x)``, ``OUT (N, n_y)``."""
    for r in range(X.shape[0]):
        outputs(table, P[r], U[r], modes[r], T[r], X[r], y_offsets, OUT[r])


@jit
def outputs_of_variant_rows(table, P, V, U, modes, T, X, y_offsets, OUT):
    """:func:`outputs_of_rows` with the parameters per variant: row ``r`` is variant ``V[r]``'s, whose
    parameters are ``P[V[r]]`` (``P (n_variants, n_p)``; recorded rows need not copy them row by row)."""
    for r in range(X.shape[0]):
        outputs(table, P[V[r]], U[r], modes[r], T[r], X[r], y_offsets, OUT[r])


@jit
def initial_modes(table, P, U, X, out):
    """Every part's mode at the start of many variants at once: variant ``r``'s from ``P[r]``, ``U[r]``,
    ``X[r]`` into ``out[r]`` (``out (N, n_parts)``)."""
    for r in range(X.shape[0]):
        for k in range(table.shape[0]):
            if table[k, T_KIND] == KIND_GEARED:
                out[r, k] = geared.initial_mode(P[r], table[k, T_P], X[r], table[k, T_X], U[r], table[k, T_U])


@jit
def _active_events(kind, p, mode, ids):
    if kind == KIND_GEARED:
        return geared.active_events(p, 0, mode, ids)
    return 0


def active_events_of(kind, p, mode, ids):
    """The kernel ids of the events a part of ``kind`` with parameters ``p`` arms in mode ``mode`` (``ids``:
    scratch of MAX_ACTIVE integers)."""
    return ids[:_active_events(kind, p, mode, ids)].copy()

