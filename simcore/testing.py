"""Step-response figures, current and energy statistics, and tuning assertions.

The contract
------------
Every figure is computed from a :class:`simcore.result.Result` alone, treating a
signal as the piecewise-linear curve through its recorded rows (the same model
:meth:`Result.sample` uses). A time that appears on two consecutive rows (a
controller tick or an event: the value before, then the value after) is a jump
of zero duration: it takes no width in any integral and a crossing located on
it is placed at that instant.

Step figures (:func:`step_info`) are measured on the *normalised* response

    n(t) = (y(t) - initial) / (target - initial),

which rises from 0 towards 1 whatever the direction of the step, so a step
downwards (``target < initial``) is handled exactly like a step upwards:
overshoot means going *below* a lower target, the peak is then the minimum.

Times (``rise_time``, ``settling_time``, ``peak_time``) are in seconds and,
except ``rise_time`` which is a duration, are measured from ``t_start``
(default: the first row of the result). Values (``peak``,
``steady_state_error``) are in the signal's own unit, ``result.units[signal]``.

The assertion helpers (:func:`assert_settles`, :func:`assert_overshoot_below`,
:func:`assert_peak_below`, ... and the chained :func:`expect`) raise
``AssertionError`` with the measured figures and their units in the message, so
a failing tuning test says by how much it missed::

    expect(result, "arm.angle", 1.0).settles_within(0.5).overshoot_below(0.05)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .errors import ConfigError, ConfigTypeError, check_finite

__all__ = [
    "StepInfo", "step_info",
    "CurrentStats", "current_stats", "energy",
    "assert_settles", "assert_overshoot_below", "assert_rise_time_below",
    "assert_steady_state_error_below", "assert_peak_below",
    "expect", "StepExpectation",
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _signal(result, signal: str):
    """Time grid and values of ``signal`` as float arrays, validated."""
    if not isinstance(signal, str):
        raise ConfigTypeError("signal", signal, "a signal name such as 'arm.angle'")
    if signal not in result:
        raise ConfigError("signal", signal, f"one of the recorded signals: {', '.join(result.names)}")
    t = np.asarray(result.t, dtype=float)
    y = np.asarray(result[signal], dtype=float)
    if t.shape[0] < 2:
        raise ConfigError("result", result, "a result with at least two rows")
    return t, y


def _limit(parameter: str, value, unit: str = "") -> float:
    """A non-negative finite float (a time or tolerance bound), from a float or a Quantity."""
    v = _number(parameter, value, unit)
    if v < 0:
        raise ConfigError(parameter, value, f"a non-negative bound{f' in {unit}' if unit else ''}")
    return v


def _number(parameter: str, value, unit: str = "") -> float:
    """A finite float from a float or a pint Quantity (converted to ``unit``)."""
    if hasattr(value, "to") and hasattr(value, "magnitude"):
        try:
            value = value.to(unit or "dimensionless").magnitude
        except Exception as exc:  # pint.DimensionalityError and unparsable units alike
            raise ConfigError(parameter, value, f"a quantity convertible to {unit or 'dimensionless'!r}"
                              f" ({exc})") from None
    return check_finite(parameter, value)


def _trapezoid(t: np.ndarray, f: np.ndarray) -> float:
    """Trapezoid integral over the recorded grid.

    A duplicated instant spans zero width, so the interval before it uses the
    pre-jump value and the interval after it the post-jump value: exactly the
    integral of the piecewise-linear signal with its jump.
    """
    dt = np.diff(t)
    return float(np.sum(0.5 * (f[1:] + f[:-1]) * dt))


def _crossing(t: np.ndarray, n: np.ndarray, i: int, level: float) -> float:
    """Time at which the segment between rows ``i`` and ``i+1`` crosses ``level`` (linear)."""
    t0, t1, n0, n1 = t[i], t[i + 1], n[i], n[i + 1]
    if t1 == t0 or n1 == n0:
        return float(t1) if n1 == level or t1 == t0 else float(t0)
    return float(t0 + (t1 - t0) * (level - n0) / (n1 - n0))


def _crossing_refined(t: np.ndarray, n: np.ndarray, i: int, level: float) -> float:
    """Crossing of ``level`` between rows ``i`` and ``i+1``, refined by a quadratic.

    The linear crossing is refined with the parabola through rows ``i, i+1`` and
    a third neighbour (``i-1``, else ``i+2``), kept only when those three times
    are distinct and the parabola crosses ``level`` inside the segment; otherwise
    (a jump, the record's end) the linear crossing stands. On a smooth signal
    sampled every ``h`` seconds this moves the error from ``O(h**2)`` to ``O(h**3)``.
    """
    lin = _crossing(t, n, i, level)
    if t[i + 1] <= t[i]:
        return lin
    if i >= 1 and t[i - 1] < t[i]:
        j = i - 1
    elif i + 2 < len(t) and t[i + 2] > t[i + 1]:
        j = i + 2
    else:
        return lin
    xs = np.array([t[j], t[i], t[i + 1]]) - t[i]
    ys = np.array([n[j], n[i], n[i + 1]]) - level
    # Lagrange -> coefficients c2 x^2 + c1 x + c0
    c2 = c1 = c0 = 0.0
    for a in range(3):
        b, c = [k for k in range(3) if k != a]
        den = (xs[a] - xs[b]) * (xs[a] - xs[c])
        w = ys[a] / den
        c2 += w
        c1 -= w * (xs[b] + xs[c])
        c0 += w * xs[b] * xs[c]
    h = t[i + 1] - t[i]
    if c2 == 0.0:
        roots = [-c0 / c1] if c1 != 0.0 else []
    else:
        disc = c1 * c1 - 4.0 * c2 * c0
        if disc < 0.0:
            return lin
        sq = math.sqrt(disc)
        q = -0.5 * (c1 + math.copysign(sq, c1))          # numerically stable roots
        roots = [q / c2] + ([c0 / q] if q != 0.0 else [])
    roots = [r for r in roots if 0.0 <= r <= h]
    if not roots:
        return lin
    best = min(roots, key=lambda r: abs(r + t[i] - lin))
    return float(t[i] + best)


def _first_reach(t: np.ndarray, n: np.ndarray, level: float, start: int = 0):
    """Interpolated first time at or after row ``start`` where ``n`` reaches ``level``; index too."""
    idx = np.flatnonzero(n[start:] >= level)
    if idx.size == 0:
        return math.nan, -1
    k = start + int(idx[0])
    if k == 0 or n[k - 1] >= level:
        return float(t[k]), k
    return _crossing(t, n, k - 1, level), k


def _refine_max(t: np.ndarray, n: np.ndarray, k: int):
    """Sub-sample location and value of the maximum of ``n`` found at row ``k``.

    A parabola is fitted through rows ``k-1, k, k+1`` and its vertex taken when
    the three times are distinct, the parabola is concave and the vertex lies
    between the outer rows; otherwise (a maximum at an end of the record, on a
    jump, or a plateau) the sample itself is returned. On a smooth signal
    sampled every ``h`` seconds the vertex is off by ``O(h**2 * |y'''/y''|)``
    in time and far less in value (about 1e-7 s for a 5 rad/s oscillation
    sampled every 0.5 ms).
    """
    if k <= 0 or k >= len(t) - 1:
        return float(t[k]), float(n[k])
    ta, tb, tc = t[k - 1], t[k], t[k + 1]
    a, b, c = n[k - 1], n[k], n[k + 1]
    if not (ta < tb < tc):
        return float(tb), float(b)
    # Parabola through three (possibly unevenly spaced) points, in x = t - tb.
    xa, xc = ta - tb, tc - tb
    da, dc = (a - b) / xa, (c - b) / xc          # slopes of the chords from the middle point
    curv = (dc - da) / (xc - xa)                  # second coefficient p2 (y = b + p1 x + p2 x^2)
    if not curv < 0.0:
        return float(tb), float(b)
    p1 = da - curv * xa
    xv = -p1 / (2.0 * curv)
    if not (xa <= xv <= xc):
        return float(tb), float(b)
    yv = b + p1 * xv + curv * xv * xv
    return float(tb + xv), float(max(yv, b))


# ---------------------------------------------------------------------------------------------
# step response
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepInfo:
    """Figures of merit of a step response (see :func:`step_info` for the exact definitions).

    Attributes
    ----------
    signal : str
        The signal measured.
    unit : str
        Its unit (``''`` when the result does not say).
    initial, target : float
        Value before the step and commanded value, in ``unit``.
    t_start : float
        Instant of the step, s; ``settling_time`` and ``peak_time`` count from it.
    band : float
        Settling band as a fraction of ``|target - initial|``.
    rise_time : float
        10 % to 90 % rise time, s (``nan`` if 90 % is never reached).
    settling_time : float
        Settling time, s (``inf`` if the record ends outside the band).
    overshoot : float
        Overshoot as a fraction of the step (0.05 is 5 %), >= 0.
    peak : float
        Extreme value in the direction of the step, ``unit``.
    peak_time : float
        When ``peak`` occurs, s after ``t_start``.
    steady_state_error : float
        ``target - final value``, ``unit``.
    iae, ise, itae : float
        Integral of ``|e|`` (``unit``·s), of ``e**2`` (``unit``²·s) and of
        ``(t - t_start)·|e|`` (``unit``·s²), with ``e = target - y``.
    """

    signal: str
    unit: str
    initial: float
    target: float
    t_start: float
    band: float
    rise_time: float
    settling_time: float
    overshoot: float
    peak: float
    peak_time: float
    steady_state_error: float
    iae: float
    ise: float
    itae: float

    def summary(self) -> str:
        """One line with the main figures and their units."""
        u = f" {self.unit}" if self.unit else ""
        return (f"{self.signal}: step {self.initial:.6g} -> {self.target:.6g}{u}; "
                f"rise time {self.rise_time:.6g} s, settling time (±{100 * self.band:.3g} % band) "
                f"{self.settling_time:.6g} s, overshoot {100 * self.overshoot:.4g} %, "
                f"peak {self.peak:.6g}{u} at {self.peak_time:.6g} s, "
                f"steady-state error {self.steady_state_error:.6g}{u}")


def step_info(result, signal: str, target, *, band: float = 0.02, initial=None,
              t_start=None) -> StepInfo:
    """Measure the step response of ``signal`` towards ``target``.

    Parameters
    ----------
    result : simcore.result.Result
        The recorded run.
    signal : str
        Name of the responding signal, e.g. ``"arm.angle"``.
    target : float or pint.Quantity
        Commanded final value, in the signal's unit (a Quantity is converted to it).
    band : float, optional
        Half-width of the settling band as a fraction of the step size
        ``|target - initial|``; ``0 < band < 1``. Default 0.02 (2 %).
    initial : float or pint.Quantity, optional
        Value the step starts from, in the signal's unit. Default: the signal's
        value at ``t_start`` (its first value when ``t_start`` is not given).
    t_start : float, optional
        Instant of the step, s. Only rows at or after it are analysed (at a
        duplicated instant, the rows from the later one on). Default:
        ``result.t[0]``.

    Returns
    -------
    StepInfo
        With ``n(t) = (y - initial)/(target - initial)`` the normalised response
        and times interpolated between recorded rows:

        - ``rise_time``: time from the first instant ``n`` reaches 0.1 to the
          first later instant it reaches 0.9, s; ``nan`` if it never does.
        - ``settling_time``: the instant the signal enters the band
          ``target ± band·|step|`` for the last time (``|n - 1| <= band`` from
          then on), minus ``t_start``, s. Found on the segment leaving the last
          row outside the band: linear crossing, refined by the parabola through
          that segment and a neighbouring row when the rows are distinct (no
          jump), which makes it accurate to ``O(h**3)`` on smooth signals.
          ``0`` if no row is outside the band; ``inf`` if the last row is.
        - ``peak`` / ``peak_time``: the extreme value in the direction of the
          step (maximum for a step up, minimum for a step down) and its time
          after ``t_start``; located with sub-sample accuracy by the vertex of a
          parabola through the extreme sample and its two neighbours (kept at the
          sample itself at the record's ends, on a jump or on a plateau).
        - ``overshoot``: ``max(0, n_peak - 1)``, a fraction of the step size.
        - ``steady_state_error``: ``target - y[-1]``, signal unit.
        - ``iae``, ``ise``, ``itae``: trapezoid integrals over the rows from
          ``t_start`` of ``|e|``, ``e**2`` and ``(t - t_start)|e|``, with
          ``e = target - y``; duplicated instants take zero width.

    Raises
    ------
    ConfigError
        If the signal is unknown, ``band`` is not in (0, 1), ``t_start`` is
        outside the record, or the step is zero (``target == initial``).
    """
    if _is_batch(result):
        return _step_info_batch(result, signal, target, band=band, initial=initial, t_start=t_start)
    t, y = _signal(result, signal)
    unit = result.units.get(signal, "") if hasattr(result, "units") else ""
    target = _number("target", target, unit)
    band = _number("band", band)
    if not 0.0 < band < 1.0:
        raise ConfigError("band", band, "a fraction of the step strictly between 0 and 1 (0.02 is 2 %)")
    if t_start is None:
        t0 = float(t[0])
        k0 = 0
    else:
        t0 = _number("t_start", t_start, "s")
        if not t[0] <= t0 <= t[-1]:
            raise ConfigError("t_start", t_start, f"a time within the record [{t[0]!r}, {t[-1]!r}] s")
        # rows strictly after t_start, preceded by the (right-continuous) value at t_start
        k0 = int(np.searchsorted(t, t0, side="right"))
        y_start = float(result.sample(signal, [t0])[0])
        t = np.concatenate(([t0], t[k0:]))
        y = np.concatenate(([y_start], y[k0:]))
    if len(t) < 2:
        raise ConfigError("t_start", t_start, "an instant before the last row of the record")
    y_initial = float(y[0]) if initial is None else _number("initial", initial, unit)
    step = target - y_initial
    if step == 0.0:
        raise ConfigError("target", target, f"a value different from the initial value {y_initial!r}"
                                            " (a step of non-zero size)")
    n = (y - y_initial) / step

    # rise time 10 % -> 90 %
    t10, k10 = _first_reach(t, n, 0.1)
    if k10 >= 0:
        t90, _ = _first_reach(t, n, 0.9, start=k10)
    else:
        t90 = math.nan
    rise = t90 - t10 if math.isfinite(t10) and math.isfinite(t90) else math.nan

    # settling time: last row outside the band, then where the signal enters it
    outside = np.abs(n - 1.0) > band
    out_idx = np.flatnonzero(outside)
    if out_idx.size == 0:
        settle = 0.0
    else:
        i = int(out_idx[-1])
        if i == len(t) - 1:
            settle = math.inf
        else:
            level = 1.0 + band if n[i] > 1.0 else 1.0 - band
            settle = _crossing_refined(t, n, i, level) - t0

    # peak in the direction of the step
    k = int(np.argmax(n))
    tp, npk = _refine_max(t, n, k)
    peak = y_initial + npk * step
    overshoot = max(0.0, npk - 1.0)

    e = target - y
    ae = np.abs(e)
    return StepInfo(
        signal=signal, unit=unit, initial=y_initial, target=target, t_start=t0, band=band,
        rise_time=float(rise), settling_time=float(settle), overshoot=float(overshoot),
        peak=float(peak), peak_time=float(tp - t0), steady_state_error=float(target - y[-1]),
        iae=_trapezoid(t, ae), ise=_trapezoid(t, e * e), itae=_trapezoid(t, (t - t0) * ae),
    )


# ---------------------------------------------------------------------------------------------
# current and energy
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CurrentStats:
    """Peak and RMS of a current (or any) signal.

    Attributes
    ----------
    signal : str
    unit : str
        Unit of the signal (``'A'`` for a current).
    peak : float
        Largest ``|I|`` over the recorded rows, ``unit``.
    peak_time : float
        Time of that row, s.
    rms : float
        Time-weighted root mean square, ``sqrt(∫ I² dt / (t_end - t_0))`` with the
        trapezoid rule over the grid, ``unit``.
    mean : float
        Time-weighted mean ``∫ I dt / (t_end - t_0)``, ``unit``.
    """

    signal: str
    unit: str
    peak: float
    peak_time: float
    rms: float
    mean: float


def current_stats(result, signal: str) -> CurrentStats:
    """Peak ``|I|`` and time-weighted RMS of a current signal.

    Parameters
    ----------
    result : simcore.result.Result
    signal : str
        Current signal, e.g. ``"arm.stator_current"`` (A).

    Returns
    -------
    CurrentStats
        ``peak`` is the largest recorded ``|I|`` (a sample, not interpolated: a
        current jumps at ticks and the rows hold both sides of every jump);
        ``rms`` and ``mean`` integrate with the trapezoid rule, duplicated
        instants taking zero width.
    """
    if _is_batch(result):
        return _current_stats_batch(result, signal)
    t, y = _signal(result, signal)
    span = float(t[-1] - t[0])
    if not span > 0:
        raise ConfigError("result", result, "a record spanning a positive duration")
    k = int(np.argmax(np.abs(y)))
    return CurrentStats(
        signal=signal, unit=result.units.get(signal, ""), peak=float(abs(y[k])), peak_time=float(t[k]),
        rms=math.sqrt(_trapezoid(t, y * y) / span), mean=_trapezoid(t, y) / span,
    )


def _si_factor(result, signal: str, si_unit: str) -> float:
    """Factor converting ``signal`` from its recorded unit to ``si_unit`` (1 if unknown)."""
    unit = result.units.get(signal, "")
    if not unit or unit == si_unit:
        return 1.0
    from .units import ureg

    try:
        return float(ureg.Quantity(1.0, unit).to(si_unit).magnitude)
    except Exception:
        raise ConfigError("signal", signal, f"a signal in a unit convertible to {si_unit!r},"
                                            f" not {unit!r}") from None


def energy(result, voltage_signal: str, current_signal: str) -> float:
    """Electrical energy ``∫ V·I dt`` delivered over the record, J.

    Parameters
    ----------
    result : simcore.result.Result
    voltage_signal : str
        Voltage across the load, V (any unit convertible to volts is converted).
    current_signal : str
        Current into the load, A (likewise converted).

    Returns
    -------
    float
        Trapezoid integral of the product ``V·I`` over the grid, J. Negative when
        the load returns energy (regenerative braking). Duplicated instants take
        zero width.
    """
    if _is_batch(result):
        _batch_signal(result, voltage_signal), _batch_signal(result, current_signal)
        t, v = result.padded(voltage_signal)[:2]
        i = result.padded(current_signal)[1]
        scale = _si_factor(result, voltage_signal, "V") * _si_factor(result, current_signal, "A")
        return _trapezoid_rows(t, v * i) * scale
    t, v = _signal(result, voltage_signal)
    _, i = _signal(result, current_signal)
    scale = _si_factor(result, voltage_signal, "V") * _si_factor(result, current_signal, "A")
    return _trapezoid(t, v * i) * scale


# ---------------------------------------------------------------------------------------------
# assertions
# ---------------------------------------------------------------------------------------------
def _fmt(v: float, unit: str = "") -> str:
    return f"{v:.6g}" + (f" {unit}" if unit else "")


class StepExpectation:
    """Chained tuning spec on one step response; build it with :func:`expect`.

    Every method checks one figure of :attr:`info` and returns ``self``, so
    requirements chain; the first one violated raises ``AssertionError`` whose
    message carries every measured figure.
    """

    def __init__(self, result, signal: str, target, *, band: float = 0.02, initial=None, t_start=None):
        self.result = result
        self.info = step_info(result, signal, target, band=band, initial=initial, t_start=t_start)
        self._batch = _is_batch(result)

    def _require_all(self, ok, values, what: str, unit: str = ""):
        """A batch: every variant must pass; the message names those that do not and the worst value."""
        __tracebackhide__ = True
        bad = np.flatnonzero(~np.asarray(ok, dtype=bool))
        if bad.size:
            shown = ", ".join(str(int(k)) for k in bad[:10]) + (", ..." if bad.size > 10 else "")
            vals = np.asarray(values, dtype=float)[bad]
            raise AssertionError(f"{self.info.signal}: {bad.size} of {np.size(ok)} variants fail {what} "
                                 f"(variants {shown}; e.g. variant {int(bad[0])}: {_fmt(float(vals[0]), unit)})")
        return self

    def _fail(self, what: str):
        __tracebackhide__ = True
        raise AssertionError(f"{what}\n  measured: {self.info.summary()}")

    def settles_within(self, seconds) -> "StepExpectation":
        """Require the settling time (see :func:`step_info`) to be at most ``seconds``, s."""
        __tracebackhide__ = True
        limit = _limit("seconds", seconds, "s")
        s = self.info.settling_time
        if self._batch:
            return self._require_all(s <= limit, s, f"to settle within {_fmt(limit, 's')}", "s")
        if not s <= limit:
            self._fail(f"{self.info.signal} settles (±{100 * self.info.band:.3g} % band) in "
                       f"{_fmt(s, 's')}, more than {_fmt(limit, 's')}"
                       + (" (still outside the band at the end of the record)" if s == math.inf else ""))
        return self

    def overshoot_below(self, fraction) -> "StepExpectation":
        """Require the overshoot to be at most ``fraction`` of the step (0.05 is 5 %)."""
        __tracebackhide__ = True
        limit = _limit("fraction", fraction)
        o = self.info.overshoot
        if self._batch:
            return self._require_all(o <= limit, o, f"an overshoot below {limit:.4g} of the step")
        if not o <= limit:
            self._fail(f"{self.info.signal} overshoots by {100 * o:.4g} % of the step "
                       f"(peak {_fmt(self.info.peak, self.info.unit)} at {_fmt(self.info.peak_time, 's')}), "
                       f"more than {100 * limit:.4g} %")
        return self

    def rise_time_below(self, seconds) -> "StepExpectation":
        """Require the 10-90 % rise time to be at most ``seconds``, s."""
        __tracebackhide__ = True
        limit = _limit("seconds", seconds, "s")
        r = self.info.rise_time
        if self._batch:
            return self._require_all(r <= limit, r, f"a rise time below {_fmt(limit, 's')}", "s")
        if not r <= limit:
            self._fail(f"{self.info.signal} rises 10-90 % in {_fmt(r, 's')}, more than {_fmt(limit, 's')}"
                       + (" (never reaches 90 %)" if math.isnan(r) else ""))
        return self

    def steady_state_error_below(self, tolerance) -> "StepExpectation":
        """Require ``|target - final value|`` to be at most ``tolerance`` (signal unit)."""
        __tracebackhide__ = True
        limit = _limit("tolerance", tolerance, self.info.unit)
        e = self.info.steady_state_error
        if self._batch:
            return self._require_all(np.abs(e) <= limit, e, f"a steady-state error below "
                                     f"{_fmt(limit, self.info.unit)}", self.info.unit)
        if not abs(e) <= limit:
            self._fail(f"{self.info.signal} ends off its target by {_fmt(e, self.info.unit)} (target - final), "
                       f"|error| more than {_fmt(limit, self.info.unit)}")
        return self

    def peak_below(self, limit) -> "StepExpectation":
        """Require the extreme value in the step's direction to stay within ``limit``.

        For a step up, ``peak <= limit``; for a step down, ``peak >= limit``.
        """
        __tracebackhide__ = True
        lim = _number("limit", limit, self.info.unit)
        p = self.info.peak
        up = self.info.target > self.info.initial
        if self._batch:
            return self._require_all(np.where(up, p <= lim, p >= lim), p, f"a peak within {_fmt(lim, self.info.unit)}",
                                     self.info.unit)
        if not (p <= lim if up else p >= lim):
            self._fail(f"{self.info.signal} peaks at {_fmt(p, self.info.unit)} "
                       f"(at {_fmt(self.info.peak_time, 's')}), beyond {_fmt(lim, self.info.unit)}")
        return self

    def __repr__(self):
        if self._batch:
            return f"<StepExpectation on {np.size(self.info.settling_time)} variants of {self.info.signal}>"
        return f"<StepExpectation {self.info.summary()}>"


def expect(result, signal: str, target, *, band: float = 0.02, initial=None, t_start=None) -> StepExpectation:
    """Start a chained tuning spec on the step response of ``signal`` to ``target``.

    Parameters are those of :func:`step_info`. Example::

        expect(result, "arm.angle", 1.0).settles_within(0.5).overshoot_below(0.05)
    """
    return StepExpectation(result, signal, target, band=band, initial=initial, t_start=t_start)


def assert_settles(result, signal: str, target, within, band: float = 0.02, *, initial=None,
                   t_start=None) -> StepInfo:
    """Assert that ``signal`` settles into ``target ± band·|step|`` within ``within`` seconds.

    Returns the measured :class:`StepInfo`; raises ``AssertionError`` with the
    measured figures otherwise. ``within`` is in s (or a time Quantity).
    """
    __tracebackhide__ = True
    return expect(result, signal, target, band=band, initial=initial, t_start=t_start).settles_within(within).info


def assert_overshoot_below(result, signal: str, target, fraction, *, band: float = 0.02, initial=None,
                           t_start=None) -> StepInfo:
    """Assert that the overshoot of ``signal`` past ``target`` is at most ``fraction`` of the step."""
    __tracebackhide__ = True
    return expect(result, signal, target, band=band, initial=initial, t_start=t_start).overshoot_below(fraction).info


def assert_rise_time_below(result, signal: str, target, seconds, *, initial=None, t_start=None) -> StepInfo:
    """Assert that the 10-90 % rise time of ``signal`` is at most ``seconds``, s."""
    __tracebackhide__ = True
    return expect(result, signal, target, initial=initial, t_start=t_start).rise_time_below(seconds).info


def assert_steady_state_error_below(result, signal: str, target, tolerance, *, initial=None,
                                    t_start=None) -> StepInfo:
    """Assert that ``|target - final value|`` is at most ``tolerance`` (signal unit)."""
    __tracebackhide__ = True
    return expect(result, signal, target, initial=initial,
                  t_start=t_start).steady_state_error_below(tolerance).info


def assert_peak_below(result, signal: str, limit, *, absolute: bool = True) -> float:
    """Assert that a signal never exceeds ``limit`` (e.g. a current below 40 A).

    Parameters
    ----------
    result : simcore.result.Result
    signal : str
    limit : float or pint.Quantity
        Bound in the signal's unit.
    absolute : bool, optional
        Compare ``max |y|`` (default, the natural reading for currents and
        voltages) rather than ``max y``.

    Returns
    -------
    float
        The measured peak (sample maximum), signal unit.
    """
    __tracebackhide__ = True
    if _is_batch(result):
        return _assert_peak_below_batch(result, signal, limit, absolute)
    t, y = _signal(result, signal)
    unit = result.units.get(signal, "")
    lim = _number("limit", limit, unit)
    vals = np.abs(y) if absolute else y
    k = int(np.argmax(vals))
    peak = float(vals[k])
    if not peak <= lim:
        over = np.flatnonzero(vals > lim)
        raise AssertionError(
            f"{'|' + signal + '|' if absolute else signal} peaks at {_fmt(peak, unit)} at t={_fmt(float(t[k]), 's')}, "
            f"above {_fmt(lim, unit)}; first exceeded at t={_fmt(float(t[over[0]]), 's')}, "
            f"{over.size} of {len(t)} rows above the limit")
    return peak


# ---------------------------------------------------------------------------------------------
# the same figures over the variants of a BatchResult, as (N,) arrays
# ---------------------------------------------------------------------------------------------
def _is_batch(result) -> bool:
    return hasattr(result, "padded") and hasattr(result, "at_ticks")


def _batch_signal(result, signal):
    if not isinstance(signal, str):
        raise ConfigTypeError("signal", signal, "a signal name such as 'arm.angle'")
    if signal not in result:
        raise ConfigError("signal", signal, f"one of the signals: {', '.join(result.names)}")


def _per_variant(parameter, value, n, unit=""):
    """A number (or Quantity) for every variant, or one per variant, as an (n,) float array."""
    if hasattr(value, "to") and hasattr(value, "magnitude"):
        value = _number(parameter, value, unit) if np.ndim(value.magnitude) == 0 else \
            value.to(unit or "dimensionless").magnitude
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ConfigError(parameter, value, f"a finite number, or {n} of them (one per variant)")
    return arr


def _rows_take(a, idx):
    return np.take_along_axis(a, idx[:, None], axis=1)[:, 0]


def _trapezoid_rows(t, f):
    return np.sum(0.5 * (f[:, 1:] + f[:, :-1]) * np.diff(t, axis=1), axis=1)


def _crossing_rows(t, n, i, level):
    """:func:`_crossing` for every row, at row-wise segment ``i``."""
    t0, t1, n0, n1 = _rows_take(t, i), _rows_take(t, i + 1), _rows_take(n, i), _rows_take(n, i + 1)
    flat = (t1 == t0) | (n1 == n0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lin = t0 + (t1 - t0) * (level - n0) / (n1 - n0)
    return np.where(flat, np.where((n1 == level) | (t1 == t0), t1, t0), lin)


def _first_reach_rows(t, n, level, start, counts):
    cols = np.arange(t.shape[1])[None, :]
    mask = (n >= level) & (cols >= start[:, None]) & (cols < counts[:, None])
    has = mask.any(axis=1)
    k = np.argmax(mask, axis=1)
    prev = np.maximum(k - 1, 0)
    direct = (k == 0) | (_rows_take(n, prev) >= level)
    tk = np.where(direct, _rows_take(t, k), _crossing_rows(t, n, prev, level))
    return np.where(has, tk, math.nan), np.where(has, k, -1)


def _crossing_refined_rows(t, n, i, level, counts):
    """:func:`_crossing_refined` for every row."""
    last = t.shape[1] - 1
    lin = _crossing_rows(t, n, i, level)
    ti, ti1 = _rows_take(t, i), _rows_take(t, i + 1)
    im1, ip2 = np.maximum(i - 1, 0), np.minimum(i + 2, last)
    use_prev = (i >= 1) & (_rows_take(t, im1) < ti)
    use_next = ~use_prev & (i + 2 < counts) & (_rows_take(t, ip2) > ti1)
    j = np.where(use_prev, im1, ip2)
    ok = (ti1 > ti) & (use_prev | use_next)
    xs = np.stack([_rows_take(t, j), ti, ti1]) - ti
    ys = np.stack([_rows_take(n, j), _rows_take(n, i), _rows_take(n, i + 1)]) - level
    c2 = c1 = c0 = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(3):
            b, c = [k for k in range(3) if k != a]
            w = ys[a] / ((xs[a] - xs[b]) * (xs[a] - xs[c]))
            c2, c1, c0 = c2 + w, c1 - w * (xs[b] + xs[c]), c0 + w * xs[b] * xs[c]
        h = ti1 - ti
        lin_root = np.where(c1 != 0.0, -c0 / c1, np.nan)
        disc = c1 * c1 - 4.0 * c2 * c0
        sq = np.sqrt(np.where(disc >= 0.0, disc, 0.0))
        q = -0.5 * (c1 + np.copysign(sq, c1))
        r1 = np.where(c2 == 0.0, lin_root, q / c2)
        r2 = np.where((c2 == 0.0) | (q == 0.0), np.nan, c0 / q)
    quad_ok = (c2 == 0.0) | (disc >= 0.0)
    in1 = (r1 >= 0.0) & (r1 <= h)
    in2 = (r2 >= 0.0) & (r2 <= h)
    d1, d2 = np.abs(r1 + ti - lin), np.abs(r2 + ti - lin)
    best = np.where(in1 & in2, np.where(d2 < d1, r2, r1), np.where(in1, r1, r2))
    return np.where(ok & quad_ok & (in1 | in2), ti + best, lin)


def _refine_max_rows(t, n, k, counts):
    """:func:`_refine_max` for every row."""
    last = t.shape[1] - 1
    km, kp = np.maximum(k - 1, 0), np.minimum(k + 1, last)
    ta, tb, tc = _rows_take(t, km), _rows_take(t, k), _rows_take(t, kp)
    a, b, c = _rows_take(n, km), _rows_take(n, k), _rows_take(n, kp)
    interior = (k > 0) & (k < counts - 1) & (ta < tb) & (tb < tc)
    with np.errstate(divide="ignore", invalid="ignore"):
        xa, xc = ta - tb, tc - tb
        da, dc = (a - b) / xa, (c - b) / xc
        curv = (dc - da) / (xc - xa)
        p1 = da - curv * xa
        xv = -p1 / (2.0 * curv)
        yv = b + p1 * xv + curv * xv * xv
    vertex = interior & (curv < 0.0) & (xa <= xv) & (xv <= xc)
    return np.where(vertex, tb + xv, tb), np.where(vertex, np.maximum(yv, b), b)


def _step_info_batch(result, signal, target, *, band, initial, t_start):
    """:func:`step_info` for every variant of a BatchResult: the same definitions, row by row."""
    _batch_signal(result, signal)
    unit = result.units.get(signal, "")
    n_var = result.n
    target = _per_variant("target", target, n_var, unit)
    band = _number("band", band)
    if not 0.0 < band < 1.0:
        raise ConfigError("band", band, "a fraction of the step strictly between 0 and 1 (0.02 is 2 %)")
    t, y, counts = result.padded(signal)
    if t_start is None:
        t0 = t[:, 0].copy()
    else:
        t0v = _number("t_start", t_start, "s")
        if np.any(t[:, 0] > t0v) or np.any(_rows_take(t, counts - 1) < t0v):
            raise ConfigError("t_start", t_start, "a time within every variant's record")
        k0 = np.sum((t <= t0v) & (np.arange(t.shape[1])[None, :] < counts[:, None]), axis=1)
        if np.any(k0 >= counts):
            raise ConfigError("t_start", t_start, "an instant before the last row of the record")
        i = k0 - 1
        ta, tb = _rows_take(t, i), _rows_take(t, i + 1)
        ya, yb = _rows_take(y, i), _rows_take(y, i + 1)
        held = signal in getattr(result, "input_names", ())
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(tb > ta, (t0v - ta) / (tb - ta), 0.0)
        y_start = ya if held else ya + w * (yb - ya)
        cols = np.arange(t.shape[1])[None, :]
        src = np.minimum(k0[:, None] + cols - 1, (counts - 1)[:, None])
        t_new, y_new = np.take_along_axis(t, src, axis=1), np.take_along_axis(y, src, axis=1)
        t_new[:, 0], y_new[:, 0] = t0v, y_start
        t, y, counts = t_new, y_new, counts - k0 + 1
        t0 = np.full(n_var, t0v)
    y_initial = y[:, 0].copy() if initial is None else _per_variant("initial", initial, n_var, unit)
    step = target - y_initial
    if np.any(step == 0.0):
        k = int(np.flatnonzero(step == 0.0)[0])
        raise ConfigError("target", target[k], f"a value different from the initial value {y_initial[k]!r} "
                                               f"(variant {k}: a step of non-zero size)")
    n = (y - y_initial[:, None]) / step[:, None]
    t10, k10 = _first_reach_rows(t, n, 0.1, np.zeros(n_var, dtype=int), counts)
    t90, _ = _first_reach_rows(t, n, 0.9, np.maximum(k10, 0), counts)
    t90 = np.where(k10 >= 0, t90, math.nan)
    rise = np.where(np.isfinite(t10) & np.isfinite(t90), t90 - t10, math.nan)
    outside = np.abs(n - 1.0) > band
    any_out = outside.any(axis=1)
    i = t.shape[1] - 1 - np.argmax(outside[:, ::-1], axis=1)
    i = np.minimum(i, counts - 1)
    at_end = i == counts - 1
    seg = np.minimum(i, t.shape[1] - 2)
    level = np.where(_rows_take(n, seg) > 1.0, 1.0 + band, 1.0 - band)
    settle = np.where(~any_out, 0.0, np.where(at_end, math.inf, _crossing_refined_rows(t, n, seg, level, counts) - t0))
    k = np.argmax(n, axis=1)
    tp, npk = _refine_max_rows(t, n, k, counts)
    e = target[:, None] - y
    ae = np.abs(e)
    return StepInfo(signal=signal, unit=unit, initial=y_initial, target=target, t_start=t0, band=band,
                    rise_time=rise, settling_time=settle, overshoot=np.maximum(0.0, npk - 1.0),
                    peak=y_initial + npk * step, peak_time=tp - t0,
                    steady_state_error=target - _rows_take(y, counts - 1), iae=_trapezoid_rows(t, ae),
                    ise=_trapezoid_rows(t, e * e), itae=_trapezoid_rows(t, (t - t0[:, None]) * ae))


def _current_stats_batch(result, signal):
    _batch_signal(result, signal)
    t, y, _ = result.padded(signal)
    span = t[:, -1] - t[:, 0]
    if not np.all(span > 0):
        raise ConfigError("result", result, "a record spanning a positive duration in every variant")
    k = np.argmax(np.abs(y), axis=1)
    return CurrentStats(signal=signal, unit=result.units.get(signal, ""), peak=np.abs(_rows_take(y, k)),
                        peak_time=_rows_take(t, k), rms=np.sqrt(_trapezoid_rows(t, y * y) / span),
                        mean=_trapezoid_rows(t, y) / span)


def _assert_peak_below_batch(result, signal, limit, absolute):
    __tracebackhide__ = True
    _batch_signal(result, signal)
    unit = result.units.get(signal, "")
    lim = _number("limit", limit, unit)
    t, y, _ = result.padded(signal)
    vals = np.abs(y) if absolute else y
    peak = vals.max(axis=1)
    bad = np.flatnonzero(~(peak <= lim))
    if bad.size:
        k = int(bad[np.argmax(peak[bad])])
        raise AssertionError(f"{'|' + signal + '|' if absolute else signal} peaks above {_fmt(lim, unit)} in "
                             f"{bad.size} of {result.n} variants; worst: variant {k} at {_fmt(float(peak[k]), unit)}")
    return peak
