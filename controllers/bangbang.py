"""Bang-bang controller with WPILib's ``BangBangController`` semantics.

Follows ``edu/wpi/first/math/controller/BangBangController.java`` (v2025.3.2): the
output is 1 when ``measurement < setpoint`` and 0 otherwise -- it only ever pushes
one way (meant for flywheels, which coast down on their own; use coast mode).
``at_setpoint()`` is ``|setpoint - measurement| < tolerance`` (strict), with the
measurement and setpoint of the last call (both 0 before any call). Measurements
and setpoints may be numpy arrays (element-wise output).

The law is written once, in :mod:`simcore.kernel.bangbang` (compiled by numba, loaded when
the first controller is made: ``import simcore`` loads no numba); the controller keeps its
tolerance, setpoint and last measurement in that module's two vectors, one row of each per
element once arrays are given.
"""
from __future__ import annotations

__all__ = ["BangBangController"]

import math

import numpy as np

from simcore import checks

from .kernel_rows import KernelRows


def _kernel():
    """:mod:`simcore.kernel.bangbang`, imported at first use (``import simcore`` loads no numba)."""
    global _bangbang_kernel
    if _bangbang_kernel is None:
        from simcore.kernel import bangbang
        _bangbang_kernel = bangbang
    return _bangbang_kernel


_bangbang_kernel = None


class BangBangController(KernelRows):
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
        tolerance = checks.tolerance("tolerance", tolerance)
        k = _kernel()
        # simcore.kernel.bangbang's vectors; one row of each per element once arrays are given (a batch).
        self._p = np.zeros(k.N_BANGBANG_PARAMETERS)
        self._s = np.zeros(k.N_BANGBANG_STATE)
        self._shape = ()
        self._arrays = frozenset()  # which of setpoint, measurement were given as arrays
        self._p[k.Q_TOLERANCE] = tolerance

    def kernel_vectors(self):
        """The controller's own parameter and state vectors (shapes ``(N_BANGBANG_PARAMETERS,)`` and
        ``(N_BANGBANG_STATE,)``, laid out as :mod:`simcore.kernel.bangbang` says; the storage, not copies), or
        None when the controller holds arrays (a batch's)."""
        return (self._p, self._s) if self._s.ndim == 1 else None

    @property
    def tolerance(self) -> float:
        """Tolerance of :meth:`at_setpoint` (measurement units)."""
        return self._parameter(_kernel().Q_TOLERANCE)

    @tolerance.setter
    def tolerance(self, value: float) -> None:
        self._p[..., _kernel().Q_TOLERANCE] = checks.tolerance("tolerance", value)

    def set_tolerance(self, tolerance: float) -> None:
        """Set :attr:`tolerance`."""
        self.tolerance = tolerance

    @property
    def setpoint(self):
        """The setpoint (measurement units)."""
        return self._given("setpoint", "_s", _kernel().Z_SETPOINT)

    @setpoint.setter
    def setpoint(self, value) -> None:
        self._put("setpoint", "_s", _kernel().Z_SETPOINT, checks.finite("setpoint", value, allow_array=True))

    def set_setpoint(self, setpoint) -> None:
        """Set :attr:`setpoint`."""
        self.setpoint = setpoint

    @property
    def measurement(self):
        """The measurement of the last call."""
        return self._given("measurement", "_s", _kernel().Z_MEASUREMENT)

    @property
    def error(self):
        """``setpoint - measurement`` of the last call."""
        return self.setpoint - self.measurement

    def get_error(self):
        """Return :attr:`error`."""
        return self.error

    def at_setpoint(self):
        """True when ``|setpoint - measurement| < tolerance`` (element-wise for arrays)."""
        k = _kernel()
        if not self._arrays:
            return bool(k.at_setpoint(self._p.reshape(-1)[:k.N_BANGBANG_PARAMETERS], 0,
                                      self._s.reshape(-1)[:k.N_BANGBANG_STATE], 0))
        out = np.empty(self._s.shape[0], dtype=bool)
        k.at_setpoint_each(self._p, self._s, out)
        return out.reshape(self._shape)

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
            setpoint = checks.finite("setpoint", setpoint, allow_array=True)
        kernel = _bangbang_kernel or _kernel()
        s = self._s
        if s.ndim == 1 and type(measurement) is float and type(setpoint) is not np.ndarray:  # robot code
            if setpoint is None:
                return float(kernel.calculate(s, 0, measurement, 0.0, False))
            return float(kernel.calculate(s, 0, measurement, setpoint, True))
        self._widen(measurement=measurement, setpoint=setpoint)
        rows = self._rows(measurement)
        out = np.empty(rows.size)
        kernel.calculate_each(self._s, rows, rows if setpoint is None else self._rows(setpoint),
                              setpoint is not None, out)
        given = {"measurement": measurement} if setpoint is None else {"measurement": measurement,
                                                                       "setpoint": setpoint}
        for name, value in given.items():
            self._arrays = self._arrays | {name} if isinstance(value, np.ndarray) else self._arrays - {name}
        if not self._arrays:
            return float(out[0])  # numbers given to a controller that was a batch: a number, as before
        return out.reshape(self._shape)
