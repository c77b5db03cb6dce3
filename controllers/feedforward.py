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

The ``calculate`` and ``calculate_with_velocities`` laws are written once, in
:mod:`simcore.kernel.feedforward` (compiled by numba, loaded when the first feedforward is
made: ``import simcore`` loads no numba). A feedforward keeps its gains and period in that
module's parameter vector; on numbers it runs the kernel's function on it, and with arrays
(a batch) it runs the same function on one row per element, so each element's arithmetic
is a single feedforward's, to the bit (``sign(0) = 0`` and ``cos`` of each element alike).
"""
from __future__ import annotations

__all__ = ["SimpleMotorFeedforward", "ElevatorFeedforward", "ArmFeedforward"]

import functools
import inspect
import math

import numpy as np

from simcore import checks
from simcore.errors import ConfigError


def _kernel():
    """:mod:`simcore.kernel.feedforward`, imported at first use (``import simcore`` loads no numba)."""
    global _ff_kernel
    if _ff_kernel is None:
        from simcore.kernel import feedforward
        _ff_kernel = feedforward
    return _ff_kernel


_ff_kernel = None


def _sign(x):
    """sign(x) with sign(0) = 0 (Java's Math.signum); element-wise for arrays (the helpers' inverses)."""
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


class _Gain:
    """A gain kept in the feedforward's parameter vector: reads give what was set (a float, or an array
    for a batch); writes are checked (``nonnegative``: kv and ka) and land in the vector."""

    def __init__(self, slot: str, nonnegative: bool = False, doc: str = ""):
        self.slot, self.nonnegative, self.__doc__ = slot, nonnegative, doc

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj._gains[self.name]

    def __set__(self, obj, value):
        check = checks.nonnegative if self.nonnegative else checks.finite
        obj._set(self.name, getattr(_kernel(), self.slot), check(self.name, value, allow_array=True))


class _Linear:
    """Shared kS/kV/kA model: the gains in one :mod:`simcore.kernel.feedforward` parameter vector (one
    row per element of the gains' broadcast shape when a gain is an array), evaluated by the kernel's
    functions (subclasses name their model by ``_KIND``)."""

    _KIND = "KIND_SIMPLE_MOTOR"
    ks = _Gain("Q_KS", doc="Static-friction output (e.g. V).")
    kv = _Gain("Q_KV", nonnegative=True, doc="Velocity gain (per m/s or rad/s).")
    ka = _Gain("Q_KA", nonnegative=True, doc="Acceleration gain (per m/s^2 or rad/s^2).")

    def __init__(self, ks, kv, ka, period):
        k = _kernel()
        self._gains = {}
        self._p = np.zeros(k.N_FEEDFORWARD_PARAMETERS)
        self._p[k.Q_KIND] = getattr(k, self._KIND)
        self.ks = ks
        self.kv = kv
        self.ka = ka
        self.period = period

    @property
    def period(self) -> float:
        """Period of :meth:`calculate_with_velocities`, s."""
        return float(self._p.reshape(-1)[_kernel().Q_PERIOD])

    @period.setter
    def period(self, value) -> None:
        self._p[..., _kernel().Q_PERIOD] = checks.positive("period", value, "s", what="period")

    def _set(self, name: str, slot: int, value) -> None:
        """Store a checked gain: as given, and in every row of the parameter vector (rebuilt to the
        broadcast shape of the array gains; mismatched shapes are refused naming the gain)."""
        shape = np.shape(value)
        for other, given in self._gains.items():
            if other != name:
                try:
                    shape = np.broadcast_shapes(shape, np.shape(given))
                except ValueError:
                    raise ConfigError(name, value, f"a number or an array whose shape broadcasts with "
                                                   f"{other}'s {np.shape(given)}") from None
        self._gains[name] = value
        if shape != self._p.shape[:-1]:
            rows = np.empty(shape + self._p.shape[-1:])
            rows[...] = self._p.reshape(-1, self._p.shape[-1])[0]  # the shared slots: kind, period
            for other, given in self._gains.items():
                rows[..., getattr(_kernel(), _SLOTS[other])] = given
            self._p = rows
        else:
            self._p[..., slot] = value

    def kernel_vector(self):
        """The parameter vector, shape ``(N_FEEDFORWARD_PARAMETERS,)`` laid out as
        :mod:`simcore.kernel.feedforward` says (the feedforward's storage, not a copy), or None when a gain
        is an array (a batch's)."""
        return self._p if self._p.ndim == 1 else None

    def _each(self, function, inputs):
        """``function`` (a ``*_each`` kernel function) over the broadcast of the gains' rows and the
        ``inputs`` (name, value pairs): an array of the broadcast shape (a float when that shape is ``()``)."""
        width = self._p.shape[-1]
        shape = self._p.shape[:-1]
        for name, value in inputs:
            try:
                shape = np.broadcast_shapes(shape, np.shape(value))
            except ValueError:
                raise ConfigError(name, value, f"a number or an array whose shape broadcasts with the gains' "
                                               f"{self._p.shape[:-1]}") from None
        n = math.prod(shape)
        rows = np.ascontiguousarray(np.broadcast_to(self._p, shape + (width,))).reshape(n, width)
        columns = [np.ascontiguousarray(np.broadcast_to(v, shape), dtype=float).reshape(-1) for _, v in inputs]
        out = np.empty(n)
        function(rows, *columns, out)
        return out.reshape(shape) if shape else float(out[0])

    def _calculate(self, position, velocity, acceleration):
        """The kernel's ``calculate``: on the vector for numbers, row by row for arrays."""
        kernel = _ff_kernel or _kernel()
        if self._p.ndim == 1 and type(velocity) is float and type(acceleration) is float \
                and type(position) is float:  # robot code
            return float(kernel.calculate(self._p, 0, position, velocity, acceleration))  # a float uncompiled too
        return self._each(kernel.calculate_each, (("position", position), ("velocity", velocity),
                                                  ("acceleration", acceleration)))

    def _with_velocities(self, current_velocity, next_velocity):
        """Output taking v from current to next in one period (exact ZOH): the kernel's ``with_velocities``."""
        kernel = _ff_kernel or _kernel()
        if self._p.ndim == 1 and type(current_velocity) is float and type(next_velocity) is float:
            return float(kernel.with_velocities(self._p, 0, current_velocity, next_velocity))
        if np.ndim(self.ka) or np.ndim(self.kv):
            if np.any(np.asarray(self.ka) < kernel.NO_INERTIA):
                raise ConfigError("ka", self.ka, "positive values for calculate_with_velocities "
                                  "with array gains")
        return self._each(kernel.with_velocities_each, (("current_velocity", current_velocity),
                                                        ("next_velocity", next_velocity)))


_SLOTS = {"ks": "Q_KS", "kv": "Q_KV", "ka": "Q_KA", "kg": "Q_KG"}


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
        return self._calculate(0.0, velocity, acceleration)

    @_finite_arguments
    def calculate_with_velocities(self, current_velocity, next_velocity):
        """Constant voltage taking the velocity from current to next in one period."""
        return self._with_velocities(current_velocity, next_velocity)

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

    _KIND = "KIND_ELEVATOR"
    kg = _Gain("Q_KG", doc="Output that holds the carriage against gravity (e.g. V).")

    def __init__(self, ks, kg, kv, ka=0.0, *, period: float = 0.02):
        super().__init__(ks, kv, ka, period)
        self.kg = kg

    @_finite_arguments
    def calculate(self, velocity, acceleration=0.0):
        """Voltage for a velocity (m/s) and acceleration (m/s^2)."""
        return self._calculate(0.0, velocity, acceleration)

    @_finite_arguments
    def calculate_with_velocities(self, current_velocity, next_velocity):
        """Constant voltage taking the velocity from current to next in one period."""
        return self._with_velocities(current_velocity, next_velocity)

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

    _KIND = "KIND_ARM"
    kg = _Gain("Q_KG", doc="Output that holds the arm level against gravity (e.g. V).")

    def __init__(self, ks, kg, kv, ka=0.0, *, period: float = 0.02):
        super().__init__(ks, kv, ka, period)
        self.kg = kg

    @_finite_arguments
    def calculate(self, position, velocity, acceleration=0.0):
        """Voltage at an angle (rad from horizontal), rate (rad/s) and acceleration (rad/s^2)."""
        return self._calculate(position, velocity, acceleration)

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
