"""Brent's method on a bracket, in kernel form, driven from outside (reverse communication).

The algorithm of scipy's ``brentq`` step for step (a bracket ``[xcur, xblk]`` with
``|f(xcur)| <= |f(xblk)|``; inverse interpolation, linear with two points and quadratic with three,
accepted only when the step is short enough, else bisection; stop when ``f(xcur) == 0`` or half the
bracket is below ``(xtol + rtol |xcur|) / 2``), so a root located here is the one ``brentq`` locates.
The function is not called from here: :func:`brent_start` and :func:`brent_next` say where to
evaluate it next, so one implementation serves a caller in compiled code and one in Python
(:mod:`simcore.models.battery`, whose loads may be Python objects). The iterate reached after
``max_iterations`` is returned as the root (scipy raises there instead).
"""
from __future__ import annotations

import math

from .jit import jit

#: The search's slots in its float array (length :data:`N_BRENT`).
(B_XPRE, B_XCUR, B_XBLK, B_FPRE, B_FCUR, B_FBLK, B_SPRE, B_SCUR, B_XTOL, B_RTOL, B_LEFT, B_X, B_STAGE) = range(13)
N_BRENT = 13
#: What the caller does next: evaluate the function at ``s[B_X]``, or take the root ``s[B_X]``.
BRENT_EVALUATE, BRENT_ROOT = 0, 1
_WANT_A, _WANT_B, _ITERATING = 0.0, 1.0, 2.0


@jit
def brent_start(s, xa, xb, xtol, rtol, max_iterations):
    """Begin a search on ``[xa, xb]`` (the function's signs opposite at the ends, or zero at one); the
    caller evaluates the function at ``s[B_X]`` (``xa``) and passes the value to :func:`brent_next`."""
    s[B_XPRE], s[B_XCUR] = xa, xb
    s[B_XBLK], s[B_FBLK], s[B_SPRE], s[B_SCUR] = 0.0, 0.0, 0.0, 0.0
    s[B_XTOL], s[B_RTOL], s[B_LEFT] = xtol, rtol, max_iterations
    s[B_STAGE] = _WANT_A
    s[B_X] = xa
    return BRENT_EVALUATE


@jit
def brent_next(s, f):
    """Take ``f``, the function at ``s[B_X]``; returns :data:`BRENT_EVALUATE` (evaluate at ``s[B_X]``
    next) or :data:`BRENT_ROOT` (the root is ``s[B_X]``)."""
    stage = s[B_STAGE]
    if stage == _WANT_A:
        s[B_FPRE] = f
        if f == 0.0:
            s[B_X] = s[B_XPRE]
            return BRENT_ROOT
        s[B_STAGE] = _WANT_B
        s[B_X] = s[B_XCUR]
        return BRENT_EVALUATE
    s[B_FCUR] = f
    if stage == _WANT_B:
        s[B_STAGE] = _ITERATING
        if f == 0.0:
            s[B_X] = s[B_XCUR]
            return BRENT_ROOT
    if s[B_LEFT] <= 0.0:
        s[B_X] = s[B_XCUR]
        return BRENT_ROOT
    s[B_LEFT] -= 1.0
    xpre, xcur, xblk = s[B_XPRE], s[B_XCUR], s[B_XBLK]
    fpre, fcur, fblk = s[B_FPRE], s[B_FCUR], s[B_FBLK]
    spre, scur = s[B_SPRE], s[B_SCUR]
    if fpre != 0.0 and fcur != 0.0 and (math.copysign(1.0, fpre) != math.copysign(1.0, fcur)):
        xblk = xpre
        fblk = fpre
        spre = xcur - xpre
        scur = spre
    if abs(fblk) < abs(fcur):
        xpre = xcur
        xcur = xblk
        xblk = xpre
        fpre = fcur
        fcur = fblk
        fblk = fpre
    delta = (s[B_XTOL] + s[B_RTOL] * abs(xcur)) / 2
    sbis = (xblk - xcur) / 2
    if fcur == 0.0 or abs(sbis) < delta:
        s[B_X] = xcur
        return BRENT_ROOT
    if abs(spre) > delta and abs(fcur) < abs(fpre):
        if xpre == xblk:
            stry = -fcur * (xcur - xpre) / (fcur - fpre)  # interpolate
        else:  # extrapolate
            dpre = (fpre - fcur) / (xpre - xcur)
            dblk = (fblk - fcur) / (xblk - xcur)
            stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
        if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
            spre = scur
            scur = stry
        else:
            spre = sbis
            scur = sbis
    else:
        spre = sbis
        scur = sbis
    xpre = xcur
    fpre = fcur
    if abs(scur) > delta:
        xcur += scur
    else:
        xcur += delta if sbis > 0 else -delta
    s[B_XPRE], s[B_XCUR], s[B_XBLK] = xpre, xcur, xblk
    s[B_FPRE], s[B_FBLK] = fpre, fblk
    s[B_SPRE], s[B_SCUR] = spre, scur
    s[B_X] = xcur
    return BRENT_EVALUATE
