"""The physical tank drive in kernel form: two motor channels, the chassis on one axle, traction modes and events.

The physics is documented in :mod:`simcore.models.tank` (:class:`TankDrive`) and
:mod:`simcore.models.chassis` (:class:`Chassis`, :class:`ChassisDrive`); :meth:`TankDrive.kernel_parameters`
derives the parameter vector ``p`` (``TP_*`` of :mod:`simcore.kernel.tank_layout`). This module is the
drive without load transfer or walls: both sides' wheels on one axle through the centre of mass, or on up to
``MAX_AXLES`` axles with sideways scrub (a regularized Coulomb law per contact), each side rolling or slipping
(exact Coulomb friction with modes). It is the one form of that
evaluation (:func:`evaluate`): :class:`TankDrive` calls it on its own path, and the compiled segment
through :mod:`simcore.kernel.parts`, so both give the same bits. The arithmetic is the Python forms', operation
for operation (``Chassis.solve_axle``'s and ``Chassis.solve_fixed``'s sums and Cramer's rule, ``ChassisDrive``'s
resets and settling).

A mode is an integer ``3 w_L + w_R`` (each wheel's index into ``TANK_WHEEL_MODES``: roll, forward, backward).
The events (``EV_TANK_*``): a rolling side's ``breakaway`` (the force rolling takes reaches ``mu N`` times
``1 + BREAKAWAY_MARGIN``) and a slipping side's ``grip`` (its slip back to zero); each resets the rims of the
rolling (or just gripping) sides to their ground speed, books the kinetic energy that removes as impact loss,
and settles the modes.
"""
from __future__ import annotations

import math

import numpy as np

from .battery import curve_at
from .channels import add_supply_piece, channel
from .jit import jit_allocating as jit  # (its functions make scratch arrays)
from .tank_layout import AX_LOAD0_L, AX_LOAD0_R, AX_MU, AX_X, N_AXLE, TP_AXLES, TP_N_AXLES, TP_SCRUB, TP_SLIP_EPS2
from .tank_layout import TP_WLX_L, TP_WLX_R, TP_WLY_L, TP_WLY_R, TS_FREE, TS_LATERAL, TS_NORMAL
from .tank_layout import (CH_APPLIED, CH_FRICTION_TORQUE, CH_LIMITED, CH_MOTOR_TORQUE, CH_OUTPUT_TORQUE,
                          CH_SATURATED, CH_STATOR, CH_SUPPLY, EV_TANK_BREAKAWAY_LEFT, EV_TANK_BREAKAWAY_RIGHT,
                          EV_TANK_GRIP_LEFT_BACKWARD, EV_TANK_GRIP_LEFT_FORWARD, EV_TANK_GRIP_RIGHT_BACKWARD,
                          EV_TANK_GRIP_RIGHT_FORWARD, N_TANK_SAMPLE, TANK_GUARD_BASE, TP_B_ROTOR, TP_BRAKE_L,
                          TP_BRAKE_R, TP_BUS, TP_CONDUCTANCE, TP_CONVERSION, TP_DUTY, TP_EFFICIENCY, TP_EXTERNAL,
                          TP_GEARING, TP_INV_KV, TP_K, TP_KT, TP_KV, TP_LIMITED, TP_LOAD0_L, TP_LOAD0_R, TP_MASS,
                          TP_MOI, TP_MU, TP_MU_BREAKAWAY, TP_MW, TP_R, TP_RB, TP_STATOR_LIMIT, TP_SUPPLY_LIMIT,
                          TP_TRACK_ENERGY, TP_TRACK_WIDTH, TP_TRACTION, TP_WHEEL_RADIUS, TS_ALPHA, TS_AX, TS_AY,
                          TS_BUS, TS_CHANNEL_L, TS_CHANNEL_R, TS_COS, TS_EXTERNAL_POWER, TS_F_L, TS_F_R,
                          TS_FRICTION_POWER, TS_NORMAL_L, TS_NORMAL_R, TS_OM, TS_ROTOR_L, TS_ROTOR_R, TS_SIN,
                          TS_SLIP_FREE_L, TS_SLIP_FREE_R, TS_SLIP_L, TS_SLIP_R, TS_V, TS_VLAT, TS_WA_L, TS_WA_R,
                          TS_WS_L, TS_WS_R)

#: Traction modes of a wheel (simcore.models.chassis' ROLL, FORWARD, BACKWARD).
ROLL, FORWARD, BACKWARD = 0, 1, -1
#: simcore.models.chassis' BREAKAWAY_MARGIN and GRIP_SPEED (checked equal by the tests).
GRIP_SPEED = 1e-9
#: The state slots of the chassis velocity with a traction limit, and the first energy state's without / with one.
I_VELOCITY, I_YAW_RATE = 7, 8
#: The energy states from here (with a traction limit two later); impact_loss is the sixth.
I_ENERGY_ROLLING, I_ENERGY_TRACTION = 7, 9
IMPACT_LOSS = 5


@jit(internal=True)
def wheel_mode(mode, side):
    """Side ``side``'s traction mode (ROLL, FORWARD, BACKWARD) in the tank's mode ``mode``."""
    idx = mode // 3 if side == 0 else mode % 3
    return 0 if idx == 0 else (1 if idx == 1 else -1)


@jit
def mode_of(wl, wr):
    """The tank's mode code of the wheel modes ``(wl, wr)``."""
    return 3 * (wl if wl >= 0 else 2) + (wr if wr >= 0 else 2)


@jit(internal=True)
def _energy_index(p, po):
    return (I_ENERGY_TRACTION if p[po + TP_TRACTION] != 0.0 else I_ENERGY_ROLLING) + (
        1 if p[po + TP_SCRUB] != 0.0 else 0)


@jit(internal=True)
def _lateral_index(p, po):
    """The slot of the sideways velocity state (with scrub)."""
    return I_ENERGY_TRACTION if p[po + TP_TRACTION] != 0.0 else I_ENERGY_ROLLING


@jit(internal=True)
def _channel_into(p, po, w, cmd, brk, bus, s, so):
    v, i, isup, sat, lim, tm, to, tf = channel(w, cmd, brk, bus, p[po + TP_R], p[po + TP_INV_KV], p[po + TP_KV],
                                               p[po + TP_KT], p[po + TP_GEARING], p[po + TP_EFFICIENCY],
                                               p[po + TP_B_ROTOR], p[po + TP_LIMITED] != 0.0,
                                               p[po + TP_DUTY] != 0.0, p[po + TP_STATOR_LIMIT],
                                               p[po + TP_SUPPLY_LIMIT])
    s[so + CH_APPLIED], s[so + CH_STATOR], s[so + CH_SUPPLY] = v, i, isup
    s[so + CH_SATURATED], s[so + CH_LIMITED] = sat, lim
    s[so + CH_MOTOR_TORQUE], s[so + CH_OUTPUT_TORQUE], s[so + CH_FRICTION_TORQUE] = tm, to, tf


@jit
def axle_solution(m, J, k0, k1, ar0, ar1, roll0, roll1, slip0, slip1, d0, d1, fext_x, torque):
    """The chassis on two wheels on one axle through the centre of mass (Chassis.solve_axle): mass ``m`` kg,
    moment of inertia ``J`` kg·m², the wheels' rotating masses ``k0``, ``k1`` kg at the rim, their arms (their
    ``-y``, m), whether each rolls, a slipping one's ground force N, the drive forces at the rims ``d0``, ``d1`` N,
    the external force along the robot's x N and the yaw torque N·m.

    Returns ``(A_x m/s², alpha rad/s², f0, f1 N, a0, a1 m/s²)``: the chassis' accelerations, each wheel's force
    on the robot and its rim's acceleration. The 2x2 system in ``A_x`` and ``alpha`` by Cramer's rule (the general
    3x3's sums with their zero terms left out).
    """
    a00, a02, a22 = m, 0.0, J
    if roll0:
        a00 += k0
        a02 += k0 * ar0
        a22 += k0 * ar0 * ar0
    if roll1:
        a00 += k1
        a02 += k1 * ar1
        a22 += k1 * ar1 * ar1
    det = a00 * a22 - a02 * a02
    f0 = d0 if roll0 else slip0
    f1 = d1 if roll1 else slip1
    b0 = fext_x + f0 + f1
    b2 = torque + f0 * ar0 + f1 * ar1
    ax = (b0 * a22 - b2 * a02) / det
    alpha = (b2 * a00 - b0 * a02) / det
    # A rolling wheel's force is what the constraint needs; a slipping one's rim obeys its own dynamics.
    if roll0:
        f0, a0 = f0 - k0 * ax - k0 * ar0 * alpha, ax + ar0 * alpha
    else:
        a0 = (d0 - f0) / k0
    if roll1:
        f1, a1 = f1 - k1 * ax - k1 * ar1 * alpha, ax + ar1 * alpha
    else:
        a1 = (d1 - f1) / k1
    return ax, alpha, f0, f1, a0, a1


@jit(internal=True)
def _scrub_solution(p, po, wl_mode, wr_mode, d0, d1, h, fext_x, fext_y, torque, vlat, om, s):
    """The chassis on its axles with sideways scrub (Chassis.solve_fixed with its _fixed_matrix, the tank's
    geometry: traction along x, arms ``-rb``, ``rb``, couples 1; no load transfer or walls): the contacts' sideways
    slips, forces and loads into ``s``; returns ``(A_x, A_y, alpha, f0, f1, a0, a1)``. ``h``: the part of the
    ground acceleration along x that is not an unknown (``omega v_y``); ``fext_*``, ``torque``: the external force
    (robot frame) and torque."""
    m, J, mw, rb = p[po + TP_MASS], p[po + TP_MOI], p[po + TP_MW], p[po + TP_RB]
    # The matrix of the wheels' modes (rows A_x, A_y, alpha; each entry's terms in wheel order).
    a00, a01, a02 = m, 0.0, 0.0
    a10, a11, a12 = 0.0, m, 0.0
    a20, a21, a22 = 0.0, 0.0, J
    fxs = np.empty(2)
    fys = np.empty(2)
    fas = np.empty(2)
    f0s = np.empty(2)
    for i in range(2):
        mode = wl_mode if i == 0 else wr_mode
        ar = -rb if i == 0 else rb
        if mode == ROLL:
            kk = mw / (1.0 * 1.0)
            fx, fy, fa = -kk * 1.0, -kk * 0.0, -kk * ar
        else:
            lim = mode * p[po + TP_MU]
            f0s[i] = lim * (p[po + TP_LOAD0_L] if i == 0 else p[po + TP_LOAD0_R])
            fx = lim * (p[po + TP_WLX_L] if i == 0 else p[po + TP_WLX_R])
            fy = lim * (p[po + TP_WLY_L] if i == 0 else p[po + TP_WLY_R])
            fa = 0.0
        fxs[i], fys[i], fas[i] = fx, fy, fa
        a00 -= fx * 1.0
        a01 -= fy * 1.0
        a02 -= fa * 1.0
        a10 -= fx * 0.0
        a11 -= fy * 0.0
        a12 -= fa * 0.0
        a20 -= fx * ar
        a21 -= fy * ar
        a22 -= fa * ar
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    kx0, kx1, kx2 = c00, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11
    ky0, ky1, ky2 = c01, a00 * a22 - a02 * a20, a02 * a10 - a00 * a12
    ka0, ka1, ka2 = c02, a01 * a20 - a00 * a21, a00 * a11 - a01 * a10
    # The contacts' sideways slips and regularized Coulomb forces, on the loads at rest.
    n_contacts = 2 * int(p[po + TP_N_AXLES])
    eps2 = p[po + TP_SLIP_EPS2]
    for j in range(n_contacts):
        ax_o = po + TP_AXLES + N_AXLE * (j // 2)
        sn_j = vlat + om * p[ax_o + AX_X]
        coef = p[ax_o + AX_MU] * sn_j / math.sqrt(sn_j * sn_j + eps2)
        load = p[ax_o + (AX_LOAD0_L if j % 2 == 0 else AX_LOAD0_R)]
        s[TS_LATERAL + j] = sn_j
        s[TS_NORMAL + j] = load
        s[TS_FREE + j] = -coef * load
    b0, b1, b2 = fext_x, fext_y, torque
    for i in range(2):
        mode = wl_mode if i == 0 else wr_mode
        ar = -rb if i == 0 else rb
        if mode == ROLL:
            f0s[i] = ((d0 if i == 0 else d1) - mw * h / 1.0) / 1.0
        b0 += f0s[i] * 1.0
        b1 += f0s[i] * 0.0
        b2 += f0s[i] * ar
    for j in range(n_contacts):
        g0 = s[TS_FREE + j]
        if g0 != 0.0:
            b0 += g0 * 0.0
            b1 += g0 * 1.0
            b2 += g0 * p[po + TP_AXLES + N_AXLE * (j // 2) + AX_X]
    ax = (b0 * kx0 + b1 * kx1 + b2 * kx2) / det
    ay = (b0 * ky0 + b1 * ky1 + b2 * ky2) / det
    alpha = (b0 * ka0 + b1 * ka1 + b2 * ka2) / det
    f = np.empty(2)
    wa = np.empty(2)
    for i in range(2):
        mode = wl_mode if i == 0 else wr_mode
        ar = -rb if i == 0 else rb
        fi = f0s[i] + fxs[i] * ax + fys[i] * ay + fas[i] * alpha
        f[i] = fi
        if mode == ROLL:
            wa[i] = (1.0 * ax + 0.0 * ay + ar * alpha + h) / 1.0
        else:
            wa[i] = ((d0 if i == 0 else d1) - fi * 1.0 - 0.0) / mw
    return ax, ay, alpha, f[0], f[1], wa[0], wa[1]


@jit
def evaluate(p, po, wl_mode, wr_mode, x, xo, u, uo, s):
    """The drive at state ``x`` and inputs ``u`` with the wheels in modes ``(wl_mode, wr_mode)``: every quantity
    the derivatives, the outputs, the guards and the resets read, into ``s`` (``TS_*`` slots)
    (TankDrive._evaluate with Chassis.solve_axle)."""
    traction = p[po + TP_TRACTION] != 0.0
    th = x[xo + 2]
    c, sn = math.cos(th), math.sin(th)
    rb = p[po + TP_RB]
    vl, vr = x[xo + 3], x[xo + 4]
    if traction:
        v, om = x[xo + I_VELOCITY], x[xo + I_YAW_RATE]
        gl, gr = v - om * rb, v + om * rb
        wl = gl if wl_mode == ROLL else vl
        wr = gr if wr_mode == ROLL else vr
    else:
        v, om = 0.5 * (vl + vr), (vr - vl) / p[po + TP_TRACK_WIDTH]
        gl, gr, wl, wr = vl, vr, vl, vr
    scrub = p[po + TP_SCRUB] != 0.0
    vlat = x[xo + _lateral_index(p, po)] if scrub else 0.0
    k = p[po + TP_K]
    rotor_l, rotor_r = k * wl, k * wr
    bus = u[uo + int(p[po + TP_BUS])]
    _channel_into(p, po, rotor_l, u[uo + 0], u[uo + int(p[po + TP_BRAKE_L])], bus, s, TS_CHANNEL_L)
    _channel_into(p, po, rotor_r, u[uo + 1], u[uo + int(p[po + TP_BRAKE_R])], bus, s, TS_CHANNEL_R)
    r = p[po + TP_WHEEL_RADIUS]
    d0 = s[TS_CHANNEL_L + CH_OUTPUT_TORQUE] / r
    d1 = s[TS_CHANNEL_R + CH_OUTPUT_TORQUE] / r
    ie = uo + int(p[po + TP_EXTERNAL])
    fx, fy, tz = u[ie], u[ie + 1], u[ie + 2]
    load0_l, load0_r = p[po + TP_LOAD0_L], p[po + TP_LOAD0_R]
    roll0, roll1 = wl_mode == ROLL, wr_mode == ROLL
    mw = p[po + TP_MW]
    if scrub:
        ax, ay, alpha, f0, f1, a0, a1 = _scrub_solution(p, po, wl_mode, wr_mode, d0, d1, om * vlat, c * fx + sn * fy,
                                                        -sn * fx + c * fy, tz, vlat, om, s)
        s[TS_AX], s[TS_AY], s[TS_ALPHA] = ax, ay, alpha
    else:
        ax, alpha, f0, f1, a0, a1 = axle_solution(
            p[po + TP_MASS], p[po + TP_MOI], mw, mw, -rb, rb, roll0, roll1,
            0.0 if roll0 else wl_mode * p[po + TP_MU] * load0_l,
            0.0 if roll1 else wr_mode * p[po + TP_MU] * load0_r, d0, d1, c * fx + sn * fy, tz)
        s[TS_AX], s[TS_AY], s[TS_ALPHA] = ax, om * v, alpha
        s[TS_NORMAL], s[TS_NORMAL + 1] = load0_l, load0_r
        s[TS_FREE], s[TS_FREE + 1] = 0.0, 0.0
        s[TS_LATERAL], s[TS_LATERAL + 1] = 0.0, 0.0
    s[TS_F_L], s[TS_F_R], s[TS_WA_L], s[TS_WA_R] = f0, f1, a0, a1
    s[TS_NORMAL_L], s[TS_NORMAL_R] = load0_l, load0_r
    sl, sr = vl - gl, vr - gr
    s[TS_SLIP_FREE_L], s[TS_SLIP_FREE_R] = sl, sr
    sl = 0.0 if roll0 else sl
    sr = 0.0 if roll1 else sr
    s[TS_SLIP_L], s[TS_SLIP_R] = sl, sr
    s[TS_V], s[TS_VLAT], s[TS_OM] = v, vlat, om
    s[TS_WS_L], s[TS_WS_R] = wl, wr
    s[TS_ROTOR_L], s[TS_ROTOR_R] = rotor_l, rotor_r
    s[TS_COS], s[TS_SIN], s[TS_BUS] = c, sn, bus
    if p[po + TP_TRACK_ENERGY] != 0.0:
        tf0, tf1 = s[TS_CHANNEL_L + CH_FRICTION_TORQUE], s[TS_CHANNEL_R + CH_FRICTION_TORQUE]
        fric = tf0 * rotor_l + tf1 * rotor_r + f0 * sl + f1 * sr
        if scrub:
            scrubbing = 0.0
            for j in range(2 * int(p[po + TP_N_AXLES])):
                scrubbing += s[TS_FREE + j] * s[TS_LATERAL + j]
            fric -= scrubbing
        s[TS_FRICTION_POWER] = fric
        s[TS_EXTERNAL_POWER] = fx * (c * v - sn * vlat) + fy * (sn * v + c * vlat) + tz * om
    else:
        s[TS_FRICTION_POWER] = 0.0
        s[TS_EXTERNAL_POWER] = 0.0


@jit
def derivatives(p, po, mode, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (TankDrive.derivatives)."""
    s = np.empty(N_TANK_SAMPLE)
    evaluate(p, po, wheel_mode(mode, 0), wheel_mode(mode, 1), x, xo, u, uo, s)
    v, vlat, om = s[TS_V], s[TS_VLAT], s[TS_OM]
    c, sn = s[TS_COS], s[TS_SIN]
    out[xo + 0] = c * v - sn * vlat
    out[xo + 1] = sn * v + c * vlat
    out[xo + 2] = om
    out[xo + 3] = s[TS_WA_L]
    out[xo + 4] = s[TS_WA_R]
    out[xo + 5] = s[TS_WS_L]
    out[xo + 6] = s[TS_WS_R]
    if p[po + TP_TRACTION] != 0.0:
        out[xo + I_VELOCITY] = s[TS_AX] + om * vlat
        out[xo + I_YAW_RATE] = s[TS_ALPHA]
    if p[po + TP_SCRUB] != 0.0:
        out[xo + _lateral_index(p, po)] = s[TS_AY] - om * v
    if p[po + TP_TRACK_ENERGY] != 0.0:
        e = xo + _energy_index(p, po)
        cl, cr = TS_CHANNEL_L, TS_CHANNEL_R
        i0, i1 = s[cl + CH_STATOR], s[cr + CH_STATOR]
        rotor0, rotor1 = s[TS_ROTOR_L], s[TS_ROTOR_R]
        r = p[po + TP_WHEEL_RADIUS]
        out[e] = s[TS_BUS] * (s[cl + CH_SUPPLY] + s[cr + CH_SUPPLY])
        out[e + 1] = (i0 * i0 + i1 * i1) * p[po + TP_R]
        out[e + 2] = (i0 * rotor0 + i1 * rotor1) * p[po + TP_CONVERSION]
        gear = 0.0
        gear += (s[cl + CH_MOTOR_TORQUE] - s[cl + CH_FRICTION_TORQUE]) * rotor0 \
            - s[cl + CH_OUTPUT_TORQUE] * s[TS_WS_L] / r
        gear += (s[cr + CH_MOTOR_TORQUE] - s[cr + CH_FRICTION_TORQUE]) * rotor1 \
            - s[cr + CH_OUTPUT_TORQUE] * s[TS_WS_R] / r
        out[e + 3] = gear
        out[e + 4] = s[TS_FRICTION_POWER]
        out[e + 5] = 0.0
        out[e + 6] = s[TS_EXTERNAL_POWER]


@jit(internal=True)
def chassis_velocity(p, po, x, xo):
    """(forward speed m/s, sideways speed m/s, yaw rate rad/s), robot frame (TankDrive._chassis_velocity)."""
    vlat = x[xo + _lateral_index(p, po)] if p[po + TP_SCRUB] != 0.0 else 0.0
    if p[po + TP_TRACTION] != 0.0:
        return x[xo + I_VELOCITY], vlat, x[xo + I_YAW_RATE]
    vl, vr = x[xo + 3], x[xo + 4]
    return 0.5 * (vl + vr), vlat, (vr - vl) / p[po + TP_TRACK_WIDTH]


@jit
def kinetic_energy(p, po, x, xo):
    """Kinetic energy of the chassis and the sides' rotating parts, J (TankDrive.kinetic_energy)."""
    v, vlat, om = chassis_velocity(p, po, x, xo)
    vl, vr = x[xo + 3], x[xo + 4]
    return 0.5 * (p[po + TP_MASS] * (v * v + vlat * vlat) + p[po + TP_MOI] * om * om
                  + p[po + TP_MW] * (vl * vl + vr * vr))


@jit
def outputs(p, po, mode, x, xo, u, uo, out, yo):
    """Write the outputs (``n_tank_outputs(axles)`` slots, TankDrive.outputs' order; see the layout for the first
    four) at state ``x`` and inputs ``u`` into ``out[yo:]``."""
    s = np.empty(N_TANK_SAMPLE)
    evaluate(p, po, wheel_mode(mode, 0), wheel_mode(mode, 1), x, xo, u, uo, s)
    v, vlat, om = s[TS_V], s[TS_VLAT], s[TS_OM]
    o = yo
    if p[po + TP_TRACTION] != 0.0:
        out[o], out[o + 1], out[o + 2], out[o + 3] = s[TS_SLIP_L], s[TS_SLIP_R], s[TS_F_L], s[TS_F_R]
    else:
        out[o], out[o + 1], out[o + 2], out[o + 3] = v, om, math.nan, math.nan
    cl, cr = TS_CHANNEL_L, TS_CHANNEL_R
    out[o + 4] = s[TS_AX] + om * vlat
    out[o + 5] = s[TS_ALPHA]
    out[o + 6] = s[cl + CH_SUPPLY] + s[cr + CH_SUPPLY]
    out[o + 7] = kinetic_energy(p, po, x, xo)
    k = p[po + TP_GEARING] / p[po + TP_WHEEL_RADIUS]
    bus = s[TS_BUS]
    o += 8
    for side in range(2):
        ch = cl if side == 0 else cr
        a = s[TS_WA_L] if side == 0 else s[TS_WA_R]
        out[o] = a
        out[o + 1] = k * x[xo + 5 + side]
        out[o + 2] = s[TS_ROTOR_L] if side == 0 else s[TS_ROTOR_R]
        out[o + 3] = k * a
        out[o + 4] = s[ch + CH_STATOR]
        out[o + 5] = s[ch + CH_SUPPLY]
        out[o + 6] = s[ch + CH_APPLIED]
        out[o + 7] = bus
        out[o + 8] = s[ch + CH_OUTPUT_TORQUE]
        out[o + 9] = s[ch + CH_MOTOR_TORQUE]
        out[o + 10] = s[ch + CH_SATURATED]
        out[o + 11] = s[ch + CH_LIMITED]
        o += 12
    out[o] = bus
    o += 1
    n_contacts = 2 * int(p[po + TP_N_AXLES]) if p[po + TP_SCRUB] != 0.0 else 2
    for j in range(n_contacts):
        out[o + j] = s[TS_NORMAL + j]
    if p[po + TP_SCRUB] != 0.0:
        out[o + n_contacts] = s[TS_AY] - om * v


# -- events -------------------------------------------------------------------------------------------------
#: Per event: the side it watches, and the sign its grip guard takes of the slip (0 for a breakaway).
EVENT_SIDE = np.array([0, 1, 0, 0, 1, 1], dtype=np.int64)
EVENT_SLIP_SIGN = np.array([0.0, 0.0, -1.0, 1.0, -1.0, 1.0])


@jit
def active_events(p, po, mode, ids):
    """The events armed in ``mode`` (ids into ``ids``, side by side as ChassisDrive.events lists them)."""
    if p[po + TP_TRACTION] == 0.0:
        return 0
    n = 0
    for side in range(2):
        m = wheel_mode(mode, side)
        if m == ROLL:
            ids[n] = EV_TANK_BREAKAWAY_LEFT if side == 0 else EV_TANK_BREAKAWAY_RIGHT
        elif m == FORWARD:
            ids[n] = EV_TANK_GRIP_LEFT_FORWARD if side == 0 else EV_TANK_GRIP_RIGHT_FORWARD
        else:
            ids[n] = EV_TANK_GRIP_LEFT_BACKWARD if side == 0 else EV_TANK_GRIP_RIGHT_BACKWARD
        n += 1
    return n


@jit
def guard(p, po, mode, code, x, xo, u, uo):
    """The value of guard ``code`` (an event's id plus TANK_GUARD_BASE) in ``mode`` at state ``x`` and inputs ``u``:
    a breakaway's ``|f| - mu (1 + margin) N``, a grip's signed slip."""
    ev = code - TANK_GUARD_BASE
    s = np.empty(N_TANK_SAMPLE)
    evaluate(p, po, wheel_mode(mode, 0), wheel_mode(mode, 1), x, xo, u, uo, s)
    side = EVENT_SIDE[ev]
    if ev == EV_TANK_BREAKAWAY_LEFT or ev == EV_TANK_BREAKAWAY_RIGHT:
        f = s[TS_F_L] if side == 0 else s[TS_F_R]
        return abs(f) - p[po + TP_MU_BREAKAWAY] * (s[TS_NORMAL_L] if side == 0 else s[TS_NORMAL_R])
    return EVENT_SLIP_SIGN[ev] * (s[TS_SLIP_L] if side == 0 else s[TS_SLIP_R])


@jit
def settle(p, po, mode, slipping, x, xo, u, uo):
    """The consistent mode at state ``x`` (ChassisDrive._settle): each side slipping the way it slips, or rolling
    (its slip within GRIP_SPEED), a rolling side breaking away where rolling would take more than its limit, and
    side ``slipping`` (whose breakaway fired; -1: none) slipping the way its force pushes."""
    s = np.empty(N_TANK_SAMPLE)
    evaluate(p, po, ROLL, ROLL, x, xo, u, uo, s)
    traction = p[po + TP_TRACTION] != 0.0
    w0, w1 = ROLL, ROLL
    if traction:
        sl, sr = s[TS_SLIP_FREE_L], s[TS_SLIP_FREE_R]
        w0 = ROLL if abs(sl) <= GRIP_SPEED else (FORWARD if sl > 0.0 else BACKWARD)
        w1 = ROLL if abs(sr) <= GRIP_SPEED else (FORWARD if sr > 0.0 else BACKWARD)
    # Sides only go from rolling to slipping here, so this ends within three evaluations (the Python form's bound
    # of 12 is never reached).
    for _ in range(12):
        evaluate(p, po, w0, w1, x, xo, u, uo, s)
        changed = False
        if traction:
            lim = p[po + TP_MU_BREAKAWAY]
            if w0 == ROLL and (slipping == 0 or abs(s[TS_F_L]) > lim * s[TS_NORMAL_L]):
                w0 = FORWARD if s[TS_F_L] > 0.0 else BACKWARD
                changed = True
            if w1 == ROLL and (slipping == 1 or abs(s[TS_F_R]) > lim * s[TS_NORMAL_R]):
                w1 = FORWARD if s[TS_F_R] > 0.0 else BACKWARD
                changed = True
        if not changed:
            break
    return mode_of(w0, w1)


@jit
def initial_mode(p, po, x, xo, u, uo):
    """The mode at the start (ChassisDrive.initial_mode without walls or load transfer)."""
    return settle(p, po, 0, -1, x, xo, u, uo)


@jit
def fire(p, po, mode, ev_id, x, xo, u, uo):
    """Apply event ``ev_id``'s reset to ``x`` (in place) and return the mode after it (ChassisDrive._reset_grip,
    then _settle): the rolling sides, and those whose slip is within GRIP_SPEED, set to their ground speed; the
    kinetic energy that removes booked as impact loss."""
    s = np.empty(N_TANK_SAMPLE)
    evaluate(p, po, ROLL, ROLL, x, xo, u, uo, s)
    snap0 = abs(s[TS_SLIP_FREE_L]) <= GRIP_SPEED or wheel_mode(mode, 0) == ROLL
    snap1 = abs(s[TS_SLIP_FREE_R]) <= GRIP_SPEED or wheel_mode(mode, 1) == ROLL
    track = p[po + TP_TRACK_ENERGY] != 0.0
    ke_before = kinetic_energy(p, po, x, xo) if track else 0.0
    if p[po + TP_TRACTION] != 0.0:
        v, om, rb = x[xo + I_VELOCITY], x[xo + I_YAW_RATE], p[po + TP_RB]
        if snap0:
            x[xo + 3] = v + -om * rb
        if snap1:
            x[xo + 4] = v + om * rb
    if track:
        e = xo + _energy_index(p, po) + IMPACT_LOSS
        x[e] += ke_before - kinetic_energy(p, po, x, xo)
    breakaway = ev_id == EV_TANK_BREAKAWAY_LEFT or ev_id == EV_TANK_BREAKAWAY_RIGHT
    return settle(p, po, mode, EVENT_SIDE[ev_id] if breakaway else -1, x, xo, u, uo)


# -- the battery's load -----------------------------------------------------------------------------------------
@jit(internal=True)
def rotor_speeds(p, po, mode, x, xo):
    """Both sides' rotor speeds, rad/s, in ``mode`` (TankDrive._rotor_speeds: a rolling side's rim at its ground
    speed)."""
    k = p[po + TP_K]
    if p[po + TP_TRACTION] == 0.0:
        return k * x[xo + 3], k * x[xo + 4]
    v, om, rb = x[xo + I_VELOCITY], x[xo + I_YAW_RATE], p[po + TP_RB]
    return (k * (v - om * rb if wheel_mode(mode, 0) == ROLL else x[xo + 3]),
            k * (v + om * rb if wheel_mode(mode, 1) == ROLL else x[xo + 4]))


@jit(internal=True)
def gives_curve(p, po):
    """Whether the drive's supply current is a curve of the bus voltage (no current limits)."""
    return p[po + TP_LIMITED] == 0.0


@jit
def add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, nb):
    """Add both sides' supply curve (MotorChannels.supply_curve: SupplyCurve.add_motors) to ``abc`` (a, b, c)
    and their breakpoints to ``breaks`` from row ``nb``; returns the number of rows then."""
    w0, w1 = rotor_speeds(p, po, mode, x, xo)
    g, inv_kv, duty = p[po + TP_CONDUCTANCE], p[po + TP_INV_KV], p[po + TP_DUTY] != 0.0
    for side in range(2):
        w = w0 if side == 0 else w1
        brk = u[uo + int(p[po + (TP_BRAKE_L if side == 0 else TP_BRAKE_R)])]
        nb = add_supply_piece(abc, breaks, nb, g, w * inv_kv, duty, u[uo + side], brk)
    return nb


@jit
def supply_current_at(p, po, mode, x, xo, u, uo, bus_voltage):
    """Both sides' supply current, A, at bus voltage ``bus_voltage`` V (TankDrive.supply_current_at)."""
    if p[po + TP_LIMITED] == 0.0 and bus_voltage > 0.0:
        abc = np.zeros(3)
        breaks = np.empty((2, 4))
        nb = add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, 0)
        return curve_of(abc, breaks, nb, bus_voltage)
    w0, w1 = rotor_speeds(p, po, mode, x, xo)
    s = np.empty(N_TANK_SAMPLE)
    _channel_into(p, po, w0, u[uo + 0], u[uo + int(p[po + TP_BRAKE_L])], bus_voltage, s, TS_CHANNEL_L)
    _channel_into(p, po, w1, u[uo + 1], u[uo + int(p[po + TP_BRAKE_R])], bus_voltage, s, TS_CHANNEL_R)
    return 0.0 + s[TS_CHANNEL_L + CH_SUPPLY] + s[TS_CHANNEL_R + CH_SUPPLY]


@jit
def curve_of(abc, breaks, nb, voltage):
    """The curve ``abc`` with breakpoint rows ``breaks[:nb]`` (in the order added) at ``voltage``, A."""
    return curve_at(abc[0], abc[1], abc[2], breaks[:nb], voltage)


@jit(internal=True)
def bus_input(p, po):
    """The slot of the ``bus_voltage`` input among the drive's inputs."""
    return int(p[po + TP_BUS])
