"""The mecanum drive in kernel form: four motor channels, the chassis on four rollers, traction modes and events.

The physics is documented in :mod:`simcore.models.mecanum` (:class:`MecanumDrive`) and
:mod:`simcore.models.chassis`; :meth:`MecanumDrive.kernel_parameters` derives the parameter vector ``p``
(``MP_*`` of :mod:`simcore.kernel.mecanum_layout`, then a wheel block per wheel, the odometry pods' and the walls
block). This module is the drive without load transfer: each wheel's roller grips or slides along its axle (exact
Coulomb friction with modes) and rolls across it against its rolling resistance (a regularized Coulomb law), the
bumper's corners against the field's walls, on the chassis core
(:func:`simcore.kernel.chassis.solve`). It is the one form of that evaluation (:func:`evaluate`): the model calls
it on its own path and the compiled segment through :mod:`simcore.kernel.parts`, so both give the same bits. The
arithmetic is the Python forms', operation for operation (``MecanumDrive._kinematics``, ``_rims_of`` and
``_evaluate``, ``Chassis.solve_fixed``, ``ChassisDrive``'s resets and settling).

A mode is an integer ``27 w_0 + 9 w_1 + 3 w_2 + w_3`` (each wheel's index into ``MECANUM_WHEEL_MODES``), plus 81
times the index of its wall contacts among :data:`simcore.kernel.chassis_layout.CONTACT_SETS`. The events: a
rolling wheel's ``breakaway`` (the force rolling takes reaches ``mu N`` times ``1 + BREAKAWAY_MARGIN``) and a
slipping wheel's ``grip`` (its slip along the roller axle back to zero), each resetting the rims of the rolling (or
just gripping) wheels to their ground speed; a wall's ``wall`` (a corner reaching it: the plastic impact); a wall
contact's ``leave_wall`` (its push back to zero). Each books the kinetic energy its reset removes as impact loss,
and settles the modes.
"""
from __future__ import annotations

import math

import numpy as np

from .battery import curve_at
from .chassis import (GRIP_SPEED, contact_mask, impact_reset, pose_rates, pose_wall_guard, settle_contacts,
                      settle_rounds, settle_step, slip_mode, solve, total_wall_force, traction_guard, wall_events,
                      wall_force, wall_rows, with_contacts)
from .chassis_layout import (N_WHEEL, N_WS, S_ALPHA, S_AX, S_AY, S_BUS, S_N_CONTACTS, S_COS, S_EXTERNAL_POWER, S_FRICTION_POWER,
                             S_OM, S_SIN, S_VX, S_VY, S_WHEELS, W_ARM, W_COUPLE, W_COUPLE_FREE, W_DX, W_DY,
                             W_FREE_ARM, W_NX, W_NY, W_PX, W_PY, WS_ACROSS, WS_ALONG, WS_ARM,
                             WS_CHANNEL, WS_COEF, WS_COUPLE, WS_COUPLE_FREE, WS_D, WS_DX, WS_DY, WS_F, WS_FREE_ARM,
                             WS_FREE_SLIP, WS_G, WS_H, WS_MODE, WS_NORMAL, WS_NX, WS_NY, WS_ROTOR, WS_SLIP,
                             WS_SLIP_FREE, WS_W, WS_WA)
from .channels import add_supply_piece, channel
from .jit import scratch
from .jit import jit_allocating as jit  # (its functions make scratch arrays)
from .mecanum_layout import (EV_MECANUM_BREAKAWAY, EV_MECANUM_GRIP, EV_MECANUM_LEAVE_WALL, EV_MECANUM_WALL,
                             I_ENERGY, I_WHEEL_POSITION, I_WHEEL_VELOCITY,
                             IMPACT_LOSS, MECANUM_GUARD_BASE, MP_B_ROTOR, MP_BRAKE, MP_BUS, MP_CONDUCTANCE,
                             MP_CONVERSION, MP_DUTY, MP_EFFICIENCY, MP_EXTERNAL, MP_GEARING, MP_INV_KV, MP_K, MP_KT,
                             MP_KV, MP_LIMITED, MP_MASS, MP_MOI, MP_R, MP_ROLLER_FRICTION, MP_SLIP_EPS2,
                             MP_STATOR_LIMIT, MP_SUPPLY_LIMIT, MP_TRACK_ENERGY, MP_WHEEL_MASS, MP_WHEEL_RADIUS,
                             MP_WALLS, MP_WHEELS, N_MECANUM_MODES, N_MECANUM_OUTPUTS, N_MECANUM_SAMPLE)
from .mecanum_layout import MP_N_PODS, MP_POD_STATE, MP_PODS, N_POD, PD_COS, PD_RADIUS, PD_SIN, PD_X, PD_Y
from .tank_layout import (CH_APPLIED, CH_FRICTION_TORQUE, CH_MOTOR_TORQUE, CH_OUTPUT_TORQUE, CH_STATOR,
                          CH_SUPPLY)

#: Traction modes of a wheel (simcore.models.chassis' ROLL, FORWARD, BACKWARD; GRIP_SPEED: its grip's, from
#: simcore.kernel.chassis).
ROLL, FORWARD, BACKWARD = 0, 1, -1
N = 4


@jit(internal=True)
def wheel_mode(mode, i):
    """Wheel ``i``'s traction mode (ROLL, FORWARD, BACKWARD) in the drive's mode ``mode``."""
    idx = (mode // (27 if i == 0 else (9 if i == 1 else (3 if i == 2 else 1)))) % 3
    return 0 if idx == 0 else (1 if idx == 1 else -1)


@jit
def mode_of(w0, w1, w2, w3):
    """The drive's mode code of the wheel modes ``(w0, w1, w2, w3)``."""
    return (27 * (w0 if w0 >= 0 else 2) + 9 * (w1 if w1 >= 0 else 2) + 3 * (w2 if w2 >= 0 else 2)
            + (w3 if w3 >= 0 else 2))


@jit
def evaluate(p, po, mode, x, xo, u, uo, s):
    """The drive at state ``x`` and inputs ``u`` in ``mode``: every quantity the derivatives, the outputs, the
    guards and the resets read, into ``s`` (:mod:`simcore.kernel.chassis_layout`'s slots)
    (MecanumDrive._evaluate with Chassis.solve_fixed)."""
    th = x[xo + 2]
    c, sn = math.cos(th), math.sin(th)
    xv, yv, om = x[xo + 3], x[xo + 4], x[xo + 5]
    vx, vy = c * xv + sn * yv, -sn * xv + c * yv
    k = p[po + MP_K]
    r = p[po + MP_WHEEL_RADIUS]
    bus = u[uo + int(p[po + MP_BUS])]
    crr = p[po + MP_ROLLER_FRICTION]
    eps2 = p[po + MP_SLIP_EPS2]
    wo = po + MP_WHEELS
    for i in range(N):
        w = wo + N_WHEEL * i
        q = S_WHEELS + N_WS * i
        px, py, ax, ay, ci = p[w + W_PX], p[w + W_PY], p[w + W_DX], p[w + W_DY], p[w + W_COUPLE]
        # The contact point's velocity (q_x, q_y) = v + omega z x r, along the axle a and across it (n = z x a).
        qx, qy = vx - om * py, vy + om * px
        along, across = qx * ax + qy * ay, qy * ax - qx * ay
        m = wheel_mode(mode, i)
        s[q + WS_MODE] = m
        s[q + WS_DX], s[q + WS_DY], s[q + WS_ARM], s[q + WS_COUPLE] = ax, ay, p[w + W_ARM], ci
        cf = p[w + W_COUPLE_FREE]
        s[q + WS_COUPLE_FREE], s[q + WS_NX], s[q + WS_NY] = cf, p[w + W_NX], p[w + W_NY]
        s[q + WS_FREE_ARM] = p[w + W_FREE_ARM]
        s[q + WS_H] = om * (vy * ax - vx * ay)
        s[q + WS_ALONG], s[q + WS_ACROSS] = along, across
        slip_free = x[xo + I_WHEEL_VELOCITY + i] * ci - along
        s[q + WS_SLIP_FREE] = slip_free
        s[q + WS_SLIP] = 0.0 if m == ROLL else slip_free
        # A rolling wheel's rim follows its roller (the constraint).
        wr = along / ci if m == ROLL else x[xo + I_WHEEL_VELOCITY + i]
        rotor = k * wr
        s[q + WS_W], s[q + WS_ROTOR] = wr, rotor
        o = q + WS_CHANNEL
        (s[o + 0], s[o + 1], s[o + 2], s[o + 3], s[o + 4], s[o + 5], s[o + 6], s[o + 7]) = channel(
            rotor, u[uo + i], u[uo + int(p[po + MP_BRAKE + i])], bus, p[po + MP_R], p[po + MP_INV_KV],
            p[po + MP_KV], p[po + MP_KT], p[po + MP_GEARING], p[po + MP_EFFICIENCY], p[po + MP_B_ROTOR],
            p[po + MP_LIMITED] != 0.0, p[po + MP_DUTY] != 0.0, p[po + MP_STATOR_LIMIT], p[po + MP_SUPPLY_LIMIT])
        s[q + WS_D] = s[o + CH_OUTPUT_TORQUE] / r
        # The roller's rolling speed (v_point - w e) . n and its regularized rolling resistance.
        roll = across - wr * cf
        s[q + WS_FREE_SLIP] = roll
        s[q + WS_COEF] = crr * roll / math.sqrt(roll * roll + eps2) if crr != 0.0 else 0.0
    ie = uo + int(p[po + MP_EXTERNAL])
    fx, fy, tz = u[ie], u[ie + 1], u[ie + 2]
    mask = 0 if p[po + MP_WALLS] == 0.0 else contact_mask(mode, N_MECANUM_MODES)
    if mask > 0:
        wall_rows(p, _walls(p, po), mask, c, sn, om, s)
    else:
        s[S_N_CONTACTS] = 0.0
    solve(p, wo, N, p[po + MP_MASS], p[po + MP_MOI], c * fx + sn * fy, -sn * fx + c * fy, tz, s)
    if mode < 0:  # (a mode no contact set codes: settle found none consistent) the run stops, non-finite
        s[S_AX] = s[S_AY] = s[S_ALPHA] = math.nan
        for i in range(N):
            s[S_WHEELS + N_WS * i + WS_WA] = math.nan
    s[S_COS], s[S_SIN], s[S_VX], s[S_VY], s[S_OM], s[S_BUS] = c, sn, vx, vy, om, bus
    if p[po + MP_TRACK_ENERGY] != 0.0:  # the power terms only the energy ledger integrates
        fric = 0.0
        for i in range(N):
            q = S_WHEELS + N_WS * i
            fric += s[q + WS_CHANNEL + CH_FRICTION_TORQUE] * s[q + WS_ROTOR]
        for i in range(N):
            q = S_WHEELS + N_WS * i
            fric += s[q + WS_F] * s[q + WS_SLIP] - s[q + WS_G] * s[q + WS_FREE_SLIP]
        s[S_FRICTION_POWER] = fric
        s[S_EXTERNAL_POWER] = fx * xv + fy * yv + tz * om
    else:
        s[S_FRICTION_POWER] = 0.0
        s[S_EXTERNAL_POWER] = 0.0


@jit
def derivatives(p, po, mode, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (MecanumDrive.derivatives)."""
    s = np.empty(N_MECANUM_SAMPLE)
    evaluate(p, po, mode, x, xo, u, uo, s)
    pose_rates(x, xo, s, out)
    for i in range(N):
        q = S_WHEELS + N_WS * i
        out[xo + I_WHEEL_VELOCITY + i] = s[q + WS_WA]
        out[xo + I_WHEEL_POSITION + i] = s[q + WS_W]
    if p[po + MP_TRACK_ENERGY] != 0.0:  # in DRIVE_ENERGY_STATES order
        r = p[po + MP_WHEEL_RADIUS]
        supply = copper = conversion = gear = 0.0
        for i in range(N):
            o = S_WHEELS + N_WS * i + WS_CHANNEL
            supply += s[o + CH_SUPPLY]
        for i in range(N):
            o = S_WHEELS + N_WS * i + WS_CHANNEL
            copper += s[o + CH_STATOR] * s[o + CH_STATOR]
        for i in range(N):
            q = S_WHEELS + N_WS * i
            conversion += s[q + WS_CHANNEL + CH_STATOR] * s[q + WS_ROTOR]
        for i in range(N):
            q = S_WHEELS + N_WS * i
            o = q + WS_CHANNEL
            gear += (s[o + CH_MOTOR_TORQUE] - s[o + CH_FRICTION_TORQUE]) * s[q + WS_ROTOR] \
                - s[o + CH_OUTPUT_TORQUE] * s[q + WS_W] / r
        e = xo + I_ENERGY
        out[e] = s[S_BUS] * supply
        out[e + 1] = copper * p[po + MP_R]
        out[e + 2] = conversion * p[po + MP_CONVERSION]
        out[e + 3] = gear
        out[e + 4] = s[S_FRICTION_POWER]
        out[e + 5] = 0.0
        out[e + 6] = s[S_EXTERNAL_POWER]
    ip = xo + int(p[po + MP_POD_STATE])
    for j in range(int(p[po + MP_N_PODS])):  # the odometry pods' rolled distances
        out[ip + j] = pod_rolling_speed(p, po, j, s[S_VX], s[S_VY], s[S_OM])


@jit(internal=True)
def pod_rolling_speed(p, po, j, vx, vy, om):
    """Odometry pod ``j``'s rolling speed, m/s, at the robot-frame chassis velocity (OdometryPod.rolling_speed)."""
    d = po + MP_PODS + N_POD * j
    return (vx - om * p[d + PD_Y]) * p[d + PD_COS] + (vy + om * p[d + PD_X]) * p[d + PD_SIN]


@jit
def kinetic_energy(p, po, x, xo):
    """Kinetic energy of the chassis and the wheels, J (MecanumDrive.kinetic_energy)."""
    spin = 0.0
    for i in range(N):
        w = x[xo + I_WHEEL_VELOCITY + i]
        spin += w * w
    vx, vy, om = x[xo + 3], x[xo + 4], x[xo + 5]
    return 0.5 * (p[po + MP_MASS] * (vx * vx + vy * vy) + p[po + MP_MOI] * (om * om) + p[po + MP_WHEEL_MASS] * spin)


@jit
def outputs(p, po, mode, x, xo, u, uo, out, yo):
    """Write the outputs (``n_mecanum_outputs(pods)`` slots, MecanumDrive.outputs' order without walls) at
    state ``x`` and inputs ``u`` into ``out[yo:]``."""
    s = np.empty(N_MECANUM_SAMPLE)
    evaluate(p, po, mode, x, xo, u, uo, s)
    out[yo] = s[S_VX]
    out[yo + 1] = s[S_VY]
    supply = 0.0
    for i in range(N):
        supply += s[S_WHEELS + N_WS * i + WS_CHANNEL + CH_SUPPLY]
    out[yo + 2] = supply
    out[yo + 3] = kinetic_energy(p, po, x, xo)
    k = p[po + MP_GEARING] / p[po + MP_WHEEL_RADIUS]
    o = yo + 4
    for i in range(N):
        q = S_WHEELS + N_WS * i
        ch = q + WS_CHANNEL
        out[o + i] = abs(s[q + WS_SLIP])
        out[o + 4 + i] = s[ch + CH_STATOR]
        out[o + 8 + i] = s[ch + CH_SUPPLY]
        out[o + 12 + i] = s[ch + CH_APPLIED]
        out[o + 16 + i] = k * x[xo + I_WHEEL_POSITION + i]
        out[o + 20 + i] = s[q + WS_ROTOR]
        out[o + 24 + i] = s[q + WS_FREE_SLIP]
        out[o + 29 + i] = s[q + WS_NORMAL]
    out[o + 28] = s[S_BUS]
    o = yo + N_MECANUM_OUTPUTS
    if p[po + MP_WALLS] != 0.0:
        out[o] = total_wall_force(s)
        o += 1
    ip = xo + int(p[po + MP_POD_STATE])
    for j in range(int(p[po + MP_N_PODS])):  # (OdometryPod readings: the wheel's angle and speed)
        r_pod = p[po + MP_PODS + N_POD * j + PD_RADIUS]
        out[o + 2 * j] = x[ip + j] / r_pod
        out[o + 2 * j + 1] = pod_rolling_speed(p, po, j, s[S_VX], s[S_VY], s[S_OM]) / r_pod


# -- events -------------------------------------------------------------------------------------------------
@jit(internal=True)
def _walls(p, po):
    """The walls block's first slot in ``p``, or -1 for a drive without walls."""
    return -1 if p[po + MP_WALLS] == 0.0 else po + int(p[po + MP_WALLS])


@jit
def active_events(p, po, mode, ids):
    """The events armed in ``mode`` (ids into ``ids``, as ChassisDrive.events lists them: wheel by wheel, then
    the walls' and the wall contacts')."""
    for i in range(N):
        m = wheel_mode(mode, i)
        ids[i] = (EV_MECANUM_BREAKAWAY + i if m == ROLL else
                  EV_MECANUM_GRIP + 2 * i + (0 if m == FORWARD else 1))
    if p[po + MP_WALLS] == 0.0:
        return N
    return wall_events(contact_mask(mode, N_MECANUM_MODES), ids, N, EV_MECANUM_WALL, EV_MECANUM_LEAVE_WALL)


@jit(internal=True)
def _guard_of(p, po, mode, ev, x, xo, u, uo, s, evaluated):
    """``(value, whether s holds the evaluation)`` of event ``ev``'s guard, the drive evaluated into the sample
    ``s`` unless ``evaluated`` says it is already (a wall's guard reads the pose alone)."""
    if EV_MECANUM_WALL <= ev < EV_MECANUM_LEAVE_WALL:  # (the pose alone)
        return pose_wall_guard(p, _walls(p, po), N_MECANUM_MODES, mode, ev - EV_MECANUM_WALL, x, xo), evaluated
    if not evaluated:
        evaluate(p, po, mode, x, xo, u, uo, s)
    if ev >= EV_MECANUM_LEAVE_WALL:
        return wall_force(s, ev - EV_MECANUM_LEAVE_WALL), True
    return traction_guard(p, po + MP_WHEELS, N, ev, s), True


@jit
def guard(p, po, mode, code, x, xo, u, uo):
    """The value of guard ``code`` (an event's id plus MECANUM_GUARD_BASE) in ``mode`` at state ``x`` and inputs
    ``u``: a breakaway's ``|f| - mu (1 + margin) N``, a grip's signed slip, a wall's least gap of the corners not
    on it, a wall contact's push."""
    return _guard_of(p, po, mode, code - MECANUM_GUARD_BASE, x, xo, u, uo, scratch(N_MECANUM_SAMPLE), False)[0]


@jit
def guards(p, po, mode, codes, j0, j1, x, xo, u, uo, out, col):
    """:func:`guard` of ``codes[j]`` into ``out[j, col]`` for each ``j`` in ``[j0, j1)``, at one state ``x`` and
    inputs ``u``, with one evaluation for them all (each value is :func:`guard`'s to the bit: the same
    evaluation, in the same mode)."""
    s = scratch(N_MECANUM_SAMPLE)
    evaluated = False
    for j in range(j0, j1):
        out[j, col], evaluated = _guard_of(p, po, mode, codes[j] - MECANUM_GUARD_BASE, x, xo, u, uo, s, evaluated)


@jit
def settle(p, po, mode, slipping, x, xo, u, uo):
    """The consistent mode at state ``x`` (ChassisDrive._settle): each wheel slipping the way it slips, or rolling
    (its slip within GRIP_SPEED); the wall contacts of ``mode`` and every corner touching a wall; then, until
    nothing changes, the first contact whose wall would pull dropped, else a rolling wheel breaking away where
    rolling would take more than its limit, and wheel ``slipping`` (whose breakaway fired; -1: none) slipping the
    way its force pushes. -1 where no contact set holds the contacts, or nothing settles in the Python form's
    number of rounds (the run then stops with a non-finite derivative, where the Python path raises)."""
    s = np.empty(N_MECANUM_SAMPLE)
    evaluate(p, po, 0, x, xo, u, uo, s)  # every wheel rolling, no wall contact: the slips and the pose
    code = slip_mode(s, N)
    mask = settle_contacts(p, _walls(p, po), N_MECANUM_MODES, mode, x, xo)
    for _ in range(settle_rounds(N, mask)):
        full = with_contacts(code, mask, N_MECANUM_MODES)
        if full < 0:
            return -1
        evaluate(p, po, full, x, xo, u, uo, s)
        settled, code, mask = settle_step(p, po + MP_WHEELS, N, slipping, s, mask)
        if settled:
            return full
    return -1


@jit
def initial_mode(p, po, x, xo, u, uo):
    """The mode at the start (ChassisDrive.initial_mode without load transfer; the pose inside the field is the
    model's check)."""
    return settle(p, po, 0, -1, x, xo, u, uo)  # (every wheel rolling, no contact)


@jit
def fire(p, po, mode, ev_id, x, xo, u, uo):
    """Apply event ``ev_id``'s reset to ``x`` (in place) and return the mode after it (ChassisDrive's resets, then
    _settle). A breakaway or grip: the rolling wheels, and those whose slip is within GRIP_SPEED, set to their
    ground speed (the roller's along its axle over ``e . a``). A wall's: the perfectly plastic impact
    (ChassisDrive._reset_impact: the rolling wheels' rims at their ground speed, then the chassis velocity that
    leaves no touching corner moving into its wall, Chassis.impact). A leave_wall: none. The kinetic energy a reset
    removes is booked as impact loss."""
    if ev_id >= EV_MECANUM_LEAVE_WALL:
        return settle(p, po, mode, -1, x, xo, u, uo)
    s = np.empty(N_MECANUM_SAMPLE)
    evaluate(p, po, 0, x, xo, u, uo, s)  # every wheel rolling
    track = p[po + MP_TRACK_ENERGY] != 0.0
    ke_before = kinetic_energy(p, po, x, xo) if track else 0.0
    wall = ev_id >= EV_MECANUM_WALL
    for i in range(N):
        q = S_WHEELS + N_WS * i
        if wheel_mode(mode, i) == ROLL or (not wall and abs(s[q + WS_SLIP_FREE]) <= GRIP_SPEED):
            x[xo + I_WHEEL_VELOCITY + i] = s[q + WS_ALONG] / s[q + WS_COUPLE]
    if wall:
        impact_reset(p, _walls(p, po), N_MECANUM_MODES, mode, x, xo, p[po + MP_MASS], p[po + MP_MOI])
    if track:
        x[xo + I_ENERGY + IMPACT_LOSS] += ke_before - kinetic_energy(p, po, x, xo)
    breakaway = EV_MECANUM_BREAKAWAY <= ev_id < EV_MECANUM_BREAKAWAY + N
    return settle(p, po, mode, ev_id - EV_MECANUM_BREAKAWAY if breakaway else -1, x, xo, u, uo)


# -- the battery's load -----------------------------------------------------------------------------------------
@jit(internal=True)
def _rotor_speed(p, po, mode, x, xo, i):
    """Wheel ``i``'s rotor speed, rad/s, in ``mode`` (MecanumDrive._rims_of: a rolling wheel's rim follows its
    roller)."""
    if wheel_mode(mode, i) != ROLL:
        return p[po + MP_K] * x[xo + I_WHEEL_VELOCITY + i]
    c, sn = math.cos(x[xo + 2]), math.sin(x[xo + 2])
    xv, yv, om = x[xo + 3], x[xo + 4], x[xo + 5]
    vx, vy = c * xv + sn * yv, -sn * xv + c * yv
    w = po + MP_WHEELS + N_WHEEL * i
    qx, qy = vx - om * p[w + W_PY], vy + om * p[w + W_PX]
    return p[po + MP_K] * ((qx * p[w + W_DX] + qy * p[w + W_DY]) / p[w + W_COUPLE])


@jit(internal=True)
def gives_curve(p, po):
    """Whether the drive's supply current is a curve of the bus voltage (no current limits)."""
    return p[po + MP_LIMITED] == 0.0


@jit
def add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, nb):
    """Add the four channels' supply curve (MotorChannels.supply_curve: SupplyCurve.add_motors) to ``abc``
    (a, b, c) and their breakpoints to ``breaks`` from row ``nb``; returns the number of rows then."""
    g, inv_kv, duty = p[po + MP_CONDUCTANCE], p[po + MP_INV_KV], p[po + MP_DUTY] != 0.0
    for i in range(N):
        w = _rotor_speed(p, po, mode, x, xo, i)
        nb = add_supply_piece(abc, breaks, nb, g, w * inv_kv, duty, u[uo + i], u[uo + int(p[po + MP_BRAKE + i])])
    return nb


@jit
def supply_current_at(p, po, mode, x, xo, u, uo, bus_voltage):
    """The four channels' supply current, A, at bus voltage ``bus_voltage`` V (MotorChannels.supply_current)."""
    if p[po + MP_LIMITED] == 0.0 and bus_voltage > 0.0:
        abc = np.zeros(3)
        breaks = np.empty((N, 4))
        nb = add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, 0)
        return _curve_of(abc, breaks, nb, bus_voltage)
    total = 0.0
    for i in range(N):
        total += channel(_rotor_speed(p, po, mode, x, xo, i), u[uo + i], u[uo + int(p[po + MP_BRAKE + i])],
                         bus_voltage, p[po + MP_R], p[po + MP_INV_KV], p[po + MP_KV], p[po + MP_KT],
                         p[po + MP_GEARING], p[po + MP_EFFICIENCY], p[po + MP_B_ROTOR], p[po + MP_LIMITED] != 0.0,
                         p[po + MP_DUTY] != 0.0, p[po + MP_STATOR_LIMIT], p[po + MP_SUPPLY_LIMIT])[2]
    return total


@jit(internal=True)
def _curve_of(abc, breaks, nb, voltage):
    return curve_at(abc[0], abc[1], abc[2], breaks[:nb], voltage)


@jit(internal=True)
def bus_input(p, po):
    """The slot of the ``bus_voltage`` input among the drive's inputs."""
    return int(p[po + MP_BUS])
