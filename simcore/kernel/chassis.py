"""The chassis on its wheel contacts in kernel form: accelerations, traction forces and rim accelerations at
one instant.

The mechanics are :mod:`simcore.models.chassis`' (:class:`~simcore.models.chassis.Chassis`, which documents
them): per wheel ``i`` one ground contact, exact Coulomb friction with modes along the traction direction
``d_i`` (rolling: the constraint's force; slipping: ``+-mu_i N_i``) and a regularized Coulomb force along the
free direction ``n_i``, the chassis' ``m dv/dt = sum F`` and ``J domega/dt = sum r x F``, and a slipping wheel's
own ``M_i dw_i/dt = D_i - F_i (e . d_i) - g_i (e . n_i)``. :func:`solve` is ``Chassis.solve_fixed`` with its
``_fixed_matrix`` (no load transfer, no wall contacts), operation for operation, so a drive gives the same bits
on the Python path and here; the matrix is formed at each call from the directions in the sample, which a
steered wheel may change from one instant to the next (a mecanum drive copies its fixed ones).

The sample's slots are :mod:`simcore.kernel.chassis_layout`'s: the solve reads each wheel's mode, geometry,
``h``, ``D`` and free-force coefficient there, the wheels' fixed data (``W_*``) from the parameter vector, and
writes the accelerations, the traction forces, the rim accelerations, the loads and the free forces back.

The drives on it share the steps of their traction modes here (``ChassisDrive``'s settling and its breakaway and
grip guards, on a sample): :func:`slip_mode`, :func:`break_away`, :func:`mode_of_sample`, :func:`traction_guard`;
and the pose rates of their derivatives, :func:`pose_rates`.
"""
from __future__ import annotations

from .chassis_layout import (N_WHEEL, N_WS, S_ALPHA, S_AX, S_AY, S_COS, S_SIN, S_WHEELS, W_LOAD0, W_LOAD_X,
                             W_LOAD_Y, W_MASS_EQ, W_MU, W_MU_BREAKAWAY, WS_ARM, WS_COEF, WS_COUPLE, WS_COUPLE_FREE,
                             WS_D, WS_DX, WS_DY, WS_F, WS_F0, WS_FA, WS_FREE_ARM, WS_FX, WS_FY, WS_G, WS_H, WS_MODE,
                             WS_NORMAL, WS_NX, WS_NY, WS_SLIP, WS_SLIP_FREE, WS_WA)
from .jit import jit

#: A slipping wheel grips once its slip is within this, m/s (simcore.models.chassis.GRIP_SPEED).
GRIP_SPEED = 1e-9


@jit(internal=True)
def solve(p, wo, n, m, J, fext_x, fext_y, torque, s):
    """The chassis of mass ``m`` kg and moment of inertia ``J`` kg·m² on ``n`` wheels (their blocks in ``p`` from
    ``wo``), pushed by the external force ``(fext_x, fext_y)`` N (robot frame) and the yaw torque ``torque``
    N·m, at the instant the sample ``s`` describes (see the module docstring)."""
    # The matrix of the wheels' modes (rows A_x, A_y, alpha; each entry's terms in wheel order).
    a00, a01, a02 = m, 0.0, 0.0
    a10, a11, a12 = 0.0, m, 0.0
    a20, a21, a22 = 0.0, 0.0, J
    for i in range(n):
        w = wo + N_WHEEL * i
        q = S_WHEELS + N_WS * i
        ddx, ddy, ar = s[q + WS_DX], s[q + WS_DY], s[q + WS_ARM]
        mode = s[q + WS_MODE]
        if mode == 0.0:
            c = s[q + WS_COUPLE]
            k = p[w + W_MASS_EQ] / (c * c)
            fx, fy, fa = -k * ddx, -k * ddy, -k * ar
        else:
            lim = mode * p[w + W_MU]
            fx, fy, fa = lim * p[w + W_LOAD_X], lim * p[w + W_LOAD_Y], 0.0
        s[q + WS_FX], s[q + WS_FY], s[q + WS_FA] = fx, fy, fa
        a00 -= fx * ddx
        a01 -= fy * ddx
        a02 -= fa * ddx
        a10 -= fx * ddy
        a11 -= fy * ddy
        a12 -= fa * ddy
        a20 -= fx * ar
        a21 -= fy * ar
        a22 -= fa * ar
    # Cramer's rule on the 3x3.
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    kx0, kx1, kx2 = c00, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11
    ky0, ky1, ky2 = c01, a00 * a22 - a02 * a20, a02 * a10 - a00 * a12
    ka0, ka1, ka2 = c02, a01 * a20 - a00 * a21, a00 * a11 - a01 * a10
    # The free forces on the loads at rest, and the right-hand side.
    for i in range(n):
        q = S_WHEELS + N_WS * i
        load = p[wo + N_WHEEL * i + W_LOAD0]
        s[q + WS_NORMAL] = load
        s[q + WS_G] = -s[q + WS_COEF] * load
    b0, b1, b2 = fext_x, fext_y, torque
    for i in range(n):
        w = wo + N_WHEEL * i
        q = S_WHEELS + N_WS * i
        if s[q + WS_MODE] == 0.0:
            c = s[q + WS_COUPLE]
            f0 = (s[q + WS_D] - p[w + W_MASS_EQ] * s[q + WS_H] / c) / c
            cf = s[q + WS_COUPLE_FREE]
            if cf != 0.0:  # the contact's free force reacts on the wheel through its roller
                f0 -= cf / c * s[q + WS_G]
        else:
            f0 = s[q + WS_MODE] * p[w + W_MU] * p[w + W_LOAD0]
        s[q + WS_F0] = f0
        b0 += f0 * s[q + WS_DX]
        b1 += f0 * s[q + WS_DY]
        b2 += f0 * s[q + WS_ARM]
    for i in range(n):
        q = S_WHEELS + N_WS * i
        g0 = s[q + WS_G]
        if g0 != 0.0:
            b0 += g0 * s[q + WS_NX]
            b1 += g0 * s[q + WS_NY]
            b2 += g0 * s[q + WS_FREE_ARM]
    ax = (b0 * kx0 + b1 * kx1 + b2 * kx2) / det
    ay = (b0 * ky0 + b1 * ky1 + b2 * ky2) / det
    alpha = (b0 * ka0 + b1 * ka1 + b2 * ka2) / det
    s[S_AX], s[S_AY], s[S_ALPHA] = ax, ay, alpha
    # A rolling wheel's force is what the constraint needs; a slipping one's rim obeys its own dynamics.
    for i in range(n):
        w = wo + N_WHEEL * i
        q = S_WHEELS + N_WS * i
        fi = s[q + WS_F0] + s[q + WS_FX] * ax + s[q + WS_FY] * ay + s[q + WS_FA] * alpha
        s[q + WS_F] = fi
        c = s[q + WS_COUPLE]
        if s[q + WS_MODE] == 0.0:
            s[q + WS_WA] = (s[q + WS_DX] * ax + s[q + WS_DY] * ay + s[q + WS_ARM] * alpha + s[q + WS_H]) / c
        else:
            cf = s[q + WS_COUPLE_FREE]
            s[q + WS_WA] = (s[q + WS_D] - fi * c - (s[q + WS_G] * cf if cf != 0.0 else 0.0)) / p[w + W_MASS_EQ]


# -- traction modes (ChassisDrive's settling and guards; a mode code is base 3, wheel 0 the most significant digit,
# -- each wheel's digit 0 rolling, 1 slipping forward, 2 slipping backward) ---------------------------------------
@jit(internal=True)
def mode_of_sample(s, n):
    """The mode code of the ``n`` wheel modes in the sample ``s``."""
    code = 0
    for i in range(n):
        m = s[S_WHEELS + N_WS * i + WS_MODE]
        code = 3 * code + (0 if m == 0.0 else (1 if m > 0.0 else 2))
    return code


@jit(internal=True)
def slip_mode(s, n):
    """The mode code of each of ``n`` wheels slipping the way its slip (if it slid) in ``s`` goes, or rolling where
    that is within GRIP_SPEED (ChassisDrive._settle's first guess)."""
    code = 0
    for i in range(n):
        sl = s[S_WHEELS + N_WS * i + WS_SLIP_FREE]
        code = 3 * code + (0 if abs(sl) <= GRIP_SPEED else (1 if sl > 0.0 else 2))
    return code


@jit(internal=True)
def break_away(p, wo, n, slipping, s):
    """Mark, in the sample ``s``, each rolling wheel whose rolling takes more than its breakaway limit, and wheel
    ``slipping`` (whose breakaway fired; -1: none), as slipping the way its force pushes (ChassisDrive._settle's
    step; the wheel blocks from ``wo`` in ``p``); return whether one was."""
    changed = False
    for i in range(n):
        q = S_WHEELS + N_WS * i
        if s[q + WS_MODE] == 0.0:
            f = s[q + WS_F]
            if i == slipping or abs(f) > p[wo + N_WHEEL * i + W_MU_BREAKAWAY] * s[q + WS_NORMAL]:
                s[q + WS_MODE] = 1.0 if f > 0.0 else -1.0
                changed = True
    return changed


@jit(internal=True)
def traction_guard(p, wo, n, ev, s):
    """The guard of traction event ``ev`` of ``n`` wheels in the sample ``s``: wheel ``i``'s breakaway (``ev = i``)
    ``|f| - mu (1 + margin) N``; its grip slipping forward (``n + 2 i``) or backward (``n + 2 i + 1``), the signed
    slip that reaches zero upward."""
    if ev < n:
        q = S_WHEELS + N_WS * ev
        return abs(s[q + WS_F]) - p[wo + N_WHEEL * ev + W_MU_BREAKAWAY] * s[q + WS_NORMAL]
    i = (ev - n) // 2
    sign = -1.0 if (ev - n) % 2 == 0 else 1.0
    return sign * s[S_WHEELS + N_WS * i + WS_SLIP]


@jit(internal=True)
def pose_rates(x, xo, s, out):
    """Write the chassis' six state rates (pose, then field-frame velocity and yaw rate, from ``xo``) into ``out``
    from the state ``x`` and the solved sample ``s`` (its robot-frame accelerations turned by the heading)."""
    c, sn, ax, ay = s[S_COS], s[S_SIN], s[S_AX], s[S_AY]
    out[xo + 0] = x[xo + 3]
    out[xo + 1] = x[xo + 4]
    out[xo + 2] = x[xo + 5]
    out[xo + 3] = c * ax - sn * ay
    out[xo + 4] = sn * ax + c * ay
    out[xo + 5] = s[S_ALPHA]
