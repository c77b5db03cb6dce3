"""The project's single pint registry and the conversion done at the API boundary.

Constructors accept either a pint Quantity (converted to SI here, once) or a plain
float already in SI units (angles in radians, angular rates in rad/s). Nothing
inside a right-hand side or a control loop touches pint.
"""
from __future__ import annotations

import math

import pint

from .errors import ConfigError, ConfigTypeError

__all__ = ["ureg", "Q_", "to_si", "SI_UNITS"]

ureg = pint.UnitRegistry()
ureg.formatter.default_format = "~P" if hasattr(ureg, "formatter") else "~P"
Q_ = ureg.Quantity

#: SI unit strings by physical kind, used for conversion and for labelling axes.
SI_UNITS = {
    "time": "s",
    "angle": "rad",
    "angular_velocity": "rad/s",
    "angular_acceleration": "rad/s**2",
    "length": "m",
    "velocity": "m/s",
    "acceleration": "m/s**2",
    "mass": "kg",
    "moment_of_inertia": "kg*m**2",
    "torque": "N*m",
    "force": "N",
    "voltage": "V",
    "current": "A",
    "resistance": "ohm",
    "power": "W",
    "energy": "J",
    "frequency": "Hz",
    "dimensionless": "",
    "torque_constant": "N*m/A",
    "velocity_constant": "rad/s/V",
    "viscous_friction": "N*m*s/rad",
}


def to_si(parameter: str, value, unit: str, *, allow_array: bool = False):
    """Convert ``value`` to a float (or array) in the SI unit ``unit``.

    Parameters
    ----------
    parameter : str
        Name used in the error message.
    value : float, array or pint.Quantity
        A plain number is taken to be in SI already.
    unit : str
        Target unit, e.g. ``"kg*m**2"``; ``""`` for dimensionless.
    allow_array : bool
        Accept numpy arrays (for batch simulations).

    Returns
    -------
    float or numpy.ndarray
        The magnitude in ``unit``.

    Raises
    ------
    ConfigError
        The quantity has incompatible dimensions, or the number is not finite.
    """
    import numpy as np

    if isinstance(value, pint.Quantity):
        try:
            mag = value.to(unit).magnitude if unit else value.to("").magnitude
        except pint.DimensionalityError:
            raise ConfigError(parameter, value, f"a quantity convertible to {unit or 'dimensionless'}") from None
    else:
        mag = value
    if isinstance(mag, (list, tuple)) or (hasattr(mag, "shape") and getattr(mag, "shape", ()) != ()):
        if not allow_array:
            raise ConfigTypeError(parameter, value, f"a scalar in {unit or 'dimensionless'}")
        arr = np.asarray(mag, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ConfigError(parameter, value, "finite numbers")
        return arr
    # bool is an int and "2.0" converts with float(): neither is a number a user meant.
    if isinstance(mag, (bool, str, bytes, bytearray)):
        raise ConfigTypeError(parameter, value, f"a number in {unit or 'dimensionless'}")
    try:
        f = float(mag)
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, value, f"a number in {unit or 'dimensionless'}") from None
    if not math.isfinite(f):
        raise ConfigError(parameter, value, "a finite number")
    return f
