"""The project's single pint registry and the conversion done at the API boundary.

Constructors accept either a pint Quantity (converted to SI here, once) or a plain
float already in SI units (angles in radians, angular rates in rad/s). Nothing
inside a right-hand side or a control loop touches pint.
"""
from __future__ import annotations

import pint

from . import checks

__all__ = ["ureg", "Q_", "to_si"]

ureg = pint.UnitRegistry()
# Abbreviated, pretty units in reprs and labels ("rad/s", "N·m"); where the setting lives moved in pint 0.24.
if hasattr(ureg, "formatter"):
    ureg.formatter.default_format = "~P"
else:  # pint 0.22, 0.23
    ureg.default_format = "~P"
Q_ = ureg.Quantity


def to_si(parameter: str, value, unit: str, *, allow_array: bool = False):
    """Convert ``value`` to a float (or array) in the SI unit ``unit``.

    :func:`simcore.checks.finite` under the name the models have always used.

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
        The quantity has incompatible dimensions, or the number is not finite
        (ConfigTypeError: not a number at all: a string, a bool, None).
    """
    return checks.finite(parameter, value, unit, allow_array=allow_array)
