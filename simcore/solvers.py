"""The solver adapter: scipy's ``OdeSolver`` classes driven step by step from tick to tick.

What the engine asks of an integration method, and how each is provided:

1. **A solver positioned at (t, x), bounded by the next tick** (:meth:`Integrator.start`).
   An explicit Runge-Kutta solver (RK45, RK23, DOP853) carries only ``(t, y, f, h)``
   from step to step, so the one solver object is moved to the new interval
   (:func:`restart_runge_kutta`) with the step size it last proposed, instead of being
   built again (which re-validates the tolerances and, without a first step,
   searches for one). The derivative at the start is evaluated afresh: the held
   input has just jumped. Implicit and multistep methods (Radau, BDF, LSODA) keep a
   history that an input jump makes invalid, so they start afresh each interval.
   The restart writes scipy's internal fields; :func:`check_restart` proves, once per
   process and solver class, that a moved solver steps bit-identically to a fresh
   one given the same first step, and the engine falls back to fresh solvers (with
   a warning naming the scipy version) if a scipy release breaks that. The other
   internals read on every step (``K``, ``y_old``, ``P`` for the interior guard
   samples; ``A``, ``B``, ``C``, ``E`` for the stiffness estimate) are proved the
   same way by :func:`check_internals`; on a mismatch the engine warns and uses
   scipy's public dense output and no stiffness estimate instead.
2. **The solver's own right-hand side call is the engine's**: an explicit solver's
   ``fun`` is bound to the engine's right-hand side directly (scipy's wrapper, which
   counts and re-converts every evaluation, is skipped; the engine counts and
   checks them itself). ``RK45`` on a system of at most :data:`~simcore.dopri5.SMALL`
   states is simcore's own :class:`~simcore.dopri5.DormandPrince`: scipy's algorithm
   and step control, with the batch kernel's order of adding the stages, at 0.35 to 0.8
   of scipy's cost per step from 1 to 10 states (scipy's is array bookkeeping, whatever
   the right-hand side costs).
3. **Automatic stiffness handling** (``method="auto"``, the default): RK45 while the
   problem is not stiff, :data:`STIFF_METHOD` while it is, and back. The rule is
   deterministic (no timing, no randomness), after Hairer's DOPRI5 and
   DifferentialEquations.jl's ``AutoTsit5(Rosenbrock23())``:

   * after each accepted RK45 step (but the first two of an interval, which follow
     an input jump) the step's stiffness ratio ``h * rho`` is estimated from the
     two stages evaluated at the step's end, ``rho = |f(y_new) - f(y_stage)| /
     |y_new - y_stage|`` (:func:`stiffness_ratio`);
   * a ratio near the method's stability boundary on the negative real axis
     (:data:`STABILITY_BOUNDARY`, 2.5 for RK45, measured) counts as a stiff step;
     six non-stiff steps in a row clear the count; :data:`STIFF_STEPS` (15) stiff
     steps switch to the implicit method at the end of the step that reached the
     count (Hairer's DOPRI5 counts the same way). Only steps of a segment (to the next
     tick, event-free, or to the end of an ``advance``) that needs at least
     :data:`MIN_EXPLICIT_STEPS` (20) steps of their size are estimated and counted: the
     implicit method starts afresh on every segment, and in a shorter one RK45's
     stability-limited steps cost less than its restarts (a stiff problem under a 1 kHz
     loop), so a fast loop pays no estimates at all;
   * while implicit, at the end of each interval the spectral radius ``rho`` of the
     implicit solver's Jacobian is compared with its last step ``h``: when
     ``h * rho <= NONSTIFF_RATIO`` (well inside RK45's stability region) for
     :data:`NONSTIFF_INTERVALS` intervals in a row, RK45 takes over again.

   A run that is never stiff is therefore integrated by exactly the RK45 code path:
   bit-identical to ``method="RK45"``. A user who forces an explicit method on a
   stiff problem is told so once (:class:`StiffnessWarning`).
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import scipy
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

from .dopri5 import SMALL, DormandPrince, check_tableau, stiffness_weights
from .errors import ConfigError, IntegrationError, SimError
from .units import to_si

__all__ = ["METHODS", "METHOD_NAMES", "STIFF_METHOD", "Integrator", "StiffnessWarning", "check_internals",
           "checked_settings",
           "check_restart",
           "restart_runge_kutta", "rk_interior_weights", "stiffness_ratio", "embedded_stiffness_ratio",
           "STABILITY_BOUNDARY", "STIFF_STEPS", "STIFF_CLEAR_AFTER", "STIFF_SKIP_STEPS"]

#: Selectable scipy integration methods by name.
METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853, "LSODA": LSODA, "Radau": Radau, "BDF": BDF}

#: Every accepted ``method=``: ``"auto"`` and the names of :data:`METHODS`.
METHOD_NAMES = ("auto",) + tuple(METHODS)

#: The implicit method ``"auto"`` switches to over stiff intervals. Measured against BDF and
#: LSODA: on ``x' = -1e6 (x - cos t) - sin t`` it takes the fewest evaluations, and on a tank
#: drive with tyre slip and a battery under a 50 Hz controller it is the only one of the three
#: that keeps RK45's answer to the tolerance (BDF and LSODA restart at first order after every tick).
STIFF_METHOD = "Radau"

#: Explicit methods: moved from interval to interval instead of rebuilt.
_EXPLICIT = (RK45, RK23, DOP853)

#: ``h * rho`` above which an explicit step counts as limited by stability, not accuracy. The
#: methods' stability regions meet the negative real axis at about 3.3 (RK45), 6.0 (DOP853) and
#: 2.51 (RK23: three stages of third order, so its stability function is
#: ``1 + z + z^2/2 + z^3/6``, whose modulus is 1 at ``z = -2.5127``; Hairer & Wanner,
#: Solving ODEs II, section IV.2), but their step-size controllers settle below that on a stiff
#: problem: on ``x' = -lam (x - cos t) - sin t`` at rtol 1e-8 the steps sit at ``h * lam`` = 2.81
#: (RK45, lam = 1e4; 3.25 +- 0.3 at lam = 1e6), 5.85 (DOP853, lam = 1e4) and 2.5127 (RK23, lam =
#: 1e4 and 1e6), so the thresholds are 2.5, 5.0 and 2.0 (Hairer's DOPRI5 and DOP853 codes use
#: 3.25 and 6.1, which miss the first). Non-stiff runs at the default tolerances stay far below
#: (the bench arm: at most 0.3; a lightly damped oscillator under RK23: at most 0.27).
STABILITY_BOUNDARY = {"RK45": 2.5, "DOP853": 5.0, "RK23": 2.0}

#: RK23 has no stage at the step's end besides the accepted one, so its estimate costs one extra
#: evaluation (:func:`embedded_stiffness_ratio`); it is made every this many accepted steps, each
#: counting for that many steps (about 8 % more evaluations for a forced RK23, until it warns).
_RK23_PROBE_EVERY = 4

#: Stiff steps (counted as in Hairer's DOPRI5) that switch ``"auto"`` to the implicit method.
STIFF_STEPS = 15
#: Explicit steps the segment being integrated (to the next tick or the end of an ``advance``) must
#: need, its length over the stability-limited step, for ``"auto"`` to switch to the implicit method:
#: scipy's Radau starts afresh on every segment (a Jacobian, an LU, a few Newton iterations), about
#: 0.6 ms on this project's machine whatever its length, while an RK45 step costs six evaluations,
#: about 30 us on a small system. Measured (on one state with a trivial right-hand side; a costlier
#: right-hand side moves the balance towards Radau, whose evaluations are fewer) on
#: ``x' = -lam (x - cos t) - sin t``, lam 1e4 to 1e5, tick periods 1 to 20 ms: RK45 was the faster
#: below about 20 steps per interval (lam 1e4 at 1 and 5 ms, 3e4 at 1 ms) and Radau above.
MIN_EXPLICIT_STEPS = 20
#: Non-stiff steps in a row that clear the stiff-step count (a few stability-limited steps among
#: accurate ones are transients, not stiffness).
STIFF_CLEAR_AFTER = 6
#: Steps at the start of each segment left out of the stiffness count: they follow an input jump,
#: whose fast transient limits them by accuracy, not stability.
STIFF_SKIP_STEPS = 2
#: ``h * rho`` at or below which an implicit interval counts as non-stiff (RK45 would be stable there).
NONSTIFF_RATIO = 1.0
#: Non-stiff implicit intervals in a row after which ``"auto"`` returns to RK45.
NONSTIFF_INTERVALS = 3

STIFF_HINT = " If the system is stiff (very fast electrical or contact dynamics), try method='Radau' or 'BDF'."


#: Tightest relative tolerance accepted: scipy raises tighter ones to this with a warning.
RTOL_FLOOR = 100 * 2.220446049250313e-16

#: Shortest max_step, s: the clock's resolution (a shorter one would never reach a tick).
MIN_STEP = 1e-9


def checked_settings(method, rtol, atol, max_step) -> tuple:
    """``(method, rtol, atol, max_step)`` of a simulation, checked (max_step None: no limit, ``math.inf``)."""
    if not isinstance(method, str) or method not in METHOD_NAMES:
        raise ConfigError("method", method, f"one of {', '.join(METHOD_NAMES)}")
    for parameter, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (v > 0 and _finite(v)):
            raise ConfigError(parameter, v, "a positive finite number")
    if not RTOL_FLOOR < rtol < 1:
        raise ConfigError("rtol", rtol, f"a relative tolerance in ({RTOL_FLOOR:.3g}, 1)")
    if max_step is None:
        max_step = math.inf
    else:
        max_step = to_si("max_step", max_step, "s")
        if not max_step >= MIN_STEP:
            raise ConfigError("max_step", max_step, "None or at least 1e-9 s (the clock's resolution)")
    return method, float(rtol), float(atol), float(max_step)


def _finite(v: numbers.Real) -> bool:
    """Whether a real number is finite as a float (an int too large for one is not)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


class StiffnessWarning(RuntimeWarning):
    """An explicit method forced by the user is taking steps limited by stability (a stiff problem)."""


# -- restartable Runge-Kutta -------------------------------------------------------------------------
def restart_runge_kutta(solver, t: float, y: np.ndarray, t_bound: float, first_step: float) -> None:
    """Move an explicit Runge-Kutta solver to (t, y), bounded by ``t_bound``, first step ``first_step``.

    Equivalent to building a new solver of the same class with ``first_step``: the
    fields scipy's ``RungeKutta.__init__`` sets from its arguments are written, and
    the derivative at the start is evaluated. simcore's own :class:`~simcore.dopri5.DormandPrince`
    moves itself (its ``restart``).
    """
    if type(solver) is DormandPrince:
        solver.restart(t, y, t_bound, first_step)
        return
    solver.t = t
    solver.y = y
    solver.t_bound = t_bound
    solver.t_old = None
    solver.y_old = None
    solver.h_previous = None
    solver.f = solver.fun(t, y)
    solver.h_abs = first_step
    solver.status = "running"


_restart_checked: dict = {}


def check_restart(cls) -> str | None:
    """Whether :func:`restart_runge_kutta` still matches a fresh scipy ``cls`` solver.

    Steps a test problem with a moved solver and with a fresh one given the same
    first step and compares every step bit for bit. Returns None when they agree, or
    what differs (the scipy release changed the internals the restart relies on).
    """
    def fun(t, y):
        return np.array([y[1], -4.0 * y[0] - 0.3 * y[1] + math.sin(3.0 * t)])

    try:
        moved = cls(fun, 0.0, np.array([1.0, 0.0]), 0.7, rtol=1e-6, atol=1e-9)
        while moved.status == "running":
            moved.step()
        y0, h = np.array([0.2, -0.1]), 0.013
        restart_runge_kutta(moved, 0.7, y0, 1.3, h)
        fresh = cls(fun, 0.7, y0, 1.3, rtol=1e-6, atol=1e-9, first_step=h)
        for _ in range(200):
            if fresh.status != "running" or moved.status != "running":
                break
            fresh.step()
            moved.step()
            if not (fresh.t == moved.t and np.array_equal(fresh.y, moved.y) and fresh.h_abs == moved.h_abs):
                return f"step to t={fresh.t!r} differs (moved solver at t={moved.t!r})"
        if fresh.status != moved.status:
            return f"status {moved.status!r} after the restart, {fresh.status!r} fresh"
    except (AttributeError, TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _restartable(cls) -> bool:
    return _passes(cls, check_restart, _restart_checked, "no longer restarts the way simcore expects",
                   "simcore builds a fresh solver at every tick instead (correct, slower)")


def _passes(cls, check, cache: dict, what: str, consequence: str) -> bool:
    """``check(cls)`` run once per process and class; a failure warns naming scipy's version."""
    if cls not in cache:
        problem = check(cls)
        if problem is not None:
            warnings.warn(f"scipy {scipy.__version__}'s {cls.__name__} {what} ({problem}); {consequence}",
                          RuntimeWarning, stacklevel=4)
        cache[cls] = problem is None
    return cache[cls]


_internals_checked: dict = {}


def check_internals(cls) -> str | None:
    """Whether the other scipy internals the engine reads still mean what it expects of ``cls``.

    One step of ``y' = -3 y`` (so the stiffness estimate is exactly ``3 h``): the interior
    states computed from ``K``, ``y_old`` and ``P`` (RK23, RK45) against scipy's public dense
    output, and the stiffness estimate from ``A``, ``B``, ``C`` and ``n_stages`` (RK45,
    DOP853) or ``K`` and ``E`` (RK23) against ``3 h``. Returns None, or what differs.
    """
    lam = 3.0

    def fun(t, y):
        return -lam * y

    try:
        solver = cls(fun, 0.0, np.array([1.0, -2.0]), 1.0, first_step=0.1, rtol=1e3, atol=1e3)
        solver.step()
        h = solver.t - solver.t_old
        if cls is RK45 or cls is RK23:
            fractions = (0.25, 0.5, 0.75)
            Xb = solver.K.T.dot(rk_interior_weights(cls, fractions)) * h + solver.y_old[:, None]
            ref = solver.dense_output()(solver.t_old + h * np.array(fractions))
            if Xb.shape != ref.shape or not np.allclose(Xb, ref, rtol=1e-12, atol=1e-15):
                return "the interior states from K, y_old and P differ from its dense output"
        if cls is RK23:
            ratio = embedded_stiffness_ratio(solver, fun)
        else:
            weights = stiffness_weights(cls)
            if weights is None:
                return "no stage at the step's end in its tableau C"
            ratio = stiffness_ratio(solver.K, *weights)
        # A structural change (another tableau, K stored otherwise) moves the estimate by its own size; its
        # round-off is amplified by the cancellation in y_new - y_s (5e-9 relative for DOP853 on a
        # processor whose BLAS fuses multiply-adds), so the check allows 1e-6.
        if not abs(ratio - lam * h) <= 1e-6 * lam * h:
            return f"the stiffness estimate of y' = -3 y is {ratio!r}, not h * 3 = {lam * h!r}"
    except (AttributeError, TypeError, ValueError, IndexError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _internals_ok(cls) -> bool:
    return _passes(cls, check_internals, _internals_checked, "no longer has the internals simcore reads",
                   "with it, simcore samples event guards through its public dense output and does not "
                   "detect stiffness (correct, slower)")


_tableau_checked: dict = {}


def _tableau_ok() -> bool:
    """Whether simcore's Dormand-Prince may be used: scipy's RK45 tableau is still the one it was written for."""
    return _passes(RK45, lambda cls: check_tableau(), _tableau_checked, "has another tableau than simcore's "
                   "Dormand-Prince was written for", "simcore steps every system with scipy's RK45 instead "
                   "(correct, slower)")


# -- stiffness ----------------------------------------------------------------------------------------
def stiffness_ratio(K: np.ndarray, s: int, w: np.ndarray) -> float:
    """Estimate of ``h * rho`` of an explicit Runge-Kutta step from its stages ``K``.

    ``K[s]`` and ``K[-1]`` are the derivative at the step's end evaluated at two
    states (the stage's and the accepted one) whose difference is ``h * w @ K[:s+1]``;
    their ratio of norms estimates the dominant eigenvalue magnitude ``rho``, and
    ``h`` cancels. Pure function of arrays. Zero when the two states coincide.
    """
    dy = w.dot(K[: s + 1])
    den = math.sqrt(float(dy.dot(dy)))
    if den == 0.0:
        return 0.0
    df = K[-1] - K[s]
    return math.sqrt(float(df.dot(df))) / den


def embedded_stiffness_ratio(solver, rhs) -> float:
    """Estimate of ``h * rho`` of an accepted RK23 step, from one extra evaluation.

    The derivative at the step's end is known at the accepted state (``K[-1]``); it is
    evaluated again at the embedded lower-order solution, which differs from it by the
    step's error estimate ``h * K.T @ E``. On a stability-limited step that difference
    lies along the stiff modes, so the ratio of norms estimates ``rho``. Zero when the
    two states coincide.
    """
    h = solver.t - solver.t_old
    err = h * solver.K.T.dot(solver.E)
    den = math.sqrt(float(err.dot(err)))
    if den == 0.0:
        return 0.0
    df = rhs(solver.t, solver.y + err) - solver.K[-1]
    return abs(h) * math.sqrt(float(df.dot(df))) / den


def spectral_radius(J) -> float:
    """Largest eigenvalue magnitude of a Jacobian (dense or sparse); an upper bound for large ones."""
    if hasattr(J, "toarray"):
        J = J.toarray()
    J = np.asarray(J, dtype=float)
    if J.size == 0:
        return 0.0
    if J.shape[0] <= 64:
        return float(np.max(np.abs(np.linalg.eigvals(J))))
    return float(np.max(np.sum(np.abs(J), axis=1)))  # the infinity norm bounds it


def _without_overflow_warnings(step):
    """An implicit solver's ``step`` that does not warn of overflow inside scipy's Jacobian.

    scipy's finite-difference Jacobian (``num_jac``) grows its perturbation tenfold each
    time for a state the derivatives do not depend on (a position), until the factor
    overflows: harmless, but a warning on every stiff swerve run. A real overflow in a
    model still makes its derivative non-finite, which the engine reports by name.
    """
    def quiet_step():
        with np.errstate(over="ignore"):
            return step()
    return quiet_step


# -- interpolation inside a step ------------------------------------------------------------------------
_interior_weights: dict = {}


def rk_interior_weights(cls, fractions) -> np.ndarray:
    """Weights ``W`` with ``y(t_old + f h) = y_old + h * K.T @ W[:, i]`` for each fraction ``f``.

    The dense output of scipy's RK23 and RK45 is ``y_old + h * (K.T @ P) @ [f, f^2, ...]``;
    folding the powers of the (fixed) fractions into ``P`` once makes the states at every
    interior sample point one matrix product per step.
    """
    key = (cls, tuple(fractions))
    W = _interior_weights.get(key)
    if W is None:
        f = np.asarray(fractions, dtype=float)
        powers = np.cumprod(np.tile(f, (cls.P.shape[1], 1)), axis=0)
        W = _interior_weights[key] = cls.P @ powers
    return W


# -- the adapter ------------------------------------------------------------------------------------------
class Integrator:
    """The integration method of one simulation: builds, moves and switches scipy solvers.

    Parameters
    ----------
    method : str
        One of :data:`METHOD_NAMES`.
    rhs : callable ``rhs(t, x) -> dx/dt``
        The engine's stacked right-hand side (already checked and counted).
    rtol, atol, max_step : float
        As in :class:`~simcore.engine.Simulator`.
    n_states : int, optional
        The number of states (up to :data:`~simcore.dopri5.SMALL`, RK45 is simcore's own
        Dormand-Prince).
    rhs_floats : callable ``rhs_floats(t, x) -> list``, optional
        The same right-hand side on lists of floats, which the Dormand-Prince then calls instead.
    """

    def __init__(self, method: str, rhs, rtol: float, atol: float, max_step: float, n_states: int | None = None,
                 rhs_floats=None):
        self.method = method
        # RK45 is simcore's own Dormand-Prince on a small system (point 2), unless scipy's tableau changed.
        self._lean = n_states is not None and n_states <= SMALL and _tableau_ok()
        self.rhs = rhs
        self.rhs_floats = rhs_floats
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        self._current = "RK45" if method == "auto" else method
        self._solvers: dict = {}  # reusable explicit solver by method name
        self._interior = None  # (solver, its interior-states function)
        self._h_next = None  # the step size the last interval ended with
        self._stiff, self._calm = 0, 0  # stiff-step count, non-stiff steps in a row
        self._nonstiff_intervals = 0
        self._steps_here = 0
        self._span = 0.0  # length of the current segment, s
        self._warned = False
        self.switch_now = False  # set by after_step: end this segment and change method
        self.intervals_by_method: dict[str, int] = {}
        self.njev = 0
        self.nlu = 0
        self._detect = self._stiffness_detector(self._current)

    @property
    def current(self) -> str:
        """Name of the method integrating the current interval."""
        return self._current

    def _stiffness_detector(self, name):
        if self.method != "auto" and self.method not in STABILITY_BOUNDARY:
            return None
        if name not in STABILITY_BOUNDARY:
            return None
        if name == "RK45" and self._lean:
            return None, None, STABILITY_BOUNDARY[name], 1  # DormandPrince estimates it from its own stages
        if not _internals_ok(METHODS[name]):
            return None
        if name == "RK23":
            return None, None, STABILITY_BOUNDARY[name], _RK23_PROBE_EVERY
        s, w = stiffness_weights(METHODS[name])
        return s, w, STABILITY_BOUNDARY[name], 1

    # -- state that an interrupted segment must not change ---------------------------------------------
    def snapshot(self):
        return (self._current, self._h_next, self._stiff, self._calm, self._nonstiff_intervals, self._detect)

    def restore(self, snap) -> None:
        (self._current, self._h_next, self._stiff, self._calm, self._nonstiff_intervals, self._detect) = snap
        self.switch_now = False

    # -- one segment -----------------------------------------------------------------------------------
    def start(self, t: float, X: np.ndarray, t_end: float):
        """A solver of the current method positioned at (t, X), bounded by ``t_end``."""
        name = self._current
        self._steps_here = 0
        self._span = t_end - t
        self.switch_now = False
        cls = METHODS[name]
        if cls is RK45 and self._lean:
            cls = DormandPrince
        h0 = self._h_next
        first_step = min(h0, t_end - t, self.max_step) if h0 else None
        solver = self._solvers.get(name)
        if solver is not None and first_step is not None:
            restart_runge_kutta(solver, t, X, t_end, first_step)
            return solver
        floats = {"fun_floats": self.rhs_floats} if cls is DormandPrince and self.rhs_floats else {}
        try:
            solver = cls(self.rhs, t, X, t_end, rtol=self.rtol, atol=self.atol, max_step=self.max_step,
                         first_step=first_step, **floats)
        except SimError:
            raise
        except ValueError as exc:
            if getattr(exc, "sim_time", None) is not None:
                raise  # the model's own error at the first evaluation: its type is kept
            raise IntegrationError(f"could not start the {name} solver: {exc}", t) from exc
        if cls is DormandPrince:
            self._solvers[name] = solver  # moved by its own restart(), and given the engine's rhs already
        elif cls in _EXPLICIT:
            solver.fun = self.rhs  # bind the engine's right-hand side directly (point 2)
            if _restartable(cls):
                self._solvers[name] = solver
        else:
            solver.step = _without_overflow_warnings(solver.step)
        return solver

    @staticmethod
    def interior_lists(solver):
        """``fractions -> [state as a list of floats per fraction]`` inside the solver's last step, when
        the solver can give them without arrays (simcore's Dormand-Prince), else None."""
        return solver.interior_lists if type(solver) is DormandPrince else None

    def interior_states(self, solver):
        """A function ``fractions -> states`` (columns) inside the solver's last step."""
        cached = self._interior
        if cached is not None and cached[0] is solver:
            return cached[1]
        fn = self._interior_fn(solver)
        self._interior = (solver, fn)
        return fn

    def _interior_fn(self, solver):
        cls = type(solver)
        if cls is DormandPrince:
            return solver.interior_states
        if (cls is RK45 or cls is RK23) and _internals_ok(cls):
            def states(fractions):
                Xb = solver.K.T.dot(rk_interior_weights(cls, fractions))
                Xb *= solver.t - solver.t_old
                Xb += solver.y_old[:, None]
                return Xb
            return states

        def states(fractions):
            t_old, t = solver.t_old, solver.t
            return solver.dense_output()(np.array([t_old + (t - t_old) * f for f in fractions]))
        return states

    def after_step(self, solver) -> None:
        """Stiffness bookkeeping after an accepted step; sets :attr:`switch_now` when ``"auto"`` switches."""
        self._steps_here += 1
        det = self._detect
        if det is None or self._steps_here <= STIFF_SKIP_STEPS:
            return
        if self.method == "auto" and not self._span >= MIN_EXPLICIT_STEPS * (solver.t - solver.t_old):
            return  # a segment this short stays explicit whatever the estimate: it is not made (nor counted)
        s, w, boundary, every = det
        if type(solver) is DormandPrince:
            ratio = solver.stiffness_ratio()
        elif every == 1:
            ratio = stiffness_ratio(solver.K, s, w)
        elif (self._steps_here - STIFF_SKIP_STEPS) % every:
            return
        else:
            ratio = embedded_stiffness_ratio(solver, self.rhs)
        if ratio > boundary:
            self._stiff += every
            self._calm = 0
            if self._stiff >= STIFF_STEPS:
                self._stiff = 0
                if self.method == "auto":
                    # Stiff, in a segment long enough for the implicit method's fresh start (Jacobian, LU)
                    # to pay (checked above).
                    self.switch_now = True
                elif not self._warned:
                    self.stiffness_warning(solver.t)
        else:
            self._calm += every
            if self._calm >= STIFF_CLEAR_AFTER:
                self._stiff = 0

    def stiffness_warning(self, t) -> None:
        """Tell the user, once, that a forced explicit method is limited by stability at ``t`` (s)."""
        self._warned = True
        self._detect = None  # said once: no more estimates
        warnings.warn(f"at t={float(t)!r} s: the {self.method} solver's steps are limited by "
                      f"stability, not accuracy (the system is stiff); method='auto' or "
                      f"'{STIFF_METHOD}' integrates it with far fewer evaluations.",
                      StiffnessWarning, stacklevel=3)

    # -- the compiled kernel (simcore.compiled_run) integrates the RK45 stretches itself ----------------
    def kernel_carry(self, h_abs: float, stiff: float, calm: float, segments: int) -> None:
        """What the kernel carries from segment to segment, after ``segments`` more RK45 segments: the
        step size to start the next one with (0: none yet) and the stiffness count."""
        self._stiff, self._calm = int(stiff), int(calm)
        self._h_next = h_abs if (h_abs > 0 and math.isfinite(h_abs)) else None
        if segments:
            self.intervals_by_method["RK45"] = self.intervals_by_method.get("RK45", 0) + segments

    def kernel_switch(self) -> None:
        """``"auto"`` found the kernel's RK45 stiff: switch to the implicit method (as :meth:`finish`)."""
        self._switch(STIFF_METHOD)

    def finish(self, solver) -> None:
        """End the segment: keep the step size to start the next one with, count the work, switch if due."""
        name = self._current
        self.intervals_by_method[name] = self.intervals_by_method.get(name, 0) + 1
        if METHODS[name] not in _EXPLICIT:
            self.njev += int(getattr(solver, "njev", 0))
            self.nlu += int(getattr(solver, "nlu", 0))
        h = getattr(solver, "h_abs", None) or solver.step_size
        self._h_next = h if (h is not None and h > 0 and math.isfinite(h)) else None
        if self.method != "auto":
            return
        if self.switch_now:
            self._switch(STIFF_METHOD)
        elif self._current == STIFF_METHOD:
            J = getattr(solver, "J", None)
            h = solver.step_size
            if J is not None and h is not None and h * spectral_radius(J) <= NONSTIFF_RATIO:
                self._nonstiff_intervals += 1
                if self._nonstiff_intervals >= NONSTIFF_INTERVALS:
                    self._switch("RK45")
            else:
                self._nonstiff_intervals = 0

    def _switch(self, name: str) -> None:
        self._current = name
        self._h_next = None  # the new method chooses its own first step
        self._stiff = self._calm = self._nonstiff_intervals = 0
        self._detect = self._stiffness_detector(name)
        self.switch_now = False
