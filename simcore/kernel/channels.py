"""A drivetrain's motor channel in kernel form: one motor group's electrical state and torques at one instant.

The semantics are :class:`simcore.models.motor_channels.MotorChannels`' (which documents them): the motor
drive's electrical law (:func:`simcore.kernel.motor_drive.electrical`) for a channel with current limits
or on a dead bus; for one without limits its branches evaluated in line on the back-EMF ``w (1/Kv)`` (the
channels' own form, kept so that a drivetrain's results stay the bits they were); the rotor's viscous
friction ``b w`` acting at the shaft, before the gearbox; the gearbox efficiency blended through zero speed
(:func:`simcore.kernel.motor_drive.output_torque`).
"""
from __future__ import annotations

from .battery import motor_supply_piece
from .jit import jit
from .motor_drive import electrical, output_torque


@jit
def channel(w, cmd, brk, bus, R, inv_kv, Kv, kt, gearing, efficiency, b, limited, duty, stator_limit,
            supply_limit):
    """One channel at rotor speed ``w`` (rad/s), command ``cmd`` (V or duty), brake flag ``brk`` and bus voltage
    ``bus`` (V), with its group's constants (``R`` ohm, ``inv_kv = 1/Kv`` and ``Kv`` rad/s per V, ``kt`` N·m/A,
    gearing, efficiency, rotor friction ``b`` N·m·s/rad, whether it has current limits, whether the command is
    a duty, the limits A).

    Returns ``(applied V, stator current A, supply current A, saturated, current limited, motor torque N·m,
    output torque N·m, friction torque N·m)``.
    """
    vb = bus if bus > 0.0 else 0.0
    sat = 0.0
    lim = 0.0
    if limited or (vb == 0.0 and cmd != 0.0):
        v, i, isup, sat, lim = electrical(w, cmd, brk, bus, R, Kv, stator_limit, supply_limit, duty)
    else:
        emf = w * inv_kv
        if cmd == 0.0:
            if brk >= 0.5:
                v, i, isup = 0.0, -emf / R, 0.0
            elif emf > vb:
                v = vb
                i = (vb - emf) / R
                isup = i
            elif emf < -vb:
                v = -vb
                i = (-vb - emf) / R
                isup = -i
            else:
                v, i, isup = emf, 0.0, 0.0
        else:
            v = cmd * vb if duty else cmd
            if v > vb:
                v, sat = vb, 1.0
            elif v < -vb:
                v, sat = -vb, 1.0
            i = (v - emf) / R
            isup = v / vb * i
    tm = kt * i
    tf = b * w
    return v, i, isup, sat, lim, tm, output_torque(tm - tf, w, gearing, efficiency), tf


@jit(internal=True)
def add_supply_piece(abc, breaks, nb, g, emf, duty, cmd, brk):
    """Add one channel without current limits to a supply curve (SupplyCurve.add_motors' step): its piece
    (:func:`simcore.kernel.battery.motor_supply_piece` of conductance ``g`` S, back-EMF ``emf`` V, whether the
    command is a duty, the command and the brake flag) into ``abc`` (a, b, c) and its breakpoint, if any, into
    row ``nb`` of ``breaks``; returns the number of rows then."""
    da, db, dc, v_k, bda, bdb, bdc = motor_supply_piece(g, emf, duty, cmd, brk)
    abc[0] = abc[0] + da
    abc[1] = abc[1] + db
    abc[2] = abc[2] + dc
    if v_k >= 0.0:
        breaks[nb, 0], breaks[nb, 1], breaks[nb, 2], breaks[nb, 3] = v_k, bda, bdb, bdc
        nb += 1
    return nb
