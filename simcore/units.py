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
# Abbreviated, pretty units in reprs and labels ("rad/s", "N·m"). The setting lives on ureg.formatter
# since pint 0.24; pyproject.toml requires pint >= 0.24.4, the oldest release that imports with numpy 2
# and the current flexparser (0.22 and 0.23 fail on numpy 2, 0.24.0-0.24.3 on flexparser 0.4).
ureg.formatter.default_format = "~P"
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
