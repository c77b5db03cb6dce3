"""Discrete PID controller with WPILib's ``PIDController`` semantics.

This module follows the documented behaviour of WPILib's
``edu.wpi.first.math.controller.PIDController`` (wpimath, checked against the
v2025.3.2 and v2026.2.2 release sources, unchanged on the 2027 branch). The exact
contract, per call of :meth:`PIDController.calculate` at the fixed ``period`` T:

1. ``prev_error <- error`` (the error of the previous call). On the first call after
   construction or ``reset()`` there is no previous error: by default the first error
   is taken as its own predecessor, so **the first derivative is zero** (no
   "derivative kick" when a controller is enabled, as this project's issue requires).
   WPILib's code instead starts ``prev_error`` at 0, so its first call produces
   ``kd * error / T``; pass ``derivative_kick=True`` to get exactly that when porting
   a tuning that depends on it.
2. ``error <- setpoint - measurement``, wrapped into ``(-(hi-lo)/2, (hi-lo)/2]`` by
   :func:`input_modulus` when continuous input is enabled (the short way round).
3. ``error_derivative <- (error - prev_error) / T``.
4. Integrator: if ``|error| > i_zone`` it is reset to 0; otherwise, when ``ki != 0``,
   ``total <- clamp(total + error * T, min_integral / ki, max_integral / ki)`` (so the
   *integral term* ``ki * total`` lies in ``[min_integral, max_integral]``, default
   ``[-1, 1]``). With ``ki == 0`` the accumulator is left untouched.
5. Output ``kp * error + ki * total + kd * error_derivative``.

``at_setpoint()`` is true only once both a setpoint and a measurement have been
given, and ``|error| < error_tolerance`` and ``|error_derivative| <
error_derivative_tolerance`` (strict; default tolerances 0.05 and infinity).
``set_setpoint`` (or assigning :attr:`PIDController.setpoint`) recomputes the error
and its derivative against the *last* measurement, exactly as WPILib does; this also
means the next ``calculate`` takes that recomputed error as its previous error.

Where this module is stricter than WPILib: gains, tolerances and ranges are
validated (``ConfigError``), including in the setters, and ``lo < hi`` is required
for continuous input. Gains, measurements and setpoints may be numpy arrays (one
controller for a batch of variants); the arithmetic is element-wise.
"""
from __future__ import annotations

__all__ = ["PIDController", "input_modulus"]

import math

import numpy as np

from simcore import checks
from simcore.errors import ConfigError


def input_modulus(value, minimum, maximum):
    """Wrap ``value`` into the half-open interval ``(minimum, maximum]``.

    Same result as WPILib's ``MathUtil.inputModulus``: ``value`` shifted by a whole
    number of periods ``maximum - minimum``; an input equal to ``minimum`` maps to
    ``maximum``. Works element-wise on numpy arrays.

    Parameters
    ----------
    value : float or ndarray
        The input, in the units of ``minimum``/``maximum`` (e.g. rad).
    minimum, maximum : float
        Ends of one period of the input (e.g. ``-pi`` and ``pi`` rad); ``minimum <
        maximum``.

    Returns
    -------
    float or ndarray
        The wrapped input.

    Raises
    ------
    ConfigError
        A value or bound is not finite, or ``minimum >= maximum`` (no period to wrap by).
    """
    value = checks.finite("value", value, allow_array=True)
    minimum = checks.finite("minimum", minimum)
    maximum = checks.finite("maximum", maximum)
    if not minimum < maximum:
        raise ConfigError("maximum", maximum, f"a number greater than minimum={minimum!r}")
    if not math.isfinite(maximum - minimum):
        raise ConfigError("maximum", maximum, f"a number within the float range of minimum={minimum!r} "
                                              "(maximum - minimum overflows)")
    return _modulus(value, minimum, maximum)


def _modulus(value, minimum, maximum):
    """:func:`input_modulus` without the checks (bounds known good: the controllers' hot path)."""
    period = maximum - minimum
    # Floor-modulo gives [0, period); subtracting it from the top end gives
    # (minimum, maximum], the closed end being the one WPILib's routine returns.
    if np.ndim(value) == 0:
        return maximum - (maximum - value) % period
    return maximum - np.mod(maximum - np.asarray(value, dtype=float), period)


def _gain(parameter, value):
    """A gain: a finite number >= 0, or an array of them (one per batch variant)."""
    return checks.nonnegative(parameter, value, allow_array=True)


class PIDController:
    """A PID controller run at a fixed period, with WPILib's semantics.

    Parameters
    ----------
    kp : float or ndarray
        Proportional gain, output units per error unit (e.g. V/rad). Non-negative.
    ki : float or ndarray
        Integral gain, output units per (error unit * s). Non-negative.
    kd : float or ndarray
        Derivative gain, output units per (error unit / s). Non-negative.
    period : float, optional
        Time between calls of :meth:`calculate`, s (default 0.02). Positive.

    Raises
    ------
    ConfigError
        A gain is negative or not finite, or the period is not positive.

    Examples
    --------
    >>> pid = PIDController(2.0, 0.0, 0.0)
    >>> pid.calculate(0.5, 1.0)
    1.0
    """

    def __init__(self, kp, ki, kd, *, period: float = 0.02, derivative_kick: bool = False):
        self._derivative_kick = checks.flag("derivative_kick", derivative_kick)
        self._kp = _gain("kp", kp)
        self._ki = _gain("ki", ki)
        self._kd = _gain("kd", kd)
        self._period = checks.positive("period", period, "s", what="period")
        self._i_zone = math.inf
        self._max_integral = 1.0
        self._min_integral = -1.0
        self._continuous = False
        self._min_input = 0.0
        self._max_input = 0.0
        self._error_tolerance = 0.05
        self._error_derivative_tolerance = math.inf
        self._setpoint = 0.0
        self._measurement = 0.0
        self._have_setpoint = False
        self._have_measurement = False
        self._error = 0.0
        self._prev_error = 0.0
        self._error_derivative = 0.0
        self._total_error = 0.0

    # ----------------------------------------------------------------- gains
    @property
    def kp(self):
        """Proportional gain (output units per error unit)."""
        return self._kp

    @kp.setter
    def kp(self, value):
        self._kp = _gain("kp", value)

    @property
    def ki(self):
        """Integral gain (output units per error unit-second)."""
        return self._ki

    @ki.setter
    def ki(self, value):
        self._ki = _gain("ki", value)

    @property
    def kd(self):
        """Derivative gain (output units per error unit per second)."""
        return self._kd

    @kd.setter
    def kd(self, value):
        self._kd = _gain("kd", value)

    def set_pid(self, kp, ki, kd) -> None:
        """Set all three gains (see the constructor for units); for online tuning."""
        kp = _gain("kp", kp)
        ki = _gain("ki", ki)
        kd = _gain("kd", kd)
        self._kp, self._ki, self._kd = kp, ki, kd

    @property
    def period(self) -> float:
        """Time between calls of :meth:`calculate`, s."""
        return self._period

    @property
    def i_zone(self) -> float:
        """Error magnitude above which the integrator is reset to zero (error units)."""
        return self._i_zone

    @i_zone.setter
    def i_zone(self, value) -> None:
        self._i_zone = checks.tolerance("i_zone", value)

    def set_i_zone(self, i_zone: float) -> None:
        """Set :attr:`i_zone` (error units; ``math.inf``, the default, disables it)."""
        self.i_zone = i_zone

    # -------------------------------------------------------------- setpoint
    @property
    def setpoint(self):
        """The setpoint (measurement units). Assigning it is :meth:`set_setpoint`."""
        return self._setpoint

    @setpoint.setter
    def setpoint(self, value) -> None:
        self.set_setpoint(value)

    def set_setpoint(self, setpoint) -> None:
        """Set the setpoint and recompute the error against the last measurement.

        Like WPILib, the error derivative is recomputed too, from the error of the
        previous :meth:`calculate`, so :meth:`at_setpoint` reflects the new setpoint
        immediately.

        Parameters
        ----------
        setpoint : float or ndarray
            The desired value of the measurement (measurement units).
        """
        setpoint = checks.finite("setpoint", setpoint, allow_array=True)
        self._setpoint = setpoint
        self._have_setpoint = True
        self._error = self._wrap(setpoint - self._measurement)
        self._error_derivative = (self._error - self._prev_error) / self._period

    def get_setpoint(self):
        """Return :attr:`setpoint`."""
        return self._setpoint

    # ------------------------------------------------------ continuous input
    def enable_continuous_input(self, minimum_input: float, maximum_input: float) -> None:
        """Treat the input as periodic, e.g. an angle, so the error wraps the short way.

        Parameters
        ----------
        minimum_input, maximum_input : float
            Ends of one period of the measurement (e.g. ``-pi`` and ``pi`` rad).

        Raises
        ------
        ConfigError
            A bound is not finite, or ``minimum_input >= maximum_input``.
        """
        lo = checks.finite("minimum_input", minimum_input)
        hi = checks.finite("maximum_input", maximum_input)
        if not lo < hi:
            raise ConfigError("maximum_input", maximum_input,
                              f"a number greater than minimum_input={lo!r}")
        if not math.isfinite(hi - lo):
            raise ConfigError("maximum_input", maximum_input,
                              f"a number within the float range of minimum_input={lo!r} (the period overflows)")
        self._continuous = True
        self._min_input, self._max_input = lo, hi

    def disable_continuous_input(self) -> None:
        """Stop wrapping the error."""
        self._continuous = False

    def is_continuous_input_enabled(self) -> bool:
        """True when :meth:`enable_continuous_input` is in effect."""
        return self._continuous

    # ------------------------------------------------------------ integrator
    def set_integrator_range(self, minimum_integral: float, maximum_integral: float) -> None:
        """Bound the integral term ``ki * accumulated_error`` (output units).

        The default range is ``[-1, 1]`` (WPILib's default, sized for a duty cycle).
        ``minimum_integral == maximum_integral`` is accepted: it pins the integral
        term (``0, 0`` turns it off).

        Raises
        ------
        ConfigError
            A bound is NaN, or ``minimum_integral > maximum_integral``.
        """
        lo = checks.real("minimum_integral", minimum_integral)
        hi = checks.real("maximum_integral", maximum_integral)
        if not lo <= hi:
            raise ConfigError("maximum_integral", maximum_integral,
                              f"a number >= minimum_integral={lo!r}")
        self._min_integral, self._max_integral = lo, hi

    @property
    def accumulated_error(self):
        """The integrator's state, the sum of ``error * period`` (error units * s)."""
        return self._total_error

    # ------------------------------------------------------------- tolerance
    def set_tolerance(self, pos: float, vel: float = math.inf) -> None:
        """Set the tolerances used by :meth:`at_setpoint` (WPILib's ``setTolerance``).

        Parameters
        ----------
        pos : float
            Largest ``|error|`` counted as at the setpoint (measurement units).
        vel : float, optional
            Largest ``|error_derivative|`` counted as at the setpoint (measurement
            units per s); default infinity (not checked).
        """
        self._error_tolerance = checks.tolerance("pos", pos)
        self._error_derivative_tolerance = checks.tolerance("vel", vel)

    @property
    def error_tolerance(self) -> float:
        """Position tolerance of :meth:`at_setpoint` (measurement units)."""
        return self._error_tolerance

    @property
    def error_derivative_tolerance(self) -> float:
        """Velocity tolerance of :meth:`at_setpoint` (measurement units per s)."""
        return self._error_derivative_tolerance

    def at_setpoint(self):
        """True when the error and its derivative are within tolerance (strictly).

        Always false before a setpoint and a measurement have both been given (and
        after :meth:`reset` until the next measurement). Element-wise for arrays.
        """
        if not (self._have_measurement and self._have_setpoint):
            return False
        result = ((abs(self._error) < self._error_tolerance)
                  & (abs(self._error_derivative) < self._error_derivative_tolerance))
        return bool(result) if np.ndim(result) == 0 else result

    # ---------------------------------------------------------------- errors
    @property
    def error(self):
        """The error of the last call, ``setpoint - measurement`` (wrapped if continuous)."""
        return self._error

    def get_error(self):
        """Return :attr:`error`."""
        return self._error

    @property
    def error_derivative(self):
        """``(error - previous error) / period`` of the last call (units per s)."""
        return self._error_derivative

    def get_error_derivative(self):
        """Return :attr:`error_derivative`."""
        return self._error_derivative

    # ------------------------------------------------------------- calculate
    def calculate(self, measurement, setpoint=None):
        """Run one period of the controller and return its output.

        Parameters
        ----------
        measurement : float or ndarray
            The measured process variable (measurement units).
        setpoint : float or ndarray, optional
            New setpoint (measurement units); if omitted the current one is kept.
            Unlike :meth:`set_setpoint`, this does not recompute the error before
            the update (WPILib's two-argument ``calculate``).

        Returns
        -------
        float or ndarray
            ``kp * error + ki * accumulated_error + kd * error_derivative`` (output
            units, e.g. V or duty cycle; not clamped).
        """
        # A NaN measurement would poison the integrator for good: refuse it here.
        measurement = checks.finite("measurement", measurement, allow_array=True)
        if setpoint is not None:
            self._setpoint = checks.finite("setpoint", setpoint, allow_array=True)
            self._have_setpoint = True
        error = self._wrap(self._setpoint - measurement)
        first = not self._have_measurement
        self._prev_error = error if (first and not self._derivative_kick) else self._error
        self._measurement = measurement
        self._have_measurement = True
        self._error = error
        self._error_derivative = (error - self._prev_error) / self._period
        self._total_error = self._integrate(error)
        return (self._kp * error + self._ki * self._total_error
                + self._kd * self._error_derivative)

    def reset(self) -> None:
        """Clear the error history and the integrator (the setpoint is kept).

        After a reset the next :meth:`calculate` is a first call again (zero
        derivative, or a previous error of 0 with ``derivative_kick=True``).
        """
        self._error = 0.0
        self._prev_error = 0.0
        self._total_error = 0.0
        self._error_derivative = 0.0
        self._have_measurement = False

    # --------------------------------------------------------------- private
    def _wrap(self, error):
        if not self._continuous:
            return error
        half = (self._max_input - self._min_input) / 2.0
        return _modulus(error, -half, half)

    def _integrate(self, error):
        total, ki, period = self._total_error, self._ki, self._period
        lo, hi = self._min_integral, self._max_integral
        # (type() first: np.ndim costs a microsecond, and a robot loop's values are floats)
        if ((type(error) is float or np.ndim(error) == 0) and (type(ki) is float or np.ndim(ki) == 0)
                and (type(total) is float or np.ndim(total) == 0)):
            if abs(error) > self._i_zone:
                return 0.0
            if ki != 0.0:
                return min(max(total + error * period, lo / ki), hi / ki)
            return total
        # Batch path: the same rule element-wise; where ki == 0 the accumulator is
        # left as it was, so the division by ki is masked rather than evaluated.
        reset = np.abs(error) > self._i_zone
        if (type(ki) is float or np.ndim(ki) == 0) and ki == 0.0:  # a PD loop: the accumulator stays, everywhere
            return np.where(reset, 0.0, total)
        ki = np.asarray(ki, dtype=float)
        candidate = total + error * period
        nz = ki != 0.0
        safe_ki = np.where(nz, ki, 1.0)
        clamped = np.clip(candidate, lo / safe_ki, hi / safe_ki)
        new = np.where(nz, clamped, total)
        return np.where(reset, 0.0, new)
