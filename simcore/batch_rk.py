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
``maximum``, ``minimum``, ``sqrt``, ``sum``, ``nextafter``, ``abs``, ``stack``, in-place ``*=``
``+=`` ``/=``); ``xp`` selects the module. The one exception is the weighted stage sum
(:func:`stage_sum`): with numpy it is a single ``einsum`` (checked once to add in stage order,
bit for bit as the explicit sum), with another module the explicit sum of products.

Cost. A round of attempts costs a fixed number of array calls whatever the number of columns,
so up to a thousand columns the calls' fixed cost dominates: each stage's inputs are one einsum
(called without numpy's Python wrapper) and two operations, the right-hand side writes into the
stage buffer, the stage times are not formed for a right-hand side that does not read them, and
no floating-point error context is entered. Below :data:`IN_PLACE_FROM` columns operations are
out of place (at a few columns an in-place or ``out=`` ufunc costs more than a fresh result);
from there on the stage inputs, the new state and the error are formed in place, the same
operations in the same order, without allocating and filling a temporary for each.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import RK45

from ._numpy_calls import c_einsum
from ._numpy_calls import count_nonzero as _count_nonzero

__all__ = ["A", "B", "C", "E", "P", "attempt", "dense", "dense_q", "initial_step", "stage_sum", "stiffness_ratio",
           "stiffness_weights",
           "SAFETY", "MIN_FACTOR", "MAX_FACTOR"]

A, B, C, E, P = RK45.A, RK45.B, RK45.C, RK45.E, RK45.P
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
_ERROR_EXPONENT = -1.0 / (RK45.error_estimator_order + 1)
_SMALLEST = 5e-324  # the smallest positive double
_N_STAGES = RK45.n_stages
_A_ROWS = [A[s, :s] for s in range(_N_STAGES)]  # each stage's weights of the stages before it
#: From this many columns an attempt works in place (measured: below it a fresh result costs less).
IN_PLACE_FROM = 512


_STAGE_SUM = "s,snm->nm"


def _libm_power(x, e):
    """``x ** e`` with the C library's ``pow`` (:mod:`simcore.kernel.libm`: numpy's SIMD power rounds
    differently on some processors, and a column must compute what its serial run computes)."""
    from .kernel import libm  # numba loads with the first batch, not with simcore

    return libm.power(x, e)


def _explicit_sum(w, K):
    # Zero weights are added too (0 K[j]), as einsum adds them: the two forms agree to the sign of a zero.
    out = w[0] * K[0]
    for j in range(1, len(w)):
        out = out + w[j] * K[j]
    return out


def _einsum_adds_in_order() -> bool:
    """Whether this numpy's einsum gives a weighted stage sum bit for bit as the explicit sum
    ``w0 K0 + w1 K1 + ...`` does, whatever a column's position (no fused multiply-add in its vector
    loops, no reordering). Checked once on random data with a vector body and a tail."""
    rng = np.random.default_rng(2026)
    w, K = rng.standard_normal(7), rng.standard_normal((7, 3, 1031))
    whole = np.einsum(_STAGE_SUM, w, K)
    part = np.einsum(_STAGE_SUM, w, np.ascontiguousarray(K[:, :, 5:12]))
    return bool(np.array_equal(whole, _explicit_sum(w, K)) and np.array_equal(part, whole[:, 5:12]))


_EINSUM_EXACT = _einsum_adds_in_order()


def stage_sum(w, K, xp=np):
    """``sum_j w[j] K[j]`` column by column in stage order, (n, m) from (s, n, m).

    Never a BLAS product: BLAS rounds a column by its position in the matrix, and a variant's
    result must not depend on the variants sharing its batch. einsum adds in stage order, in one
    call (it is the fastest form at every batch size measured); where it would not be exact (see
    :func:`_einsum_adds_in_order`) the explicit sum is used.
    """
    if _EINSUM_EXACT and xp is np:
        # numpy's einsum without ``optimize`` is this call; its Python wrapper costs more than the sum
        # at a few columns
        return c_einsum(_STAGE_SUM, w, K)
    return _explicit_sum(w, K)


def _rms(z, xp, in_place=False):
    """RMS over the states of each column (scipy's ``norm``), shape (m,), the squares added in state order.

    In state order whatever the number of columns: numpy's own sum over the states of a single
    column of 8 or more is pairwise, which would round a variant running alone differently from
    the same variant among others, and from the serial engine (:mod:`simcore.dopri5`).
    """
    n = z.shape[0]
    if in_place:  # ``z`` is the caller's scratch: squared and summed into its first row
        z *= z
    else:
        z = z * z
    if n == 0:
        return xp.sqrt(xp.sum(z, axis=0)) / n ** 0.5
    if in_place:
        total = z[0]
        for i in range(1, n):
            total += z[i]
        xp.sqrt(total, out=total)
        total /= n ** 0.5
        return total
    return _root_sum(z, xp) / n ** 0.5


def _root_sum(z, xp):
    """The square root of each column's sum over the rows of ``z`` (at least one), added in row order."""
    total = z[0]
    for i in range(1, z.shape[0]):
        total = total + z[i]
    return xp.sqrt(total)


def stiffness_weights(cls):
    """``(s, w)`` of an explicit Runge-Kutta tableau (a scipy solver class or one with its ``A, B, C``
    and ``n_stages``): the last stage ``s`` evaluated at the step's end (``C[s] == 1``), and the weights
    with ``y_new - y_s = h * w @ K[:s + 1]`` (the difference of the two states the derivative at the
    step's end is known at, which the stiffness estimate divides by); None if no stage is at the end.

    The one construction of them: :mod:`simcore.solvers` (RK45, DOP853), :mod:`simcore.dopri5` and
    :mod:`simcore.batch` all read them here.
    """
    C, A, B = cls.C, cls.A, cls.B
    ends = [s for s in range(1, cls.n_stages) if C[s] == 1.0]
    if not ends:
        return None
    s = ends[-1]
    w = np.array(B[: s + 1], dtype=float)
    w[:s] -= A[s, :s]
    return s, w


def stiffness_ratio(K, s, w, xp=np):
    """Each column's estimate of ``h * rho`` of its step from the stages ``K`` (7, n, m), (m,).

    :func:`simcore.solvers.stiffness_ratio` over columns, with the weights ``(s, w)`` it is given
    (:func:`stiffness_weights`): the norm of
    ``K[-1] - K[s]`` (the derivative at the step's end at two states) over the norm of
    ``w @ K[:s + 1]`` (their difference over ``h``), zero where the two states coincide. Each
    column is added as :meth:`simcore.dopri5.DormandPrince.stiffness_ratio` adds its one run (stages
    in order, then the squares over the states in order), so a column's estimate is that run's to
    the bit. ``n >= 1``.
    """
    dy = stage_sum(w, K[: s + 1], xp)
    df = K[-1] - K[s]
    den = _root_sum(dy * dy, xp)
    num = _root_sum(df * df, xp)
    if _count_nonzero(den) == den.size:
        return num / den
    nonzero = den != 0.0
    return xp.where(nonzero, num / xp.where(nonzero, den, 1.0), 0.0)


def attempt(rhs, t, y, f, h_abs, t_end, rejected, *, rtol, atol, timed=True, xp=np):
    """One step attempt of every column, scipy's ``RK45._step_impl`` loop body.

    Parameters
    ----------
    rhs : callable ``rhs(t, y, out)``
        Writes the derivatives at ``(t, y)``, ``(n, m)``, into ``out``.
    t, h_abs : (m,) arrays
        Current times and step sizes (already clamped for a fresh step; ``t <= t_end``).
    y, f : (n, m) arrays
        States and derivatives at ``t``.
    t_end : float
        End of the interval (the step is cut to land on it).
    rejected : (m,) bool array
        Whether this step call already rejected an attempt (caps the growth factor at 1).
    timed : bool
        Whether the right-hand side reads its time argument; if not it is given None (the stage
        times are not computed).

    Returns
    -------
    accepted : (m,) bool
    t_new, y_new : the attempt's end, (m,) and (n, m)
    K : (7, n, m) the stages; ``K[-1]`` is the derivative at the attempt's end
    h_abs_next : (m,) the step size to propose (accepted) or retry with (rejected)

    Stage derivatives are not checked here; the caller checks ``K`` once (a non-finite one
    propagates into later stages, and is reported at the first stage that has it).
    """
    t_new = xp.minimum(t + h_abs, t_end)
    h = t_new - t  # >= 0: the integration runs forward
    K = xp.empty((_N_STAGES + 1,) + y.shape)
    K[0] = f
    # The same operations in the same order either way: in place from IN_PLACE_FROM columns (no
    # temporaries to allocate and fill), out of place below (where an in-place ufunc costs more).
    if y.shape[-1] < IN_PLACE_FROM or xp is not np:
        for s in range(1, _N_STAGES):
            dy = stage_sum(_A_ROWS[s], K[:s], xp) * h + y
            rhs(t + C[s] * h if timed else None, dy, K[s])
        y_new = stage_sum(B, K[:_N_STAGES], xp) * h + y
        rhs(t + h if timed else None, y_new, K[-1])
        err = stage_sum(E, K, xp) * h
        scale = xp.maximum(xp.abs(y), xp.abs(y_new)) * rtol + atol
        error_norm = _rms(err / scale, xp)
    else:
        for s in range(1, _N_STAGES):
            dy = stage_sum(_A_ROWS[s], K[:s], xp)
            dy *= h
            dy += y
            rhs(t + C[s] * h if timed else None, dy, K[s])
        y_new = stage_sum(B, K[:_N_STAGES], xp)
        y_new *= h
        y_new += y
        rhs(t + h if timed else None, y_new, K[-1])
        err = stage_sum(E, K, xp)
        err *= h
        scale = xp.abs(y)
        xp.maximum(scale, xp.abs(y_new), out=scale)
        scale *= rtol
        scale += atol
        err /= scale
        error_norm = _rms(err, xp, in_place=True)
    accepted = error_norm < 1
    # A zero norm (which grows by MAX_FACTOR) is raised to the smallest subnormal instead of dividing
    # by zero: its growth (4e64) is then capped at MAX_FACTOR like any tiny norm's, and no
    # floating-point warning can arise (x ** -0.2 is finite for every positive x, inf and NaN give 0
    # and NaN quietly), so no errstate context (which costs more than the power) is needed.
    grow = _libm_power(xp.maximum(error_norm, _SMALLEST), _ERROR_EXPONENT) * SAFETY  # the C library's pow, as serially
    factor_ok = xp.minimum(MAX_FACTOR, grow)
    if _count_nonzero(rejected):
        factor_ok = xp.where(rejected, xp.minimum(1.0, factor_ok), factor_ok)
    # max(MIN_FACTOR, nan) is MIN_FACTOR in Python's max, which scipy uses: keep that for a NaN norm.
    factor_bad = xp.where(grow > MIN_FACTOR, grow, MIN_FACTOR)
    h_next = h * xp.where(accepted, factor_ok, factor_bad)
    return accepted, t_new, y_new, K, h_next


def min_step(t, xp=np):
    """scipy's smallest allowed step at ``t``: ten units in the last place."""
    return 10 * xp.abs(xp.nextafter(t, np.inf) - t)


def dense_q(K, xp=np):
    """The coefficients of a step's dense output from its stages, (4, n, m) (scipy's ``K.T @ P``)."""
    return xp.stack([stage_sum(P[:, j], K, xp) for j in range(P.shape[1])])


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
                      _libm_power(0.01 / xp.maximum(d1, d2), 1 / (RK45.error_estimator_order + 1)))
    h = xp.minimum(xp.minimum(100 * h0, h1), xp.minimum(interval, max_step))
    return xp.where(interval == 0.0, 0.0, h)
