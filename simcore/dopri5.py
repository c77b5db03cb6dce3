"""Dormand-Prince 5(4), the engine's ``RK45``: scipy's algorithm with a fraction of its cost per step.

scipy's ``RK45`` spends about 70 us a step on array bookkeeping (six small matrix-vector
products, temporary arrays, a numpy ``nextafter``, ``norm``) whatever the right-hand side
costs; a mechanism of two to a dozen states evaluated at 50 Hz ticks pays that on every one
of its 80 to 2,000 steps per simulated second. :class:`DormandPrince` takes the same steps
with the same step control, and does the arithmetic of one step in the order the compiled
kernel (:mod:`simcore.kernel.dopri5`) does it:

* the tableau is scipy's (``RK45.A, B, C, E, P``), the step factor ``0.9 * err**(-1/5)``
  bounded to ``[0.2, 10]`` (at most 1 after a rejection), the first attempt clamped to
  ``[10 ulp(t), max_step]``, the last step landing exactly on ``t_bound``, and the first step
  (when none is given) from scipy's ``select_initial_step`` rule;
* every weighted stage sum is added in stage order, ``((w0 k0 + w1 k1) + w2 k2) + ...``
  (scipy leaves that order to BLAS), and the error norm is the root mean square over the
  states added in state order.

So a run gives, to the last bit, what the compiled kernel gives for the same run (the project's
tests check it). Against scipy's
``RK45`` it agrees to the tolerance, not to the bit: the error estimate is a sum of stages
that nearly cancels, so a different order of adding them can change it in its last digits,
and by much more where the estimate is itself near round-off; the next step size follows it
(on a forced oscillator at rtol 1e-9, a 2e-15 s difference in one step size became 1e-10 s
two steps later), and the states then differ by a part of the local error.

The step works on Python floats (no array is made but the one each stage's derivative is
evaluated at, and none at all when the right-hand side is also given on lists, ``fun_floats``),
so its cost grows with the number of states: the engine uses it up to :data:`SMALL` states and
scipy's ``RK45`` above.

Interface: what the engine's solver adapter (:mod:`simcore.solvers`) reads of a scipy
``OdeSolver``: ``step()``, ``status``, ``t``, ``y``, ``t_old``, ``y_old``, ``h_abs``,
``step_size``, ``dense_output()``, the stages ``K`` (7, n) and the tableau as class
attributes, plus :meth:`restart`, :meth:`interior_states` (and :meth:`interior_lists`, the same as
lists of floats) and :meth:`stiffness_ratio`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import RK45


__all__ = ["DormandPrince", "SMALL", "check_tableau"]

#: Largest number of states for which the engine steps with :class:`DormandPrince` rather than scipy's
#: ``RK45``: the step here is Python arithmetic, linear in the number of states, and scipy's step
#: (array operations of a nearly fixed cost) is the cheaper one above about 16 (measured, per step
#: against scipy's on a right-hand side of one array operation: 0.35 at 1 state, 0.4 at 2, 0.66 at 10,
#: 0.98 at 16; the margin left covers right-hand sides that return their arrays more slowly).
SMALL = 10

_A, _B, _C, _E, _P = RK45.A, RK45.B, RK45.C, RK45.E, RK45.P
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0  # scipy's RK45 step-size rule
_EXPONENT = -1.0 / (RK45.error_estimator_order + 1)
_TOO_SMALL = "Required step size is less than spacing between numbers."

# The tableau as Python floats, zero weights left out (adding 0 * k changes at most the sign of a zero).
(_c1, _c2, _c3, _c4) = (float(c) for c in _C[1:5])
_a10 = float(_A[1, 0])
_a20, _a21 = (float(a) for a in _A[2, :2])
_a30, _a31, _a32 = (float(a) for a in _A[3, :3])
_a40, _a41, _a42, _a43 = (float(a) for a in _A[4, :4])
_a50, _a51, _a52, _a53, _a54 = (float(a) for a in _A[5, :5])
_b0, _b2, _b3, _b4, _b5 = (float(_B[j]) for j in (0, 2, 3, 4, 5))
_e0, _e2, _e3, _e4, _e5, _e6 = (float(_E[j]) for j in (0, 2, 3, 4, 5, 6))
_P00 = float(_P[0, 0])
_P_COLUMNS = [tuple(float(_P[s, j]) for s in (0, 2, 3, 4, 5, 6)) for j in range(1, _P.shape[1])]
# The stiffness estimate (simcore.solvers.stiffness_ratio): the stage at the step's end (C[5] = 1, which
# check_tableau verifies) and the accepted state differ by h * sum_j w_j k_j.
def stiffness_weights(cls):
    """``(s, w)`` of an explicit Runge-Kutta tableau (a scipy solver class or one with its ``A, B, C``
    and ``n_stages``): the last stage ``s`` evaluated at the step's end (``C[s] == 1``), and the weights
    with ``y_new - y_s = h * w @ K[:s + 1]`` (the difference of the two states the derivative at the
    step's end is known at, which the stiffness estimate divides by); None if no stage is at the end.

    The one construction of them: :mod:`simcore.solvers` (RK45, DOP853) and this module read them here.
    """
    C, A, B = cls.C, cls.A, cls.B
    ends = [s for s in range(1, cls.n_stages) if C[s] == 1.0]
    if not ends:
        return None
    s = ends[-1]
    w = np.array(B[: s + 1], dtype=float)
    w[:s] -= A[s, :s]
    return s, w


_STIFF = stiffness_weights(RK45)  # (None for another tableau, which check_tableau refuses)
_W = [float(w) for w in _STIFF[1]] if _STIFF is not None else []


def check_tableau() -> str | None:
    """Whether scipy's ``RK45`` tableau still has the shape this module's unrolled step relies on.

    Returns None, or what differs (then the engine warns and steps with scipy's ``RK45``). The
    weights are read from scipy; what the code assumes is which of them are zero (it leaves those
    terms out), that the sixth stage is at the step's end, and the number of stages.
    """
    try:
        if RK45.n_stages != 6 or _A.shape != (6, 5) or _P.shape != (7, 4) or _E.shape != (7,):
            return f"{RK45.n_stages} stages, A {_A.shape}, P {_P.shape}, E {_E.shape}"
        if not (_A[2, 1] != 0 and _B[1] == 0 and _E[1] == 0 and not _P[1].any() and _C[5] == 1.0
                and _P[0, 0] == 1.0 and not _P[1:, 0].any() and not np.triu(_A).any()):
            return "its zero weights or its last stage's time differ"
    except (AttributeError, IndexError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


class DenseOutput:
    """The interpolant of one accepted step: ``sol(t)`` a state (n,) or, for an array of times, (n, len(t)).

    scipy's quartic ``RkDenseOutput``: ``y_old + h * sum_j Q_j x**(j+1)`` with ``x = (t - t_old) / h``
    and ``Q = K.T @ P`` (here added in stage order, as the compiled kernel's).
    """

    __slots__ = ("t_old", "t", "h", "y_old", "Q")

    def __init__(self, t_old, t, y_old, Q):
        self.t_old, self.t, self.h = t_old, t, t - t_old
        self.y_old, self.Q = y_old, Q  # lists of floats: the state, and 4 rows of n coefficients

    def _at(self, t) -> list:
        x = (t - self.t_old) / self.h
        x2 = x * x
        x3 = x2 * x
        x4 = x3 * x
        h = self.h
        return [y + h * (((q0 * x + q1 * x2) + q2 * x3) + q3 * x4)
                for y, q0, q1, q2, q3 in zip(self.y_old, *self.Q)]

    def __call__(self, t):
        if np.ndim(t) == 0:
            return np.array(self._at(float(t)))
        ts = np.asarray(t, dtype=float).ravel()
        return np.array([self._at(float(ti)) for ti in ts], dtype=float).reshape(len(ts), len(self.y_old)).T


class DormandPrince:
    """Explicit Runge-Kutta 5(4) of Dormand and Prince, integrating ``y' = fun(t, y)`` forward.

    Parameters
    ----------
    fun : callable ``fun(t, y) -> ndarray``
        The right-hand side; ``y`` is a float64 array of shape (n,), the result must be one of the
        same shape (checked by the caller: the engine's right-hand side checks every evaluation).
    t0 : float
        Initial time, s.
    y0 : array-like, shape (n,)
        Initial state.
    t_bound : float
        End of the interval, s (``>= t0``); the last step lands on it exactly.
    max_step : float
        Longest step, s.
    rtol, atol : float
        Relative and absolute tolerance of the error norm (as scipy's ``RK45``; scalars).
    first_step : float, optional
        The first step to try, s; by default chosen by scipy's ``select_initial_step`` rule.
    fun_floats : callable ``fun_floats(t, y) -> list``, optional
        The same right-hand side on a list of floats, returning a list (it must not modify ``y``);
        the stages then call it instead of ``fun`` and no array is made per stage.
    """

    A, B, C, E, P = _A, _B, _C, _E, _P
    n_stages = RK45.n_stages
    order, error_estimator_order = RK45.order, RK45.error_estimator_order

    def __init__(self, fun, t0, y0, t_bound, max_step=math.inf, rtol=1e-3, atol=1e-6, first_step=None,
                 fun_floats=None):
        self.fun = fun
        self._stage = self._stage_on_arrays if fun_floats is None else fun_floats
        for name, v in (("rtol", rtol), ("atol", atol), ("max_step", max_step)):
            if np.ndim(v) != 0 or not float(v) > 0.0 or math.isnan(float(v)):
                raise ValueError(f"DormandPrince: {name}={v!r}; expected a positive number")
        if not (math.isfinite(float(rtol)) and math.isfinite(float(atol))):
            raise ValueError(f"DormandPrince: rtol={rtol!r}, atol={atol!r}; expected finite tolerances")
        self.rtol, self.atol, self.max_step = float(rtol), float(atol), float(max_step)
        y0 = np.array(y0, dtype=float)
        if y0.ndim != 1:
            raise ValueError(f"DormandPrince: y0 of shape {y0.shape}; expected a 1-D state")
        self.n = len(y0)
        if first_step is None:
            self._position(float(t0), y0, float(t_bound))
            self.h_abs = self._initial_step()
        else:
            self.restart(t0, y0, t_bound, first_step)

    # -- position ------------------------------------------------------------------------------------------
    def _position(self, t, y, t_bound) -> None:
        if y.shape != (self.n,):
            raise ValueError(f"DormandPrince: a state of shape {y.shape}; expected ({self.n},)")
        if not t_bound >= t:
            raise ValueError(f"DormandPrince: t_bound={t_bound!r} before t={t!r}; it integrates forward")
        self.t, self.y, self.t_bound = t, y, t_bound
        self.t_old = self.y_old = None
        self._yl = y.tolist()
        self._fl = self._stage(t, self._yl)
        self._K = None
        self._Q = None
        self.status = "running" if t < t_bound else "finished"

    def restart(self, t, y, t_bound, first_step) -> None:
        """Move to ``(t, y)``, bounded by ``t_bound``, trying ``first_step`` first (s).

        The same as a new solver given that first step: nothing of the previous interval is
        kept (the derivative at the start is evaluated afresh: the held inputs have just jumped).
        """
        if not first_step > 0.0:
            raise ValueError(f"DormandPrince: first_step={first_step!r}; expected a positive step")
        self._position(float(t), np.asarray(y, dtype=float), float(t_bound))
        self.h_abs = float(first_step)

    def _initial_step(self) -> float:
        """scipy's ``select_initial_step`` (order 4 error estimator; one extra evaluation), its norms'
        squares added in state order and its power the C library's (as the compiled kernel's)."""
        y0, f0 = self.y.tolist(), list(self._fl)
        n = len(y0)
        if n == 0:
            return math.inf
        interval = abs(self.t_bound - self.t)
        if interval == 0.0:
            return 0.0
        scale = [self.atol + abs(y) * self.rtol for y in y0]
        d0 = _rms([y / sc for y, sc in zip(y0, scale)])
        d1 = _rms([f / sc for f, sc in zip(f0, scale)])
        h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
        h0 = min(h0, interval)
        y1 = np.array([y + h0 * f for y, f in zip(y0, f0)])
        f1 = self.fun(self.t + h0, y1).tolist()
        d2 = _rms([(a - b) / sc for a, b, sc in zip(f1, f0, scale)]) / h0
        if d1 <= 1e-15 and d2 <= 1e-15:
            h1 = max(1e-6, h0 * 1e-3)
        else:
            h1 = math.pow(0.01 / max(d1, d2), 1 / (RK45.error_estimator_order + 1))
        return min(min(100 * h0, h1), min(interval, self.max_step))

    def _stage_on_arrays(self, t, y) -> list:
        """``fun`` at a stage given as a list of floats, as a list."""
        return self.fun(t, np.array(y)).tolist()

    @property
    def step_size(self):
        """The last accepted step, s (None before the first)."""
        return None if self.t_old is None else self.t - self.t_old

    # -- one step --------------------------------------------------------------------------------------------
    def step(self):
        """Take one accepted step (as many attempts as the error control needs). Returns None or a message."""
        if self.status != "running":
            raise RuntimeError("Attempt to step on a failed or finished solver.")  # as scipy's OdeSolver
        t = self.t
        if self.n == 0:  # no state: scipy's OdeSolver.step moves straight to the end
            self.t_old, self.y_old, self._yl_old = t, self.y, self._yl
            self.t, self._K, self._Q = self.t_bound, ([],) * 7, None
            self.status = "finished"
            return None
        min_step = 10.0 * abs(math.nextafter(t, math.inf) - t)
        h_abs = self.h_abs
        if h_abs > self.max_step:
            h_abs = self.max_step
        elif h_abs < min_step:
            h_abs = min_step
        attempt = self._attempt
        rejected = False
        while True:
            if h_abs < min_step:
                self.status = "failed"
                return _TOO_SMALL
            t_new = t + h_abs
            if t_new > self.t_bound:
                t_new = self.t_bound
            h = t_new - t
            err = attempt(t, h)
            if err < 1.0:
                factor = _MAX_FACTOR if err == 0.0 else min(_MAX_FACTOR, _SAFETY * err ** _EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                break
            grow = _SAFETY * err ** _EXPONENT
            h_abs = h * (grow if grow > _MIN_FACTOR else _MIN_FACTOR)  # a NaN norm shrinks the step (as scipy)
            rejected = True
        self.h_abs = h * factor
        self.t_old, self.y_old = t, self.y
        self._yl_old, self._yl, self._fl = self._yl, self._new_yl, self._new_fl
        self.t, self.y = t_new, np.array(self._new_yl)
        self._K, self._Q = self._new_K, None
        if t_new == self.t_bound:
            self.status = "finished"
        return None

    def _attempt(self, t, h) -> float:
        """One attempt on Python floats; sets the candidate step's fields, returns its error norm."""
        stage, y, k0 = self._stage, self._yl, self._fl
        k1 = stage(t + _c1 * h, [(_a10 * a) * h + yi for a, yi in zip(k0, y)])
        k2 = stage(t + _c2 * h, [(_a20 * a + _a21 * b) * h + yi for a, b, yi in zip(k0, k1, y)])
        k3 = stage(t + _c3 * h, [(_a30 * a + _a31 * b + _a32 * c) * h + yi for a, b, c, yi in zip(k0, k1, k2, y)])
        k4 = stage(t + _c4 * h, [(_a40 * a + _a41 * b + _a42 * c + _a43 * d) * h + yi
                                 for a, b, c, d, yi in zip(k0, k1, k2, k3, y)])
        k5 = stage(t + h, [(_a50 * a + _a51 * b + _a52 * c + _a53 * d + _a54 * e) * h + yi
                           for a, b, c, d, e, yi in zip(k0, k1, k2, k3, k4, y)])
        yl = [(_b0 * a + _b2 * c + _b3 * d + _b4 * e + _b5 * f) * h + yi
              for a, c, d, e, f, yi in zip(k0, k2, k3, k4, k5, y)]
        k6 = stage(t + h, yl)
        rtol, atol = self.rtol, self.atol
        sq = 0.0
        for a, c, d, e, f, g, yi, yn in zip(k0, k2, k3, k4, k5, k6, y, yl):
            z = ((_e0 * a + _e2 * c + _e3 * d + _e4 * e + _e5 * f + _e6 * g) * h) / (
                max(abs(yi), abs(yn)) * rtol + atol)
            sq += z * z
        self._new_yl, self._new_fl = yl, k6
        self._new_K = (k0, k1, k2, k3, k4, k5, k6)
        return math.sqrt(sq) / self.n ** 0.5

    # -- what the engine reads of a step ------------------------------------------------------------------------
    @property
    def K(self) -> np.ndarray:
        """The accepted step's stages, (7, n) (scipy's ``RK45.K``)."""
        return np.array(self._K, dtype=float).reshape(7, self.n)

    def _coefficients(self) -> list:
        """The accepted step's dense-output coefficients ``Q`` (4 rows of n), added in stage order."""
        Q = self._Q
        if Q is None:
            k0, _, k2, k3, k4, k5, k6 = self._K
            Q = [[_P00 * a for a in k0]]
            for p0, p2, p3, p4, p5, p6 in _P_COLUMNS:
                Q.append([p0 * a + p2 * c + p3 * d + p4 * e + p5 * f + p6 * g
                          for a, c, d, e, f, g in zip(k0, k2, k3, k4, k5, k6)])
            self._Q = Q
        return Q

    def dense_output(self) -> DenseOutput:
        """The last accepted step's interpolant."""
        return DenseOutput(self.t_old, self.t, self._yl_old, self._coefficients())

    def interior_states(self, fractions) -> np.ndarray:
        """States at ``t_old + f h`` for each fraction ``f`` of the last step, as columns (n, len(fractions)).

        The step's dense output at those fractions, ``y_old + h K.T @ (P @ [f, f^2, f^3, f^4])``,
        with the weights in parentheses folded once per set of fractions; a fraction of 1 is the
        accepted state itself.
        """
        return np.array(self.interior_lists(fractions)).T

    def interior_lists(self, fractions) -> list:
        """:meth:`interior_states` as one list of floats per fraction (the accepted state's own list
        for a fraction of 1: not to be modified)."""
        W = _interior_weights.get(fractions)
        if W is None:
            W = _interior_weights[fractions] = _fold(fractions)
        h = self.t - self.t_old
        k0, _, k2, k3, k4, k5, k6 = self._K
        cols = []
        for w in W:
            if w is None:
                cols.append(self._yl)
                continue
            w0, w2, w3, w4, w5, w6 = w
            cols.append([y + h * (w0 * a + w2 * c + w3 * d + w4 * e + w5 * f + w6 * g)
                         for y, a, c, d, e, f, g in zip(self._yl_old, k0, k2, k3, k4, k5, k6)])
        return cols

    def stiffness_ratio(self) -> float:
        """Estimate of ``h * rho`` of the last accepted step (:func:`simcore.solvers.stiffness_ratio`)."""
        K = self._K
        w0, w1, w2, w3, w4, w5 = _W
        den = 0.0
        num = 0.0
        for a, b, c, d, e, f, g in zip(*K):
            dy = w0 * a + w1 * b + w2 * c + w3 * d + w4 * e + w5 * f
            den += dy * dy
            df = g - f
            num += df * df
        return 0.0 if den == 0.0 else math.sqrt(num) / math.sqrt(den)


_interior_weights: dict = {}


def _fold(fractions) -> list:
    """Per fraction ``f``: the weights ``P @ [f, f^2, f^3, f^4]`` of stages 0, 2..6 (row 1 of P is zero),
    or None for ``f == 1`` (the accepted state)."""
    out = []
    for f in fractions:
        if f == 1.0:
            out.append(None)
            continue
        powers = np.array([f, f * f, f * f * f, f * f * f * f])
        w = _P @ powers
        out.append(tuple(float(w[s]) for s in (0, 2, 3, 4, 5, 6)))
    return out


def _rms(z) -> float:
    """scipy's RMS norm of the list ``z``, its squares added in order."""
    total = z[0] * z[0]
    for v in z[1:]:
        total = total + v * v
    return math.sqrt(total) / len(z) ** 0.5
