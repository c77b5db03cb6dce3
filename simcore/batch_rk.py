"""Dormand-Prince 5(4) for many variants at once, each with its own step size, as scipy's RK45.

Every function here works on columns: a state is an ``(n_states, m)`` array, one column per
variant, and times, step sizes and error norms are ``(m,)`` arrays. Each variant's step
control is scipy's ``RK45`` (``scipy/integrate/_ivp/rk.py``, scipy 1.10-1.17) applied to its
own column: the same tableau (``RK45.A, B, C, E, P`` are read from scipy), the RMS error
norm over that variant's states, the step factor ``0.9 * err**(-1/5)`` bounded to
``[0.2, 10]`` (and to at most 1 right after a rejection), the clamp of the first attempt to
``[10 ulp(t), max_step]``, landing exactly on the interval's end, and scipy's
``select_initial_step`` for the very first step. A column therefore takes the steps a scalar
``RK45`` would take on that variant alone (to round-off in the stage sums, which numpy adds
in its own order).

Array namespace: every operation is one numpy shares with the array API standard (``where``,
``maximum``, ``sqrt``, ``sum``, ``nextafter``, ``abs``, ``stack``); ``xp`` selects the module.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import RK45

__all__ = ["A", "B", "C", "E", "P", "attempt", "dense", "dense_q", "initial_step", "SAFETY", "MIN_FACTOR", "MAX_FACTOR"]

A, B, C, E, P = RK45.A, RK45.B, RK45.C, RK45.E, RK45.P
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
_ERROR_EXPONENT = -1.0 / (RK45.error_estimator_order + 1)
_N_STAGES = RK45.n_stages
_EINSUM_COLUMNS = 256  # up to this many columns the stage sums are one einsum call each


def _rms(z, xp):
    """RMS over the states of each column (scipy's ``norm``), shape (m,)."""
    n = z.shape[0]
    return xp.sqrt(xp.sum(z * z, axis=0)) / n ** 0.5


def attempt(rhs, t, y, f, h_abs, t_end, rejected, *, rtol, atol, xp=np):
    """One step attempt of every column, scipy's ``RK45._step_impl`` loop body.

    Parameters
    ----------
    rhs : callable ``rhs(t, y) -> (n, m)``
    t, h_abs : (m,) arrays
        Current times and step sizes (already clamped for a fresh step).
    y, f : (n, m) arrays
        States and derivatives at ``t``.
    t_end : float
        End of the interval (the step is cut to land on it).
    rejected : (m,) bool array
        Whether this step call already rejected an attempt (caps the growth factor at 1).

    Returns
    -------
    accepted : (m,) bool
    t_new, y_new, f_new, K : the attempt (K the stages, (7, n, m))
    h_abs_next : (m,) the step size to propose (accepted) or retry with (rejected)
    """
    t_new = t + h_abs
    t_new = xp.where(t_new - t_end > 0, t_end, t_new)
    h = t_new - t
    h_abs = xp.abs(h)
    K = xp.empty((_N_STAGES + 1,) + y.shape)

    small = y.shape[-1] <= _EINSUM_COLUMNS

    def combine(w, n_stages):
        # Sums column by column, in stage order whatever the batch's size (a BLAS matrix product
        # would round a column by its position, and a variant's result must not depend on the
        # variants sharing its batch). einsum adds in that same order (bit-identical); it is one
        # call, cheaper for few columns, the explicit sum faster for many.
        if small:
            return xp.einsum("s,snm->nm", w, K[:n_stages])
        out = None
        for j in range(n_stages):
            if w[j] != 0.0:
                out = w[j] * K[j] if out is None else out + w[j] * K[j]
        return out

    K[0] = f
    for s in range(1, _N_STAGES):
        K[s] = rhs(t + C[s] * h, y + combine(A[s, :s], s) * h)
    y_new = y + h * combine(B, _N_STAGES)
    f_new = rhs(t + h, y_new)
    K[-1] = f_new
    err = combine(E, _N_STAGES + 1)
    scale = atol + xp.maximum(xp.abs(y), xp.abs(y_new)) * rtol
    error_norm = _rms(err * h / scale, xp)
    accepted = error_norm < 1
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        grow = SAFETY * error_norm ** _ERROR_EXPONENT
    factor_ok = xp.where(error_norm == 0, MAX_FACTOR, xp.minimum(MAX_FACTOR, grow))
    factor_ok = xp.where(rejected, xp.minimum(1.0, factor_ok), factor_ok)
    # max(MIN_FACTOR, nan) is MIN_FACTOR in Python's max, which scipy uses: keep that for a NaN norm.
    factor_bad = xp.where(grow > MIN_FACTOR, grow, MIN_FACTOR)
    h_next = h_abs * xp.where(accepted, factor_ok, factor_bad)
    return accepted, t_new, y_new, f_new, K, h_next


def min_step(t, xp=np):
    """scipy's smallest allowed step at ``t``: ten units in the last place."""
    return 10 * xp.abs(xp.nextafter(t, xp.full_like(t, np.inf)) - t)


def dense_q(K, xp=np):
    """The coefficients of a step's dense output from its stages, (4, n, m) (scipy's ``K.T @ P``)."""
    return xp.stack([sum(P[s, j] * K[s] for s in range(K.shape[0]) if P[s, j] != 0.0) for j in range(P.shape[1])])


def dense(t_old, h, y_old, Q, t, xp=np):
    """The step's dense output (scipy's ``RkDenseOutput``) at times ``t``, one per column."""
    x = (t - t_old) / h
    p = x
    y = Q[0] * p
    for j in range(1, P.shape[1]):
        p = p * x
        y = y + Q[j] * p
    return y_old + h * y


def initial_step(rhs, t0, y0, f0, t_bound, max_step, *, rtol, atol, xp=np):
    """scipy's ``select_initial_step`` (order 4 error estimator) for every column."""
    if y0.shape[0] == 0:
        return xp.full(t0.shape, np.inf)
    interval = xp.abs(t_bound - t0)
    scale = atol + xp.abs(y0) * rtol
    d0 = _rms(y0 / scale, xp)
    d1 = _rms(f0 / scale, xp)
    with np.errstate(divide="ignore", invalid="ignore"):
        h0 = xp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    h0 = xp.minimum(h0, interval)
    y1 = y0 + h0 * f0
    f1 = rhs(t0 + h0, y1)
    d2 = _rms((f1 - f0) / scale, xp) / h0
    with np.errstate(divide="ignore"):
        h1 = xp.where((d1 <= 1e-15) & (d2 <= 1e-15), xp.maximum(1e-6, h0 * 1e-3),
                      (0.01 / xp.maximum(d1, d2)) ** (1 / (RK45.error_estimator_order + 1)))
    h = xp.minimum(xp.minimum(100 * h0, h1), xp.minimum(interval, max_step))
    return xp.where(interval == 0.0, 0.0, h)
