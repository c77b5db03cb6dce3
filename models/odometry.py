"""Dead-wheel odometry pods: unpowered omni wheels with encoders, rolling with the chassis.

A pod is a small omni wheel sprung onto the floor at a mounting pose on the robot:
its contact point ``(x, y)`` (robot frame: x forward, y left, from the drivetrain's
centre, m) and the heading ``phi`` of its rolling direction (rad, counter-clockwise
from the robot's x axis). It rolls without slipping along that direction and its
rollers let it slide freely across it, so its wheel turns with the chassis velocity
component along ``d = (cos phi, sin phi)`` at its contact point::

    rolling speed  s = (v_x - omega y) cos phi + (v_y + omega x) sin phi        (m/s)

with ``(v_x, v_y)`` the robot-frame velocity of the centre and ``omega`` the yaw
rate (:meth:`OdometryPod.rolling_speed`, the one law every drivetrain's pods use:
:class:`~simcore.models.MecanumDrive` and :class:`~simcore.models.TankDrive` give it
their chassis velocity; a tank that never moves sideways gives ``v_y = 0``). The
distance it has rolled, ``D = integral of s dt``, is a state of the
drivetrain the pod is mounted on (``<pod>_distance``, m: integrated by the engine
with the rest of the motion, to its tolerance); its wheel has turned ``D / r``
radians (``<pod>_rotor_position``, rad; ``<pod>_rotor_velocity``, rad/s), which its
encoder counts at ``counts_per_revolution`` per turn. A hub encoder port reads
those (:meth:`simcore.controllers.hub.Hub.encoder`).

Layouts: two parallel pods and one perpendicular (three-wheel odometry), or one
parallel and one perpendicular with the heading from the IMU (two-wheel
odometry). Not modelled: the pod's own slip, its spring, its wheel's eccentricity.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

__all__ = ["OdometryPod", "odometry_pods_of", "pod_signals", "pod_rates", "pod_readings"]


@dataclass(frozen=True)
class OdometryPod:
    """A dead wheel at a mounting pose on the robot.

    Parameters
    ----------
    name : str
        The pod's name: its signals are ``<name>_distance`` (m), ``<name>_rotor_position`` (rad) and
        ``<name>_rotor_velocity`` (rad/s) on the drivetrain.
    x, y : float
        Contact point on the robot, m (x forward, y left, from the drivetrain's centre).
    heading : float
        Direction it rolls in, rad counter-clockwise from the robot's forward axis (0: a "parallel" pod
        that counts up driving forward; pi/2: a "perpendicular" pod that counts up strafing left).
    wheel_radius : float
        The omni wheel's radius, m.
    counts_per_revolution : float
        Encoder counts per turn of the wheel (quadrature edges, as the hub counts them).
    """

    name: str
    x: float
    y: float
    heading: float
    wheel_radius: float
    counts_per_revolution: float

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ConfigTypeError("name", self.name, "a pod name usable in signal names (letters, digits, _)")
        for name, unit in (("x", "m"), ("y", "m"), ("heading", "rad")):
            object.__setattr__(self, name, checks.finite(name, getattr(self, name), unit))
        object.__setattr__(self, "wheel_radius", checks.positive("wheel_radius", self.wheel_radius, "m"))
        object.__setattr__(self, "counts_per_revolution",
                           checks.positive("counts_per_revolution", self.counts_per_revolution, ""))

    def rolling_speed(self, vx: float, vy: float, omega: float) -> float:
        """Speed the pod's wheel rolls at, m/s, for robot-frame ``vx``, ``vy`` (m/s) and yaw rate ``omega``
        (rad/s): the velocity of its contact point along its rolling direction."""
        return (vx - omega * self.y) * math.cos(self.heading) + (vy + omega * self.x) * math.sin(self.heading)

    def counts(self, distance: float) -> float:
        """Encoder counts for ``distance`` rolled, m (not rounded)."""
        return distance / (2.0 * math.pi * self.wheel_radius) * self.counts_per_revolution


def odometry_pods_of(parameter: str, pods) -> tuple:
    """``pods`` checked: a tuple of :class:`OdometryPod` with distinct names."""
    if isinstance(pods, OdometryPod):
        pods = (pods,)
    try:
        pods = tuple(pods)
    except TypeError:
        raise ConfigTypeError(parameter, pods, "a sequence of simcore.models.OdometryPod") from None
    for p in pods:
        if not isinstance(p, OdometryPod):
            raise ConfigTypeError(parameter, p, "a simcore.models.OdometryPod")
    names = [p.name for p in pods]
    if len(set(names)) != len(names):
        raise ConfigError(parameter, names, "pods with distinct names")
    return pods


def pod_signals(pods) -> tuple:
    """``(states, outputs, units)`` of ``pods`` on a drivetrain: the states ``<pod>_distance`` (m), the outputs
    ``<pod>_rotor_position`` (rad) and ``<pod>_rotor_velocity`` (rad/s), pod by pod, and their units."""
    states = [f"{p.name}_distance" for p in pods]
    outputs = [f"{p.name}_{o}" for p in pods for o in ("rotor_position", "rotor_velocity")]
    units = {}
    for p in pods:
        units.update({f"{p.name}_distance": "m", f"{p.name}_rotor_position": "rad",
                      f"{p.name}_rotor_velocity": "rad/s"})
    return states, outputs, units


def pod_rates(pods, vx: float, vy: float, omega: float) -> list:
    """The derivatives of the pods' ``<pod>_distance`` states, m/s: each pod's rolling speed at robot-frame
    chassis velocity ``vx``, ``vy`` (m/s) and yaw rate ``omega`` (rad/s)."""
    return [p.rolling_speed(vx, vy, omega) for p in pods]


def pod_readings(pods, distances, vx: float, vy: float, omega: float) -> list:
    """The pods' outputs, in :func:`pod_signals`' order: per pod its wheel's angle ``D / r`` (rad) from its
    rolled ``distances`` (m) and its wheel's speed ``s / r`` (rad/s) at the chassis velocity ``vx``, ``vy`` (m/s,
    robot frame) and ``omega`` (rad/s)."""
    out = []
    for p, d in zip(pods, distances):
        out += [d / p.wheel_radius, p.rolling_speed(vx, vy, omega) / p.wheel_radius]
    return out
