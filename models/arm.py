"""A single-jointed arm: a rigid body on a pivot, driven through a gearbox, with hard stops.

Angle convention: ``angle = 0`` is horizontal, positive rotates up (against
gravity when gravity points down), in rad, as WPILib's ``SingleJointedArmSim``.
Gravity acts on the centre of mass at ``com_distance`` from the pivot; its
direction in the arm's plane is ``gravity_direction`` (rad, default ``-pi/2``:
straight down). A robot tilted by ``a`` about the pivot axis sees
``gravity_direction = -pi/2 - a``. The gravity torque is
``m g d sin(gravity_direction - angle)`` (``-m g d cos(angle)`` when down).

``Arm.from_wpilib`` takes ``SingleJointedArmSim``'s constructor arguments; WPILib
models gravity as a uniform rod of length ``L`` pivoting at its end whatever
inertia is passed (``alpha = -3/2 g cos(angle) / L``), which is a centre of mass
at ``L/2`` with mass ``3 J / L²``.
"""
from __future__ import annotations

import math

from simcore.errors import ConfigError, ConfigTypeError
from simcore.units import to_si

from .drive import MotorDrive
from .mechanism import GearedMechanism, split_mechanism_options

__all__ = ["Arm", "STANDARD_GRAVITY", "WPILIB_GRAVITY"]

#: Standard gravity, m/s².
STANDARD_GRAVITY = 9.80665
#: The value WPILib's simulation classes use, m/s².
WPILIB_GRAVITY = 9.8


def _gravity(parameter, gravity, g):
    if isinstance(gravity, bool):
        magnitude = to_si("g", g, "m/s**2")
        if not magnitude >= 0:  # a negative g would silently turn gravity upside down
            raise ConfigError("g", g, "a non-negative acceleration magnitude in m/s**2 (gravity pulls down)")
        return magnitude if gravity else 0.0
    raise ConfigTypeError(parameter, gravity, "True or False (set the magnitude with g=)")


class Arm(GearedMechanism):
    """A motor-driven arm with gravity and hard stops.

    Parameters
    ----------
    motor : DCMotor
    gearing : float
        Motor turns per arm turn.
    mass : float or Quantity
        Arm mass, kg.
    com_distance : float or Quantity
        Pivot to centre of mass, m.
    moi : float or Quantity, optional
        Moment of inertia about the pivot, kg·m²; default: a uniform rod of
        length ``2 * com_distance`` (:meth:`rod_moi`).
    min_angle, max_angle : float or Quantity
        Hard stops, rad (``None`` for none).
    gravity : bool
        Whether gravity acts (default True).
    start_angle : float or Quantity
        Initial angle, rad, within the stops.
    gravity_direction : float
        Direction of gravity in the arm's plane, rad (default ``-pi/2``).
    g : float
        Gravitational acceleration, m/s² (default standard gravity).
    name : str
    **options
        Drive options (see :class:`~simcore.models.flywheel.Flywheel`).
    """

    def __init__(self, motor, gearing, *, mass, com_distance, moi=None, min_angle, max_angle,
                 gravity: bool = True, start_angle=0.0, name: str = "arm", gravity_direction=-math.pi / 2,
                 g=STANDARD_GRAVITY, start_velocity=0.0, **options):
        drive_opts, mech_opts = split_mechanism_options("Arm", options)
        self.mass = to_si("mass", mass, "kg")
        if not self.mass > 0:
            raise ConfigError("mass", mass, "a positive mass in kg")
        self.com_distance = to_si("com_distance", com_distance, "m")
        if not self.com_distance > 0:
            raise ConfigError("com_distance", com_distance, "a positive distance in m")
        self.moi = self.rod_moi(self.mass, 2 * self.com_distance) if moi is None else to_si("moi", moi, "kg*m**2")
        if not self.moi > 0:
            raise ConfigError("moi", moi, "a positive moment of inertia in kg*m**2")
        self.g = _gravity("gravity", gravity, g)
        self.gravity_direction = to_si("gravity_direction", gravity_direction, "rad")
        self._mgd = self.mass * self.g * self.com_distance
        super().__init__(name, MotorDrive(motor, gearing, **drive_opts), mass=self.moi, linear=False,
                         position_name="angle", min_position=min_angle, max_position=max_angle,
                         start_position=start_angle, start_velocity=start_velocity,
                         parameter_names={"min_position": "min_angle", "max_position": "max_angle",
                                          "start_position": "start_angle", "mass": "moi"}, **mech_opts)

    @staticmethod
    def rod_moi(mass, length) -> float:
        """Moment of inertia of a uniform rod about one end, ``m L² / 3``, kg·m² (WPILib's estimateMOI)."""
        m = to_si("mass", mass, "kg")
        L = to_si("length", length, "m")
        if not (m > 0 and L > 0):
            raise ConfigError("length" if m > 0 else "mass", length if m > 0 else mass, "a positive value")
        return m * L * L / 3.0

    @classmethod
    def from_wpilib(cls, gearbox, gearing, moi, arm_length, min_angle, max_angle, simulate_gravity=True,
                    starting_angle=0.0, *, name: str = "arm", **options) -> "Arm":
        """The arm WPILib's ``SingleJointedArmSim(gearbox, gearing, jKgMetersSquared, armLengthMeters,
        minAngleRads, maxAngleRads, simulateGravity, startingAngleRads)`` simulates (g = 9.8 m/s²)."""
        J = to_si("moi", moi, "kg*m**2")
        L = to_si("arm_length", arm_length, "m")
        if not L > 0:
            raise ConfigError("arm_length", arm_length, "a positive length in m")
        options.setdefault("viscous_friction", 0.0)  # WPILib's plant: motors without friction
        return cls(gearbox, gearing, mass=3.0 * J / (L * L), com_distance=L / 2.0, moi=J, min_angle=min_angle,
                   max_angle=max_angle, gravity=bool(simulate_gravity), start_angle=starting_angle, name=name,
                   g=WPILIB_GRAVITY, **options)

    def load_force(self, q):
        return self._mgd * math.sin(self.gravity_direction - q)

    def potential_energy(self, q):
        return self._mgd * (math.cos(self.gravity_direction) - math.cos(self.gravity_direction - q))

    def gravity_torque(self, angle):
        """Gravity torque about the pivot at ``angle``, N·m."""
        return self.load_force(angle)

    @classmethod
    def from_sysid(cls, ks, kg, kv, ka, *, min_angle, max_angle, name: str = "arm", **options) -> "Arm":
        """The arm whose WPILib SysId gains are ``ks``, ``kg`` V, ``kv`` V/(rad/s), ``ka`` V/(rad/s²).

        Angle from horizontal (``kG cos(angle)``); see :func:`simcore.sysid.arm`.
        """
        from simcore.sysid import arm

        return arm(ks, kg, kv, ka, min_angle=min_angle, max_angle=max_angle, name=name, **options)
