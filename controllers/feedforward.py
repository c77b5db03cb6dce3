"""Motor feedforwards (kS/kV/kA/kG models), WPILib semantics.

Follows WPILib's ``SimpleMotorFeedforward``, ``ElevatorFeedforward`` and
``ArmFeedforward`` (``edu/wpi/first/math/controller``, v2025.3.2):

* simple motor: ``u = ks * sign(v) + kv * v + ka * a``
* elevator:     ``u = ks * sign(v) + kg + kv * v + ka * a``  (kg holds the carriage up)
* arm:          ``u = ks * sign(v) + kg * cos(angle) + kv * v + ka * a`` with the
  angle measured from horizontal (0 = arm level, pi/2 = straight up).

``sign(0) = 0``, so a zero velocity request gets no static-friction voltage. The
``max/min_achievable_*`` helpers invert the same equations for a voltage budget,
assuming the velocity has the sign the helper's name implies (WPILib's formulas).
``calculate_with_velocities`` (simple motor and elevator) returns the constant
voltage that takes the velocity from ``current`` to ``next`` in one ``period`` of
the model ``ka dv/dt = u - ks sign(v) - kg - kv v`` -- the exact zero-order-hold
discretization, as WPILib does. (WPILib's arm version integrates the nonlinear
gravity term numerically; it is not provided here.)

Porting note: ``calculate(v, a)`` is velocity and acceleration, as Java's (deprecated
since 2025) two-argument overload. WPILib C++ and robotpy 2026's two-argument
``Calculate(current, next)`` takes two *velocities*; its equivalent here is
``calculate_with_velocities(current, next)``.

Units: the output is in volts when the gains are in V, V/(m/s), V/(m/s^2) (or per
rad/s and rad/s^2); any consistent output unit works. Gains may be numpy arrays for
batch simulations; ``kv`` and ``ka`` must be non-negative (as in WPILib).
"""
from __future__ import annotations

__all__ = ["SimpleMotorFeedforward", "ElevatorFeedforward", "ArmFeedforward"]

import functools
import inspect
import math

import numpy as np

from simcore import checks
from simcore.errors import ConfigError


def _sign(x):
    """sign(x) with sign(0) = 0 (Java's Math.signum); element-wise for arrays."""
    if np.ndim(x) == 0:
        return float((x > 0) - (x < 0))
    return np.sign(x)


def _cos(x):
    return math.cos(x) if np.ndim(x) == 0 else np.cos(x)


def _finite_arguments(method):
    """Check every argument of a feedforward method: finite, or an array of finite values (a batch).

    A NaN velocity would otherwise come out as a NaN voltage with no word of where it came from.
    """
    names = tuple(inspect.signature(method).parameters)[1:]

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        args = tuple(checks.finite(n, a, allow_array=True) for n, a in zip(names, args))
        kwargs = {n: checks.finite(n, a, allow_array=True) for n, a in kwargs.items()}
        return method(self, *args, **kwargs)

    return checked


def _require_positive_gain(name: str, value, helper: str) -> None:
    if np.any(np.asarray(value) == 0.0):
        raise ConfigError(name, value, f"a positive number (needed by {helper})")


class _Linear:
    """Shared kS/kV/kA model with a constant offset supplied by subclasses."""

    def __init__(self, ks, kv, ka, period):
        self.ks = checks.finite("ks", ks, allow_array=True)
        self.kv = checks.nonnegative("kv", kv, allow_array=True)
        self.ka = checks.nonnegative("ka", ka, allow_array=True)
        self.period = checks.positive("period", period, "s", what="period")

    def _with_velocities(self, offset, current_velocity, next_velocity):
        """Voltage taking v from current to next in one period (exact ZOH)."""
        ks, kv, ka, period = self.ks, self.kv, self.ka, self.period
        # Model: ka dv/dt = u - ks sign(v) - offset - kv v, u held for one period T:
        #   v1 = ad v0 + bd (u - ks sign(v0) - offset),  ad = exp(-kv T / ka),
        #   bd = (1 - ad) / kv, which tends to T / ka as kv -> 0 (expm1 keeps it
        #   accurate). WPILib evaluates ks at the current velocity's sign too.
        if np.ndim(ka) == 0 and np.ndim(kv) == 0:
            if ka < 1e-9:
                # No inertia: the next velocity is reached at once (WPILib's rule).
                return ks * _sign(next_velocity) + offset + kv * next_velocity
            ad = math.exp(-kv * period / ka)
            bd = -math.expm1(-kv * period / ka) / kv if kv > 0.0 else period / ka
        else:
            if np.any(np.asarray(ka) < 1e-9):
                raise ConfigError("ka", ka, "positive values for calculate_with_velocities "
                                  "with array gains")
            kv_arr = np.asarray(kv, dtype=float) + np.zeros_like(ka, dtype=float)
            ad = np.exp(-kv_arr * period / ka)
            safe_kv = np.where(kv_arr > 0.0, kv_arr, 1.0)
            bd = np.where(kv_arr > 0.0, -np.expm1(-kv_arr * period / ka) / safe_kv,
                          period / np.asarray(ka, dtype=float))
        return (ks * _sign(current_velocity) + offset
                + (next_velocity - ad * current_velocity) / bd)


class SimpleMotorFeedforward(_Linear):
    """``u = ks * sign(v) + kv * v + ka * a`` for a motor with no gravity load.

    Parameters
    ----------
    ks : float or ndarray
        Static-friction voltage, V.
    kv : float or ndarray
        Velocity gain, V/(m/s) or V/(rad/s). Non-negative.
    ka : float or ndarray, optional
        Acceleration gain, V/(m/s^2) or V/(rad/s^2). Non-negative; default 0.
    period : float, optional
        Period of :meth:`calculate_with_velocities`, s (default 0.02).
    """

    def __init__(self, ks, kv, ka=0.0, *, period: float = 0.02):
        super().__init__(ks, kv, ka, period)

    @_finite_arguments
    def calculate(self, velocity, acceleration=0.0):
        """Voltage for a velocity (m/s or rad/s) and acceleration (m/s^2 or rad/s^2)."""
        return self.ks * _sign(velocity) + self.kv * velocity + self.ka * acceleration

    @_finite_arguments
    def calculate_with_velocities(self, current_velocity, next_velocity):
        """Constant voltage taking the velocity from current to next in one period."""
        return self._with_velocities(0.0, current_velocity, next_velocity)

    @_finite_arguments
    def max_achievable_velocity(self, max_voltage, acceleration):
        """Largest velocity (m/s) reachable while accelerating at ``acceleration`` (m/s^2)
        with ``max_voltage`` (V) available; requires kv > 0."""
        _require_positive_gain("kv", self.kv, "max_achievable_velocity")
        return (max_voltage - self.ks - acceleration * self.ka) / self.kv

    @_finite_arguments
    def min_achievable_velocity(self, max_voltage, acceleration):
        """Most negative velocity (m/s) reachable at ``acceleration`` (m/s^2); kv > 0."""
        _require_positive_gain("kv", self.kv, "min_achievable_velocity")
        return (-max_voltage + self.ks - acceleration * self.ka) / self.kv

    @_finite_arguments
    def max_achievable_acceleration(self, max_voltage, velocity):
        """Largest acceleration (m/s^2) at ``velocity`` (m/s) with ``max_voltage`` (V); ka > 0."""
        _require_positive_gain("ka", self.ka, "max_achievable_acceleration")
        return (max_voltage - self.ks * _sign(velocity) - velocity * self.kv) / self.ka

    @_finite_arguments
    def min_achievable_acceleration(self, max_voltage, velocity):
        """Most negative acceleration (m/s^2) at ``velocity`` (m/s); ka > 0."""
        return self.max_achievable_acceleration(-max_voltage, velocity)


class ElevatorFeedforward(_Linear):
    """``u = ks * sign(v) + kg + kv * v + ka * a`` for a vertical carriage.

    Parameters
    ----------
    ks : float or ndarray
        Static-friction voltage, V.
    kg : float or ndarray
        Voltage that holds the carriage against gravity, V.
    kv : float or ndarray
        Velocity gain, V/(m/s). Non-negative.
    ka : float or ndarray, optional
        Acceleration gain, V/(m/s^2). Non-negative; default 0.
    period : float, optional
        Period of :meth:`calculate_with_velocities`, s (default 0.02).
    """

    def __init__(self, ks, kg, kv, ka=0.0, *, period: float = 0.02):
        super().__init__(ks, kv, ka, period)
        self.kg = checks.finite("kg", kg, allow_array=True)

    @_finite_arguments
    def calculate(self, velocity, acceleration=0.0):
        """Voltage for a velocity (m/s) and acceleration (m/s^2)."""
        return (self.ks * _sign(velocity) + self.kg + self.kv * velocity
                + self.ka * acceleration)

    @_finite_arguments
    def calculate_with_velocities(self, current_velocity, next_velocity):
        """Constant voltage taking the velocity from current to next in one period."""
        return self._with_velocities(self.kg, current_velocity, next_velocity)

    @_finite_arguments
    def max_achievable_velocity(self, max_voltage, acceleration):
        """Largest upward velocity (m/s) at ``acceleration`` (m/s^2); kv > 0."""
        _require_positive_gain("kv", self.kv, "max_achievable_velocity")
        return (max_voltage - self.ks - self.kg - acceleration * self.ka) / self.kv

    @_finite_arguments
    def min_achievable_velocity(self, max_voltage, acceleration):
        """Most negative velocity (m/s) at ``acceleration`` (m/s^2); kv > 0."""
        _require_positive_gain("kv", self.kv, "min_achievable_velocity")
        return (-max_voltage + self.ks - self.kg - acceleration * self.ka) / self.kv

    @_finite_arguments
    def max_achievable_acceleration(self, max_voltage, velocity):
        """Largest acceleration (m/s^2) at ``velocity`` (m/s); ka > 0."""
        _require_positive_gain("ka", self.ka, "max_achievable_acceleration")
        return ((max_voltage - self.ks * _sign(velocity) - self.kg - velocity * self.kv)
                / self.ka)

    @_finite_arguments
    def min_achievable_acceleration(self, max_voltage, velocity):
        """Most negative acceleration (m/s^2) at ``velocity`` (m/s); ka > 0."""
        return self.max_achievable_acceleration(-max_voltage, velocity)


class ArmFeedforward(_Linear):
    """``u = ks * sign(w) + kg * cos(angle) + kv * w + ka * alpha`` for a pivoting arm.

    Parameters
    ----------
    ks : float or ndarray
        Static-friction voltage, V.
    kg : float or ndarray
        Voltage that holds the arm level (angle 0) against gravity, V.
    kv : float or ndarray
        Velocity gain, V/(rad/s). Non-negative.
    ka : float or ndarray, optional
        Acceleration gain, V/(rad/s^2). Non-negative; default 0.
    period : float, optional
        Kept for symmetry with the other feedforwards, s (default 0.02).

    Notes
    -----
    The angle is measured from horizontal, so gravity's torque is proportional to
    ``cos(angle)``; shift a different convention before calling.
    """

    def __init__(self, ks, kg, kv, ka=0.0, *, period: float = 0.02):
        super().__init__(ks, kv, ka, period)
        self.kg = checks.finite("kg", kg, allow_array=True)

    @_finite_arguments
    def calculate(self, position, velocity, acceleration=0.0):
        """Voltage at an angle (rad from horizontal), rate (rad/s) and acceleration (rad/s^2)."""
        return (self.ks * _sign(velocity) + self.kg * _cos(position) + self.kv * velocity
                + self.ka * acceleration)

    @_finite_arguments
    def max_achievable_velocity(self, max_voltage, angle, acceleration):
        """Largest rate (rad/s) at ``angle`` (rad) and ``acceleration`` (rad/s^2); kv > 0."""
        _require_positive_gain("kv", self.kv, "max_achievable_velocity")
        return (max_voltage - self.ks - _cos(angle) * self.kg - acceleration * self.ka) / self.kv

    @_finite_arguments
    def min_achievable_velocity(self, max_voltage, angle, acceleration):
        """Most negative rate (rad/s) at ``angle`` and ``acceleration``; kv > 0."""
        _require_positive_gain("kv", self.kv, "min_achievable_velocity")
        return (-max_voltage + self.ks - _cos(angle) * self.kg - acceleration * self.ka) / self.kv

    @_finite_arguments
    def max_achievable_acceleration(self, max_voltage, angle, velocity):
        """Largest acceleration (rad/s^2) at ``angle`` (rad) and ``velocity`` (rad/s); ka > 0."""
        _require_positive_gain("ka", self.ka, "max_achievable_acceleration")
        return ((max_voltage - self.ks * _sign(velocity) - _cos(angle) * self.kg
                 - velocity * self.kv) / self.ka)

    @_finite_arguments
    def min_achievable_acceleration(self, max_voltage, angle, velocity):
        """Most negative acceleration (rad/s^2) at ``angle`` and ``velocity``; ka > 0."""
        return self.max_achievable_acceleration(-max_voltage, angle, velocity)
