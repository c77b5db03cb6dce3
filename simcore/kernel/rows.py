"""The rows a batch's variants buffered in the kernel, gathered into one block of the recorder's, compiled.

Each variant ``v`` of a batch holds its first ``n_rows[v]`` rows in its row buffers (:mod:`simcore.kernel.advance`:
times ``ROWS_T[v, r]``, states ``ROWS_Y[v, r]``, and in ``ROWS_M[v, r]`` the parts' modes and then the kernel's ticks
before the row). :func:`gather_rows` lays them out as one block of rows, variant by variant, each variant's rows in
order: what numpy's boolean indexing of the buffers gives, in one pass and without its index arrays (a batch hands
over its rows some twenty times a run, a few hundred megabytes in all).
"""
from __future__ import annotations

from .jit import jit


@jit
def gather_rows(v0, v1, j0, n_rows, ROWS_T, ROWS_Y, ROWS_M, epoch_of_count, t, X, modes, epochs):
    """Write the rows of variants ``v0 <= v < v1`` into the block from its column ``j0`` on (the rows of the
    variants before ``v0``): for its ``j``-th row (variant ``v``'s row ``r``), ``t[j] = ROWS_T[v, r]``, the state
    into the column ``X[:, j]`` (states, rows), each part's mode into ``modes[:, j]`` (parts, rows), and the row's
    epoch ``epochs[j] = epoch_of_count[ticks before it]``. The outputs have ``n_rows.sum()`` columns, their own
    integer types (values are converted as numpy's assignment converts them). Returns the column after the last
    written. Calls on disjoint ranges of variants may run at once (the GIL released): they write disjoint
    columns."""
    n_parts = modes.shape[0]
    nx = X.shape[0]
    j = j0
    for v in range(v0, v1):
        for r in range(n_rows[v]):
            t[j] = ROWS_T[v, r]
            for i in range(nx):
                X[i, j] = ROWS_Y[v, r, i]
            for k in range(n_parts):
                modes[k, j] = ROWS_M[v, r, k]
            epochs[j] = epoch_of_count[ROWS_M[v, r, n_parts]]
            j += 1
    return j
