"""An FTC hobby servo in kernel form: its electronics, the one implementation of its loop.

:mod:`simcore.models.servo` documents the physics (:class:`~simcore.models.servo.ServoMechanism`): a geared
mechanism (:mod:`simcore.kernel.geared`) whose drive inputs (duty, brake, supply voltage) are made by the
servo's own electronics from its inputs ``u``: the pulse width (µs), whether the hub sends pulses (0/1) and
the servo rail's voltage (V). :func:`drive_command` is that law; the Python model's
:func:`~simcore.models.servo.servo_drive_command` and every function below call it. The parameter vector is
the geared mechanism's, followed by the electronics' values at ``SP_*`` (:mod:`simcore.kernel.layout`;
:meth:`ServoMechanism.kernel_parameters <simcore.models.servo.ServoMechanism.kernel_parameters>` derives it).
The modes and events are the geared mechanism's; in position mode the duty depends on the angle, so every
function evaluates the electronics at the state it is given (a guard at the state it samples, a mode after an
impact at the stop).
"""
from __future__ import annotations

from . import geared
from .jit import jit
from .layout import (GUARD_BACKWARD_PUSH, GUARD_FORWARD_PUSH, SP_CONTINUOUS, SP_FULL_SPEED_PULSE,
                     SP_PROPORTIONAL_BAND, SP_PULSE_MAX, SP_PULSE_MIN, SP_RADIANS_PER_MICROSECOND, Y_LOOP_DUTY,
                     Y_TARGET_ANGLE)

__all__ = ["drive_command", "target_angle", "derivatives", "outputs", "guard", "initial_mode", "fire"]


@jit
def target_angle(pulse_width, pulse_min, pulse_max, radians_per_microsecond):
    """The position-mode target of ``pulse_width`` µs, rad: the pulse clamped to the accepted range
    ``[pulse_min, pulse_max]`` µs, its offset from the range's centre times ``radians_per_microsecond``."""
    p = pulse_width if pulse_width > pulse_min else pulse_min
    if p > pulse_max:
        p = pulse_max
    return (p - 0.5 * (pulse_min + pulse_max)) * radians_per_microsecond


@jit
def drive_command(angle, pulse_width, pwm_enabled, pulse_min, pulse_max, radians_per_microsecond,
                  proportional_band, continuous, continuous_full_speed_pulse):
    """The servo electronics' ``(duty, brake)`` for its motor at output ``angle`` (rad).

    Without pulses (``pwm_enabled < 0.5``) the bridge is open: duty 0, brake 0 (the servo goes limp).
    Otherwise the bridge brakes at zero duty (brake 1) and the duty, clamped to [-1, 1], is
    ``(target - angle) / proportional_band`` in position mode (``target`` of :func:`target_angle`, rad)
    and ``(pulse - centre) / continuous_full_speed_pulse`` in continuous mode (``continuous`` true; the
    pulse clamped to its range, µs).
    """
    if pwm_enabled < 0.5:
        return 0.0, 0.0  # no pulses: the servo's bridge is off, it goes limp
    p = pulse_width if pulse_width > pulse_min else pulse_min
    if p > pulse_max:
        p = pulse_max
    centre = 0.5 * (pulse_min + pulse_max)
    if continuous:
        duty = (p - centre) / continuous_full_speed_pulse
    else:
        duty = ((p - centre) * radians_per_microsecond - angle) / proportional_band
    return (1.0 if duty > 1.0 else -1.0 if duty < -1.0 else duty), 1.0


@jit(internal=True)
def _command(p, po, angle, u, uo):
    """:func:`drive_command` of the servo with parameters ``p[po:]`` at ``angle`` under its inputs ``u[uo:]``."""
    return drive_command(angle, u[uo + 0], u[uo + 1], p[po + SP_PULSE_MIN], p[po + SP_PULSE_MAX],
                         p[po + SP_RADIANS_PER_MICROSECOND], p[po + SP_PROPORTIONAL_BAND], p[po + SP_CONTINUOUS] != 0.0,
                         p[po + SP_FULL_SPEED_PULSE])


@jit
def derivatives(p, po, mode, x, xo, u, uo, out):
    """Write dx/dt into ``out`` (the geared mechanism's, driven by the electronics at the state's angle)."""
    duty, brake = _command(p, po, x[xo], u, uo)
    geared.derivatives_driven(p, po, mode, x, xo, duty, brake, u[uo + 2], out)


@jit
def outputs(p, po, mode, x, xo, u, uo, t, out, yo):
    """Write the geared mechanism's outputs, then the target of the held pulse (rad, at ``Y_TARGET_ANGLE``) and
    the duty the loop applies (at ``Y_LOOP_DUTY``), into ``out[yo:]``."""
    duty, brake = _command(p, po, x[xo], u, uo)
    geared.outputs_driven(p, po, mode, x, xo, duty, brake, u[uo + 2], t, out, yo)
    out[yo + Y_TARGET_ANGLE] = target_angle(u[uo + 0], p[po + SP_PULSE_MIN], p[po + SP_PULSE_MAX],
                                            p[po + SP_RADIANS_PER_MICROSECOND])
    out[yo + Y_LOOP_DUTY] = duty


@jit
def guard(p, po, code, x, xo, u, uo):
    """The value of guard ``code`` (the geared mechanism's ``GUARD_*``) at state ``x`` and inputs ``u``."""
    if code != GUARD_FORWARD_PUSH and code != GUARD_BACKWARD_PUSH:  # a stop's or the velocity's: the state alone
        return geared.guard_driven(p, po, code, x, xo, 0.0, 0.0, 0.0)
    duty, brake = _command(p, po, x[xo], u, uo)
    return geared.guard_driven(p, po, code, x, xo, duty, brake, u[uo + 2])


@jit(internal=True)
def rest_mode(p, po, q, u, uo):
    """The mode of the servo at rest at ``q`` under its inputs ``u`` (the electronics at ``q``)."""
    duty, brake = _command(p, po, q, u, uo)
    return geared.rest_mode_driven(p, po, q, duty, brake, u[uo + 2])


@jit
def initial_mode(p, po, x, xo, u, uo):
    """The mode at the start from ``x`` (:func:`simcore.kernel.geared.initial_mode`, driven by the electronics)."""
    duty, brake = _command(p, po, x[xo], u, uo)
    return geared.initial_mode_driven(p, po, x, xo, duty, brake, u[uo + 2])


@jit
def fire(p, po, ev_id, x, xo, u, uo):
    """Apply event ``ev_id``'s reset to ``x`` (in place); return the mode after it (at rest: the mode the
    electronics give at the position after the reset)."""
    mode = geared.reset(p, po, ev_id, x, xo)
    return rest_mode(p, po, x[xo], u, uo) if mode == geared.TO_REST else mode
