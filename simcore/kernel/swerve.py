"""The swerve drive in kernel form: eight motor channels, the steering, the chassis on four steered tyres.

The physics is documented in :mod:`simcore.models.swerve` (:class:`SwerveDrive`) and :mod:`simcore.models.chassis`;
:meth:`SwerveDrive.kernel_parameters` derives the parameter vector ``p`` (``SW_*`` of
:mod:`simcore.kernel.swerve_layout`, then a wheel block per module and the walls block). This module is the four-module
drive without load transfer: each module's drive and steer channels, the drive/steer coupling (the drive rotor turning
with the steer, the drive motor's torque on the steering), each tyre gripping or slipping along its steer angle
(exact Coulomb friction with modes) and sliding across it (a regularized Coulomb law), the steer scrub torque, the
bumper's corners against the field's walls, on
the chassis core (:func:`simcore.kernel.chassis.solve`, each module's traction direction written into the sample
from its steer angle before the solve). It is the one form of that evaluation (:func:`evaluate`): the model calls
it on its own path and the compiled segment through :mod:`simcore.kernel.drivetrains`, so both give the same
bits. The arithmetic is the Python forms', operation for operation (``SwerveDrive._kinematics``, ``_rotors`` and
``_evaluate``, ``Chassis.solve`` without load transfer, ``ChassisDrive``'s resets and settling).

A mode is the mecanum's integer ``27 w_0 + 9 w_1 + 3 w_2 + w_3`` (:func:`simcore.kernel.mecanum.wheel_mode`) plus
81 times its wall contacts' index, and the events are its too: a rolling module's ``breakaway`` and a slipping
one's ``grip``, each resetting the rims of the rolling (or just gripping) wheels to their ground speed; a wall's
``wall`` (the plastic impact) and a contact's ``leave_wall``; each booking the kinetic energy its reset removes as
impact loss, and settling the modes.
"""
from __future__ import annotations

import math

from .channels import add_supply_piece, channel
from .chassis import (GRIP_SPEED, contact_mask, impact_reset, pose_rates, pose_wall_guard, settle_contacts,
                      settle_rounds, settle_step, slip_mode, solve, total_wall_force, traction_guard, wall_events,
                      wall_force, wall_rows, with_contacts)
from .chassis_layout import (N_WHEEL, N_WS, S_ALPHA, S_AX, S_AY, S_BUS, S_N_CONTACTS, S_COS, S_EXTERNAL_POWER, S_FRICTION_POWER,
                             S_OM, S_SIN, S_VX, S_VY, S_WHEELS, W_PX, W_PY, WS_ACROSS, WS_ALONG,
                             WS_ARM, WS_CHANNEL, WS_COEF, WS_COUPLE, WS_COUPLE_FREE, WS_D, WS_DX, WS_DY, WS_F,
                             WS_FREE_ARM, WS_FREE_SLIP, WS_G, WS_H, WS_MODE, WS_NORMAL, WS_NX, WS_NY, WS_ROTOR,
                             WS_SLIP, WS_SLIP_FREE, WS_W, WS_WA)
from .jit import jit, scratch, scratch_2d  # (scratch on the stack: no allocation, no reference counting)
from .mecanum import ROLL, _curve_of, wheel_mode
from .swerve_layout import (EV_SWERVE_BREAKAWAY, EV_SWERVE_GRIP, EV_SWERVE_LEAVE_WALL, EV_SWERVE_WALL, I_ENERGY, I_STEER_ANGLE, I_STEER_RATE,
                            I_WHEEL_DISTANCE, I_WHEEL_SPEED, N_SM, N_SWERVE_SAMPLE, SM_BASE, SM_CHANNEL, SM_Q,
                            SM_ROTOR, SM_SCRUB, SM_STEER_ACCEL, SW_ANY_LIMITED, SW_B_ROTOR, SW_BUS, SW_CONDUCTANCE,
                            SW_CONVERSION, SW_COUPLE_RATIO, SW_DRIVE_BRAKE, SW_DUTY, SW_EFFICIENCY, SW_EXTERNAL,
                            SW_GEARING, SW_INV_KV, SW_K, SW_KT, SW_KV, SW_LIMITED, SW_MASS, SW_MOI, SW_MU, SW_R,
                            SW_SCRUB_RADIUS, SW_SLIP_EPS2, SW_STATOR_LIMIT, SW_STEER, SW_STEER_BRAKE, SW_STEER_MOI,
                            SW_SUPPLY_LIMIT, SW_TRACK_ENERGY, SW_WHEEL_MASS, SW_WHEEL_RADIUS, SW_WHEELS,
                            SWERVE_GUARD_BASE, N_SWERVE_MODES, N_SWERVE_OUTPUTS, SW_WALLS)
from .tank_layout import (CH_APPLIED, CH_FRICTION_TORQUE, CH_MOTOR_TORQUE, CH_OUTPUT_TORQUE, CH_STATOR,
                          CH_SUPPLY)

N = 4
#: The supply curve's breakpoints: one per channel, two per module (simcore.kernel.channels.add_supply_piece).
N_BREAKS = 2 * N
#: The impact_loss state among the energy states (simcore.models.chassis.DRIVE_ENERGY_STATES).
IMPACT_LOSS = 5


@jit(internal=True)
def _channel(p, g, rotor, cmd, brk, bus):
    """The channel of the motor group whose slots start at ``g`` (the drive's 0, the steer's SW_STEER)."""
    return channel(rotor, cmd, brk, bus, p[g + SW_R], p[g + SW_INV_KV], p[g + SW_KV], p[g + SW_KT],
                   p[g + SW_GEARING], p[g + SW_EFFICIENCY], p[g + SW_B_ROTOR], p[g + SW_LIMITED] != 0.0,
                   p[g + SW_DUTY] != 0.0, p[g + SW_STATOR_LIMIT], p[g + SW_SUPPLY_LIMIT])


@jit(internal=True)
def _rotor_speeds(p, po, mode, x, xo, i, vx, vy, om):
    """Module ``i``'s rim speed (a rolling wheel's its ground speed), its drive and steer rotor speeds, the
    contact velocity along and across the wheel, and the steer angle's cosine and sine (SwerveDrive._kinematics,
    _rotors)."""
    phi = x[xo + I_STEER_ANGLE + i]
    ci, si = math.cos(phi), math.sin(phi)
    w = po + SW_WHEELS + N_WHEEL * i
    px, py = p[w + W_PX], p[w + W_PY]
    qx, qy = vx - om * py, vy + om * px
    along, across = qx * ci + qy * si, qy * ci - qx * si
    wr = along if wheel_mode(mode, i) == ROLL else x[xo + I_WHEEL_SPEED + i]
    rate = x[xo + I_STEER_RATE + i]
    return (wr, p[po + SW_K] * wr + p[po + SW_COUPLE_RATIO] * rate, p[po + SW_STEER + SW_GEARING] * rate, along,
            across, ci, si)


@jit(internal=True)
def _split_square(x):
    """``x * x`` as an exact sum ``hi + lo`` (Dekker's product of Veltkamp's halves)."""
    t = x * 134217729.0  # 2**27 + 1
    hi = t - (t - x)
    lo = x - hi
    p = hi * hi
    q = hi * lo + lo * hi
    z = p + q
    return z, p - z + q + lo * lo


@jit(internal=True)
def _norm(x0, x1, mx):
    """``sqrt(x0^2 + x1^2)`` of two finite magnitudes, the larger ``mx > 0`` normal, as CPython's math.hypot
    forms it (its vector_norm: exact squares and sums scaled near 1, one correction step), so the kernel's
    outputs are the Python form's bits."""
    _, e = math.frexp(mx)
    scale = math.ldexp(1.0, -e)
    csum, frac1, frac2 = 1.0, 0.0, 0.0
    for k in range(2):
        hi, lo = _split_square((x0 if k == 0 else x1) * scale)
        s = csum + hi
        frac1 += lo
        frac2 += (csum - s) + hi
        csum = s
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    # (-h) * h exactly: Dekker's product, as for the squares
    t = h * 134217729.0
    hh = t - (t - h)
    hl = h - hh
    p = -hh * hh
    q = -hh * hl + -hl * hh
    z = p + q
    s = csum + z
    frac1 += p - z + q + -hl * hl
    frac2 += (csum - s) + z
    csum = s
    h += (csum - 1.0 + (frac1 + frac2)) / (2.0 * h)
    return h / scale


@jit
def hypot(a, b):
    """``sqrt(a^2 + b^2)`` to CPython's math.hypot's bits (numba's math.hypot is the C library's, which may differ
    from it in the last bit)."""
    x0, x1 = abs(a), abs(b)
    mx = 0.0
    if x0 > mx:
        mx = x0
    if x1 > mx:
        mx = x1
    if math.isinf(mx):
        return mx
    if math.isnan(x0) or math.isnan(x1):
        return math.nan
    if mx == 0.0:
        return mx
    if mx < 5.562684646268003e-309:  # (below 2**-1024, where 2**-e would overflow: scaled up first, as CPython does)
        return 2.2250738585072014e-308 * _norm(x0 / 2.2250738585072014e-308, x1 / 2.2250738585072014e-308,
                                                mx / 2.2250738585072014e-308)
    return _norm(x0, x1, mx)


@jit
def evaluate(p, po, mode, x, xo, u, uo, s):
    """The drive at state ``x`` and inputs ``u`` in ``mode``: every quantity the derivatives, the outputs, the
    guards and the resets read, into ``s`` (:mod:`simcore.kernel.swerve_layout`'s slots) (SwerveDrive._evaluate
    with Chassis.solve)."""
    th = x[xo + 2]
    c, sn = math.cos(th), math.sin(th)
    vx, vy, om = c * x[xo + 3] + sn * x[xo + 4], -sn * x[xo + 3] + c * x[xo + 4], x[xo + 5]
    bus = u[uo + int(p[po + SW_BUS])]
    r, cr = p[po + SW_WHEEL_RADIUS], p[po + SW_COUPLE_RATIO]
    mu, eps2 = p[po + SW_MU], p[po + SW_SLIP_EPS2]
    drive_brake, steer_brake = u[uo + int(p[po + SW_DRIVE_BRAKE])], u[uo + int(p[po + SW_STEER_BRAKE])]
    torque_q = 0.0  # sum(Q), summed as Python's sum
    for i in range(N):
        w = po + SW_WHEELS + N_WHEEL * i
        q = S_WHEELS + N_WS * i
        m = SM_BASE + N_SM * i
        wr, rotor, steer_rotor, along, across, ci, si = _rotor_speeds(p, po, mode, x, xo, i, vx, vy, om)
        md = wheel_mode(mode, i)
        o = q + WS_CHANNEL
        (s[o + 0], s[o + 1], s[o + 2], s[o + 3], s[o + 4], s[o + 5], s[o + 6], s[o + 7]) = _channel(
            p, po, rotor, u[uo + i], drive_brake, bus)
        g = m + SM_CHANNEL
        (s[g + 0], s[g + 1], s[g + 2], s[g + 3], s[g + 4], s[g + 5], s[g + 6], s[g + 7]) = _channel(
            p, po + SW_STEER, steer_rotor, u[uo + N + i], steer_brake, bus)
        s[q + WS_D] = s[o + CH_OUTPUT_TORQUE] / r  # (net of the rotor's friction)
        # Torque on the module's steering: the steer motor's, and the drive motor's through the coupling.
        qi = s[g + CH_OUTPUT_TORQUE] + cr * (s[o + CH_MOTOR_TORQUE] - s[o + CH_FRICTION_TORQUE])
        s[m + SM_Q] = qi
        torque_q += qi
        s[m + SM_ROTOR] = steer_rotor
        s[q + WS_MODE] = md
        s[q + WS_COEF] = mu * across / math.sqrt(across * across + eps2)
        s[q + WS_DX], s[q + WS_DY], s[q + WS_NX], s[q + WS_NY] = ci, si, -si, ci
        px, py = p[w + W_PX], p[w + W_PY]
        s[q + WS_ARM] = px * si - py * ci
        s[q + WS_FREE_ARM] = px * ci + py * si
        s[q + WS_COUPLE], s[q + WS_COUPLE_FREE] = 1.0, 0.0
        s[q + WS_H] = om * (vy * ci - vx * si) + x[xo + I_STEER_RATE + i] * across
        slip_free = x[xo + I_WHEEL_SPEED + i] - along
        s[q + WS_SLIP_FREE] = slip_free
        s[q + WS_SLIP] = 0.0 if md == ROLL else slip_free
        s[q + WS_ALONG], s[q + WS_ACROSS] = along, across
        s[q + WS_FREE_SLIP] = across
        s[q + WS_W], s[q + WS_ROTOR] = wr, rotor
    ie = uo + int(p[po + SW_EXTERNAL])
    fx, fy, tz = u[ie], u[ie + 1], u[ie + 2]
    mask = 0 if p[po + SW_WALLS] == 0.0 else contact_mask(mode, N_SWERVE_MODES)
    if mask > 0:
        wall_rows(p, _walls(p, po), mask, c, sn, om, s)
    else:
        s[S_N_CONTACTS] = 0.0
    solve(p, po + SW_WHEELS, N, p[po + SW_MASS], p[po + SW_MOI], c * fx + sn * fy, -sn * fx + c * fy,
          tz - torque_q, s)
    if mode < 0:  # (a mode no contact set codes: settle found none consistent) the run stops, non-finite
        s[S_AX] = s[S_AY] = s[S_ALPHA] = math.nan
        for i in range(N):
            s[S_WHEELS + N_WS * i + WS_WA] = math.nan
    # Steer scrub: the patch twisting at the module's absolute yaw rate, fading with the rolling speed.
    rho, J_s, alpha = p[po + SW_SCRUB_RADIUS], p[po + SW_STEER_MOI], s[S_ALPHA]
    for i in range(N):
        q = S_WHEELS + N_WS * i
        m = SM_BASE + N_SM * i
        spin = om + x[xo + I_STEER_RATE + i]
        if rho != 0.0:
            tw = rho * spin
            along = s[q + WS_ALONG]
            ts = -mu * s[q + WS_NORMAL] * rho * tw / math.sqrt(tw * tw + along * along + eps2)
        else:
            ts = 0.0
        s[m + SM_SCRUB] = ts
        s[m + SM_STEER_ACCEL] = (s[m + SM_Q] + ts) / J_s - alpha
    s[S_COS], s[S_SIN], s[S_VX], s[S_VY], s[S_OM], s[S_BUS] = c, sn, vx, vy, om, bus
    if p[po + SW_TRACK_ENERGY] != 0.0:  # the power terms only the energy ledger integrates
        fric = 0.0
        for i in range(N):
            q = S_WHEELS + N_WS * i
            m = SM_BASE + N_SM * i
            fric += (s[q + WS_CHANNEL + CH_FRICTION_TORQUE] * s[q + WS_ROTOR]
                     + s[m + SM_CHANNEL + CH_FRICTION_TORQUE] * s[m + SM_ROTOR])
        for i in range(N):
            q = S_WHEELS + N_WS * i
            fric += (s[q + WS_F] * s[q + WS_SLIP] - s[q + WS_G] * s[q + WS_ACROSS]
                     - s[SM_BASE + N_SM * i + SM_SCRUB] * (om + x[xo + I_STEER_RATE + i]))
        s[S_FRICTION_POWER] = fric
        s[S_EXTERNAL_POWER] = fx * x[xo + 3] + fy * x[xo + 4] + tz * om
    else:
        s[S_FRICTION_POWER] = 0.0
        s[S_EXTERNAL_POWER] = 0.0


@jit
def derivatives(p, po, mode, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (SwerveDrive.derivatives)."""
    s = scratch(N_SWERVE_SAMPLE)
    evaluate(p, po, mode, x, xo, u, uo, s)
    pose_rates(x, xo, s, out)
    for i in range(N):
        q = S_WHEELS + N_WS * i
        out[xo + I_STEER_ANGLE + i] = x[xo + I_STEER_RATE + i]
        out[xo + I_STEER_RATE + i] = s[SM_BASE + N_SM * i + SM_STEER_ACCEL]
        out[xo + I_WHEEL_SPEED + i] = s[q + WS_WA]
        out[xo + I_WHEEL_DISTANCE + i] = s[q + WS_W]
    if p[po + SW_TRACK_ENERGY] != 0.0:  # in DRIVE_ENERGY_STATES order, each sum as Python's sum forms it
        st = po + SW_STEER
        r, gd = p[po + SW_WHEEL_RADIUS], p[po + SW_GEARING]
        supply = 0.0
        for i in range(N):
            supply += s[S_WHEELS + N_WS * i + WS_CHANNEL + CH_SUPPLY]
        for i in range(N):
            supply += s[SM_BASE + N_SM * i + SM_CHANNEL + CH_SUPPLY]
        copper_d = copper_s = conversion_d = conversion_s = gear_d = gear_s = 0.0
        for i in range(N):
            q = S_WHEELS + N_WS * i
            o = q + WS_CHANNEL
            g = SM_BASE + N_SM * i + SM_CHANNEL
            copper_d += s[o + CH_STATOR] * s[o + CH_STATOR]
            copper_s += s[g + CH_STATOR] * s[g + CH_STATOR]
            conversion_d += s[o + CH_STATOR] * s[q + WS_ROTOR]
            conversion_s += s[g + CH_STATOR] * s[SM_BASE + N_SM * i + SM_ROTOR]
            w = s[q + WS_W]
            gear_d += (s[o + CH_MOTOR_TORQUE] - s[o + CH_FRICTION_TORQUE]) * gd * w / r \
                - s[o + CH_OUTPUT_TORQUE] * w / r
            gear_s += (s[g + CH_MOTOR_TORQUE] - s[g + CH_FRICTION_TORQUE]) * s[SM_BASE + N_SM * i + SM_ROTOR] \
                - s[g + CH_OUTPUT_TORQUE] * x[xo + I_STEER_RATE + i]
        e = xo + I_ENERGY
        out[e] = s[S_BUS] * supply
        out[e + 1] = copper_d * p[po + SW_R] + copper_s * p[st + SW_R]
        out[e + 2] = conversion_d * p[po + SW_CONVERSION] + conversion_s * p[st + SW_CONVERSION]
        out[e + 3] = gear_d + gear_s
        out[e + 4] = s[S_FRICTION_POWER]
        out[e + 5] = 0.0
        out[e + 6] = s[S_EXTERNAL_POWER]


@jit
def kinetic_energy(p, po, x, xo):
    """Kinetic energy of chassis, wheels and steering, J (SwerveDrive.kinetic_energy)."""
    spin = steer = 0.0
    om = x[xo + 5]
    for i in range(N):
        w = x[xo + I_WHEEL_SPEED + i]
        spin += w * w
    for i in range(N):
        a = om + x[xo + I_STEER_RATE + i]
        steer += a * a
    return 0.5 * (p[po + SW_MASS] * (x[xo + 3] * x[xo + 3] + x[xo + 4] * x[xo + 4]) + p[po + SW_MOI] * om * om
                  + p[po + SW_WHEEL_MASS] * spin + p[po + SW_STEER_MOI] * steer)


@jit
def outputs(p, po, mode, x, xo, u, uo, out, yo):
    """Write the outputs (``N_SWERVE_OUTPUTS`` slots, SwerveDrive.outputs' order without walls) at state ``x``
    and inputs ``u`` into ``out[yo:]``."""
    s = scratch(N_SWERVE_SAMPLE)
    evaluate(p, po, mode, x, xo, u, uo, s)
    out[yo] = s[S_VX]
    out[yo + 1] = s[S_VY]
    supply = 0.0
    for i in range(N):
        supply += s[S_WHEELS + N_WS * i + WS_CHANNEL + CH_SUPPLY]
    for i in range(N):
        supply += s[SM_BASE + N_SM * i + SM_CHANNEL + CH_SUPPLY]
    out[yo + 2] = supply
    out[yo + 3] = kinetic_energy(p, po, x, xo)
    kd = p[po + SW_GEARING] / p[po + SW_WHEEL_RADIUS]
    cr = p[po + SW_COUPLE_RATIO]
    o = yo + 4
    for i in range(N):
        q = S_WHEELS + N_WS * i
        ch = q + WS_CHANNEL
        g = SM_BASE + N_SM * i + SM_CHANNEL
        out[o + i] = hypot(s[q + WS_SLIP], s[q + WS_ACROSS])
        out[o + 4 + i] = hypot(s[q + WS_F], s[q + WS_G])
        out[o + 8 + i] = s[ch + CH_STATOR]
        out[o + 12 + i] = s[ch + CH_SUPPLY]
        out[o + 16 + i] = s[ch + CH_APPLIED]
        out[o + 20 + i] = s[g + CH_STATOR]
        out[o + 24 + i] = s[g + CH_SUPPLY]
        out[o + 28 + i] = s[g + CH_APPLIED]
        out[o + 32 + i] = kd * x[xo + I_WHEEL_DISTANCE + i] + cr * x[xo + I_STEER_ANGLE + i]
        out[o + 36 + i] = s[SM_BASE + N_SM * i + SM_SCRUB]
        out[o + 40 + i] = s[q + WS_NORMAL]
    out[o + 44] = s[S_BUS]
    if p[po + SW_WALLS] != 0.0:
        out[yo + N_SWERVE_OUTPUTS] = total_wall_force(s)


# -- events -------------------------------------------------------------------------------------------------
@jit(internal=True)
def _walls(p, po):
    """The walls block's first slot in ``p``, or -1 for a drive without walls."""
    return -1 if p[po + SW_WALLS] == 0.0 else po + int(p[po + SW_WALLS])


@jit
def active_events(p, po, mode, ids):
    """The events armed in ``mode`` (ids into ``ids``, as ChassisDrive.events lists them: module by module, then
    the walls' and the wall contacts')."""
    for i in range(N):
        m = wheel_mode(mode, i)
        ids[i] = (EV_SWERVE_BREAKAWAY + i if m == ROLL else EV_SWERVE_GRIP + 2 * i + (0 if m == 1 else 1))
    if p[po + SW_WALLS] == 0.0:
        return N
    return wall_events(contact_mask(mode, N_SWERVE_MODES), ids, N, EV_SWERVE_WALL, EV_SWERVE_LEAVE_WALL)


@jit(internal=True)
def _guard_of(p, po, mode, ev, x, xo, u, uo, s, evaluated):
    """``(value, whether s holds the evaluation)`` of event ``ev``'s guard, the drive evaluated into the sample
    ``s`` unless ``evaluated`` says it is already (a wall's guard reads the pose alone)."""
    if EV_SWERVE_WALL <= ev < EV_SWERVE_LEAVE_WALL:  # (the pose alone)
        return pose_wall_guard(p, _walls(p, po), N_SWERVE_MODES, mode, ev - EV_SWERVE_WALL, x, xo), evaluated
    if not evaluated:
        evaluate(p, po, mode, x, xo, u, uo, s)
    if ev >= EV_SWERVE_LEAVE_WALL:
        return wall_force(s, ev - EV_SWERVE_LEAVE_WALL), True
    return traction_guard(p, po + SW_WHEELS, N, ev, s), True


@jit
def guard(p, po, mode, code, x, xo, u, uo):
    """The value of guard ``code`` (an event's id plus SWERVE_GUARD_BASE) in ``mode`` at state ``x`` and inputs
    ``u``: a breakaway's ``|f| - mu (1 + margin) N``, a grip's signed slip, a wall's least gap of the corners not
    on it, a wall contact's push."""
    return _guard_of(p, po, mode, code - SWERVE_GUARD_BASE, x, xo, u, uo, scratch(N_SWERVE_SAMPLE), False)[0]


@jit
def guards(p, po, mode, codes, j0, j1, x, xo, u, uo, out, col):
    """:func:`guard` of ``codes[j]`` into ``out[j, col]`` for each ``j`` in ``[j0, j1)``, at one state ``x`` and
    inputs ``u``, with one evaluation for them all (each value is :func:`guard`'s to the bit: the same
    evaluation, in the same mode)."""
    s = scratch(N_SWERVE_SAMPLE)
    evaluated = False
    for j in range(j0, j1):
        out[j, col], evaluated = _guard_of(p, po, mode, codes[j] - SWERVE_GUARD_BASE, x, xo, u, uo, s, evaluated)


@jit
def settle(p, po, mode, slipping, x, xo, u, uo):
    """The consistent mode at state ``x`` (ChassisDrive._settle, as simcore.kernel.mecanum.settle): each wheel
    slipping the way it slips, or rolling; the wall contacts of ``mode`` and every corner touching; then, until
    nothing changes, the first contact whose wall would pull dropped, else the rolling wheels that break away
    slipping (wheel ``slipping`` too; -1: none). -1 where none is consistent."""
    s = scratch(N_SWERVE_SAMPLE)
    evaluate(p, po, 0, x, xo, u, uo, s)  # every wheel rolling, no wall contact: the slips and the pose
    code = slip_mode(s, N)
    mask = settle_contacts(p, _walls(p, po), N_SWERVE_MODES, mode, x, xo)
    for _ in range(settle_rounds(N, mask)):
        full = with_contacts(code, mask, N_SWERVE_MODES)
        if full < 0:
            return -1
        evaluate(p, po, full, x, xo, u, uo, s)
        settled, code, mask = settle_step(p, po + SW_WHEELS, N, slipping, s, mask)
        if settled:
            return full
    return -1


@jit
def initial_mode(p, po, x, xo, u, uo):
    """The mode at the start (ChassisDrive.initial_mode without load transfer)."""
    return settle(p, po, 0, -1, x, xo, u, uo)  # (every wheel rolling, no contact)


@jit
def fire(p, po, mode, ev_id, x, xo, u, uo):
    """Apply event ``ev_id``'s reset to ``x`` (in place) and return the mode after it (ChassisDrive's resets, then
    _settle, a breakaway's wheel slipping): a breakaway's or grip's, the rolling wheels, and those whose slip is
    within GRIP_SPEED, set to their ground speed along their steer angle; a wall's, the rolling wheels so, then
    the plastic impact; a leave_wall's, none. The kinetic energy a reset removes is booked as impact loss."""
    if ev_id >= EV_SWERVE_LEAVE_WALL:
        return settle(p, po, mode, -1, x, xo, u, uo)
    s = scratch(N_SWERVE_SAMPLE)
    evaluate(p, po, 0, x, xo, u, uo, s)  # every wheel rolling
    track = p[po + SW_TRACK_ENERGY] != 0.0
    ke_before = kinetic_energy(p, po, x, xo) if track else 0.0
    wall = ev_id >= EV_SWERVE_WALL
    for i in range(N):
        q = S_WHEELS + N_WS * i
        if wheel_mode(mode, i) == ROLL or (not wall and abs(s[q + WS_SLIP_FREE]) <= GRIP_SPEED):
            x[xo + I_WHEEL_SPEED + i] = s[q + WS_ALONG]
    if wall:
        impact_reset(p, _walls(p, po), N_SWERVE_MODES, mode, x, xo, p[po + SW_MASS], p[po + SW_MOI])
    if track:
        x[xo + I_ENERGY + IMPACT_LOSS] += ke_before - kinetic_energy(p, po, x, xo)
    breakaway = EV_SWERVE_BREAKAWAY <= ev_id < EV_SWERVE_BREAKAWAY + N
    return settle(p, po, mode, ev_id - EV_SWERVE_BREAKAWAY if breakaway else -1, x, xo, u, uo)


# -- the battery's load -----------------------------------------------------------------------------------------
@jit(internal=True)
def gives_curve(p, po):
    """Whether the drive's supply current is a curve of the bus voltage (no channel has current limits)."""
    return p[po + SW_ANY_LIMITED] == 0.0


@jit
def add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, nb):
    """Add the eight channels' supply curve (MotorChannels.supply_curve: SupplyCurve.add_motors, the drive
    channels then the steer ones) to ``abc`` (a, b, c) and their breakpoints to ``breaks`` from row ``nb``;
    returns the number of rows then."""
    c, sn = math.cos(x[xo + 2]), math.sin(x[xo + 2])
    vx, vy, om = c * x[xo + 3] + sn * x[xo + 4], -sn * x[xo + 3] + c * x[xo + 4], x[xo + 5]
    st = po + SW_STEER
    drive_brake, steer_brake = u[uo + int(p[po + SW_DRIVE_BRAKE])], u[uo + int(p[po + SW_STEER_BRAKE])]
    steer = scratch(N)
    for i in range(N):
        _, rotor, steer[i], _, _, _, _ = _rotor_speeds(p, po, mode, x, xo, i, vx, vy, om)
        nb = add_supply_piece(abc, breaks, nb, p[po + SW_CONDUCTANCE], rotor * p[po + SW_INV_KV],
                              p[po + SW_DUTY] != 0.0, u[uo + i], drive_brake)
    for i in range(N):
        nb = add_supply_piece(abc, breaks, nb, p[st + SW_CONDUCTANCE], steer[i] * p[st + SW_INV_KV],
                              p[st + SW_DUTY] != 0.0, u[uo + N + i], steer_brake)
    return nb


@jit
def supply_current_at(p, po, mode, x, xo, u, uo, bus_voltage):
    """The eight channels' supply current, A, at bus voltage ``bus_voltage`` V (MotorChannels.supply_current)."""
    if p[po + SW_ANY_LIMITED] == 0.0 and bus_voltage > 0.0:
        abc = scratch(3)
        abc[0] = abc[1] = abc[2] = 0.0
        breaks = scratch_2d(N_BREAKS, 4)
        nb = add_supply_curve(p, po, mode, x, xo, u, uo, abc, breaks, 0)
        return _curve_of(abc, breaks, nb, bus_voltage)
    c, sn = math.cos(x[xo + 2]), math.sin(x[xo + 2])
    vx, vy, om = c * x[xo + 3] + sn * x[xo + 4], -sn * x[xo + 3] + c * x[xo + 4], x[xo + 5]
    drive_brake, steer_brake = u[uo + int(p[po + SW_DRIVE_BRAKE])], u[uo + int(p[po + SW_STEER_BRAKE])]
    steer = scratch(N)
    total = 0.0
    for i in range(N):
        _, rotor, steer[i], _, _, _, _ = _rotor_speeds(p, po, mode, x, xo, i, vx, vy, om)
        total += _channel(p, po, rotor, u[uo + i], drive_brake, bus_voltage)[2]
    for i in range(N):
        total += _channel(p, po + SW_STEER, steer[i], u[uo + N + i], steer_brake, bus_voltage)[2]
    return total


@jit(internal=True)
def bus_input(p, po):
    """The slot of the ``bus_voltage`` input among the drive's inputs."""
    return int(p[po + SW_BUS])
