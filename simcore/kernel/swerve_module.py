"""A swerve module's motor-controller loop in kernel form: one tick of
:func:`simcore.controllers.drive_control.swerve_module_controllers`' module loop.

The law is written once here; the module loop's Python tick calls :func:`module_commands` and a run whose module
loops tick in the kernel (:mod:`simcore.kernel.ticks`, kind ``LOOP_SWERVE_MODULE``) runs the same function, so
both give the same bits. At a tick, with the module's requested state (speed ``v_r`` m/s, angle ``a_r`` rad, what
the chassis loop last asked) and the measured steer angle ``phi`` (rad), steer rate (rad/s) and wheel rim speed
(m/s):

* optimize (``SwerveModuleState.optimize``): when the requested angle is more than pi/2 from ``phi`` the short
  way round, the module drives the other way, ``(-v_r, wrap(a_r + pi))``; exactly pi/2 is left alone;
* the steer error ``e = wrap(a - phi)``, ``wrap`` folding into ``(-pi, pi]`` as
  :func:`simcore.controllers.geometry.wrap_angle` does (``pi - (pi - angle) mod 2 pi``, floor modulo);
* optionally the speed scaled by ``cos(e)`` (less push while the wheel still turns);
* steer PD ``V_s = kp e - kd rate``, drive feedforward plus P ``V_d = kV v + kP (v - rim speed)``, each times its
  scale (1, or 1 / the nominal bus voltage for a duty-commanded motor).

The loop's parameters in the parameter vector from offset ``po`` (``W_*``): the requested speed and angle (set
when a stretch of ticks starts: between two chassis ticks they are constant), the gains, the two scales and the
ranges the two commanded inputs accept (a write outside them, or a non-finite one, is refused). Its state from
offset ``so`` (``Y_*``): the target it last drove to, speed and angle after optimization (the loop's ``targets``).
"""
from __future__ import annotations

import math

from .jit import jit

__all__ = ["W_SPEED", "W_ANGLE", "W_STEER_KP", "W_STEER_KD", "W_DRIVE_KV", "W_DRIVE_KP", "W_DRIVE_SCALE",
           "W_STEER_SCALE", "W_DRIVE_RANGE_LOW", "W_DRIVE_RANGE_HIGH", "W_STEER_RANGE_LOW", "W_STEER_RANGE_HIGH",
           "N_MODULE_PARAMETERS", "Y_TARGET_SPEED", "Y_TARGET_ANGLE", "N_MODULE_STATE", "wrap_angle", "optimized",
           "module_commands", "tick_commands"]

(W_SPEED, W_ANGLE, W_STEER_KP, W_STEER_KD, W_DRIVE_KV, W_DRIVE_KP, W_DRIVE_SCALE, W_STEER_SCALE, W_DRIVE_RANGE_LOW,
 W_DRIVE_RANGE_HIGH, W_STEER_RANGE_LOW, W_STEER_RANGE_HIGH) = range(12)
N_MODULE_PARAMETERS = 12
Y_TARGET_SPEED, Y_TARGET_ANGLE = range(2)
N_MODULE_STATE = 2


@jit(internal=True)
def wrap_angle(angle):
    """``angle`` (rad) folded into ``(-pi, pi]``: ``pi - (pi - angle) mod 2 pi`` with floor modulo (Python's
    ``%``, which numba keeps)."""
    return math.pi - (math.pi - angle) % (2.0 * math.pi)


@jit(internal=True)
def optimized(speed, angle, current_angle):
    """``(speed, angle)`` (m/s, rad) as a state needing at most a quarter turn from ``current_angle``: reversed,
    ``(-speed, wrap(angle + pi))``, when the short way round is more than pi/2; as given otherwise."""
    if abs(wrap_angle(angle - current_angle)) > math.pi / 2.0:
        return -speed, wrap_angle(angle + math.pi)
    return speed, angle


@jit
def module_commands(requested_speed, requested_angle, angle, steer_rate, wheel_speed, steer_kp, steer_kd, drive_kv,
                    drive_kp, drive_scale, steer_scale, optimize, cosine_scale):
    """One module tick: ``(target speed m/s, target angle rad, drive command, steer command)``, the commands in
    V times their scales (see the module docstring). The module loop's Python tick calls this; the kernel's
    ticks call :func:`tick_commands`, the same law compiled without the wrapper that lets Python call it."""
    return tick_commands(requested_speed, requested_angle, angle, steer_rate, wheel_speed, steer_kp, steer_kd,
                         drive_kv, drive_kp, drive_scale, steer_scale, optimize, cosine_scale)


@jit(internal=True)
def tick_commands(requested_speed, requested_angle, angle, steer_rate, wheel_speed, steer_kp, steer_kd, drive_kv,
                  drive_kp, drive_scale, steer_scale, optimize, cosine_scale):
    """:func:`module_commands`, for the kernel."""
    speed, target = requested_speed, requested_angle
    if optimize:
        speed, target = optimized(speed, target, angle)
    error = wrap_angle(target - angle)
    if cosine_scale:
        speed = speed * math.cos(error)
    v_steer = steer_kp * error - steer_kd * steer_rate
    v_drive = drive_kv * speed + drive_kp * (speed - wheel_speed)
    return speed, target, v_drive * drive_scale, v_steer * steer_scale
