"""Dormand-Prince 5(4), scipy ``RK45``'s method, in kernel form.

The Python path's :mod:`simcore.dopri5` (for systems written in Python) adds the stages in the same
order; the tests hold the two to the bit.

The same algorithm and step control as scipy's ``RK45``: its tableau (read from scipy), the
error norm (root mean square over the states of ``err / (atol + max(|y|, |y_new|) rtol)``), the
step factor ``0.9 err**(-1/5)`` bounded to ``[0.2, 10]`` (at most 1 after a rejection), the first
attempt clamped to ``[10 ulp(t), max_step]``, the last step landing exactly on ``t_bound``, and
scipy's ``select_initial_step`` rule for the first step when none is given. Every weighted sum of
stages is added in stage order, ``((w0 k0 + w1 k1) + w2 k2) + ...`` (scipy leaves that order to
BLAS), and the squares of the error norm in state order, so one variant's steps do not depend on
anything but its own numbers. Against scipy's ``RK45`` the steps agree to the tolerance and, on
most problems, to the bit (the tests measure both).

Functions work on one variant's arrays; the right-hand side is the built-in parts' stacked one
(:func:`simcore.kernel.parts.derivatives`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import RK45

from .jit import jit
from .parts import derivatives

SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / (RK45.error_estimator_order + 1)
INITIAL_EXPONENT = 1.0 / (RK45.error_estimator_order + 1)

_A, _B, _C, _E, _P = RK45.A, RK45.B, RK45.C, RK45.E, RK45.P
C1, C2, C3, C4 = (float(c) for c in _C[1:5])
A10 = float(_A[1, 0])
A20, A21 = (float(a) for a in _A[2, :2])
A30, A31, A32 = (float(a) for a in _A[3, :3])
A40, A41, A42, A43 = (float(a) for a in _A[4, :4])
A50, A51, A52, A53, A54 = (float(a) for a in _A[5, :5])
B0, B2, B3, B4, B5 = (float(_B[j]) for j in (0, 2, 3, 4, 5))
E0, E2, E3, E4, E5, E6 = (float(_E[j]) for j in (0, 2, 3, 4, 5, 6))
P00 = float(_P[0, 0])
#: Dense-output weights of stages 0, 2..6 for the powers x^2, x^3, x^4 (row j-1 for power j+1).
P_REST = np.array([[float(_P[s, j]) for s in (0, 2, 3, 4, 5, 6)] for j in range(1, 4)])


def interior_weights(fractions) -> np.ndarray:
    """Per fraction ``f`` of a step: the weights ``P @ [f, f², f³, f⁴]`` of stages 0, 2..6, (m, 6)
    (NaN for ``f == 1``: the accepted state itself is used there)."""
    out = np.full((len(fractions), 6), np.nan)
    for i, f in enumerate(fractions):
        if f == 1.0:
            continue
        w = _P @ np.array([f, f * f, f * f * f, f * f * f * f])
        out[i] = [float(w[s]) for s in (0, 2, 3, 4, 5, 6)]
    return out


#: Stiffness estimate weights: the stage at the step's end (C[5] = 1) and the accepted state differ by
#: ``h * sum_j W_j k_j`` (the accepted weights B minus the sixth stage's row of A).
STIFF_W = np.array([float(_B[j] - (_A[5, j] if j < 5 else 0.0)) for j in range(6)])


@jit
def rms(z):
    s = 0.0
    for v in z:
        s += v * v
    return math.sqrt(s) / len(z) ** 0.5


@jit(internal=True)
def initial_step(table, P, U, modes, t0, y0, f0, t_bound, max_step, rtol, atol, work, y1):
    """scipy's ``select_initial_step`` for an order-4 error estimator (one evaluation, into ``work``; ``y1``
    scratch of the state's length)."""
    n = y0.shape[0]
    if n == 0:
        return math.inf
    interval = abs(t_bound - t0)
    if interval == 0.0:
        return 0.0
    s0 = 0.0
    s1 = 0.0
    for i in range(n):
        scale = atol + abs(y0[i]) * rtol
        a = y0[i] / scale
        b = f0[i] / scale
        s0 += a * a
        s1 += b * b
    d0 = math.sqrt(s0) / n ** 0.5
    d1 = math.sqrt(s1) / n ** 0.5
    if d0 < 1e-5 or d1 < 1e-5:
        h0 = 1e-6
    else:
        h0 = 0.01 * d0 / d1
    h0 = min(h0, interval)
    for i in range(n):
        y1[i] = y0[i] + h0 * f0[i]
    derivatives(table, P, U, modes, t0 + h0, y1, work)
    s2 = 0.0
    for i in range(n):
        scale = atol + abs(y0[i]) * rtol
        c = (work[i] - f0[i]) / scale
        s2 += c * c
    d2 = (math.sqrt(s2) / n ** 0.5) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** INITIAL_EXPONENT
    return min(min(100 * h0, h1), min(interval, max_step))


@jit
def _stage(table, P, U, modes, t, x, K, s, f):
    """Stage ``s``: f(t, x) into ``K[s]`` (through ``f``, scratch of the state's length: a row view of ``K``
    would cost a reference count per stage)."""
    derivatives(table, P, U, modes, t, x, f)
    for i in range(x.shape[0]):
        K[s, i] = f[i]


@jit
def attempt(table, P, U, modes, t, h, y, K, y_new, rtol, atol, tmp, f):
    """One Dormand-Prince attempt of step ``h`` from ``(t, y)``, ``K[0]`` holding f(t, y).

    Writes the stages into ``K`` (7, n) and the candidate state into ``y_new`` (``tmp`` and ``f``: scratch
    of the state's length); returns the error norm (6 evaluations).
    """
    n = y.shape[0]
    # The stage indices as values known only when it runs: numba compiles a function once per literal
    # argument, and six copies of a stage (with the parts' derivatives in each) cost seconds of compiling.
    first = K.shape[0] - 6
    for i in range(n):
        tmp[i] = (A10 * K[0, i]) * h + y[i]
    _stage(table, P, U, modes, t + C1 * h, tmp, K, first, f)
    for i in range(n):
        tmp[i] = (A20 * K[0, i] + A21 * K[1, i]) * h + y[i]
    _stage(table, P, U, modes, t + C2 * h, tmp, K, first + 1, f)
    for i in range(n):
        tmp[i] = (A30 * K[0, i] + A31 * K[1, i] + A32 * K[2, i]) * h + y[i]
    _stage(table, P, U, modes, t + C3 * h, tmp, K, first + 2, f)
    for i in range(n):
        tmp[i] = (A40 * K[0, i] + A41 * K[1, i] + A42 * K[2, i] + A43 * K[3, i]) * h + y[i]
    _stage(table, P, U, modes, t + C4 * h, tmp, K, first + 3, f)
    for i in range(n):
        tmp[i] = (A50 * K[0, i] + A51 * K[1, i] + A52 * K[2, i] + A53 * K[3, i] + A54 * K[4, i]) * h + y[i]
    _stage(table, P, U, modes, t + h, tmp, K, first + 4, f)
    for i in range(n):
        y_new[i] = (B0 * K[0, i] + B2 * K[2, i] + B3 * K[3, i] + B4 * K[4, i] + B5 * K[5, i]) * h + y[i]
    _stage(table, P, U, modes, t + h, y_new, K, first + 5, f)
    sq = 0.0
    for i in range(n):
        z = ((E0 * K[0, i] + E2 * K[2, i] + E3 * K[3, i] + E4 * K[4, i] + E5 * K[5, i] + E6 * K[6, i]) * h) / (
            max(abs(y[i]), abs(y_new[i])) * rtol + atol)
        sq += z * z
    return math.sqrt(sq) / n ** 0.5


@jit(internal=True)
def stage_state(s, t, h, y, K, y_new, out):
    """The state stage ``s`` (1..6) of the attempt from ``(t, y)`` with step ``h`` was evaluated at, into
    ``out``; returns that stage's time (as :func:`attempt` computes both)."""
    n = y.shape[0]
    if s == 6:
        for i in range(n):
            out[i] = y_new[i]
        return t + h
    for i in range(n):
        if s == 1:
            out[i] = (A10 * K[0, i]) * h + y[i]
        elif s == 2:
            out[i] = (A20 * K[0, i] + A21 * K[1, i]) * h + y[i]
        elif s == 3:
            out[i] = (A30 * K[0, i] + A31 * K[1, i] + A32 * K[2, i]) * h + y[i]
        elif s == 4:
            out[i] = (A40 * K[0, i] + A41 * K[1, i] + A42 * K[2, i] + A43 * K[3, i]) * h + y[i]
        else:
            out[i] = (A50 * K[0, i] + A51 * K[1, i] + A52 * K[2, i] + A53 * K[3, i] + A54 * K[4, i]) * h + y[i]
    if s == 1:
        return t + C1 * h
    if s == 2:
        return t + C2 * h
    if s == 3:
        return t + C3 * h
    if s == 4:
        return t + C4 * h
    return t + h


@jit
def dense_coefficients(K, Q):
    """The accepted step's dense-output coefficients ``Q`` (4, n), added in stage order."""
    n = K.shape[1]
    for i in range(n):
        Q[0, i] = P00 * K[0, i]
    for j in range(3):
        p0, p2, p3, p4, p5, p6 = P_REST[j, 0], P_REST[j, 1], P_REST[j, 2], P_REST[j, 3], P_REST[j, 4], P_REST[j, 5]
        for i in range(n):
            Q[j + 1, i] = (p0 * K[0, i] + p2 * K[2, i] + p3 * K[3, i] + p4 * K[4, i] + p5 * K[5, i]
                           + p6 * K[6, i])


@jit(internal=True)
def dense_state(t_old, h, y_old, Q, t, out):
    """scipy's quartic interpolant of the step ``(t_old, t_old + h]`` at ``t``, into ``out``."""
    x = (t - t_old) / h
    x2 = x * x
    x3 = x2 * x
    x4 = x3 * x
    for i in range(y_old.shape[0]):
        out[i] = y_old[i] + h * (((Q[0, i] * x + Q[1, i] * x2) + Q[2, i] * x3) + Q[3, i] * x4)


@jit(internal=True, forceinline=True)
def interior_state(y_old, h, K, W, r, out):
    """The state at the fraction of the step whose folded weights are ``W[r]`` (6,), into ``out``."""
    w0, w2, w3, w4, w5, w6 = W[r, 0], W[r, 1], W[r, 2], W[r, 3], W[r, 4], W[r, 5]
    for i in range(y_old.shape[0]):
        out[i] = y_old[i] + h * (w0 * K[0, i] + w2 * K[2, i] + w3 * K[3, i] + w4 * K[4, i] + w5 * K[5, i]
                                 + w6 * K[6, i])


@jit
def stiffness_ratio(K, W):
    """Estimate of ``h * rho`` of the last accepted step from its stages at the step's end."""
    den = 0.0
    num = 0.0
    for i in range(K.shape[1]):
        dy = W[0] * K[0, i] + W[1] * K[1, i] + W[2] * K[2, i] + W[3] * K[3, i] + W[4] * K[4, i] + W[5] * K[5, i]
        den += dy * dy
        df = K[6, i] - K[5, i]
        num += df * df
    return 0.0 if den == 0.0 else math.sqrt(num) / math.sqrt(den)
