"""numpy's own C entry points (and the float64 dtype) for calls the batch kernel, the checks and the
PID's array path make many times on small arrays.

``np.count_nonzero``, ``np.einsum`` and ``np.clip`` are Python wrappers around these (numpy >= 2); at a few
elements the wrapper costs more than the work. The results are the same calls' results. numpy 1.x
keeps the wrappers (the same functions, a little slower).

A port of the batch kernel to another array module replaces these with that module's own
``count_nonzero`` and its stage sums (see :func:`simcore.batch_rk.stage_sum`).
"""
from __future__ import annotations

import numpy as np

try:
    from numpy._core._multiarray_umath import c_einsum
    from numpy._core._multiarray_umath import count_nonzero
    from numpy._core.umath import clip
except ImportError:  # pragma: no cover - numpy 1.x
    from numpy.core.umath import clip
    c_einsum, count_nonzero = np.einsum, np.count_nonzero

#: The native float64 dtype: numpy gives every such array this one object, so a dtype test can be an
#: identity test before the slower ``==``.
FLOAT64 = np.dtype(np.float64)

__all__ = ["c_einsum", "clip", "count_nonzero", "FLOAT64"]
