"""The chassis on its wheel contacts in kernel form: accelerations, traction forces and rim accelerations at
one instant.

The mechanics are :mod:`simcore.models.chassis`' (:class:`~simcore.models.chassis.Chassis`, which documents
them): per wheel ``i`` one ground contact, exact Coulomb friction with modes along the traction direction
``d_i`` (rolling: the constraint's force; slipping: ``+-mu_i N_i``) and a regularized Coulomb force along the
free direction ``n_i``, the chassis' ``m dv/dt = sum F`` and ``J domega/dt = sum r x F``, and a slipping wheel's
own ``M_i dw_i/dt = D_i - F_i (e . d_i) - g_i (e . n_i)``. :func:`solve` is ``Chassis.solve_fixed`` with its
``_fixed_matrix`` (no load transfer), operation for operation, so a drive gives the same bits on the Python path
and here; the matrix is formed at each call from the directions in the sample, which a steered wheel may change
from one instant to the next (a mecanum drive copies its fixed ones). With wall contacts (the sample's
``S_CONTACTS`` rows, from :func:`wall_rows`) it is ``Chassis.solve``'s with wall columns: the chassis rows grown
by a push per contact and a row per contact, solved by Gaussian elimination with partial pivoting
(:func:`gauss`, ``simcore.models.chassis._gauss`` operation for operation).

**Walls** (``Chassis``' bumper corners against a field's four walls): a drive with walls holds, beside its wheel
modes' code, the index of its wall contacts among :data:`~simcore.kernel.chassis_layout.CONTACT_SETS` (on each
wall none, a corner or a side; at most two walls, meeting at a field corner: a drive whose bumper can touch two
opposite walls at once has no kernel form). Its events and their resets are ``ChassisDrive``'s: a wall's
``wall`` when a corner not on it reaches it (:func:`wall_guard`; the plastic impact :func:`impact`, by
``Chassis.impact``'s active sets), a contact's ``leave_wall`` when its push reaches zero (:func:`wall_force`),
and the settling that drops the first contact whose wall would pull (:func:`settle_step`).

The sample's slots are :mod:`simcore.kernel.chassis_layout`'s: the solve reads each wheel's mode, geometry,
``h``, ``D`` and free-force coefficient there, the wheels' fixed data (``W_*``) from the parameter vector, and
writes the accelerations, the traction forces, the rim accelerations, the loads and the free forces back.

The drives on it share the steps of their traction modes here (``ChassisDrive``'s settling and its breakaway and
grip guards, on a sample): :func:`slip_mode`, :func:`break_away`, :func:`mode_of_sample`, :func:`traction_guard`;
and the pose rates of their derivatives, :func:`pose_rates`.
"""
from __future__ import annotations

import math

import numpy as np

from .chassis_layout import (CONTACT_SETS, MAX_CONTACTS, CS_CHI, CS_FORCE, CS_NX, CS_NY, CS_PAIR, CS_RHS, N_CONTACT_SETS, N_CORNERS,
                             N_CS, N_WALL, N_WALLS, S_CONTACTS, S_N_CONTACTS, WB_CORNERS, WB_WALLS, WL_NX, WL_NY,
                             WL_OFFSET)
from .chassis_layout import (N_WHEEL, N_WS, S_ALPHA, S_AX, S_AY, S_COS, S_SIN, S_WHEELS, W_LOAD0, W_LOAD_X,
                             W_LOAD_Y, W_MASS_EQ, W_MU, W_MU_BREAKAWAY, WS_ARM, WS_COEF, WS_COUPLE, WS_COUPLE_FREE,
                             WS_D, WS_DX, WS_DY, WS_F, WS_F0, WS_FA, WS_FREE_ARM, WS_FX, WS_FY, WS_G, WS_H, WS_MODE,
                             WS_NORMAL, WS_NX, WS_NY, WS_SLIP, WS_SLIP_FREE, WS_WA)
from .jit import jit

#: A slipping wheel grips once its slip is within this, m/s (simcore.models.chassis.GRIP_SPEED).
GRIP_SPEED = 1e-9
#: A bumper corner within this of a wall touches it when contacts are settled, m
#: (simcore.models.chassis.TOUCH_DISTANCE).
TOUCH_DISTANCE = 1e-9
#: The contact sets a mode can hold (simcore.kernel.chassis_layout.CONTACT_SETS), as the kernel reads them.
CONTACT_MASKS = np.array(CONTACT_SETS, dtype=np.int64)


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
    if s[S_N_CONTACTS] > 0.0:
        _solve_with_walls(p, wo, n, fext_x, fext_y, torque, a00, a01, a02, a10, a11, a12, a20, a21, a22, s)
        return
    # Cramer's rule on the 3x3.
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    kx0, kx1, kx2 = c00, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11
    ky0, ky1, ky2 = c01, a00 * a22 - a02 * a20, a02 * a10 - a00 * a12
    ka0, ka1, ka2 = c02, a01 * a20 - a00 * a21, a00 * a11 - a01 * a10
    b0, b1, b2 = _right_hand_side(p, wo, n, fext_x, fext_y, torque, s)
    ax = (b0 * kx0 + b1 * kx1 + b2 * kx2) / det
    ay = (b0 * ky0 + b1 * ky1 + b2 * ky2) / det
    alpha = (b0 * ka0 + b1 * ka1 + b2 * ka2) / det
    _wheel_forces(p, wo, n, ax, ay, alpha, s)


@jit(internal=True)
def _right_hand_side(p, wo, n, fext_x, fext_y, torque, s):
    """The loads and free forces at rest into ``s``, each wheel's traction constant (WS_F0), and the chassis rows'
    right-hand side ``(b0, b1, b2)`` (Chassis.solve's sums, in its order)."""
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
    return b0, b1, b2


@jit(internal=True, allocates=True)  # (its system's scratch)
def _solve_with_walls(p, wo, n, fext_x, fext_y, torque, a00, a01, a02, a10, a11, a12, a20, a21, a22, s):
    """:func:`solve` with the mode's wall contacts in ``s`` (Chassis.solve with wall rows, without load transfer):
    the chassis rows ``a`` grown by a column per contact (its push ``lam`` along the wall's normal ``n``, at the
    arm ``chi``) and a row per contact (the corner's acceleration into the wall, ``n . A + chi alpha = rhs``),
    solved by :func:`gauss`; a singular system (contacts that depend on each other) gives NaN."""
    b0, b1, b2 = _right_hand_side(p, wo, n, fext_x, fext_y, torque, s)
    nw = int(s[S_N_CONTACTS])
    size = 3 + nw
    M = np.zeros((size, size + 1))
    M[0, 0], M[0, 1], M[0, 2], M[0, size] = a00, a01, a02, b0
    M[1, 0], M[1, 1], M[1, 2], M[1, size] = a10, a11, a12, b1
    M[2, 0], M[2, 1], M[2, 2], M[2, size] = a20, a21, a22, b2
    for k in range(nw):
        o = S_CONTACTS + N_CS * k
        nx, ny, chi = s[o + CS_NX], s[o + CS_NY], s[o + CS_CHI]
        M[0, 3 + k], M[1, 3 + k], M[2, 3 + k] = -nx, -ny, -chi
        M[3 + k, 0], M[3 + k, 1], M[3 + k, 2], M[3 + k, size] = nx, ny, chi, s[o + CS_RHS]
    z = np.empty(size)
    if not gauss(M, size, z):
        z[:] = math.nan
    for k in range(nw):
        s[S_CONTACTS + N_CS * k + CS_FORCE] = z[3 + k]
    _wheel_forces(p, wo, n, z[0], z[1], z[2], s)


@jit(internal=True)
def _wheel_forces(p, wo, n, ax, ay, alpha, s):
    """The accelerations into ``s``, and each wheel's traction force and rim acceleration from them."""
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


# -- walls (Chassis' wall rows and impacts, ChassisDrive's wall and leave_wall events; a drive with walls codes its
# -- mode as its wheels' code plus ``n_codes`` (3 ** wheels) times its contact set's index in CONTACT_MASKS) -------
@jit(internal=True)
def contact_mask(mode, n_codes):
    """The wall contacts of ``mode`` as a mask of pairs ``4 wall + corner`` (none for -1, the mode of a failed
    settling, whose evaluation is NaN)."""
    if mode < 0:
        return 0
    return CONTACT_MASKS[mode // n_codes]


@jit(internal=True)
def with_contacts(code, mask, n_codes):
    """The mode of the wheels' code ``code`` (below ``n_codes``) with the contacts ``mask``, or -1 where no contact
    set is ``mask`` (two opposite walls, say)."""
    lo, hi = 0, N_CONTACT_SETS
    while lo < hi:
        mid = (lo + hi) // 2
        if CONTACT_MASKS[mid] < mask:
            lo = mid + 1
        else:
            hi = mid
    if lo < N_CONTACT_SETS and CONTACT_MASKS[lo] == mask:
        return code + n_codes * lo
    return -1


@jit(internal=True)
def gap(p, wb, w, k, x, y, c, sn):
    """Distance of bumper corner ``k`` inside wall ``w`` (the walls block from ``wb`` in ``p``) at the pose ``(x,
    y)`` m, heading with cosine ``c`` and sine ``sn`` (Chassis.gap), m."""
    o = wb + WB_WALLS + N_WALL * w
    px, py = p[wb + WB_CORNERS + 2 * k], p[wb + WB_CORNERS + 2 * k + 1]
    return p[o + WL_NX] * (x + c * px - sn * py) + p[o + WL_NY] * (y + sn * px + c * py) - p[o + WL_OFFSET]


@jit(internal=True)
def _normal_in_robot_frame(p, wb, b, c, sn):
    """Wall contact ``b``'s wall normal in the robot frame and its arm ``corner x n`` (Chassis.wall_rows)."""
    o = wb + WB_WALLS + N_WALL * (b // 4)
    nx, ny = p[o + WL_NX], p[o + WL_NY]
    nrx, nry = c * nx + sn * ny, -sn * nx + c * ny
    k = b % 4
    px, py = p[wb + WB_CORNERS + 2 * k], p[wb + WB_CORNERS + 2 * k + 1]
    return nrx, nry, px * nry - py * nrx, px, py


@jit(internal=True)
def wall_rows(p, wb, mask, c, sn, om, s):
    """Write the contacts of ``mask`` into the sample ``s`` (their rows for :func:`solve`, Chassis.wall_rows), at
    the heading's cosine ``c`` and sine ``sn`` and the yaw rate ``om`` rad/s."""
    n = 0
    for b in range(4 * N_WALLS):
        if mask >> b & 1 and n < MAX_CONTACTS:  # (a mode's contact set holds at most MAX_CONTACTS)
            nrx, nry, chi, px, py = _normal_in_robot_frame(p, wb, b, c, sn)
            o = S_CONTACTS + N_CS * n
            s[o + CS_PAIR], s[o + CS_NX], s[o + CS_NY], s[o + CS_CHI] = b, nrx, nry, chi
            s[o + CS_RHS] = om * om * (nrx * px + nry * py)
            n += 1
    s[S_N_CONTACTS] = n


@jit(internal=True)
def touching(p, wb, x, y, c, sn):
    """The mask of the bumper corners within TOUCH_DISTANCE of (or past) a wall at the pose."""
    mask = 0
    for w in range(N_WALLS):
        for k in range(N_CORNERS):
            if gap(p, wb, w, k, x, y, c, sn) <= TOUCH_DISTANCE:
                mask |= 1 << (4 * w + k)
    return mask


@jit(internal=True)
def wall_guard(p, wb, mask, w, x, y, c, sn):
    """The guard of wall ``w``'s event: the least gap of the corners not on it (ChassisDrive._wall_guard)."""
    least = math.inf
    for k in range(N_CORNERS):
        if not (mask >> (4 * w + k) & 1):
            g = gap(p, wb, w, k, x, y, c, sn)
            if g < least:
                least = g
    return least


@jit(internal=True)
def wall_force(s, b):
    """The push of wall contact ``b`` in the solved sample ``s``, N (NaN where it is no contact)."""
    for q in range(int(s[S_N_CONTACTS])):
        o = S_CONTACTS + N_CS * q
        if s[o + CS_PAIR] == b:
            return s[o + CS_FORCE]
    return math.nan


@jit(internal=True)
def total_wall_force(s):
    """The wall contacts' pushes summed, N (the ``wall_force`` output)."""
    total = 0.0
    for q in range(int(s[S_N_CONTACTS])):
        total += s[S_CONTACTS + N_CS * q + CS_FORCE]
    return total


@jit(internal=True)
def pushing_away(s):
    """The first wall contact (in the mode's order) whose push is negative, or -1 (ChassisDrive._settle drops it)."""
    for q in range(int(s[S_N_CONTACTS])):
        o = S_CONTACTS + N_CS * q
        if s[o + CS_FORCE] < 0.0:
            return int(s[o + CS_PAIR])
    return -1


@jit(internal=True)
def wall_events(mask, ids, n, first_wall, first_leave):
    """Arm, into ``ids`` from ``n``, each wall's event where fewer than two corners touch it (id ``first_wall +
    wall``), then each contact's leave_wall (``first_leave + pair``), as ChassisDrive.events; returns the count."""
    for w in range(N_WALLS):
        on = (mask >> (4 * w)) & 15
        if on == 0 or (on & (on - 1)) == 0:  # (at most one bit)
            ids[n] = first_wall + w
            n += 1
    for b in range(4 * N_WALLS):
        if mask >> b & 1:
            ids[n] = first_leave + b
            n += 1
    return n


@jit(internal=True)
def gauss(M, n, z):
    """Solve the ``n`` x ``n`` system in ``M`` (its right-hand side in column ``n``) into ``z`` by Gaussian
    elimination with partial pivoting, ``M`` overwritten (simcore.models.chassis._gauss, operation for operation);
    False where a pivot is zero."""
    for col in range(n):
        piv = col
        for r in range(col + 1, n):
            if abs(M[r, col]) > abs(M[piv, col]):
                piv = r
        if M[piv, col] == 0.0:
            return False
        if piv != col:
            for q in range(n + 1):
                M[col, q], M[piv, q] = M[piv, q], M[col, q]
        pv = M[col, col]
        for r in range(col + 1, n):
            fct = M[r, col] / pv
            if fct != 0.0:
                for q in range(col, n + 1):
                    M[r, q] -= fct * M[col, q]
    for r in range(n - 1, -1, -1):
        acc = 0.0
        for q in range(r + 1, n):
            acc += M[r, q] * z[q]
        z[r] = (M[r, n] - acc) / M[r, r]
    return True


@jit(internal=True, allocates=True)  # (the contacts' rows and the active sets' systems)
def impact(p, wb, mask, vx, vy, om, c, sn, m, J):
    """The robot-frame chassis velocity ``(vx, vy, om)`` after a perfectly plastic impact on the wall contacts
    ``mask`` (Chassis.impact: the impulses ``P_k >= 0`` that leave no contact moving into its wall, zero where it
    moves out, by the active sets smallest first, in itertools.combinations' order); NaN where none is
    consistent."""
    rows = np.empty((MAX_CONTACTS, 3))
    vn = np.empty(MAX_CONTACTS)
    n = 0
    for b in range(4 * N_WALLS):
        if mask >> b & 1:
            if n == MAX_CONTACTS:  # (more corners touching than a contact set holds)
                return math.nan, math.nan, math.nan
            nrx, nry, chi, px, py = _normal_in_robot_frame(p, wb, b, c, sn)
            rows[n, 0], rows[n, 1], rows[n, 2] = nrx, nry, chi
            vn[n] = nrx * (vx - om * py) + nry * (vy + om * px)
            n += 1
    tol = 1e-12 * (1.0 + abs(vx) + abs(vy) + abs(om))
    into = False
    for q in range(n):
        if vn[q] < -tol:
            into = True
    if not into:
        return vx, vy, om
    W = np.empty((MAX_CONTACTS, MAX_CONTACTS))
    for a in range(n):
        for q in range(n):
            W[a, q] = rows[a, 0] * rows[q, 0] / m + rows[a, 1] * rows[q, 1] / m + rows[a, 2] * rows[q, 2] / J
    idx = np.empty(MAX_CONTACTS, dtype=np.int64)
    P = np.empty(MAX_CONTACTS)
    for size in range(1, n + 1):
        for i in range(size):
            idx[i] = i
        while True:
            A = np.empty((size, size + 1))
            for a in range(size):
                for q in range(size):
                    A[a, q] = W[idx[a], idx[q]]
                A[a, size] = -vn[idx[a]]
            if gauss(A, size, P):
                ok = True
                for a in range(size):
                    if P[a] < -tol:
                        ok = False
                if ok:
                    for r in range(n):
                        acc = 0.0
                        for a in range(size):
                            acc += W[r, idx[a]] * P[a]
                        if vn[r] + acc < -tol:
                            ok = False
                if ok:
                    sx = sy = so = 0.0
                    for a in range(size):
                        sx += P[a] * rows[idx[a], 0]
                    for a in range(size):
                        sy += P[a] * rows[idx[a], 1]
                    for a in range(size):
                        so += P[a] * rows[idx[a], 2]
                    return vx + sx / m, vy + sy / m, om + so / J
            # the next combination of ``size`` of the ``n`` contacts (itertools.combinations' order)
            i = size - 1
            while i >= 0 and idx[i] == i + n - size:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, size):
                idx[j] = idx[j - 1] + 1
    return math.nan, math.nan, math.nan


# -- a drive's wall events on these (its walls block from ``wb``, -1 for none; its wheels' codes below ``n_codes``) --
@jit(internal=True)
def settle_contacts(p, wb, n_codes, mode, x, xo):
    """The wall contacts ChassisDrive._settle starts from at state ``x`` (pose from ``xo``): those of ``mode`` and
    every corner touching a wall (none without walls)."""
    if wb < 0:
        return 0
    th = x[xo + 2]
    return contact_mask(mode, n_codes) | touching(p, wb, x[xo], x[xo + 1], math.cos(th), math.sin(th))


@jit(internal=True)
def settle_rounds(n, mask):
    """The rounds ChassisDrive._settle takes at most for ``n`` wheels and the contacts ``mask``."""
    count = 0
    for b in range(4 * N_WALLS):
        count += (mask >> b) & 1
    return 4 * (n + count) + 4


@jit(internal=True)
def settle_step(p, wo, n, slipping, s, mask):
    """One round of ChassisDrive._settle on the sample ``s`` of its trial mode: ``(settled, the wheels' next code,
    the next contacts)``: the first contact whose wall pulls dropped, else the wheels that break away slipping
    (wheel ``slipping`` too), else settled."""
    b = pushing_away(s)
    if b >= 0:
        return False, mode_of_sample(s, n), mask & ~(1 << b)
    if not break_away(p, wo, n, slipping, s):
        return True, 0, mask
    return False, mode_of_sample(s, n), mask


@jit(internal=True)
def impact_reset(p, wb, n_codes, mode, x, xo, m, J):
    """The chassis velocity in ``x`` (field frame from ``xo + 3``) after the plastic impact on the contacts of
    ``mode`` and every corner touching (ChassisDrive._reset_impact after its rims' snap; ``m`` kg, ``J`` kg·m²)."""
    th = x[xo + 2]
    c, sn = math.cos(th), math.sin(th)
    xv, yv = x[xo + 3], x[xo + 4]
    mask = contact_mask(mode, n_codes) | touching(p, wb, x[xo], x[xo + 1], c, sn)
    vx, vy, om = impact(p, wb, mask, c * xv + sn * yv, -sn * xv + c * yv, x[xo + 5], c, sn, m, J)
    x[xo + 3], x[xo + 4], x[xo + 5] = c * vx - sn * vy, sn * vx + c * vy, om


@jit(internal=True)
def pose_wall_guard(p, wb, n_codes, mode, w, x, xo):
    """Wall ``w``'s guard at state ``x`` in ``mode`` (:func:`wall_guard` at its pose)."""
    th = x[xo + 2]
    return wall_guard(p, wb, contact_mask(mode, n_codes), w, x[xo], x[xo + 1], math.cos(th), math.sin(th))
