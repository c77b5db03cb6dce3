"""An elevator: a carriage lifted by a cable drum through a gearbox, with hard stops.

``position`` is the carriage height, m, positive up. Gravity pulls the carriage
down with ``carriage_mass * g``; an optional counterweight (mass on the other side
of the drum) pulls up and adds inertia; an optional constant-force spring adds a
constant upward force. ``Elevator.from_wpilib`` takes ``ElevatorSim``'s
constructor arguments (gravity 9.8 m/s², as WPILib).
"""
from __future__ import annotations

import math

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError
from simcore.kernel.layout import LOAD_CONSTANT

from .arm import WPILIB_GRAVITY, _gravity
from .drive import MotorDrive
from .motors import as_dcmotor
from .mechanism import FRICTION_PARAMETERS, GearedMechanism, named_as, split_mechanism_options

__all__ = ["Elevator"]


class Elevator(GearedMechanism):
    """A motor-driven elevator.

    Parameters
    ----------
    motor : DCMotor
    gearing : float
        Motor turns per drum turn.
    carriage_mass : float or Quantity
        kg.
    drum_radius : float or Quantity
        m.
    min_height, max_height : float or Quantity
        Hard stops, m.
    gravity : bool
    start_height : float or Quantity
        m, within the stops.
    constant_force : float or Quantity
        Upward force of a constant-force spring, N (default 0).
    counterweight_mass : float or Quantity
        kg (default 0).
    g : float
        m/s².
    name : str
    **options
        Drive options (see :class:`~simcore.models.flywheel.Flywheel`).
    """

    def __init__(self, motor, gearing, *, carriage_mass, drum_radius, min_height, max_height,
                 gravity: bool = True, start_height=0.0, name: str = "elevator", constant_force=0.0,
                 counterweight_mass=0.0, g=STANDARD_GRAVITY, start_velocity=0.0, **options):
        drive_opts, mech_opts = split_mechanism_options(type(self), options)
        self.carriage_mass = checks.positive("carriage_mass", carriage_mass, "kg", what="mass")
        self.counterweight_mass = checks.nonnegative("counterweight_mass", counterweight_mass, "kg", what="mass")
        self.constant_force = checks.finite("constant_force", constant_force, "N")
        self.g = _gravity("gravity", gravity, g)
        self._weight = (self.carriage_mass - self.counterweight_mass) * self.g
        if not math.isfinite(self._weight + self.carriage_mass + self.counterweight_mass):
            raise ConfigError("carriage_mass", carriage_mass, f"a mass whose weight at g={self.g!r} m/s² is finite")
        super().__init__(name, MotorDrive(motor, gearing, **drive_opts),
                         mass=self.carriage_mass + self.counterweight_mass, linear=True,
                         drum_radius=drum_radius, position_name="position", min_position=min_height,
                         max_position=max_height, start_position=start_height, start_velocity=start_velocity,
                         parameter_names={"min_position": "min_height", "max_position": "max_height",
                                          "start_position": "start_height", "mass": "carriage_mass"}, **mech_opts)

    @classmethod
    def from_wpilib(cls, gearbox, gearing, carriage_mass, drum_radius, min_height, max_height,
                    simulate_gravity=True, starting_height=0.0, *, name: str = "elevator",
                    **options) -> "Elevator":
        """The elevator WPILib's ``ElevatorSim(gearbox, gearing, carriageMassKg, drumRadiusMeters,
        minHeightMeters, maxHeightMeters, simulateGravity, startingHeightMeters)`` simulates."""
        options.setdefault("viscous_friction", 0.0)  # WPILib's plant: motors without friction
        with named_as({"start_height": "starting_height", "motor": "gearbox"}):
            return cls(as_dcmotor("gearbox", gearbox), gearing, carriage_mass=carriage_mass, drum_radius=drum_radius,
                       min_height=min_height, max_height=max_height,
                       gravity=checks.flag("simulate_gravity", simulate_gravity), start_height=starting_height,
                       name=name, g=WPILIB_GRAVITY, **options)

    BATCH_PARAMETERS = ("carriage_mass", "gearing") + FRICTION_PARAMETERS

    def _variant_load(self, value, varied, refuse):
        carriage = value("carriage_mass")
        weight = (carriage - self.counterweight_mass) * self.g
        refuse(~np.isfinite(weight + carriage + self.counterweight_mass), ("carriage_mass",),
               f"a mass whose weight at g={self.g!r} m/s² is finite", "carriage_mass")
        return carriage + self.counterweight_mass, LOAD_CONSTANT, self.constant_force - weight, 0.0

    def load_force(self, q):
        return self.constant_force - self._weight

    def kernel_load(self):
        return (LOAD_CONSTANT, self.constant_force - self._weight, 0.0)

    def potential_energy(self, q):
        return (self._weight - self.constant_force) * q

    @classmethod
    def from_sysid(cls, ks, kg, kv, ka, *, min_height, max_height, name: str = "elevator",
                   **options) -> "Elevator":
        """The elevator whose WPILib SysId gains are ``ks``, ``kg`` V, ``kv`` V/(m/s), ``ka`` V/(m/s²).

        See :func:`simcore.sysid.elevator`.
        """
        from simcore.sysid import elevator

        return elevator(ks, kg, kv, ka, min_height=min_height, max_height=max_height, name=name, **options)
