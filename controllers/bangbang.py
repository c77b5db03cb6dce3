"""Bang-bang controller with WPILib's ``BangBangController`` semantics.

Follows ``edu/wpi/first/math/controller/BangBangController.java`` (v2025.3.2): the
output is 1 when ``measurement < setpoint`` and 0 otherwise -- it only ever pushes
one way (meant for flywheels, which coast down on their own; use coast mode).
``at_setpoint()`` is ``|setpoint - measurement| < tolerance`` (strict), with the
measurement and setpoint of the last call (both 0 before any call). Measurements
and setpoints may be numpy arrays (element-wise output).
"""
from __future__ import annotations

__all__ = ["BangBangController"]

import math

import numpy as np

from simcore import checks


class BangBangController:
    """Output 1 below the setpoint, 0 at or above it.

    Parameters
    ----------
    tolerance : float, optional
        Largest ``|setpoint - measurement|`` counted as at the setpoint
        (measurement units, e.g. rad/s); default infinity. Only affects
        :meth:`at_setpoint`, never the output.

    Raises
    ------
    ConfigError
        ``tolerance`` is negative or NaN.
    """

    def __init__(self, tolerance: float = math.inf):
        self._tolerance = checks.tolerance("tolerance", tolerance)
        self._setpoint = 0.0
        self._measurement = 0.0

    @property
    def tolerance(self) -> float:
        """Tolerance of :meth:`at_setpoint` (measurement units)."""
        return self._tolerance

    @tolerance.setter
    def tolerance(self, value: float) -> None:
        self._tolerance = checks.tolerance("tolerance", value)

    def set_tolerance(self, tolerance: float) -> None:
        """Set :attr:`tolerance`."""
        self.tolerance = tolerance

    @property
    def setpoint(self):
        """The setpoint (measurement units)."""
        return self._setpoint

    @setpoint.setter
    def setpoint(self, value) -> None:
        self._setpoint = checks.finite("setpoint", value, allow_array=True)

    def set_setpoint(self, setpoint) -> None:
        """Set :attr:`setpoint`."""
        self.setpoint = setpoint

    @property
    def measurement(self):
        """The measurement of the last call."""
        return self._measurement

    @property
    def error(self):
        """``setpoint - measurement`` of the last call."""
        return self._setpoint - self._measurement

    def get_error(self):
        """Return :attr:`error`."""
        return self.error

    def at_setpoint(self):
        """True when ``|setpoint - measurement| < tolerance`` (element-wise for arrays)."""
        result = abs(self._setpoint - self._measurement) < self._tolerance
        return bool(result) if np.ndim(result) == 0 else result

    def calculate(self, measurement, setpoint=None):
        """Return 1.0 if ``measurement < setpoint`` else 0.0.

        Parameters
        ----------
        measurement : float or ndarray
            The measured value (e.g. flywheel speed, rad/s).
        setpoint : float or ndarray, optional
            New setpoint, same units; if omitted the current one is kept.

        Returns
        -------
        float or ndarray
            The output, 0 or 1 (scale it to volts or duty cycle yourself).
        """
        # A NaN measurement compares false and would silently switch the output off.
        measurement = checks.finite("measurement", measurement, allow_array=True)
        if setpoint is not None:
            self.setpoint = setpoint
        self._measurement = measurement
        if np.ndim(measurement) == 0 and np.ndim(self._setpoint) == 0:
            return 1.0 if measurement < self._setpoint else 0.0
        return np.where(np.less(measurement, self._setpoint), 1.0, 0.0)
