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
controller for a batch of variants); the arithmetic is element-wise: each element is a
controller of its own, equal to one run on floats to the bit. Such a controller's error,
error derivative, accumulated error and :meth:`~PIDController.at_setpoint` are arrays of
the batch's shape; its period, i_zone, integrator range, continuous input and tolerances
are shared by every element.

The law is written once, in :mod:`simcore.kernel.pid` (compiled by numba, loaded when the
first controller is made: ``import simcore`` loads no numba). A controller keeps its numbers
in that module's two vectors, parameters and state; on floats, :meth:`PIDController.calculate`
runs the kernel's ``calculate`` on them, and a controller given arrays (a batch) holds one row
of each per element and runs the same function row by row, so each element's arithmetic is a
single controller's, to the bit. A run whose loops tick inside the kernel runs that function
on the same vectors (:meth:`PIDController.kernel_vectors`).
"""
from __future__ import annotations

__all__ = ["PIDController", "input_modulus"]

import math

import numpy as np

from simcore import checks
from simcore.errors import ConfigError

from .kernel_rows import KernelRows


def _kernel():
    """:mod:`simcore.kernel.pid`, imported at first use (``import simcore`` loads no numba)."""
    global _pid_kernel
    if _pid_kernel is None:
        from simcore.kernel import pid
        _pid_kernel = pid
    return _pid_kernel


_pid_kernel = None


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
    """:func:`input_modulus` without the checks (bounds known good): the kernel's ``modulus``, of a
    number or of each element of an array."""
    kernel = _kernel()
    if np.ndim(value) == 0:
        return kernel.modulus(float(value), float(minimum), float(maximum))
    values = np.ascontiguousarray(value, dtype=float)
    out = np.empty(values.size)
    kernel.modulus_each(values.reshape(-1), float(minimum), float(maximum), out)
    return out.reshape(values.shape)


def _gain(parameter, value):
    """A gain: a finite number >= 0, or an array of them (one per batch variant)."""
    return checks.nonnegative(parameter, value, allow_array=True)


class PIDController(KernelRows):
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
        derivative_kick = checks.flag("derivative_kick", derivative_kick)
        kp = _gain("kp", kp)
        ki = _gain("ki", ki)
        kd = _gain("kd", kd)
        period = checks.positive("period", period, "s", what="period")
        k = _kernel()
        # One controller: a parameter vector and a state vector; a batch (arrays given): one row of
        # each per element of ``_shape``, the batch's shape (() for one controller).
        self._p = np.zeros(k.N_PID_PARAMETERS)
        self._s = np.zeros(k.N_PID_STATE)
        self._shape = ()
        self._arrays = frozenset()  # which of kp, ki, kd, setpoint were given as arrays
        self._p[k.Q_PERIOD] = period
        self._p[k.Q_I_ZONE] = math.inf
        self._p[k.Q_MIN_INTEGRAL], self._p[k.Q_MAX_INTEGRAL] = -1.0, 1.0
        self._p[k.Q_DERIVATIVE_KICK] = 1.0 if derivative_kick else 0.0
        self._error_tolerance = 0.05
        self._error_derivative_tolerance = math.inf
        self.set_pid(kp, ki, kd)

    # ------------------------------------------------------------ the vectors
    def kernel_vectors(self):
        """The controller's own parameter and state vectors, for the engine.

        Returns
        -------
        tuple of ndarray or None
            ``(p, s)``, shapes ``(N_PID_PARAMETERS,)`` and ``(N_PID_STATE,)`` laid out as
            :mod:`simcore.kernel.pid` says; the controller's storage itself, not copies (a run that
            ticks the controller in the kernel copies them in and writes ``s`` back). None when the
            controller holds arrays (a batch's).
        """
        return (self._p, self._s) if self._s.ndim == 1 else None

    def kernel_rows(self, n: int):
        """The parameter and state rows of ``n`` controllers, one per batch variant, for the engine.

        Returns
        -------
        tuple of ndarray or None
            ``(p, s)``, shapes ``(n, N_PID_PARAMETERS)`` and ``(n, N_PID_STATE)`` (copies; one controller's
            vectors repeated when it holds numbers), or None when the controller's batch shape is neither
            ``()`` nor ``(n,)``.
        """
        if self._shape not in ((), (n,)):
            return None
        k = _kernel()
        return (np.array(np.broadcast_to(self._p.reshape(-1, k.N_PID_PARAMETERS), (n, k.N_PID_PARAMETERS))),
                np.array(np.broadcast_to(self._s.reshape(-1, k.N_PID_STATE), (n, k.N_PID_STATE))))

    def store_kernel_rows(self, s) -> None:
        """The state rows ``s`` ``(n, N_PID_STATE)`` back after the engine ran ``n`` variants' ticks (the
        controller becomes a batch of shape ``(n,)`` if it held numbers)."""
        n = s.shape[0]
        self._widen(rows=np.zeros(n))
        self._s[...] = s

    # ----------------------------------------------------------------- gains
    @property
    def kp(self):
        """Proportional gain (output units per error unit)."""
        return self._given("kp", "_p", _kernel().Q_KP)

    @kp.setter
    def kp(self, value):
        self._put("kp", "_p", _kernel().Q_KP, _gain("kp", value))

    @property
    def ki(self):
        """Integral gain (output units per error unit-second)."""
        return self._given("ki", "_p", _kernel().Q_KI)

    @ki.setter
    def ki(self, value):
        self._put("ki", "_p", _kernel().Q_KI, _gain("ki", value))

    @property
    def kd(self):
        """Derivative gain (output units per error unit per second)."""
        return self._given("kd", "_p", _kernel().Q_KD)

    @kd.setter
    def kd(self, value):
        self._put("kd", "_p", _kernel().Q_KD, _gain("kd", value))

    def set_pid(self, kp, ki, kd) -> None:
        """Set all three gains (see the constructor for units); for online tuning."""
        kp = _gain("kp", kp)
        ki = _gain("ki", ki)
        kd = _gain("kd", kd)
        k = _kernel()
        self._widen(kp=kp, ki=ki, kd=kd)  # mismatched shapes are refused before any gain changes
        self._put("kp", "_p", k.Q_KP, kp)
        self._put("ki", "_p", k.Q_KI, ki)
        self._put("kd", "_p", k.Q_KD, kd)

    @property
    def period(self) -> float:
        """Time between calls of :meth:`calculate`, s."""
        return self._parameter(_kernel().Q_PERIOD)

    @property
    def i_zone(self) -> float:
        """Error magnitude above which the integrator is reset to zero (error units)."""
        return self._parameter(_kernel().Q_I_ZONE)

    @i_zone.setter
    def i_zone(self, value) -> None:
        self._p[..., _kernel().Q_I_ZONE] = checks.tolerance("i_zone", value)

    def set_i_zone(self, i_zone: float) -> None:
        """Set :attr:`i_zone` (error units; ``math.inf``, the default, disables it)."""
        self.i_zone = i_zone

    # -------------------------------------------------------------- setpoint
    @property
    def setpoint(self):
        """The setpoint (measurement units). Assigning it is :meth:`set_setpoint`."""
        return self._given("setpoint", "_s", _kernel().Z_SETPOINT)

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
        k = _kernel()
        if self._s.ndim == 1 and not isinstance(setpoint, np.ndarray):
            k.set_setpoint(self._p, 0, self._s, 0, setpoint)
            return
        self._widen(setpoint=setpoint)
        k.set_setpoint_each(self._p, self._s, self._rows(setpoint))
        self._note_setpoint(setpoint)

    def _note_setpoint(self, setpoint) -> None:
        """Remember whether the setpoint a batch was given is an array (what :attr:`setpoint` returns)."""
        if isinstance(setpoint, np.ndarray):
            self._arrays |= {"setpoint"}
        else:
            self._arrays -= {"setpoint"}

    def get_setpoint(self):
        """Return :attr:`setpoint`."""
        return self.setpoint

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
        k = _kernel()
        self._p[..., k.Q_CONTINUOUS] = 1.0
        self._p[..., k.Q_MIN_INPUT], self._p[..., k.Q_MAX_INPUT] = lo, hi

    def disable_continuous_input(self) -> None:
        """Stop wrapping the error."""
        self._p[..., _kernel().Q_CONTINUOUS] = 0.0

    def is_continuous_input_enabled(self) -> bool:
        """True when :meth:`enable_continuous_input` is in effect."""
        return self._parameter(_kernel().Q_CONTINUOUS) != 0.0

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
        k = _kernel()
        self._p[..., k.Q_MIN_INTEGRAL], self._p[..., k.Q_MAX_INTEGRAL] = lo, hi

    @property
    def accumulated_error(self):
        """The integrator's state, the sum of ``error * period`` (error units * s)."""
        return self._computed(_kernel().Z_TOTAL_ERROR)

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
        k = _kernel()
        if self._s.ndim == 1:
            return bool(k.at_setpoint(self._s, 0, self._error_tolerance, self._error_derivative_tolerance))
        if self._s[0, k.Z_HAVE_SETPOINT] == 0.0 or self._s[0, k.Z_HAVE_MEASUREMENT] == 0.0:
            return False  # a batch's rows are given their setpoint and measurement together
        out = np.empty(self._s.shape[0], dtype=bool)
        k.at_setpoint_each(self._s, self._error_tolerance, self._error_derivative_tolerance, out)
        return out.reshape(self._shape)

    # ---------------------------------------------------------------- errors
    @property
    def error(self):
        """The error of the last call, ``setpoint - measurement`` (wrapped if continuous)."""
        return self._computed(_kernel().Z_ERROR)

    def get_error(self):
        """Return :attr:`error`."""
        return self.error

    @property
    def error_derivative(self):
        """``(error - previous error) / period`` of the last call (units per s)."""
        return self._computed(_kernel().Z_ERROR_DERIVATIVE)

    def get_error_derivative(self):
        """Return :attr:`error_derivative`."""
        return self.error_derivative

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
            setpoint = checks.finite("setpoint", setpoint, allow_array=True)
        kernel = _pid_kernel or _kernel()
        s = self._s
        if s.ndim == 1 and type(measurement) is float and type(setpoint) is not np.ndarray:  # robot code
            if setpoint is None:
                return kernel.calculate(self._p, 0, s, 0, measurement, 0.0, False)
            return kernel.calculate(self._p, 0, s, 0, measurement, setpoint, True)
        self._widen(measurement=measurement, setpoint=setpoint)
        rows = self._rows(measurement)
        out = np.empty(rows.size)
        kernel.calculate_each(self._p, self._s, rows, rows if setpoint is None else self._rows(setpoint),
                              setpoint is not None, out)
        if setpoint is not None:
            self._note_setpoint(setpoint)
        return out.reshape(self._shape)

    def reset(self) -> None:
        """Clear the error history and the integrator (the setpoint is kept).

        After a reset the next :meth:`calculate` is a first call again (zero
        derivative, or a previous error of 0 with ``derivative_kick=True``).
        """
        k = _kernel()
        if self._s.ndim == 1:
            k.reset(self._s, 0)
        else:
            k.reset_each(self._s)
