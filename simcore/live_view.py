"""The simulated truth on NetworkTables 4, for AdvantageScope's live view.

The contract
------------
A :class:`LiveView` publishes, on one NetworkTables instance and under one prefix
(:data:`DEFAULT_PREFIX`, ``"/simcore"``), what the simulation knows at its present
time; each :meth:`LiveView.publish` sets every topic once:

* ``<prefix>/time``: the simulated time, s (``double``);
* ``<prefix>/<system>/<signal>``: every state, input and output of every system
  (``double``), the same names as :meth:`Result.to_wpilog`'s entries; the unit is
  the topic's ``"unit"`` property, in the words simcore's WPILOG metadata uses
  (``"meters"``, ``"radians per second"``, ``"amps"``; see
  :data:`simcore.logs.ADVANTAGESCOPE_UNITS`). The battery's ``voltage`` and each
  mechanism's ``supply_current`` are among them;
* ``<prefix>/<system>/pose``: for a drivetrain (a system with ``x``, ``y`` and
  ``heading``), its field pose as WPILib's ``struct:Pose2d`` (x, y in m, rotation
  in rad: three little-endian doubles), and ``<prefix>/<system>/pose3d`` as
  ``struct:Pose3d`` (z = 0, the heading as a rotation about the field's z axis:
  a translation of three doubles and a quaternion w, x, y, z);
* ``<prefix>/<system>/module_states``: for a swerve drive (``wheel_speed_<i>`` and
  ``steer_angle_<i>``), WPILib's ``struct:SwerveModuleState[]``, module by module
  (speed in m/s, angle in rad: two doubles each);
* ``<prefix>/components``: the mechanisms' joint poses as WPILib's
  ``struct:Pose3d[]``, one per :class:`~simcore.models.Arm` and
  :class:`~simcore.models.Elevator` in the order of ``systems``, each relative to the
  robot (x forward, y left, z up; m): an arm's is the rotation by its ``angle`` about
  its pivot axis through its pivot point (the translation keeps the pivot fixed:
  ``pivot - R pivot``), an elevator's the translation by its ``position`` along its
  axis, unrotated. By default an arm pivots about the robot's ``-y`` axis through
  the origin (a positive angle raises an arm that points forward) and an elevator
  moves along ``+z``; ``components={"arm": {"pivot": (x, y, z), "axis": (x, y,
  z)}}`` places them. This is the form of AdvantageScope's articulated robot models
  (components zeroed at the robot's origin).

The struct topics are published through ntcore's struct publishers with wpimath's
own geometry and kinematics types, which also publish the layouts under
``/.schema/struct:...``, where AdvantageScope reads them. AdvantageScope adds a
drivetrain to its 2D or 3D field from ``<prefix>/<system>/pose``, swerve states
from ``<prefix>/<system>/module_states`` and the mechanisms to a 3D robot model from
``<prefix>/components``.

Which instance: in a robotpy program, the robot's own (the default instance, a
server AdvantageScope connects to); beside a Java or C++ robot (:mod:`simcore.halsim`),
an NT4 client of the robot program's server, so AdvantageScope sees the robot's
topics and these together. The pose topics need wpimath and ntcore (robotpy's
``pyntcore``), the ``robotpy`` extra.
"""
from __future__ import annotations

import math

from .errors import ConfigError, ConfigTypeError
from .extras import require

__all__ = ["LiveView", "DEFAULT_PREFIX"]

#: Where the simulated truth appears on NetworkTables.
DEFAULT_PREFIX = "/simcore"


def _prefix(prefix) -> str:
    if not isinstance(prefix, str) or not prefix.startswith("/") or prefix.endswith("/") or len(prefix) < 2:
        raise ConfigError("prefix", prefix, "a NetworkTables path such as \"/simcore\" (starting with '/', "
                                            "not ending with one)")
    return prefix


def _vector(parameter, value, what):
    try:
        x, y, z = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, value, f"{what}: three numbers (x, y, z)") from None
    if not all(math.isfinite(v) for v in (x, y, z)):
        raise ConfigError(parameter, value, f"{what}: three finite numbers")
    return x, y, z


def _joints(systems, components):
    """(kind, signal, pivot, unit axis) of each Arm ("turn") and Elevator ("slide"), in the order of ``systems``."""
    from simcore.models import Arm, Elevator

    components = {} if components is None else components
    if not isinstance(components, dict):
        raise ConfigTypeError("components", components, "a dict {system name: {\"pivot\": ..., \"axis\": ...}}")
    joints, named = [], set()
    for system in systems:
        if isinstance(system, Arm):
            kind, signal, axis = "turn", "angle", (0.0, -1.0, 0.0)
        elif isinstance(system, Elevator):
            kind, signal, axis = "slide", "position", (0.0, 0.0, 1.0)
        else:
            continue
        named.add(system.name)
        place = components.get(system.name, {})
        keys = {"pivot", "axis"} if kind == "turn" else {"axis"}
        if not isinstance(place, dict) or not set(place) <= keys:
            raise ConfigError(f"components[{system.name!r}]", place, "a dict of " + " and ".join(sorted(keys)))
        pivot = _vector(f"components[{system.name!r}]['pivot']", place.get("pivot", (0.0, 0.0, 0.0)), "a point, m")
        axis = _vector(f"components[{system.name!r}]['axis']", place.get("axis", axis), "a direction")
        norm = math.sqrt(sum(a * a for a in axis))
        if norm == 0.0:
            raise ConfigError(f"components[{system.name!r}]['axis']", place["axis"], "a non-zero direction")
        joints.append((kind, f"{system.name}.{signal}", pivot, tuple(a / norm for a in axis)))
    unknown = set(components) - named
    if unknown:
        raise ConfigError("components", sorted(unknown)[0], "the name of a simulated Arm or Elevator, one of "
                                                            + (", ".join(sorted(named)) or "(none)"))
    return joints


class LiveView:
    """Publishes a simulation's signals, drivetrain poses and swerve module states (see the module docstring).

    Parameters
    ----------
    systems : sequence of System
        The simulated systems (a :class:`~simcore.Simulator`'s ``systems``).
    instance : ntcore.NetworkTableInstance
        Where to publish (a robot program's default instance, or a client's).
    prefix : str
        The path every topic is under (default :data:`DEFAULT_PREFIX`).
    components : dict, optional
        Where each Arm and Elevator sits on the robot, by system name:
        ``{"pivot": (x, y, z)}`` (an arm's pivot point, m; default the origin) and
        ``{"axis": (x, y, z)}`` (its pivot axis, or an elevator's direction of travel;
        normalized; default ``(0, -1, 0)`` for an arm, ``(0, 0, 1)`` for an elevator).
    """

    def __init__(self, systems, instance, prefix: str = DEFAULT_PREFIX, components=None):
        ntcore = require("ntcore", "robotpy", "simcore.live_view.LiveView")
        geometry = require("wpimath.geometry", "robotpy", "simcore.live_view.LiveView")
        kinematics = require("wpimath.kinematics", "robotpy", "simcore.live_view.LiveView")
        if not isinstance(instance, ntcore.NetworkTableInstance):
            raise ConfigTypeError("instance", instance, "an ntcore.NetworkTableInstance")
        from simcore.logs import ADVANTAGESCOPE_UNITS

        self.prefix = _prefix(prefix)
        self.instance = instance
        self._geometry, self._kinematics = geometry, kinematics
        self._time_pub = instance.getDoubleTopic(f"{self.prefix}/time").publishEx("double", {"unit": "seconds"})
        self._doubles = []  # (signal name, publisher)
        self._poses = []  # (x, y, heading names, Pose2d publisher, Pose3d publisher)
        self._modules = []  # (speed names, angle names, SwerveModuleState[] publisher)
        self._joints = _joints(systems, components)  # (kind, signal, pivot, unit axis)
        self._components = (instance.getStructArrayTopic(f"{self.prefix}/components", geometry.Pose3d).publish()
                            if self._joints else None)
        for system in systems:
            names = list(system.state_names) + list(system.input_names) + list(system.output_names)
            for signal in names:
                topic = instance.getDoubleTopic(f"{self.prefix}/{system.name}/{signal}")
                unit = system.units.get(signal, "")
                # the unit goes with the publication: a server ignores properties of an unpublished topic
                properties = {"unit": ADVANTAGESCOPE_UNITS.get(unit, unit)} if unit else {}
                self._doubles.append((f"{system.name}.{signal}", topic.publishEx("double", properties)))
            if {"x", "y", "heading"} <= set(names):
                base = f"{self.prefix}/{system.name}"
                self._poses.append((tuple(f"{system.name}.{s}" for s in ("x", "y", "heading")),
                                    instance.getStructTopic(f"{base}/pose", geometry.Pose2d).publish(),
                                    instance.getStructTopic(f"{base}/pose3d", geometry.Pose3d).publish()))
            n = sum(1 for s in names if s.startswith("wheel_speed_"))
            if n and all(f"steer_angle_{i}" in names and f"wheel_speed_{i}" in names for i in range(n)):
                self._modules.append((tuple(f"{system.name}.wheel_speed_{i}" for i in range(n)),
                                      tuple(f"{system.name}.steer_angle_{i}" for i in range(n)),
                                      instance.getStructArrayTopic(f"{self.prefix}/{system.name}/module_states",
                                                                   kinematics.SwerveModuleState).publish()))

    @property
    def topics(self) -> list[str]:
        """Every topic this view publishes, by name."""
        names = [f"{self.prefix}/time"]
        names += [pub.getTopic().getName() for _, pub in self._doubles]
        for _, pose, pose3d in self._poses:
            names += [pose.getTopic().getName(), pose3d.getTopic().getName()]
        names += [pub.getTopic().getName() for *_, pub in self._modules]
        if self._components is not None:
            names.append(self._components.getTopic().getName())
        return names

    def publish(self, t: float, signals) -> None:
        """Set every topic from ``signals`` (``{"system.signal": value}``) at simulated time ``t`` (s)."""
        g = self._geometry
        self._time_pub.set(t)
        for name, pub in self._doubles:
            pub.set(signals[name])
        for (x, y, heading), pose, pose3d in self._poses:
            h = signals[heading]
            pose.set(g.Pose2d(signals[x], signals[y], g.Rotation2d(h)))
            rotation = g.Rotation3d(g.Quaternion(math.cos(h / 2.0), 0.0, 0.0, math.sin(h / 2.0)))
            pose3d.set(g.Pose3d(g.Translation3d(signals[x], signals[y], 0.0), rotation))
        state = self._kinematics.SwerveModuleState
        for speeds, angles, pub in self._modules:
            pub.set([state(signals[v], g.Rotation2d(signals[a])) for v, a in zip(speeds, angles)])
        if self._components is not None:
            self._components.set([self._joint_pose(joint, signals[joint[1]]) for joint in self._joints])

    def _joint_pose(self, joint, q):
        g = self._geometry
        kind, _, (px, py, pz), (ax, ay, az) = joint
        if kind == "slide":
            return g.Pose3d(g.Translation3d(ax * q, ay * q, az * q), g.Rotation3d())
        c, s = math.cos(q / 2.0), math.sin(q / 2.0)
        rotation = g.Rotation3d(g.Quaternion(c, ax * s, ay * s, az * s))
        # the pivot stays where it is: translation = pivot - R pivot
        turned = g.Translation3d(px, py, pz).rotateBy(rotation)
        return g.Pose3d(g.Translation3d(px - turned.X(), py - turned.Y(), pz - turned.Z()), rotation)

    def close(self) -> None:
        """Unpublish every topic (the values disappear from the server)."""
        self._time_pub.close()
        for _, pub in self._doubles:
            pub.close()
        for _, pose, pose3d in self._poses:
            pose.close()
            pose3d.close()
        for *_, pub in self._modules:
            pub.close()
        if self._components is not None:
            self._components.close()
