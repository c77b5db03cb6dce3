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

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError, ConfigTypeError
from simcore.kernel.layout import LOAD_ARM_GRAVITY

from .drive import MotorDrive
from .motors import as_dcmotor
from .mechanism import FRICTION_PARAMETERS, GearedMechanism, named_as, split_mechanism_options

__all__ = ["Arm", "STANDARD_GRAVITY", "WPILIB_GRAVITY"]

#: The value WPILib's simulation classes use, m/s².
WPILIB_GRAVITY = 9.8


def _gravity(parameter, gravity, g):
    """The gravitational acceleration, m/s², of a mechanism with the ``gravity`` flag and magnitude ``g``."""
    if not isinstance(gravity, bool):
        raise ConfigTypeError(parameter, gravity, "True or False (set the magnitude with g=)")
    # A negative g would silently turn gravity upside down.
    magnitude = checks.nonnegative("g", g, "m/s**2", what="acceleration magnitude (gravity pulls down)")
    return magnitude if gravity else 0.0


def _positive_product(parameter, value, product, expected):
    """``product``, a quantity derived from the user's ``value``, if finite and > 0; else ConfigError.

    At the ends of the float range a product of valid values can overflow to inf or
    underflow to 0 (a 1e-200 m arm has an inertia of 0.0 kg·m²).
    """
    if not (product > 0 and math.isfinite(product)):
        raise ConfigError(parameter, value, expected)
    return product


def _rod_inertia(mass, com_distance):
    """Inertia of a uniform rod of length ``2 d`` about one end, ``m (2 d)² / 3``, kg·m² (floats or arrays)."""
    return mass * ((2 * com_distance) * (2 * com_distance)) / 3


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
        drive_opts, mech_opts = split_mechanism_options(type(self), options)
        self.mass = checks.positive("mass", mass, "kg", what="mass")
        self.com_distance = checks.positive("com_distance", com_distance, "m", what="distance")
        self.moi_from_rod = moi is None  # a batch that varies the mass or com_distance recomputes it
        if moi is None:
            self.moi = _positive_product("com_distance", com_distance, _rod_inertia(self.mass, self.com_distance),
                                         "a distance whose rod inertia m (2 d)² / 3 is a positive finite number")
        else:
            self.moi = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        self.g = _gravity("gravity", gravity, g)
        self.gravity_direction = checks.angle("gravity_direction", gravity_direction)
        self._mgd = self.mass * self.g * self.com_distance
        if not math.isfinite(self._mgd):
            raise ConfigError("mass", mass, f"a mass whose gravity torque m g d (g={self.g!r} m/s², "
                                            f"d={self.com_distance!r} m) is finite")
        super().__init__(name, MotorDrive(motor, gearing, **drive_opts), mass=self.moi, linear=False,
                         position_name="angle", min_position=min_angle, max_position=max_angle,
                         start_position=start_angle, start_velocity=start_velocity,
                         parameter_names={"min_position": "min_angle", "max_position": "max_angle",
                                          "start_position": "start_angle", "mass": "moi"}, **mech_opts)

    @staticmethod
    def rod_moi(mass, length) -> float:
        """Moment of inertia of a uniform rod about one end, ``m L² / 3``, kg·m² (WPILib's estimateMOI)."""
        m = checks.positive("mass", mass, "kg", what="mass")
        L = checks.positive("length", length, "m", what="length")
        return _positive_product("length", length, m * L * L / 3.0,
                                 "a length whose rod inertia m L² / 3 is a positive finite number")

    @classmethod
    def from_wpilib(cls, gearbox, gearing, moi, arm_length, min_angle, max_angle, simulate_gravity=True,
                    starting_angle=0.0, *, name: str = "arm", **options) -> "Arm":
        """The arm WPILib's ``SingleJointedArmSim(gearbox, gearing, jKgMetersSquared, armLengthMeters,
        minAngleRads, maxAngleRads, simulateGravity, startingAngleRads)`` simulates (g = 9.8 m/s²)."""
        J = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        L = checks.positive("arm_length", arm_length, "m", what="length")
        mass = _positive_product("arm_length", arm_length, 3.0 * J / (L * L) if L * L > 0 else math.inf,
                                 f"a length for which WPILib's rod mass 3 J / L² (J={J!r} kg*m**2) is finite")
        options.setdefault("viscous_friction", 0.0)  # WPILib's plant: motors without friction
        with named_as({"start_angle": "starting_angle", "com_distance": "arm_length", "mass": "moi",
                       "motor": "gearbox"}):
            return cls(as_dcmotor("gearbox", gearbox), gearing, mass=mass, com_distance=L / 2.0, moi=J, min_angle=min_angle,
                       max_angle=max_angle, gravity=checks.flag("simulate_gravity", simulate_gravity),
                       start_angle=starting_angle, name=name, g=WPILIB_GRAVITY, **options)

    BATCH_PARAMETERS = ("mass", "com_distance", "moi", "gearing") + FRICTION_PARAMETERS

    def _variant_load(self, value, varied, refuse):
        # An arm built without moi has its rod inertia: each variant's, from its mass and com_distance.
        mass, com = value("mass"), value("com_distance")
        if self.moi_from_rod and "moi" not in varied and ("mass" in varied or "com_distance" in varied):
            moi = _rod_inertia(mass, com)
            refuse(~(np.isfinite(moi) & (moi > 0)), ("mass", "com_distance"),
                   "a mass and com_distance whose rod inertia m (2 d)^2 / 3 is a positive finite number",
                   "com_distance")
        else:
            moi = value("moi")
        mgd = mass * self.g * com
        refuse(~np.isfinite(mgd), ("mass", "com_distance"),
               f"a mass and com_distance whose gravity torque m g d (g={self.g!r} m/s²) is finite", "mass")
        return moi, LOAD_ARM_GRAVITY, mgd, self.gravity_direction

    def load_force(self, q):
        return self._mgd * math.sin(self.gravity_direction - q)

    def kernel_load(self):
        return (LOAD_ARM_GRAVITY, self._mgd, self.gravity_direction)

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
