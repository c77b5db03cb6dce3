"""WPILib's motor feedforwards in kernel form: ``calculate`` and the one-period ``calculate_with_velocities``.

The contract (WPILib's ``SimpleMotorFeedforward``, ``ElevatorFeedforward`` and ``ArmFeedforward``,
``sign(0) = 0``, the exact zero-order-hold inverse of ``ka dv/dt = u - ks sign(v) - kg - kv v``) is
:mod:`simcore.controllers.feedforward`'s, whose classes keep their gains in the parameter vector these
functions read, so that robot code calling them, a run whose loops tick in the kernel and a batch share
one implementation. The feedforwards have no state. Parameters ``p`` from offset ``po`` (``Q_*``):

* the model (``KIND_*``): a simple motor ``u = ks sign(v) + kv v + ka a``; an elevator, which adds the
  constant ``kg``; an arm, which adds ``kg cos(angle)`` (angle from horizontal, rad);
* ``ks`` (output units, e.g. V), ``kg`` (output units), ``kv`` (per m/s or rad/s), ``ka`` (per m/s^2 or
  rad/s^2) and the period of ``calculate_with_velocities`` (s).

A batch (one feedforward per variant) is a matrix of parameter rows; the ``*_each`` functions run the
scalar functions row by row, so each variant gets the arithmetic a single feedforward gets, to the bit.
"""
from __future__ import annotations

import math

from .jit import jit

__all__ = ["Q_KIND", "Q_KS", "Q_KG", "Q_KV", "Q_KA", "Q_PERIOD", "N_FEEDFORWARD_PARAMETERS", "KIND_SIMPLE_MOTOR",
           "KIND_ELEVATOR", "KIND_ARM", "NO_INERTIA", "calculate", "with_velocities", "calculate_each",
           "with_velocities_each"]

Q_KIND, Q_KS, Q_KG, Q_KV, Q_KA, Q_PERIOD = range(6)
N_FEEDFORWARD_PARAMETERS = 6
KIND_SIMPLE_MOTOR, KIND_ELEVATOR, KIND_ARM = 0, 1, 2
# Below this ka (output units per unit/s^2) there is no inertia: the next velocity is reached at once
# (WPILib's rule in calculate_with_velocities).
NO_INERTIA = 1e-9


@jit(internal=True)
def _sign(x):
    """Java's ``Math.signum`` on a finite float: 1.0, -1.0, or 0.0 for both zeros."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


@jit
def calculate(p, po, position, velocity, acceleration):
    """``ks sign(v) [+ kg | + kg cos(position)] + kv v + ka a`` (output units), summed left to right as
    WPILib writes it; ``position`` (rad from horizontal) is read by the arm alone."""
    kind = p[po + Q_KIND]
    static = p[po + Q_KS] * _sign(velocity)
    if kind == KIND_ELEVATOR:
        static = static + p[po + Q_KG]
    elif kind == KIND_ARM:
        static = static + p[po + Q_KG] * math.cos(position)
    return static + p[po + Q_KV] * velocity + p[po + Q_KA] * acceleration


@jit
def with_velocities(p, po, current_velocity, next_velocity):
    """The constant output that takes the velocity from ``current_velocity`` to ``next_velocity`` in one
    period of ``ka dv/dt = u - ks sign(v0) - kg - kv v`` (the elevator's ``kg``; 0 for a simple motor):
    ``v1 = ad v0 + bd (u - ks sign(v0) - kg)`` with ``ad = exp(-kv T / ka)`` and ``bd = (1 - ad) / kv``,
    which is ``T / ka`` at ``kv = 0`` (expm1 keeps it accurate near there). With ``ka`` below
    :data:`NO_INERTIA` the next velocity's steady output."""
    ks, kv, ka, period = p[po + Q_KS], p[po + Q_KV], p[po + Q_KA], p[po + Q_PERIOD]
    offset = p[po + Q_KG] if p[po + Q_KIND] == KIND_ELEVATOR else 0.0
    if ka < NO_INERTIA:
        return ks * _sign(next_velocity) + offset + kv * next_velocity
    ad = math.exp(-kv * period / ka)
    if kv > 0.0:
        bd = -math.expm1(-kv * period / ka) / kv
    else:
        bd = period / ka
    return ks * _sign(current_velocity) + offset + (next_velocity - ad * current_velocity) / bd


@jit
def calculate_each(P, positions, velocities, accelerations, out):
    """:func:`calculate` of each feedforward: row ``i`` of ``P`` at ``positions[i]``, ``velocities[i]``,
    ``accelerations[i]``, into ``out[i]``."""
    for i in range(P.shape[0]):
        out[i] = calculate(P[i], 0, positions[i], velocities[i], accelerations[i])


@jit
def with_velocities_each(P, current_velocities, next_velocities, out):
    """:func:`with_velocities` of each feedforward (rows of ``P``) into ``out``."""
    for i in range(P.shape[0]):
        out[i] = with_velocities(P[i], 0, current_velocities[i], next_velocities[i])
