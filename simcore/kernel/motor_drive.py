"""The motor drive's electrical law and gearbox, in kernel form.

:class:`simcore.models.drive.MotorDrive` documents the physics (command, neutral, current limits,
supply current, gearbox efficiency) and calls these functions; so does every compiled right-hand
side, and the batch's. (The drivetrains' channels, :mod:`simcore.models.motor_channels`, still have
their own form of it, to be replaced as the drivetrains move into the kernel.) Arguments are plain floats (SI units); a motor group's constants are ``R`` (ohm), ``Kv``
(rad/s per V), and the group's stator and supply current limits (A, ``inf`` for none).
"""
from __future__ import annotations

import math

from .jit import jit

__all__ = ["electrical", "limited_voltage", "output_torque_directed", "output_torque", "DEAD_BUS_PROBE",
           "EFFICIENCY_SPEED_EPSILON"]

#: Bus voltage, V, at which a dead (0 V) bus's duty is evaluated as a limit (see :func:`electrical`).
DEAD_BUS_PROBE = 1e-9

#: Rotor speed, rad/s, below which :func:`output_torque` blends the gearbox efficiency between its
#: motoring and back-driven values (about 10 rpm: far below any working speed).
EFFICIENCY_SPEED_EPSILON = 1.0


@jit(internal=True)
def limited_voltage(v_req, emf, vb, R, stator_limit, supply_limit):
    """The applied voltage nearest ``v_req`` (V) that the bus ``[-vb, vb]`` and the current limits allow.

    The stator limit allows ``|v - E| <= I_s R``; the supply limit ``|v (v - E)| <= I_p R V_bus``,
    one interval, or two when regeneration could exceed it. The request is projected onto their
    intersection. If the stator window lies outside the bus (back-EMF beyond what the bus can
    counter) the nearest bus edge is used; if the supply limit cannot also be met, it gives way to
    the bus and stator limits.
    """
    lo = -vb
    hi = vb
    if stator_limit != math.inf:
        wlo = emf - stator_limit * R
        whi = emf + stator_limit * R
        if wlo <= hi and whi >= lo:
            lo = max(lo, wlo)
            hi = min(hi, whi)
        else:
            edge = hi if wlo > hi else lo
            lo = edge
            hi = edge
    # Up to two allowed intervals (a1, b1), (a2, b2); n_int of them.
    a1, b1, a2, b2 = lo, hi, 0.0, 0.0
    n_int = 1
    if supply_limit != math.inf and vb > 0.0:
        c = supply_limit * R * vb
        root = math.sqrt(emf * emf + 4.0 * c)
        r1 = (emf - root) / 2.0
        r2 = (emf + root) / 2.0
        if emf * emf > 4.0 * c:  # regeneration past the limit is possible around v = E/2
            gap = math.sqrt(emf * emf - 4.0 * c)
            s1a, s1b, s2a, s2b = r1, (emf - gap) / 2.0, (emf + gap) / 2.0, r2
            n_s = 2
        else:
            s1a, s1b, s2a, s2b = r1, r2, 0.0, 0.0
            n_s = 1
        m = 0
        c1a, c1b, c2a, c2b = 0.0, 0.0, 0.0, 0.0
        for j in range(n_s):
            sa = s1a if j == 0 else s2a
            sb = s1b if j == 0 else s2b
            a = max(sa, lo)
            b = min(sb, hi)
            if a <= b:
                if m == 0:
                    c1a, c1b = a, b
                else:
                    c2a, c2b = a, b
                m += 1
        if m > 0:
            a1, b1, a2, b2 = c1a, c1b, c2a, c2b
            n_int = m
    best = min(max(v_req, a1), b1)
    if n_int == 2:
        p = min(max(v_req, a2), b2)
        if abs(p - v_req) < abs(best - v_req):
            best = p
    return best


@jit(forceinline=True)
def electrical(rotor_speed, command, brake, bus_voltage, R, Kv, stator_limit, supply_limit, duty_command):
    """Terminal voltage and currents of a motor group at one instant.

    Parameters
    ----------
    rotor_speed : float
        Motor shaft speed, rad/s.
    command : float
        Requested voltage, V (``duty_command`` false) or duty, -, (true).
    brake : float
        >= 0.5 for brake, else coast (used at zero command only).
    bus_voltage : float
        Supply voltage at the controller, V.
    R, Kv, stator_limit, supply_limit : float
        The group's resistance (ohm), velocity constant (rad/s per V) and current limits (A).
    duty_command : bool
        Whether ``command`` is a duty.

    Returns
    -------
    tuple of float
        ``(applied_voltage V, stator_current A, supply_current A, saturated 0/1, current_limited 0/1)``.
    """
    emf = rotor_speed / Kv
    vb = bus_voltage if bus_voltage > 0.0 else 0.0
    if command == 0.0:
        if brake >= 0.5:
            return 0.0, -emf / R, 0.0, 0.0, 0.0
        # Coast: open bridge; the body diodes conduct only when |E| exceeds the bus, and then
        # connect the winding across the bus (duty +-1).
        if emf > vb:
            i = (vb - emf) / R
            return vb, i, i, 0.0, 0.0
        if emf < -vb:
            i = (-vb - emf) / R
            return -vb, i, -i, 0.0, 0.0
        return emf, 0.0, 0.0, 0.0, 0.0
    v_req = command * vb if duty_command else command
    saturated = 1.0 if (v_req > vb or v_req < -vb) else 0.0
    clamped = min(max(v_req, -vb), vb)
    if stator_limit != math.inf or supply_limit != math.inf:
        v = limited_voltage(v_req, emf, vb, R, stator_limit, supply_limit)
        limited = 1.0 if v != clamped else 0.0
    else:  # no current limit: the projection is the clamp to the bus
        v = clamped
        limited = 0.0
    i = (v - emf) / R
    if vb > 0.0:
        duty = v / vb
    else:
        # A dead bus puts 0 V on the windings whatever the bridge does; the duty, which turns stator
        # into supply current, is the limit of v / V_bus as the bus goes to zero: the same projection
        # on a vanishing bus, so the supply current is continuous there.
        eps = DEAD_BUS_PROBE
        duty = limited_voltage(command * eps if duty_command else v_req, emf, eps, R, stator_limit,
                               supply_limit) / eps
    return v, i, duty * i, saturated, limited


@jit(forceinline=True)
def output_torque_directed(motor_torque, direction, gearing, efficiency):
    """Gearbox output torque, N·m, for motion in ``direction`` (+1, -1; 0 at rest): ``G eta T`` when
    the motor drives the motion (or at rest), ``G T / eta`` when the load back-drives the motor."""
    if efficiency == 1.0:
        return gearing * motor_torque
    if motor_torque * direction >= 0.0:
        return gearing * efficiency * motor_torque
    return gearing * motor_torque / efficiency


@jit
def output_torque(motor_torque, rotor_speed, gearing, efficiency):
    """Gearbox output torque, N·m, at rotor speed ``rotor_speed`` (rad/s), the efficiency blended
    through zero speed: ``G T eta ** (sign(T) s(w))`` with ``s(w) = w / sqrt(w² + w_eps²)``."""
    if efficiency == 1.0 or motor_torque == 0.0:
        return gearing * motor_torque
    s = rotor_speed / math.sqrt(rotor_speed * rotor_speed + EFFICIENCY_SPEED_EPSILON ** 2)
    return gearing * motor_torque * efficiency ** (s if motor_torque > 0.0 else -s)
