"""A motor-driven one-degree-of-freedom mechanism in kernel form (flywheel, arm, elevator, hub motor).

The physics is documented in :mod:`simcore.models.mechanism` (:class:`GearedMechanism`), whose
:meth:`~GearedMechanism.kernel_parameters` derives the parameter vector ``p`` (laid out by the ``P_*``
indices of :mod:`simcore.kernel.layout`) for the model and for a batch's variants alike; this module is
the kernel form of its equations of motion, its outputs (:func:`outputs`, which
:meth:`GearedMechanism.outputs` calls), the guards of its events, their resets and mode switches. (The
Python form of the equations of motion in :mod:`simcore.models.mechanism` still serves the Python path:
the tests hold the kernel to it bit for bit.) States ``x``: position, velocity (and, with energy tracking, the six ledger states); inputs ``u``:
command (V or duty), brake, bus voltage; ``mode`` an integer (``MODE_*``). Each function reading the
inputs has a ``*_driven`` form taking those three as floats, and :func:`reset` is :func:`fire` without
the mode at rest: a part that makes its drive's inputs itself (:mod:`simcore.kernel.servo`) calls these.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .layout import LOAD_ARM_GRAVITY, LOAD_CONSTANT, LOAD_NONE  # noqa: F401
from .layout import (GUARD_BACKWARD_PUSH, GUARD_FORWARD_PUSH, GUARD_LOWER_STOP, GUARD_UPPER_STOP,  # noqa: F401
                     GUARD_VELOCITY)
from .layout import (EV_BREAKAWAY_FORWARD, EV_BREAKAWAY_REVERSE, EV_LEAVE_LOWER_STOP, EV_LEAVE_UPPER_STOP,  # noqa: F401
                     EV_LOWER_STOP,
                     EV_UPPER_STOP, EV_VELOCITY_ZERO_FORWARD, EV_VELOCITY_ZERO_REVERSE, MAX_ACTIVE, MODE_FORWARD,
                     MODE_LOWER_STOP, MODE_MOVING, MODE_NAMES, MODE_REVERSE, MODE_STUCK, MODE_UPPER_STOP, N_EVENTS)
from .layout import (N_OUTPUTS, Y_ACCELERATION, Y_APPLIED_VOLTAGE, Y_CURRENT_LIMITED, Y_MOTOR_TORQUE,  # noqa: F401
                     Y_ROTOR_ACCELERATION, Y_ROTOR_POSITION, Y_ROTOR_VELOCITY, Y_SATURATED, Y_STATOR_CURRENT,
                     Y_SUPPLY_CURRENT, Y_SUPPLY_VOLTAGE, Y_TORQUE)
from .motor_drive import electrical, output_torque_directed

# -- the parameter vector -----------------------------------------------------------------------------
# (simcore.kernel.layout, in plain Python: the constructors derive it without loading numba)
from .layout import (N_PARAMETERS, P_BREAKAWAY, P_DIRECTIONAL, P_DRUM_RADIUS, P_DUTY_COMMAND,  # noqa: F401,E402
                     P_EFFICIENCY, P_GEARING, P_K, P_K_PER_GEARING, P_KINETIC, P_KT, P_KV, P_LOAD_A, P_LOAD_B,
                     P_LOAD_KIND, P_LOAD_VISCOUS, P_M, P_MAX, P_MIN, P_R, P_SHAFT_FRICTION, P_STATOR_LIMIT,
                     P_SUPPLY_LIMIT, P_TRACK_ENERGY)

# Load kinds (LOAD_*): simcore.kernel.layout.

# Modes (MODE_NAMES: GearedMechanism's mode names, indexed by MODE_*), events (EV_*) and guards (GUARD_*):
# simcore.kernel.layout.


@jit(forceinline=True)
def load_force(p, po, q):
    """Position-dependent load at ``q``, N·m or N."""
    kind = p[po + P_LOAD_KIND]
    if kind == LOAD_ARM_GRAVITY:
        return p[po + P_LOAD_A] * math.sin(p[po + P_LOAD_B] - q)
    if kind == LOAD_CONSTANT:
        return p[po + P_LOAD_A]
    return 0.0


@jit(forceinline=True)
def _electrical(p, po, v, u0, u1, u2):
    return electrical(p[po + P_K] * v, u0, u1, u2, p[po + P_R], p[po + P_KV], p[po + P_STATOR_LIMIT], p[po + P_SUPPLY_LIMIT],
                      p[po + P_DUTY_COMMAND] != 0.0)


@jit(forceinline=True)
def drive_force(p, po, v, u0, u1, u2, direction):
    """The drive force at the mechanism coordinate at velocity ``v``, N·m or N."""
    i = _electrical(p, po, v, u0, u1, u2)[1]
    return output_torque_directed(p[po + P_KT] * i - p[po + P_SHAFT_FRICTION] * v, direction, p[po + P_GEARING],
                                  p[po + P_EFFICIENCY]) * p[po + P_K_PER_GEARING]


@jit
def applied_force(p, po, q, u0, u1, u2, direction):
    """Drive plus load force at rest at ``q`` for motion starting in ``direction``."""
    return drive_force(p, po, 0.0, u0, u1, u2, direction) + load_force(p, po, q)


@jit(internal=True, forceinline=True)
def direction_of(mode):
    if mode == MODE_FORWARD:
        return 1.0
    if mode == MODE_REVERSE:
        return -1.0
    return 0.0


@jit(forceinline=True)
def coulomb(p, po, mode):
    if mode == MODE_FORWARD:
        return p[po + P_KINETIC]
    if mode == MODE_REVERSE:
        return -p[po + P_KINETIC]
    return 0.0


@jit(forceinline=True)
def resting(mode):
    return mode == MODE_STUCK or mode == MODE_LOWER_STOP or mode == MODE_UPPER_STOP


@jit(forceinline=True)
def derivatives(p, po, mode, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (the same length as ``x``)."""
    derivatives_driven(p, po, mode, x, xo, u[uo + 0], u[uo + 1], u[uo + 2], out)


# (inlined into its callers: LLVM would not inline it, its arguments being many arrays, and a call
# per evaluation costs about a tenth of an advance)
@jit(internal=True, forceinline=True)
def derivatives_driven(p, po, mode, x, xo, u0, u1, u2, out):
    """:func:`derivatives` with the drive's inputs given as floats (command, brake, bus voltage): what a part
    whose drive inputs come from its own electronics calls (:mod:`simcore.kernel.servo`)."""
    q = x[xo + 0]
    v = x[xo + 1]
    track = p[po + P_TRACK_ENERGY] != 0.0
    if resting(mode):
        out[xo + 0] = 0.0
        out[xo + 1] = 0.0
        if track:
            e = _electrical(p, po, 0.0, u0, u1, u2)
            i = e[1]
            out[xo + 2] = u2 * e[2]
            out[xo + 3] = i * i * p[po + P_R]
            for j in range(4, 8):
                out[xo + j] = 0.0
        return
    fric = p[po + P_LOAD_VISCOUS] * v + coulomb(p, po, mode)
    direction = direction_of(mode)
    if not track:
        out[xo + 0] = v
        out[xo + 1] = (drive_force(p, po, v, u0, u1, u2, direction) + load_force(p, po, q) - fric) / p[po + P_M]
        return
    e = _electrical(p, po, v, u0, u1, u2)
    i = e[1]
    tm = p[po + P_KT] * i
    tf = p[po + P_SHAFT_FRICTION] * v  # the rotors' own friction torque
    f = output_torque_directed(tm - tf, direction, p[po + P_GEARING], p[po + P_EFFICIENCY]) * p[po + P_K_PER_GEARING]
    w = p[po + P_K] * v
    out[xo + 0] = v
    out[xo + 1] = (f + load_force(p, po, q) - fric) / p[po + P_M]
    out[xo + 2] = u2 * e[2]
    out[xo + 3] = i * i * p[po + P_R]
    out[xo + 4] = (tm - tf) * w - f * v
    out[xo + 5] = fric * v + tf * w
    out[xo + 6] = 0.0
    out[xo + 7] = i * w * (1.0 / p[po + P_KV] - p[po + P_KT])


@jit
def outputs(p, po, mode, x, xo, u, uo, t, out, yo):
    """Write the outputs (``GearedMechanism.output_names``' first :data:`~simcore.kernel.layout.N_OUTPUTS`, at
    ``Y_*``) at time ``t``, state ``x`` and inputs ``u`` into ``out[yo:]``.

    A body at rest (stuck or on a stop) has zero acceleration, and its drive is evaluated at zero speed
    (its velocity state is zero there). Torque at the mechanism is N·m for a rotary one; for a linear one
    the drive force, N, times the drum radius, m (the gearbox output torque). Currents are the group's, A;
    voltages V; ``saturated`` and ``current_limited`` 0 or 1.
    """
    outputs_driven(p, po, mode, x, xo, u[uo + 0], u[uo + 1], u[uo + 2], t, out, yo)


@jit(internal=True)
def outputs_driven(p, po, mode, x, xo, u0, u1, u2, t, out, yo):
    """:func:`outputs` with the drive's inputs given as floats (command, brake, bus voltage)."""
    q = x[xo + 0]
    v = x[xo + 1]
    rest = resting(mode)
    v_drive = 0.0 if rest else v
    e = _electrical(p, po, v_drive, u0, u1, u2)
    i = e[1]
    tm = p[po + P_KT] * i
    f = output_torque_directed(tm - p[po + P_SHAFT_FRICTION] * v_drive, direction_of(mode), p[po + P_GEARING],
                               p[po + P_EFFICIENCY]) * p[po + P_K_PER_GEARING]
    if rest:
        a = 0.0
    else:
        a = (f + load_force(p, po, q) - (p[po + P_LOAD_VISCOUS] * v + coulomb(p, po, mode))) / p[po + P_M]
    k = p[po + P_K]
    out[yo + Y_ACCELERATION] = a
    out[yo + Y_ROTOR_POSITION] = k * q
    out[yo + Y_ROTOR_VELOCITY] = k * v
    out[yo + Y_ROTOR_ACCELERATION] = k * a
    out[yo + Y_STATOR_CURRENT] = i
    out[yo + Y_SUPPLY_CURRENT] = e[2]
    out[yo + Y_APPLIED_VOLTAGE] = e[0]
    out[yo + Y_SUPPLY_VOLTAGE] = u2
    out[yo + Y_TORQUE] = f * p[po + P_DRUM_RADIUS]
    out[yo + Y_MOTOR_TORQUE] = tm
    out[yo + Y_SATURATED] = e[3]
    out[yo + Y_CURRENT_LIMITED] = e[4]


@jit(forceinline=True)
def guard(p, po, code, x, xo, u, uo):
    """The value of guard ``code`` (``GUARD_*``) at state ``x`` and inputs ``u``."""
    return guard_driven(p, po, code, x, xo, u[uo + 0], u[uo + 1], u[uo + 2])


@jit(internal=True, forceinline=True)
def guard_driven(p, po, code, x, xo, u0, u1, u2):
    """:func:`guard` with the drive's inputs given as floats (command, brake, bus voltage)."""
    if code == GUARD_LOWER_STOP:
        return x[xo + 0] - p[po + P_MIN]
    if code == GUARD_UPPER_STOP:
        return x[xo + 0] - p[po + P_MAX]
    if code == GUARD_VELOCITY:
        return x[xo + 1]
    if code == GUARD_FORWARD_PUSH:
        return applied_force(p, po, x[xo + 0], u0, u1, u2, 1.0) - p[po + P_BREAKAWAY]
    return -applied_force(p, po, x[xo + 0], u0, u1, u2, -1.0) - p[po + P_BREAKAWAY]


# -- events -----------------------------------------------------------------------------------------------
# The events of a geared mechanism (GearedMechanism._build_events, each its own StateEvent), EV_* in
# simcore.kernel.layout: a stop's impact, velocity through zero in each sliding mode, breakaway from stuck,
# leaving a stop.
#: Per event: its guard (``GUARD_*``), its direction, whether it resets the state, its name.
EVENT_GUARD = np.array([GUARD_LOWER_STOP, GUARD_UPPER_STOP, GUARD_VELOCITY, GUARD_VELOCITY, GUARD_FORWARD_PUSH,
                        GUARD_BACKWARD_PUSH, GUARD_FORWARD_PUSH, GUARD_BACKWARD_PUSH], dtype=np.int64)
EVENT_DIRECTION = np.array([-1, 1, -1, 1, 1, 1, 1, 1], dtype=np.int64)
EVENT_HAS_RESET = np.array([True, True, True, True, False, False, False, False])
EVENT_NAMES = ("lower_stop", "upper_stop", "velocity_zero", "velocity_zero", "breakaway_forward",
               "breakaway_reverse", "leave_lower_stop", "leave_upper_stop")


@jit
def active_events(p, po, mode, ids):
    """The events armed in ``mode`` (ids into ``ids``, in the order of the mode's list); returns their number."""
    n = 0
    if mode == MODE_MOVING or mode == MODE_FORWARD or mode == MODE_REVERSE:
        if p[po + P_MIN] > -math.inf:
            ids[n] = EV_LOWER_STOP
            n += 1
        if p[po + P_MAX] < math.inf:
            ids[n] = EV_UPPER_STOP
            n += 1
        if mode == MODE_FORWARD:
            ids[n] = EV_VELOCITY_ZERO_FORWARD
            n += 1
        elif mode == MODE_REVERSE:
            ids[n] = EV_VELOCITY_ZERO_REVERSE
            n += 1
    elif mode == MODE_STUCK:
        ids[0] = EV_BREAKAWAY_FORWARD
        ids[1] = EV_BREAKAWAY_REVERSE
        n = 2
    elif mode == MODE_LOWER_STOP:
        ids[0] = EV_LEAVE_LOWER_STOP
        n = 1
    elif mode == MODE_UPPER_STOP:
        ids[0] = EV_LEAVE_UPPER_STOP
        n = 1
    return n


@jit(internal=True)
def rest_mode(p, po, q, u, uo):
    """The mode of the body at rest at ``q`` under inputs ``u`` (GearedMechanism._rest_mode)."""
    return rest_mode_driven(p, po, q, u[uo + 0], u[uo + 1], u[uo + 2])


@jit(internal=True)
def rest_mode_driven(p, po, q, u0, u1, u2):
    """:func:`rest_mode` with the drive's inputs given as floats (command, brake, bus voltage)."""
    fb = p[po + P_BREAKAWAY]
    f_fwd = applied_force(p, po, q, u0, u1, u2, 1.0)
    f_rev = applied_force(p, po, q, u0, u1, u2, -1.0) if p[po + P_EFFICIENCY] < 1.0 else f_fwd
    if q <= p[po + P_MIN] and f_fwd <= fb:
        return MODE_LOWER_STOP
    if q >= p[po + P_MAX] and f_rev >= -fb:
        return MODE_UPPER_STOP
    if p[po + P_DIRECTIONAL] == 0.0:
        return MODE_MOVING
    if f_fwd > fb:
        return MODE_FORWARD
    if f_rev < -fb:
        return MODE_REVERSE
    return MODE_STUCK


@jit
def initial_mode(p, po, x, xo, u, uo):
    """The mode at the start from ``x`` (GearedMechanism.initial_mode, its checks aside): sliding the way
    it moves, or the mode of a body at rest there."""
    return initial_mode_driven(p, po, x, xo, u[uo + 0], u[uo + 1], u[uo + 2])


@jit(internal=True)
def initial_mode_driven(p, po, x, xo, u0, u1, u2):
    """:func:`initial_mode` with the drive's inputs given as floats (command, brake, bus voltage)."""
    v = x[xo + 1]
    if v > 0.0:
        return MODE_FORWARD if p[po + P_DIRECTIONAL] != 0.0 else MODE_MOVING
    if v < 0.0:
        return MODE_REVERSE if p[po + P_DIRECTIONAL] != 0.0 else MODE_MOVING
    return rest_mode_driven(p, po, x[xo], u0, u1, u2)


#: What :func:`reset` returns for an event that leaves the body at rest: its mode is then
#: :func:`rest_mode` at the position after the reset.
TO_REST = -1


@jit
def fire(p, po, ev_id, x, xo, u, uo):
    """Apply event ``ev_id``'s reset to ``x`` (in place); return the mode after it."""
    mode = reset(p, po, ev_id, x, xo)
    return rest_mode(p, po, x[xo], u, uo) if mode == TO_REST else mode


@jit
def reset(p, po, ev_id, x, xo):
    """Apply event ``ev_id``'s reset to ``x`` (in place); return the mode after it, or :data:`TO_REST` when
    the body comes to rest (a stop's impact, velocity through zero)."""
    if ev_id == EV_LOWER_STOP or ev_id == EV_UPPER_STOP:
        if p[po + P_TRACK_ENERGY] != 0.0:
            x[xo + 6] += 0.5 * p[po + P_M] * (x[xo + 1] * x[xo + 1])
        x[xo + 0] = p[po + P_MIN] if ev_id == EV_LOWER_STOP else p[po + P_MAX]
        x[xo + 1] = 0.0
        return TO_REST
    if ev_id == EV_VELOCITY_ZERO_FORWARD or ev_id == EV_VELOCITY_ZERO_REVERSE:
        x[xo + 1] = 0.0
        return TO_REST
    if ev_id == EV_BREAKAWAY_FORWARD:
        return MODE_FORWARD
    if ev_id == EV_BREAKAWAY_REVERSE:
        return MODE_REVERSE
    if ev_id == EV_LEAVE_LOWER_STOP:
        return MODE_FORWARD if p[po + P_DIRECTIONAL] != 0.0 else MODE_MOVING
    return MODE_REVERSE if p[po + P_DIRECTIONAL] != 0.0 else MODE_MOVING


@jit
def supply_current(p, po, mode, x, xo, u, uo, bus_voltage):
    """The supply current, A, drawn at bus voltage ``bus_voltage`` V (GearedMechanism.supply_current_at):
    the battery's bus solve evaluates it (:mod:`simcore.kernel.parts`)."""
    v = 0.0 if resting(mode) else x[xo + 1]
    return _electrical(p, po, v, u[uo + 0], u[uo + 1], bus_voltage)[2]
