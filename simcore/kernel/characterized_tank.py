"""A tank drive from feedforward gains (kV, kA, kS) in kernel form.

The physics is documented in :mod:`simcore.models.tank` (:class:`CharacterizedTankDrive`), whose
:meth:`~CharacterizedTankDrive.kernel_parameters` derives the parameter vector ``p`` (laid out by
:mod:`simcore.kernel.tank_layout`'s ``CP_*``) for the model and for a batch's variants alike. This
module is the one form of its law: the applied voltages (the command clipped to the bus, then the kS
deadband), the side accelerations of WPILib's drivetrain plant, the pose kinematics and the outputs.
The Python class calls these functions on its own path; the compiled segment calls them through
:mod:`simcore.kernel.parts`. The model has no modes and no events, and draws no current from a battery.

The arithmetic is the Python class's own, operation for operation (``max``/``min`` with Python's rule for
which argument wins, left-to-right sums), so the two paths give the same bits.
"""
from __future__ import annotations

import math

from .jit import jit
from .tank_layout import (CP_A1, CP_A2, CP_B1, CP_B2, CP_KS, CP_TRACK_WIDTH, CY_LEFT_ACCELERATION,
                          CY_LEFT_APPLIED_VOLTAGE, CY_RIGHT_ACCELERATION, CY_RIGHT_APPLIED_VOLTAGE, CY_VELOCITY,
                          CY_YAW_RATE)


@jit(internal=True)
def py_max(a, b):
    """Python's ``max(a, b)``: ``a`` unless ``b > a`` (so a NaN first stays)."""
    return b if b > a else a


@jit(internal=True)
def py_min(a, b):
    """Python's ``min(a, b)``: ``a`` unless ``b < a``."""
    return b if b < a else a


@jit
def applied_voltage(p, po, command, bus):
    """The voltage that drives a side, V: ``command`` clipped to ``[-bus, bus]`` (a negative bus is 0), then kS
    removed toward zero (``sign(V) max(|V| - kS, 0)``, pyfrc's ``vintercept``)."""
    b = py_max(bus, 0.0)
    v = py_min(py_max(command, -b), b)
    return math.copysign(py_max(abs(v) - p[po + CP_KS], 0.0), v)


@jit
def accelerations(p, po, vl, vr, vli, vri):
    """The side accelerations ``(a_L, a_R)``, m/s², from the side speeds (m/s) and applied voltages (V):
    ``a = A v + B V'``."""
    a1, a2, b1, b2 = p[po + CP_A1], p[po + CP_A2], p[po + CP_B1], p[po + CP_B2]
    return a1 * vl + a2 * vr + b1 * vli + b2 * vri, a2 * vl + a1 * vr + b2 * vli + b1 * vri


@jit
def pose_rates(p, po, x, xo, al, ar, out):
    """Write dx/dt into ``out[xo:xo + 7]`` from the state and the side accelerations ``al``, ``ar`` (m/s²)."""
    vl, vr = x[xo + 3], x[xo + 4]
    v = 0.5 * (vl + vr)
    out[xo + 0] = v * math.cos(x[xo + 2])
    out[xo + 1] = v * math.sin(x[xo + 2])
    out[xo + 2] = (vr - vl) / p[po + CP_TRACK_WIDTH]
    out[xo + 3] = al
    out[xo + 4] = ar
    out[xo + 5] = vl
    out[xo + 6] = vr


@jit
def derivatives(p, po, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (states from ``xo``, inputs from ``uo``)."""
    bus = u[uo + 2]
    vli = applied_voltage(p, po, u[uo + 0], bus)
    vri = applied_voltage(p, po, u[uo + 1], bus)
    al, ar = accelerations(p, po, x[xo + 3], x[xo + 4], vli, vri)
    pose_rates(p, po, x, xo, al, ar, out)


@jit
def outputs_from(p, po, x, xo, al, ar, vli, vri, out, yo):
    """Write the outputs (``CY_*``) into ``out[yo:]`` from the state, the side accelerations (m/s²) and the
    applied voltages (V)."""
    vl, vr = x[xo + 3], x[xo + 4]
    out[yo + CY_VELOCITY] = 0.5 * (vl + vr)
    out[yo + CY_YAW_RATE] = (vr - vl) / p[po + CP_TRACK_WIDTH]
    out[yo + CY_LEFT_ACCELERATION] = al
    out[yo + CY_RIGHT_ACCELERATION] = ar
    out[yo + CY_LEFT_APPLIED_VOLTAGE] = vli
    out[yo + CY_RIGHT_APPLIED_VOLTAGE] = vri


@jit
def outputs(p, po, x, xo, u, uo, out, yo):
    """Write the outputs (velocity m/s, yaw rate rad/s, side accelerations m/s², applied voltages V) at state
    ``x`` and inputs ``u`` into ``out[yo:]``."""
    bus = u[uo + 2]
    vli = applied_voltage(p, po, u[uo + 0], bus)
    vri = applied_voltage(p, po, u[uo + 1], bus)
    al, ar = accelerations(p, po, x[xo + 3], x[xo + 4], vli, vri)
    outputs_from(p, po, x, xo, al, ar, vli, vri, out, yo)
