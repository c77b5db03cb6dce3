"""Many parameter variants in one integration, each with exactly the semantics of its own ``simulate``.

``simulate_batch(systems, t_end, controllers, params={"arm.mass": masses, "loop.kp": gains})``
runs ``N`` variants of one simulation: the same systems and controllers, with some
parameters given as arrays of length ``N``. Each variant gets what its own
``simulate(..., method="RK45")`` would give it (to round-off in the Runge-Kutta stage sums):

* **Step control per variant.** The integrator is scipy's RK45 written over columns
  (:mod:`simcore.batch_rk`): every variant has its own step size, its own error test and its
  own rejections, and carries its step size from tick to tick as the serial engine does.
* **Ticks are shared** (one clock), so at each tick every controller runs once, vectorized
  over the variants, reading ``(N,)`` arrays and writing ``(N,)`` arrays.
* **Events per variant.** After each accepted step of a variant its guards are sampled at the
  step ends and three interior points of its dense output, a crossing is located by bisection
  on the dense output to :data:`~simcore.events.EVENT_TIME_TOLERANCE`, and the event fires
  for that variant alone: simultaneous events, the restart sides of a just-fired guard
  (probe, search delay, re-fire), input-jump events at ticks and the Zeno guard follow
  :mod:`simcore.engine` rule for rule.
* **Modes per variant**, as integer codes into each batched system's ``MODES``.
* **Stiffness per variant**, by the serial engine's rule for a forced RK45 (:mod:`simcore.solvers`:
  its estimate of ``h * rho`` from the stages at the step's end, its stability boundary, the
  first steps of each segment left out, its count of stiff steps and the clearing of it): a
  variant is found stiff at the step where its own ``simulate(..., method="RK45")`` warns, and the
  run warns once (:class:`~simcore.solvers.StiffnessWarning`) naming every such variant and when it
  was found; :attr:`BatchResult.stiff_at` keeps the times. The estimate is made only in rounds
  where some column is past its segment's first steps (over that round's columns: a gather would
  cost more than the estimate), and a count is touched only in a round with a stiff step or while
  some count is above zero; the bench's arm, at one to three steps an interval, pays almost none.

The loop (between two ticks; ``running`` is the variants not yet at the tick)::

    restart every variant at the tick: f = rhs(t, x), h = min(carried h, span, max_step)
    while any variant is running:
        S = the running variants; one RK45 attempt for each column of S
        rejected columns shrink their step; accepted ones advance and record a row
        accepted columns whose guards crossed: locate, fire, restart at the event
        columns that reached the tick stop running
    run the controllers due at the tick (vectorized); fire the input-jump events

Per-variant Python loops: none. The loops are over rounds of attempts (until the slowest
variant reaches the tick), Runge-Kutta stages, event kinds and bisection iterations; each
operation is an array operation over the variants concerned, and a round works on the
running variants only, so a variant that needs many steps does not make the others pay for
them. The running variants' times, states, derivatives and step sizes are working copies
that shrink as variants reach the tick (one gather per round that loses some) and go back to
the batch only then; gathers are ``take`` and scatters one 1-D assignment per row, since numpy's
2-D fancy indexing is many times slower. Guards are evaluated only for the event kinds armed in
some column, and a stop's interior samples only for columns its bound cannot clear.

What batches. A system batches when it has a ``batched(params, n, xp)`` method returning its
physics over columns (see :mod:`simcore.models.batched` for the contract and the models that
have it: Flywheel, Arm, Elevator, Battery); a controller when it has a ``batched`` attribute
(:func:`simcore.controllers.control_loop`'s loops with a PIDController or an element-wise
callable; any PeriodicController whose function is written element-wise, marked with
:func:`elementwise`). Anything else raises, naming itself.

Array module. The kernel uses only operations numpy shares with the array API standard,
through the namespace ``xp`` (numpy). Moving it to a GPU array module (CuPy, torch, JAX)
would change: the physics and tableau arrays allocated with that module; the in-place
scatters ``a[idx] = v`` and the ``out=`` writes of the right-hand side (JAX needs
``a.at[idx].set(v)`` and returned arrays); the stage sums (explicit there, see
:func:`simcore.batch_rk.stage_sum`); the stop bound's matrix product (any order will do: its
rounding is bounded); the rounds' ``if mask.any()`` tests,
which synchronise the device once per round (a GPU version would rather step a fixed number
of attempts between checks); and the recorder, which would copy rows to the host in blocks.
Some calls go to numpy directly rather than through ``xp``, for speed at a few columns: numpy's
own C entry points of ``count_nonzero`` and ``einsum`` (:mod:`simcore._numpy_calls`) and ufunc
reductions (``np.minimum.reduce``, ``np.add.reduce``, ``np.logical_or.reduce``); a port uses its
module's ``count_nonzero``, ``min``, ``sum`` and ``any`` there.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Mapping

import numpy as np
from scipy.integrate import RK45

from . import batch_params, batch_rk, event_handler
from ._numpy_calls import FLOAT64 as _FLOAT64
from ._numpy_calls import count_nonzero as _count_nonzero
from .batch_result import BatchResult
from .clock import NS_PER_S, to_ns
from .controller import PeriodicController, checked_writes, note_controller_error
from .engine import Simulator
from .errors import ConfigError, ConfigTypeError, IntegrationError, NonFiniteError
from .event_handler import JUST_OFF_ZERO, PROBE_STEP
from .events import EVENT_TIME_TOLERANCE
from .signals import stacked
from .solvers import (STABILITY_BOUNDARY, STIFF_CLEAR_AFTER, STIFF_METHOD, STIFF_SKIP_STEPS, STIFF_STEPS,
                      StiffnessWarning)

_min = np.minimum.reduce  # ndarray.min and sum without their Python wrappers
_add_reduce = np.add.reduce

__all__ = ["simulate_batch", "elementwise", "BatchResult"]

# The serial engine's event rules' constants, followed rule for rule: one definition, in event_handler
# (JUST_OFF_ZERO and PROBE_STEP, imported above, too).
_ZENO_GAP = event_handler.ZENO_GAP
_INTERIOR = event_handler.EVENT_INTERIOR_POINTS
_MAX_EVENTS_AT_ONE_INSTANT = event_handler.MAX_EVENTS_AT_ONE_INSTANT
P = batch_rk.P  # the dense-output matrix of RK45
# The serial engine's stiffness estimate of an RK45 step: its stage at the step's end and the weights of
# that stage's state against the accepted one (simcore.solvers), and the h * rho that counts as stiff.
_STIFF_STAGE, _STIFF_WEIGHTS = batch_rk.stiffness_weights(RK45)
_STIFF_RATIO = STABILITY_BOUNDARY["RK45"]
#: Variants named one by one in a batch's StiffnessWarning (BatchResult.stiff_at has them all).
_STIFF_NAMED = 20


def elementwise(controller: PeriodicController) -> PeriodicController:
    """Mark ``controller`` as written element-wise, so that a batch may run it.

    In a batch its function is called once per tick with signals that are ``(N,)`` arrays
    and must return values that are ``(N,)`` arrays or scalars (numpy arithmetic, ``np.clip``
    rather than ``min``/``max``). Returns the same controller.
    """
    if not isinstance(controller, PeriodicController):
        raise ConfigTypeError("controller", controller, "a PeriodicController")
    controller.batched = lambda params, n, xp=np: _Elementwise(controller, params)
    return controller


class _Elementwise:
    def __init__(self, controller, params):
        if params:
            raise ConfigError(f"params[{controller.name + '.' + next(iter(params))!r}]", next(iter(params)),
                              f"no parameter: controller {controller.name!r} is a plain element-wise function")
        self.c = controller

    def start(self, t, signals):
        if self.c.on_start is not None:
            self.c.on_start(t, signals)

    def tick(self, t, signals):
        return self.c.fn(t, signals)


@functools.cache
def _scalar_use_messages() -> frozenset:
    """The messages of the installed numpy's errors for an array of several values used as one number:
    its truth value (``if x > 0:``, ``and``, ``max(x, 0)``) and its conversion to a Python scalar
    (``float(x)``, ``int(x)``, ``math.sin(x)``).

    Asked of numpy itself, once: its wording differs between versions (numpy 1: "only length-1 arrays
    can be converted to Python scalars", numpy 2: "only 0-dimensional arrays ..."), and such an error
    carries nothing else to tell it by (no type of its own, no Python frame: numpy raises it in C).
    """
    found = set()
    probe = np.zeros(2)
    for use in (bool, float, int, math.sin, operator.index):
        try:
            use(probe)
        except (TypeError, ValueError) as exc:
            found.add(str(exc))
    return frozenset(found)


def _is_scalar_use_of_an_array(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised from (``raise ... from``), numpy's error for an array of several
    values used as one number (see :func:`_scalar_use_messages`): what a controller written for one
    variant raises in a batch (a control loop raises its own error from numpy's)."""
    for _ in range(8):  # the explicit causes only (a bounded walk: a cause may be made to loop)
        if exc is None:
            return False
        if isinstance(exc, (TypeError, ValueError)) and str(exc) in _scalar_use_messages():
            return True
        exc = exc.__cause__
    return False


def _rows(rows, m):
    """The held-input rows of one system as an (n_inputs, m) array."""
    out = np.empty((len(rows), m))
    for i, r in enumerate(rows):
        out[i] = r
    return out


def _put(a, idx, v):
    """``a[..., idx] = v`` along the last (variant) axis of a 1-D or 2-D array, row by row (a 2-D
    fancy-index assignment is many times slower than a 1-D one per row)."""
    if a.ndim == 1:
        a[idx] = v
        return
    if np.shape(v) != a.shape[:-1] + (len(idx),):
        v = np.broadcast_to(v, a.shape[:-1] + (len(idx),))
    for r in range(a.shape[0]):
        a[r][idx] = v[r]


_P_T = np.ascontiguousarray(P.T)
# 8 eps sum_j |P_sj| per stage s: what the rounding of any order of the sums Q_j = sum_s P_sj K_s can move
# them by (at most gamma_7 sum_s |P_sj| |K_s| each, for either of two orders).
_P_ROUNDING = 8 * np.finfo(float).eps * np.abs(P).sum(axis=1)


def _reach(h, K_i):
    """An upper bound of how far a state's dense output can move within its step, ``h sum_j |Q_j|``, (m,).

    ``K_i`` (stages, m) are the state's stage derivatives. The coefficients are a matrix product
    here (one call); the bound adds what rounding can change in them, so it bounds the
    coefficients the dense output is evaluated with (summed in stage order) as well.
    """
    Q = _P_T @ K_i
    np.abs(Q, out=Q)
    bound = _add_reduce(Q, 0)
    bound += _P_ROUNDING @ np.abs(K_i)
    bound *= h
    return bound


def _bisection_steps(width):
    """(m,) int: the bisections that shrink each bracket of ``width`` s to :data:`EVENT_TIME_TOLERANCE`,
    ``ceil(log2(max(width, tol) / tol)) + 1``, computed exactly (frexp) column by column."""
    mant, expo = np.frexp(np.maximum(width, EVENT_TIME_TOLERANCE) / EVENT_TIME_TOLERANCE)
    return expo - (mant == 0.5) + 1


def _any(mask) -> bool:
    """Whether any entry of a bool array is set (``count_nonzero`` is one C call; ``ndarray.any``
    goes through Python wrappers that cost more than the test at a few columns)."""
    return _count_nonzero(mask) != 0


def _all(mask) -> bool:
    """Whether every entry of a bool array is set (see :func:`_any`)."""
    return _count_nonzero(mask) == mask.size


def _finite(a) -> bool:
    """Whether every entry of ``a`` is finite (``np.isfinite(a).all()`` without the wrappers of ``all``)."""
    return _all(np.isfinite(a))


def _indices(mask):
    """The indices of the set entries of a 1-D bool array (``flatnonzero`` without its wrappers)."""
    return mask.nonzero()[0]


def _crosses(ga, gb, direction):
    rising = (ga < 0.0) & (gb >= 0.0)
    falling = (ga > 0.0) & (gb <= 0.0)
    if direction > 0:
        return rising
    if direction < 0:
        return falling
    return rising | falling


class BatchView:
    """The batch restricted to some variants: their physics, held inputs and modes.

    ``idx`` holds the variants' global indices (None: every variant, in order). Gathers are
    ``take`` along the variant axis. What the right-hand side derives from the held inputs and
    modes alone is prepared once per view (:meth:`prepared`) and dropped when a mode changes
    (:meth:`refresh_modes`) or, for the systems written, when held inputs are reloaded
    (:meth:`reload_inputs`: the view of every variant lives from tick to tick).
    """

    def __init__(self, batch, idx):
        self.batch, self.idx = batch, idx
        if idx is None:
            self.systems = batch.systems
            self.U = [_rows(u, batch.n) for u in batch.U]
            self.modes = [m.copy() for m in batch.modes]
            self.m = batch.n
        else:
            self.systems = [s.take(idx) for s in batch.systems]
            self.U = [_rows([r.take(idx) for r in u], len(idx)) for u in batch.U]
            self.modes = [m.take(idx) for m in batch.modes]
            self.m = len(idx)
        self.couplings = [c for s in self.systems for c in s.couplings(self.systems)] if batch.coupled else []
        self._pre = [None] * len(self.systems)
        self._active = self._armed = self._stages = None

    @classmethod
    def assembled(cls, batch, idx, systems, U, modes) -> "BatchView":
        """A view of the variants ``idx`` (global indices) from their parts as given: the batched systems
        of those variants, their held inputs and their modes; nothing prepared yet."""
        new = object.__new__(cls)
        new.batch, new.idx, new.m = batch, idx, len(idx)
        new.systems, new.U, new.modes = systems, U, modes
        new.couplings = [c for s in systems for c in s.couplings(systems)] if batch.coupled else []
        new._pre = [None] * len(systems)
        new._active = new._armed = new._stages = None
        return new

    def sub(self, cols) -> "BatchView":
        """A view of the columns ``cols`` (indices into this view)."""
        return BatchView.assembled(self.batch, cols if self.idx is None else self.idx.take(cols),
                               [s.take(cols) for s in self.systems], [u.take(cols, axis=1) for u in self.U],
                               [m.take(cols) for m in self.modes])

    def global_idx(self):
        return np.arange(self.batch.n) if self.idx is None else self.idx

    def refresh_modes(self, cols):
        """Reload the modes of the columns ``cols`` from the batch (after events changed them)."""
        ids = self.global_idx().take(cols)
        for k, m in enumerate(self.batch.modes):
            self.modes[k][cols] = m.take(ids)
        self._pre = [None] * len(self.systems)
        self._active = self._armed = self._stages = None

    def reload_inputs(self, systems):
        """Reload the held inputs of ``systems`` (indices) from the batch, which has every variant, and drop
        what they prepared from them (a view of every variant only: the full view, after input writes)."""
        for k in systems:
            self.U[k] = _rows(self.batch.U[k], self.m)
            self._pre[k] = None

    def variant(self, j) -> int:
        return int(j if self.idx is None else self.idx[j])

    def prepared(self, k):
        """System ``k``'s :meth:`prepare` of its held inputs and modes (None if it has none)."""
        pre = self._pre[k]
        if pre is None:
            s = self.systems[k]
            make = getattr(s, "prepare", None)
            if make is None:
                return None
            held = f"{s.name}.bus_voltage" not in self.batch.coupled_names
            pre = self._pre[k] = make(self.U[k], self.modes[k], held)
        return pre

    def inputs(self, t, Y):
        xs = [Y[sl] for sl in self.batch.slices]
        if self.couplings:
            us = [u.copy() for u in self.U]
            for c in self.couplings:
                c.apply(t, self.systems, xs, us, self.modes)
            return xs, us
        return xs, self.U

    def rhs(self, t, Y, out=None):
        """The derivatives at ``(t, Y)``, (nx, m), written into ``out`` (allocated when None); not checked."""
        if out is None:
            out = np.empty(Y.shape)
        b = self.batch
        if b.sole is not None and not self.couplings:  # one system holds every state: no slicing
            k = b.sole
            if b.prepares[k]:
                pre = self._pre[k]
                self.systems[k].derivatives(t, Y, self.U[k], self.modes[k], out=out,
                                            pre=self.prepared(k) if pre is None else pre)
            else:
                self._derive(k, t, Y, self.U[k], out)
            return out
        xs, us = self.inputs(t, Y)
        for k in b.stateful:
            self._derive(k, t, xs[k], us[k], out[b.slices[k]])
        return out

    def stage_rhs(self):
        """:meth:`rhs` for the stages of an attempt, ``f(t, Y, out)``: with one system holding every state
        and no coupling, its prepared derivatives bound to this view's held inputs and modes (which no
        stage changes), without the dispatch of :meth:`rhs` at each stage.

        Kept with the prepared terms it was bound to: whatever reloads the inputs or changes the modes
        drops those (:meth:`reload_inputs`, :meth:`refresh_modes`), and a new binding follows.
        """
        b = self.batch
        k = b.sole
        if k is None or self.couplings or not b.prepares[k]:
            return self.rhs
        pre = self._pre[k]
        if pre is None:
            pre = self.prepared(k)
        bound = self._stages
        if bound is None or bound[0] is not pre:
            derive, u, mode = self.systems[k].derivatives, self.U[k], self.modes[k]
            bound = self._stages = (pre, lambda t, Y, out: derive(t, Y, u, mode, out, pre))
        return bound[1]

    def _derive(self, k, t, x, u, out):
        s = self.systems[k]
        if self.batch.prepares[k]:
            pre = self._pre[k] if self._pre[k] is not None else self.prepared(k)
            s.derivatives(t, x, u, self.modes[k], out=out, pre=pre)
        else:  # a batched model without the prepared form: derivatives(t, x, u, mode) returns its array
            out[...] = s.derivatives(t, x, u, self.modes[k])

    def derivative(self, t, Y):
        """The derivatives at ``(t, Y)``, raising NonFiniteError for a non-finite one."""
        d = self.rhs(t, Y)
        if not _finite(d):
            self.raise_non_finite(t, d)
        return d

    def raise_non_finite(self, t, d):
        i, j = np.argwhere(~np.isfinite(d))[0]
        k, name = self.batch.state_owner[i]
        tj = float(t if np.ndim(t) == 0 else t[j])
        raise NonFiniteError("derivative of", f"{name} (variant {self.variant(j)})", d[i, j], tj)

    def check_stages(self, t, h, K):
        """NonFiniteError at the first stage of an attempt whose derivative is not finite (as the
        right-hand side would have raised there)."""
        if _finite(K[1:]):
            return
        for s in range(1, K.shape[0]):
            if not np.isfinite(K[s]).all():
                ts = t + h if s == K.shape[0] - 1 else t + batch_rk.C[s] * h
                self.raise_non_finite(ts, K[s])

    def outputs(self, k, t, Y):
        xs, us = self.inputs(t, Y)
        return self.systems[k].outputs(t, xs[k], us[k], self.modes[k])

    def active(self):
        """(n_kinds, m) bool: each event kind armed in each column's current mode (kept until the
        view's modes change; read-only to callers)."""
        a = self._active
        if a is not None:
            return a
        b = self.batch
        if not b.kinds:
            a = np.zeros((0, self.m), dtype=bool)
        elif len(self.systems) == 1:
            a = b.armed[0].take(self.modes[0], axis=1)
        else:
            a = np.concatenate([b.armed[k].take(self.modes[k], axis=1) for k in range(len(self.systems))
                                if len(b.armed[k])], axis=0)
        self._active = a
        return a

    def armed(self):
        """The kinds armed in some column, as indices into the batch's kinds, and their rows of
        :meth:`active` (kept with it)."""
        if self._armed is None:
            a = self.active()
            want = _indices(np.logical_or.reduce(a, axis=1)) if a.size else np.zeros(0, dtype=np.intp)
            self._armed = (want, a if len(want) == len(a) else a.take(want, axis=0))
        return self._armed

    def guards(self, t, Y, want):
        """(len(want), m) values of the guards of the event kinds ``want`` (indices into the batch's kinds)."""
        b = self.batch
        lin = b._linear_guards(want) if len(want) else None
        if lin is not None and lin[5]:  # every one a state minus a constant: one gather for them all
            return Y.take(lin[1], axis=0) - lin[2]
        out = np.empty((len(want), self.m))
        if any(b.kinds[e][2].reads_inputs for e in want):
            xs, us = self.inputs(t, Y)
        else:  # guards of the state alone: no coupled inputs to solve
            xs, us = [Y[sl] for sl in b.slices], self.U
        for w, e in enumerate(want):
            k, _, ev = b.kinds[e]
            out[w] = ev.guard(self.systems[k], t, xs[k], us[k], self.modes[k])
        return out

    def guard(self, e, t, Y):
        k, j, ev = self.batch.kinds[e]
        xs, us = self.inputs(t, Y) if ev.reads_inputs else ([Y[sl] for sl in self.batch.slices], self.U)
        return ev.guard(self.systems[k], t, xs[k], us[k], self.modes[k])


class _Batch:
    """One batch run: the state of every variant and the loop of :func:`simulate_batch`."""

    def __init__(self, systems, controllers, params, n, t0_ns, x0, inputs, rtol, atol, max_step, record, xp):
        self.params = params
        self.n, self.rtol, self.atol, self.max_step, self.record, self.xp = n, rtol, atol, max_step, record, xp
        self.controllers = controllers
        self.systems = []
        for s in systems:
            make = getattr(s, "batched", None)
            if make is None:
                raise ConfigTypeError("systems", s, f"a system that can batch; {type(s).__name__} {s.name!r} "
                                                    "cannot (it has no batched physics)")
            self.systems.append(make(params.get(s.name, {}), n, xp))
        self.bcontrollers = []
        for c in controllers:
            make = getattr(c, "batched", None)
            if make is None:
                raise ConfigTypeError("controllers", c, f"a controller that can batch; controller {c.name!r} cannot "
                                                        "(a plain PeriodicController runs one variant's Python: use "
                                                        "control_loop, or simcore.batch.elementwise for a function "
                                                        "written element-wise)")
            self.bcontrollers.append(make(params.get(c.name, {}), n, xp))
        self.slices, self.nx, self.signal_index = stacked(self.systems)
        self.state_owner = [(k, f"{s.name}.{nm}") for k, s in enumerate(self.systems) for nm in s.state_names]
        self.coupled_names = {}
        for s in self.systems:
            for c in s.couplings(self.systems):
                for name in c.targets:
                    self.coupled_names[name] = s.name
        self.coupled = bool(self.coupled_names)
        self.kinds = [(k, j, ev) for k, s in enumerate(self.systems) for j, ev in enumerate(s.events)]
        nk = len(self.kinds)
        self.stateful = [k for k, s in enumerate(self.systems) if len(s.state_names)]
        self.prepares = [hasattr(s, "prepare") for s in self.systems]  # which have the prepared right-hand side
        self.sole = self.stateful[0] if len(self.stateful) == 1 and self.slices[self.stateful[0]] == slice(0, self.nx) \
            else None
        # Guards of the form "state minus constant": the state's row (-1: not of that form) and the constant.
        self.lin_state = np.array([self.slices[k].start + ev.linear[0] if ev.linear is not None else -1
                                   for k, _, ev in self.kinds], dtype=np.intp)
        self.reads_inputs = np.array([ev.reads_inputs for _, _, ev in self.kinds], dtype=bool)
        self.any_reads_inputs = bool(self.reads_inputs.any())
        self.lin_const = np.array([ev.linear[1] if ev.linear is not None else np.nan for _, _, ev in self.kinds])
        self._linear_cache = {}
        # Whether any right-hand side reads the time (a batched system that does not says TIME_INVARIANT).
        self.timed = not all(getattr(s, "TIME_INVARIANT", False) for s in self.systems)
        # Per system, (its kinds, its modes) bool: which of its event kinds are armed in which mode; the
        # kinds of all systems stack in the order of self.kinds.
        self.armed = [np.array([ev.active for ev in s.events], dtype=bool).reshape(len(s.events), len(s.MODES))
                      for s in self.systems]

        self._full = None  # the cached view of every variant (see _full_view)
        self._written = set()  # the systems whose held inputs were written since _full was brought up to date
        self._tick_guards = None  # (view, active, want) of _input_guards

        # Initial state and inputs (held input rows are never written in place: a write replaces the row).
        self.t_ns = t0_ns
        self.t = t0_ns / NS_PER_S
        Y = np.concatenate([s.initial_state() for s in self.systems], axis=0) if self.nx else np.zeros((0, n))
        self.U = [[row.copy() for row in s.initial_inputs()] for s in self.systems]
        self.x0_given = {}  # the states x0 set: name -> row of Y (what an initial mode's refusal is traced to)
        for name, value in (x0 or {}).items():
            kind = self.signal_index.get(name, ("?",))
            if kind[0] != "x":
                raise ConfigError("x0", name, "a state name, one of " + ", ".join(
                    nm for nm, v in self.signal_index.items() if v[0] == "x"))
            Y[kind[2]] = self._column(f"x0[{name!r}]", value, self._unit(name), state=True)
            self.x0_given[name] = kind[2]
        for name, value in (inputs or {}).items():
            self._write(name, value, "inputs")
        self.Y = Y
        self.modes = [np.zeros(n, dtype=np.int8) for _ in self.systems]
        self.T = np.full(n, self.t)
        self.F = np.zeros((self.nx, n))
        self.H = np.full(n, np.nan)  # carried step size; nan: none yet (scipy's initial step)
        self.live = np.ones(n, dtype=bool)
        self.g_prev = np.zeros((nk, n))
        self.search_from = np.full((nk, n), -np.inf)
        self.searching = False  # whether any search delay is pending (most steps have none)
        self.event_last_t = np.full((nk, n), np.nan)
        self.zeno_run = np.zeros(n, dtype=np.int64)
        self.last_event_t = np.full(n, np.nan)
        # Events fired at an interval's very end, whose restart sides are set at the next start.
        self.pending = np.zeros((nk, n), dtype=bool)
        self.pending_side = np.zeros((nk, n))
        self.pending_prev = np.full((nk, n), np.nan)
        self.pending_xb = np.zeros((self.nx, n))
        self.started = [False] * len(controllers)
        self.n_steps = np.zeros(n, dtype=np.int64)
        # Stiffness, counted per variant as the serial engine's RK45 counts it (simcore.solvers'
        # Integrator.after_step): stiff steps, non-stiff steps in a row, and the time each variant was
        # first found stiff (nan: not yet; from then on its steps are not estimated, as serially).
        self.stiff_at = np.full(n, np.nan)
        self.stiff_count = np.zeros(n, dtype=np.int64)
        self.calm_count = np.zeros(n, dtype=np.int64)
        self.counting = False  # whether some variant's stiff count is above zero
        self.n_stiff = 0
        self.every = np.arange(n, dtype=np.int32)  # every variant's index, as the recorder keeps them (never written)
        self.res = BatchResult._recorder(self)

    # -- inputs ------------------------------------------------------------------------------
    def _unit(self, name):
        """The SI unit of signal ``name`` ("system.signal"), what a Quantity given for it converts to."""
        s = self.systems[self.signal_index[name][1]]
        return s.units.get(name[len(s.name) + 1:], "")

    def _column(self, label, value, unit="", state=False):
        """``value`` (a number, or one per variant) as a new (N,) float array; ``state``: an initial state,
        whose non-finite value is a bad parameter (ConfigError, as simulate's x0), where an input's is a
        non-finite signal (NonFiniteError, as simulate's)."""
        if batch_params.has_units(value):  # converted to the signal's unit, as simulate does
            value = batch_params.variant_values(label, value, unit)
        # simulate's own conversion; a copy: the caller may change its array after writing it
        v = np.array(batch_params.numbers(label, value, expected="a number or an array of one number per variant"),
                     dtype=float)
        if v.ndim == 0:
            v = np.full(self.n, float(v))
        elif v.shape != (self.n,):
            raise ConfigError(label, f"<array of shape {v.shape}>", f"a number or an array of shape ({self.n},)")
        if not np.isfinite(v).all():
            j = int(np.flatnonzero(~np.isfinite(v))[0])
            if state:  # named as a params value is (batch_params.variant_values)
                raise ConfigError(f"{label}[{j}]", float(v[j]), f"a finite number (variant {j})")
            raise NonFiniteError("value of", f"{label} (variant {j})", v[j], self.t)
        return v

    def _write(self, name, value, who):
        kind = self.signal_index.get(name)
        if kind is None or kind[0] != "u":
            valid = [nm for nm, v in self.signal_index.items() if v[0] == "u"]
            raise ConfigError(f"{who} signal", name, f"an input; valid inputs: {', '.join(valid)}")
        if name in self.coupled_names:
            raise ConfigError(f"{who} signal", name,
                              f"an input not driven by {self.coupled_names[name]!r} (it is solved continuously)")
        if (type(value) is np.ndarray and (value.dtype is _FLOAT64 or value.dtype == np.float64)
                and value.shape == (self.n,) and _finite(value)):
            v = value.copy()  # what _column returns for it, without the labels; a copy: the controller may reuse it
        else:
            v = self._column(f"{who}[{name!r}]", value, self._unit(name))
        s = self.systems[kind[1]]
        rng = s.input_ranges.get(s.input_names[kind[2]])
        if rng is not None and not (_all(v >= rng[0]) and _all(v <= rng[1])):
            j = int(np.flatnonzero((v < rng[0]) | (v > rng[1]))[0])
            raise ConfigError(f"{who}[{name!r}][{j}]", v[j], f"a value in [{rng[0]}, {rng[1]}] (variant {j}, "
                                                             f"at t={self.t!r} s)")
        self.U[kind[1]][kind[2]] = v
        self._written.add(kind[1])

    def _full_view(self) -> BatchView:
        """The view of every variant, kept until a mode change or a terminal event drops it; an input
        write reloads only the written systems' held inputs (and drops what they prepared) in it."""
        if self._full is None:
            self._full = BatchView(self, None)
        elif self._written:
            self._full.reload_inputs(self._written)
        self._written.clear()
        return self._full

    def _input_guards(self, full):
        """``(active, want)`` at a tick: each event kind armed in each live variant, and the kinds that read
        the inputs and are armed in some live variant (the guards an input write can make jump). Kept
        with the full view ``full`` (modes and live variants only change where it is dropped)."""
        cached = self._tick_guards
        if cached is None or cached[0] is not full:
            active = full.active() & self.live
            want = _indices(np.logical_or.reduce(active, axis=1) & self.reads_inputs)
            cached = self._tick_guards = (full, active, want)
        return cached[1], cached[2]

    # -- modes ------------------------------------------------------------------------------
    def _settle_modes(self):
        view = BatchView(self, None)
        xs, us = view.inputs(self.t, self.Y)
        for k, s in enumerate(self.systems):
            try:
                self.modes[k] = np.asarray(s.initial_mode(self.t, xs[k], us[k]), dtype=np.int8)
            except ConfigError as exc:
                self._blame_x0(k, xs, us, exc)
                raise
        self._full = None

    def _blame_x0(self, k, xs, us, exc):
        """Raise ``exc`` (system ``k``'s refusal of its initial state) as an error of the ``x0`` entry
        that caused it, ``x0['<system>.<state>'][j]``, with its value (SI), what was expected and the
        variant ``j``; return when no x0 entry alone caused it (the model's own start values are refused).

        The variant is the first one whose initial state the system refuses alone (the model's error
        names its own parameter, a position, and its variant, but not the state the user set); the
        entry, the last of that system's x0 states (in state order) without which, the model's own
        start value in its place, the system accepts that variant.
        """
        s = self.systems[k]
        start = self.slices[k].start
        given = sorted((row, name) for name, row in self.x0_given.items() if self.signal_index[name][1] == k)
        if not given:
            return
        own = s.initial_state()  # the model's start values (what a state not in x0 starts from)

        def refusal(j, x):
            try:
                s.take(np.array([j])).initial_mode(self.t, x, us[k].take([j], axis=1))
            except ConfigError as alone:
                return alone
            return None

        for j in range(self.n):  # (on the way to an error only)
            x = xs[k].take([j], axis=1)
            alone = refusal(j, x)
            if alone is None:
                continue
            # the later state first: for a mechanism the velocity, which serial simulate names for a start
            # on a stop moving into it (both entries would clear that refusal; only the position, one beyond)
            for row, name in reversed(given):
                trial = x.copy()
                trial[row - start, 0] = own[row - start, j]
                if refusal(j, trial) is None:
                    unit = self._unit(name)
                    raise ConfigError(f"x0[{name!r}][{j}]", float(x[row - start, 0]),
                                      f"{alone.expected}{', in ' + unit if unit else ''} (variant {j})") from exc
            return

    # -- ticks ------------------------------------------------------------------------------
    def _schedule(self, t_end_ns):
        """Every tick instant in [t0, t_end], ns, with the controllers due there in their order."""
        due = {}
        for i, c in enumerate(self.controllers):
            for t_ns in range(self.t_ns + c.offset_ns, t_end_ns + 1, c.period_ns):
                due.setdefault(t_ns, []).append(i)
        return sorted(due.items())

    def _run_ticks(self, t_ns, due, initial=False):
        t = t_ns / NS_PER_S
        live = self.live
        want = ()
        # Only a guard that reads the inputs can jump at a tick (the states, modes and time stay).
        if not initial and self.any_reads_inputs:
            full = self._full_view()
            active, want = self._input_guards(full)
            if len(want):
                g_before = full.guards(t, self.Y, want)
        signals = BatchSignals(self, t)
        ran = []
        for i in due:
            c, bc = self.controllers[i], self.bcontrollers[i]
            try:
                if not self.started[i]:
                    self.started[i] = True
                    bc.start(t, signals)
                written = bc.tick(t, signals)
            except Exception as exc:
                note_controller_error(exc, c.name, t, "in a batch")
                if _is_scalar_use_of_an_array(exc):
                    exc.add_note("in a batch the controller's functions receive (N,) arrays, one value per variant: "
                                 "they must be element-wise (np.where instead of if, no float() or math.*)")
                raise
            written = checked_writes(c.name, written)
            logged = {}
            for name, value in written.items():
                self._write(name, value, f"controller {c.name!r}")
                kind = self.signal_index[name]
                logged[name] = self.U[kind[1]][kind[2]]
            signals.invalidate()
            ran.append((c.name, logged))
        self.res.tick(t, ran)
        if initial:
            return
        fired_any = None
        if len(want):
            # The guards that read the inputs may jump with them: an event fires at the tick where one crossed.
            g_after = self._full_view().guards(t, self.Y, want)
            fired_any = np.zeros(self.n, dtype=bool)
            for k in range(len(self.systems)):
                done = np.zeros(self.n, dtype=bool)
                for w, e in enumerate(want):
                    kk, _, ev = self.kinds[e]
                    if kk != k:
                        continue
                    fire = active[e] & ~done & _crosses(g_before[w], g_after[w], ev.direction)
                    if fire.any():
                        cols = np.flatnonzero(fire)
                        _put(self.Y, cols, self._fire(e, cols, np.full(len(cols), t), self.Y.take(cols, axis=1),
                                                      at_tick=True))
                        done |= fire
                fired_any |= done
        quiet = live if fired_any is None else live & ~fired_any
        self.res.tick_rows(self.every if _all(quiet) else _indices(quiet), t, self.Y, self.modes)

    # -- events -------------------------------------------------------------------------------
    def _fire(self, e, cols, te, X, at_tick=False):
        """Fire event kind ``e`` for the variants ``cols`` at times ``te``: rows before/after, reset, mode."""
        k, j, _ = self.kinds[e]
        view = BatchView(self, cols)
        ev = self.kinds[e][2]
        s = view.systems[k]
        sl = self.slices[k]
        self.res.rows(cols, te, X, self.modes, local=True)
        xs, us = view.inputs(te, X)
        x_before = X[sl].copy()
        mode_before = self.modes[k][cols].copy()
        X = X.copy()
        if ev.reset is not None:
            xn = ev.reset(s, te, xs[k], us[k], view.modes[k])
            if not np.isfinite(xn).all():
                jj = int(np.argwhere(~np.isfinite(xn))[0][1])
                raise NonFiniteError("reset state of", f"{self.systems[k].name}:{ev.name} (variant {cols[jj]})",
                                     xn[:, jj], float(te[jj]))
            X[sl] = xn
        if ev.new_mode is not None:
            self.modes[k][cols] = np.asarray(ev.new_mode(s, te, X[sl], us[k], view.modes[k]), dtype=np.int8)
            self._full = None
        self.res.event(e, cols, te, x_before, X[sl].copy(), mode_before, self.modes[k][cols].copy(), at_tick)
        self.res.rows(cols, te, X, self.modes, local=True)
        if ev.terminal:
            self.live[cols] = False
            self._full = None  # (with it the tick guards of the live variants, see _input_guards)
        return X

    def _locate(self, e, view, cols, t_a, g_a, t_b, g_b, t_old, h, y_old, Q):
        """Bisection on the dense output of columns ``cols`` for the root of kind ``e`` in (t_a, t_b], to
        :data:`EVENT_TIME_TOLERANCE` (the serial engine uses Brent's method to the same tolerance)."""
        lo, hi = t_a.copy(), t_b.copy()
        glo = g_a.copy()
        direct = g_b == 0.0
        n_iter = _bisection_steps(hi - lo)  # per column: a root must not depend on the columns beside it
        sub = view.sub(cols)
        for i in range(int(n_iter.max()) if len(lo) else 0):
            going = i < n_iter
            mid = 0.5 * (lo + hi)
            x = batch_rk.dense(t_old, h, y_old, Q, mid)
            gm = sub.guard(e, mid, x)
            crossed = np.where(glo < 0.0, gm >= 0.0, gm <= 0.0)
            up, down = going & ~crossed, going & crossed
            lo, glo = np.where(up, mid, lo), np.where(up, gm, glo)
            hi = np.where(down, mid, hi)
        # The last instant on the side the guard comes from: a state at the event never lies past
        # its guard (a stop's before-row is not beyond the stop), within the tolerance of the root.
        return np.where(direct, t_b, lo)

    def _events_in_step(self, view, accepted, t_old, t_new, y_old, y_new, K):
        """Guards of the columns of ``view`` whose attempt was accepted (``accepted``: (m,) bool, None
        for all): returns (hit, roots, g_a), roots and g_a as (n_kinds, m) arrays (inf: no root); hit
        is None when nothing crossed.

        A rejected column is masked out of the armed guards rather than gathered away: its guards
        are neither searched nor remembered, and the accepted ones keep their own positions.
        """
        sub = view
        if accepted is None:
            want, active = sub.armed()
        else:
            active = sub.active() & accepted
            want = _indices(np.logical_or.reduce(active, axis=1))
            if len(want) != len(self.kinds):
                active = active.take(want, axis=0)
        if not len(want):
            return None, None, None
        h = t_new - t_old
        full = sub.idx is None
        glob = None if full else sub.idx

        def rows_of(store):
            return store.take(want, axis=0) if full else store.take(want, axis=0).take(glob, axis=1)

        if accepted is None:
            g_new = sub.guards(t_new, y_new, want)
        else:  # a rejected attempt's end may be non-finite; its guards are masked out
            with np.errstate(invalid="ignore", over="ignore"):
                g_new = sub.guards(t_new, y_new, want)
        g_prev = rows_of(self.g_prev)
        search = rows_of(self.search_from) if self.searching else None
        hits = self._crossings(sub, active, want, g_prev, g_new, search, t_old, t_new, h, y_old, K)
        if self.searching:  # search delays that have run out (the serial engine drops them after each step)
            for e in range(len(self.kinds)):
                row = self.search_from[e]
                pending = row if full else row.take(glob)
                keep = pending > t_new if accepted is None else (pending > t_new) | ~accepted
                if full:
                    row[...] = np.where(keep, pending, -np.inf)
                else:
                    row[glob] = np.where(keep, pending, -np.inf)
            self.searching = bool(np.isfinite(self.search_from).any())
        remembered = np.where(active, g_new, g_prev)  # the armed guards' new values, the others' as they were
        if full:
            self.g_prev[want] = remembered
        else:
            for w, e in enumerate(want):
                self.g_prev[e][glob] = remembered[w]
        if hits is None:
            return None, None, None
        c, roots_c, g_as_c = hits
        nk = len(self.kinds)
        roots, g_as = np.full((nk, sub.m), np.inf), np.zeros((nk, sub.m))
        roots[np.ix_(want, c)], g_as[np.ix_(want, c)] = roots_c, g_as_c
        hit = np.logical_or.reduce(np.isfinite(roots), axis=0)
        return (hit if _any(hit) else None), roots, g_as

    def _crossings(self, sub, active, want, g_prev, g_new, search, t_old, t_new, h, y_old, K):
        """Roots of the armed guards within the step: (columns, roots, g_a) of the columns that may cross.

        Arrays have one row per kind of ``want``. A guard that is a state minus a constant cannot
        change sign in a step whose dense output stays farther from the constant than the
        polynomial can move (|h| sum_j |Q_j|, Q = K^T P its coefficients): such columns
        have no root, and their interior samples (which could not show a sign change) are not
        computed. The others are sampled as the serial engine samples them.
        """
        lin = self._linear_guards(want)
        if lin is None:
            maybe = active
        else:  # all of them at once, (len(L), m)
            L, states, consts, rows, inverse, every, abs_consts = lin
            # h sum_j |Q_ij|: how far the dense output of each such state can move in the step
            R = [_reach(h, K[:, i]) for i in rows]
            R = R[0][None] if len(R) == 1 else np.array(R).take(inverse, axis=0)
            g0 = y_old.take(states, axis=0)
            g0 -= consts
            size = np.abs(g0)
            margin = size + R
            margin += abs_consts
            margin *= 1e-9
            margin += R
            # Same sign as g0 at both ends (a product of zero, as from an underflow, samples the step).
            clear = size > margin
            gp, gn = (g_prev, g_new) if every else (g_prev.take(L, axis=0), g_new.take(L, axis=0))
            clear &= gp * g0 > 0
            clear &= gn * g0 > 0
            if search is not None:
                clear &= (search if every else search.take(L, axis=0)) <= t_old
            if every:
                maybe = active & ~clear
            else:
                maybe = active.copy()
                maybe[L] &= ~clear
        if not _any(maybe):
            return None
        c = _indices(np.logical_or.reduce(maybe, axis=0))
        if search is None:
            search = np.full(g_new.shape, -np.inf)
        if len(c) != sub.m:
            sub, active = sub.sub(c), active[:, c]
            g_prev, g_new, search = g_prev[:, c], g_new[:, c], search[:, c]
            t_old, t_new, h, y_old, K = t_old[c], t_new[c], h[c], y_old[:, c], K[:, :, c]
        Q = batch_rk.dense_q(K)
        ts = [t_old + (t_new - t_old) * (i + 1) / (_INTERIOR + 1) for i in range(_INTERIOR)]
        interior = [sub.guards(ti, batch_rk.dense(t_old, h, y_old, Q, ti), want) for ti in ts]
        roots = np.full((len(want), sub.m), np.inf)
        g_as = np.zeros((len(want), sub.m))
        # Samples of every armed guard: (5 instants, kinds, columns); a search delay replaces the start.
        times = np.broadcast_to(np.stack([t_old] + ts + [t_new])[:, None, :], (_INTERIOR + 2, len(want), sub.m))
        G = np.stack([g_prev] + interior + [g_new])
        delayed = active & (search > t_old)
        skip = delayed & (search >= t_new)
        use = delayed & ~skip
        if use.any():
            times = times.copy()
            for w, e in enumerate(want):
                d = np.flatnonzero(use[w])
                if not len(d):
                    continue
                t_s = search[w, d]
                g_s = sub.sub(d).guard(e, t_s, batch_rk.dense(t_old[d], h[d], y_old[:, d], Q[:, :, d], t_s))
                times[0, w, d], G[0, w, d] = t_s, g_s
                for i in range(_INTERIOR):  # interior points before the delay repeat the delayed sample
                    before = d[ts[i][d] <= t_s]
                    times[i + 1, w, before], G[i + 1, w, before] = times[i, w, before], G[i, w, before]
        direction = np.array([self.kinds[e][2].direction for e in want], dtype=float)[None, :, None]
        ga, gb = G[:-1], G[1:]
        rising, falling = (ga < 0.0) & (gb >= 0.0), (ga > 0.0) & (gb <= 0.0)
        cross = ((rising & (direction >= 0)) | (falling & (direction <= 0))) & (active & ~skip)[None]
        found = cross.any(axis=0)
        if found.any():
            first = np.argmax(cross, axis=0)[None]
            pick = lambda a: np.take_along_axis(a, first, axis=0)[0]  # noqa: E731
            ta, g_a, tb, g_b = pick(times[:-1]), pick(ga), pick(times[1:]), pick(gb)
            for w, e in enumerate(want):
                f = np.flatnonzero(found[w])
                if len(f):
                    roots[w, f] = self._locate(e, sub, f, ta[w, f], g_a[w, f], tb[w, f], g_b[w, f], t_old[f], h[f],
                                               y_old[:, f], Q[:, :, f])
                    g_as[w, f] = g_a[w, f]
        return c, roots, g_as

    def _linear_guards(self, want):
        """For the kinds ``want``, those whose guard is a state minus a constant (None if none):
        (their rows in ``want``, their states, their constants as a column, the distinct states,
        each one's index among those, whether every kind of ``want`` is one, the constants' magnitudes).
        Kept per ``want``."""
        key = want.tobytes()
        cache = self._linear_cache
        if key not in cache:
            states = self.lin_state.take(want)
            L = _indices(states >= 0)
            if not len(L):
                cache[key] = None
            else:
                states = states.take(L)
                rows, inverse = np.unique(states, return_inverse=True)
                consts = self.lin_const.take(want.take(L))[:, None]
                cache[key] = (L, states, consts, rows.tolist(), inverse, len(L) == len(want), np.abs(consts))
        return cache[key]

    def _fire_step_events(self, sub, hit, roots, g_as, t_old, t_new, y_old, y_new, K):
        """Fire, for every column with a root, the earliest event and those at its instant; returns
        (global columns, te, state after, fired-kind records)."""
        h_cols = np.flatnonzero(hit)
        glob = sub.idx[h_cols] if sub.idx is not None else h_cols
        R = roots[:, h_cols]
        te = R.min(axis=0)
        tn = t_new[h_cols]
        Q = batch_rk.dense_q(K[:, :, h_cols])
        x_e = np.where(te < tn, batch_rk.dense(t_old[h_cols], (t_new - t_old)[h_cols], y_old[:, h_cols], Q, te),
                       y_new[:, h_cols])
        # Zeno: events accumulating within the gap, more than the limit in a row.
        last = self.last_event_t[glob]
        close = np.isfinite(last) & (te - last <= _ZENO_GAP * np.maximum(1.0, np.abs(te)))
        self.zeno_run[glob] = np.where(close, self.zeno_run[glob] + 1, 0)
        if np.any(self.zeno_run[glob] > _MAX_EVENTS_AT_ONE_INSTANT):
            j = int(np.flatnonzero(self.zeno_run[glob] > _MAX_EVENTS_AT_ONE_INSTANT)[0])
            e = int(np.argmin(R[:, j]))
            k, _, ev = self.kinds[e]
            raise IntegrationError(f"variant {glob[j]}: more than {_MAX_EVENTS_AT_ONE_INSTANT} events each within "
                                   f"{_ZENO_GAP:g} s (relative) of the last: the events accumulate (Zeno); last: "
                                   f"{self.systems[k].name}:{ev.name}", float(te[j]))
        self.last_event_t[glob] = te
        X_before = x_e.copy()
        X = x_e
        order = np.argsort(R, axis=0, kind="stable")
        nk = len(self.kinds)
        fired = np.zeros((nk, len(glob)), dtype=bool)
        pre_side = np.zeros((nk, len(glob)))
        prev_t = np.full((nk, len(glob)), np.nan)
        ga_h = g_as[:, h_cols]
        for r in range(nk):
            kr = order[r]
            tr = R[kr, np.arange(len(glob))]
            cand = np.isfinite(tr) & (tr - te <= 2 * EVENT_TIME_TOLERANCE)
            if not cand.any():
                break
            for e in np.unique(kr[cand]):
                cols = np.flatnonzero(cand & (kr == e))
                if r > 0:
                    view = BatchView(self, glob[cols])
                    armed = view.active()[e]
                    still = armed & _crosses(ga_h[e, cols], view.guard(e, te[cols], X[:, cols]),
                                             self.kinds[e][2].direction)
                    cols = cols[still]
                    if not len(cols):
                        continue
                X[:, cols] = self._fire(e, glob[cols], te[cols], X[:, cols])
                fired[e, cols] = True
                pre_side[e, cols] = np.where(ga_h[e, cols] > 0, 1.0, -1.0)
                prev_t[e, cols] = self.event_last_t[e, glob[cols]]
                self.event_last_t[e, glob[cols]] = te[cols]
        return glob, te, X, (fired, pre_side, prev_t, X_before)

    def _restart_sides(self, glob, t, X, fired, pre_side, prev_t, X_before):
        """Engine._restart_sides for the columns ``glob`` restarting at times ``t`` from states ``X``."""
        view = BatchView(self, glob)
        active = view.active()
        for e in range(len(self.kinds)):
            c = np.flatnonzero(fired[e] & active[e])
            if not len(c):
                continue
            v = view.sub(c) if len(c) != view.m else view
            g_cols = glob[c]
            tc, Xc = t[c], X[:, c]
            g0 = self.g_prev[e, g_cols]
            self.search_from[e, g_cols] = -np.inf
            dt = PROBE_STEP * np.maximum(1.0, np.abs(tc))
            f0 = v.derivative(tc, Xc)
            f1 = v.derivative(tc + dt, Xc + dt * f0)
            probe = v.guard(e, tc + dt, Xc + 0.5 * dt * (f0 + f1))
            side = np.where(probe > 0, 1.0, np.where(probe < 0, -1.0, 0.0))
            ps = pre_side[e, c]
            pt = prev_t[e, c]
            accumulating = np.isfinite(pt) & (tc - pt <= _ZENO_GAP * np.maximum(1.0, np.abs(tc)))
            new = g0.copy()
            zero = side == 0.0
            new = np.where(zero, ps * JUST_OFF_ZERO, new)
            back = ~zero & (side == ps)
            flip = back & (g0 * side <= 0)
            new = np.where(flip, side * JUST_OFF_ZERO, new)
            self.search_from[e, g_cols[flip]] = (tc + dt)[flip]
            self.searching = self.searching or bool(flip.any())
            through = ~zero & ~back
            refire = np.zeros(len(c), dtype=bool)
            if self.kinds[e][2].reset is not None and through.any():
                def rate(Xs):
                    x1 = Xs + dt * v.derivative(tc, Xs)
                    return (v.guard(e, tc + dt, x1) - v.guard(e, tc, Xs)) / dt
                after, before = rate(Xc), rate(X_before[:, c])
                changed = np.abs(after - before) > 1e-6 * np.maximum(np.abs(after), np.abs(before))
                refire = through & (accumulating | changed)
            new = np.where(refire, ps * JUST_OFF_ZERO, new)
            on = through & ~refire
            new = np.where(on, np.where(g0 * side > 0, g0, side * JUST_OFF_ZERO), new)
            self.g_prev[e, g_cols] = new

    # -- integration ----------------------------------------------------------------------------
    def _restart(self, glob, t, t_end, fired=None):
        """Start a segment for the variants ``glob`` at times ``t``: derivative, first step, guards, sides."""
        full = len(glob) == self.n  # glob is sorted and unique: every variant
        view = self._full_view() if full else BatchView(self, glob)
        y = self.Y if full else self.Y.take(glob, axis=1)
        f = view.derivative(t, y)
        if full:
            self.F[...] = f
        else:
            _put(self.F, glob, f)
        h0 = self.H if full else self.H.take(glob)  # (read only)
        carried = np.isfinite(h0) & (h0 > 0)
        h = np.minimum(np.minimum(h0, t_end - t), self.max_step)
        if not _all(carried):
            first = batch_rk.initial_step(view.derivative, t, y, f, t_end, self.max_step, rtol=self.rtol, atol=self.atol)
            h = np.where(carried, h, first)
        if full:
            self.H[...] = h
        else:
            self.H[glob] = h
        if self.kinds:
            want, active = view.armed()
            g = view.guards(t, y, want) if len(want) else None
            for w, e in enumerate(want):  # each armed guard's value at the start; the others' stay as they were
                row = self.g_prev[e]
                if full:
                    np.copyto(row, g[w], where=active[w])
                else:
                    row[glob] = np.where(active[w], g[w], row.take(glob))
            if fired is not None and fired[0].any():
                self._restart_sides(glob, t, y, *fired)
        return view

    def _integrate(self, t_end):
        # every variant (the common case): the recorder's index array of them all, which it stores without
        # a conversion or a gather (it is never written)
        glob = self.every if _all(self.live) else _indices(self.live)
        if not len(glob):
            return
        fired = None
        pend = self.pending.take(glob, axis=1) if _any(self.pending) else None
        if pend is not None and _any(pend):
            fired = (pend, self.pending_side.take(glob, axis=1), self.pending_prev.take(glob, axis=1),
                     self.pending_xb.take(glob, axis=1))
            _put(self.pending, glob, False)
        view = self._restart(glob, self.T.take(glob), t_end, fired)
        # Working copies of the running variants (S: their indices), written back to the batch when a
        # variant stops running; a round works on them as they are, and they shrink as variants stop.
        S = glob
        t, y, f, h = self.T.take(S), self.Y.take(S, axis=1), self.F.take(S, axis=1), self.H.take(S)
        m = len(S)
        rejected = np.zeros(m, dtype=bool)  # a column not rejected in the last round starts a fresh step
        steps = np.zeros(m, dtype=np.int64)
        seg_start = None  # each column's steps before its segment began (None: all began at the interval's start)
        rounds = 0  # rounds with an accepted column: a bound of any column's steps in its segment
        max_step = self.max_step
        # No time of this interval has a minimum step above the one at its largest magnitude (the spacing
        # of doubles grows with it): steps above that need no clamping and cannot fail the test.
        far = max(abs(t_end), abs(float(_min(t))))
        ms_bound = float(batch_rk.min_step(far))
        while m:
            if max_step != math.inf or not _min(h) > ms_bound:  # (a NaN step goes this way)
                ms = batch_rk.min_step(t)
                clamped = np.maximum(h, ms) if max_step == math.inf else np.where(h > max_step, max_step,
                                                                                  np.maximum(h, ms))
                # Steps clamped up to the minimum cannot be below it (a NaN fails the test either way), unless
                # max_step clamped them down again.
                every_fresh = not _any(rejected)
                h = clamped if every_fresh else np.where(rejected, h, clamped)
                if (not every_fresh or max_step != math.inf) and _any(h < ms):
                    j = int(np.flatnonzero(h < ms)[0])
                    raise IntegrationError(f"RK45 solver failed for variant {S[j]}: Required step size is less than "
                                           f"spacing between numbers.", float(t[j]))
            acc, t_new, y_new, K, h = batch_rk.attempt(view.stage_rhs(), t, y, f, h, t_end, rejected, rtol=self.rtol,
                                                       atol=self.atol, timed=self.timed)
            n_acc = int(_count_nonzero(acc))
            if n_acc != m:  # a non-finite stage makes its column's error norm non-finite: it is never accepted
                view.check_stages(t, t_new - t, K)
            rejected = ~acc
            if not n_acc:
                continue
            every = n_acc == m
            if not _finite(y_new):
                bad = acc & ~np.isfinite(y_new).all(axis=0)
                if bad.any():
                    j = int(np.flatnonzero(bad)[0])
                    raise IntegrationError(f"the state of variant {S[j]} became non-finite", float(t_new[j]))
            steps += acc
            rounds += 1
            if rounds > STIFF_SKIP_STEPS and self.nx:  # before its third round no column is past its segment's first steps
                self._count_stiffness(S, acc, steps if seg_start is None else steps - seg_start, K, t_new)
            quiet = acc
            stop = None
            hc = None
            if self.kinds:
                hit, roots, g_as = self._events_in_step(view, None if every else acc, t, t_new, y, y_new, K)
                if hit is not None:
                    hc = _indices(hit)
                    if seg_start is None:
                        seg_start = np.zeros(m, dtype=np.int64)
                    seg_start[hc] = steps.take(hc)  # the restart after the event begins a segment
                    glob_hit = S.take(hc)
                    self.H[glob_hit] = h.take(hc)  # the step size the restart carries on with
                    glob_e, te, X, fired = self._fire_step_events(view, hit, roots, g_as, t, t_new, y, y_new, K)
                    self.T[glob_e] = te
                    _put(self.Y, glob_e, X)
                    done = (te >= t_end) | ~self.live[glob_e]
                    if _any(done):
                        d = _indices(done)
                        for store, rec in zip((self.pending, self.pending_side, self.pending_prev, self.pending_xb),
                                              fired):
                            _put(store, glob_e[d], rec[:, d])
                    go = _indices(~done)
                    if len(go):
                        self._restart(glob_e[go], te[go], t_end, tuple(x[..., go] for x in fired))
                    quiet = acc.copy()
                    quiet[hc] = False
                    stop = np.zeros(m, dtype=bool)
                    stop[hc[done]] = True
            if quiet is acc and every:
                t, y, f = t_new, y_new, K[-1]
                q = None
            else:
                t, y, f = np.where(quiet, t_new, t), np.where(quiet, y_new, y), np.where(quiet, K[-1], f)
                q = _indices(quiet)
            if hc is not None:  # the columns that fired restart from the batch's state and modes
                glob_hit = S.take(hc)
                t[hc] = self.T.take(glob_hit)
                y[:, hc] = self.Y.take(glob_hit, axis=1)
                f[:, hc] = self.F.take(glob_hit, axis=1)
                h[hc] = self.H.take(glob_hit)
                view.refresh_modes(hc)
            end = quiet & (t >= t_end)
            if self.record == "all":
                if q is None:
                    self.res.rows(S, t_new, y_new, self.modes, local=True, copy=False)
                elif len(q):
                    self.res.rows(S.take(q), t_new.take(q), y_new.take(q, axis=1), self.modes, local=True, copy=False)
            elif _any(end):  # record="ticks": only the row that ends the interval (the row before the tick)
                e_ = _indices(end)
                self.res.rows(S.take(e_), t_new.take(e_), y_new.take(e_, axis=1), self.modes, local=True, copy=False)
            stop = end if stop is None else (stop | end)
            if _any(stop):
                if m == self.n and _all(stop):  # every variant at once: the working copies are the batch's
                    self.T[...], self.Y[...], self.F[...], self.H[...] = t, y, f, h
                    self.n_steps += steps
                    break
                fin = _indices(stop)
                G = S.take(fin)
                self.T[G] = t.take(fin)
                _put(self.Y, G, y.take(fin, axis=1))
                _put(self.F, G, f.take(fin, axis=1))
                self.H[G] = h.take(fin)
                self.n_steps[G] += steps.take(fin)
                if len(fin) == m:
                    break
                keep = _indices(~stop)
                S, t, h, rejected, steps = (v.take(keep) for v in (S, t, h, rejected, steps))
                if seg_start is not None:
                    seg_start = seg_start.take(keep)
                y, f = y.take(keep, axis=1), f.take(keep, axis=1)
                view = view.sub(keep)
                m = len(keep)

    # -- stiffness ----------------------------------------------------------------------------
    def _count_stiffness(self, S, acc, seg, K, t_new):
        """Count the round's stiff steps as the serial engine's RK45 does (``Integrator.after_step``).

        ``seg`` (m,) holds each column's accepted steps in its current segment, this round's included:
        a step is estimated when accepted, past the segment's first :data:`~simcore.solvers.STIFF_SKIP_STEPS`
        (they follow an input jump), and its variant not yet found stiff. A stiff step (``h * rho`` above
        RK45's stability boundary) adds one to the variant's count and clears its run of non-stiff
        ones; :data:`~simcore.solvers.STIFF_CLEAR_AFTER` non-stiff ones in a row clear the count;
        :data:`~simcore.solvers.STIFF_STEPS` find the variant stiff at the step's end.

        While every count is zero, a non-stiff step changes nothing that matters (the run of
        non-stiff steps only clears a count, and a stiff step restarts the run), so a round without
        a stiff step touches no count; before any variant is found stiff, which columns' steps count
        is only worked out in a round where some column's estimate is stiff (the estimate is made for
        every column of the round: a gather of those that count would cost more).
        """
        if self.n_stiff:  # the variants found stiff are no longer estimated, as serially
            est = seg > STIFF_SKIP_STEPS
            est &= acc
            est &= np.isnan(self.stiff_at.take(S))
            if not _any(est):
                return
            hits = batch_rk.stiffness_ratio(K, _STIFF_STAGE, _STIFF_WEIGHTS) > _STIFF_RATIO
            hits &= est
        else:
            hits = batch_rk.stiffness_ratio(K, _STIFF_STAGE, _STIFF_WEIGHTS) > _STIFF_RATIO
            if not (self.counting or _any(hits)):
                return  # no stiff estimate and no count above zero: nothing to count
            est = seg > STIFF_SKIP_STEPS
            est &= acc
            hits &= est
        if not (self.counting or _any(hits)):
            return
        stiff = self.stiff_count.take(S) + hits
        calm = np.where(hits, 0, self.calm_count.take(S) + est)
        stiff = np.where(calm >= STIFF_CLEAR_AFTER, 0, stiff)
        found = stiff >= STIFF_STEPS
        if _any(found):
            cols = _indices(found)
            self.stiff_at[S.take(cols)] = t_new.take(cols)
            self.n_stiff += len(cols)
            stiff[cols] = 0
        self.stiff_count[S] = stiff
        self.calm_count[S] = calm
        self.counting = _any(self.stiff_count)

    def stiffness_warning(self) -> str | None:
        """The message of the run's StiffnessWarning: the variants found stiff, when each was first;
        None if none was."""
        if not self.n_stiff:
            return None
        ids = _indices(~np.isnan(self.stiff_at))
        named = ", ".join(f"{j} (t={float(self.stiff_at[j])!r} s)" for j in ids[:_STIFF_NAMED])
        if len(ids) > _STIFF_NAMED:
            named += f", and {len(ids) - _STIFF_NAMED} more (BatchResult.stiff_at has them all)"
        k = len(ids)
        # "1 of 1 variant is stiff", "1 of 5 variants is stiff", "2 of 5 variants are stiff"
        return (f"{k} of {self.n} variant{'s' if self.n != 1 else ''} {'is' if k == 1 else 'are'} stiff: the RK45 "
                f"steps of variant{'s' if k > 1 else ''} {named} are limited by stability, not accuracy (first found "
                f"stiff at the time given); the serial simcore.simulate(..., method='auto') or "
                f"method='{STIFF_METHOD}' integrates {'it' if k == 1 else 'them'} with far fewer evaluations.")

    # -- the run ------------------------------------------------------------------------------
    def run(self, t_end_ns):
        schedule = self._schedule(t_end_ns)
        self._settle_modes()
        self.res.rows(self.every, self.t, self.Y, self.modes)
        if schedule and schedule[0][0] == self.t_ns:
            self._run_ticks(self.t_ns, schedule.pop(0)[1], initial=True)
            self._settle_modes()
            self.res.tick_rows(self.every, self.t, self.Y, self.modes)
        for t_ns, due in schedule + [(t_end_ns, None)]:
            if not _any(self.live):
                break
            if t_ns > self.t_ns:
                self._integrate(t_ns / NS_PER_S)
                self.t_ns, self.t = t_ns, t_ns / NS_PER_S
            if due is not None:
                self._run_ticks(t_ns, due)
        return self.res.result()


class BatchSignals(Mapping):
    """Every signal of every variant at a tick, as ``(N,)`` arrays (what batched controllers read)."""

    def __init__(self, batch: _Batch, t: float):
        self._b, self.t, self.n = batch, t, batch.n
        self._outputs = {}
        self._coupled = None

    def invalidate(self):
        self._outputs.clear()
        self._coupled = None

    def __getitem__(self, name):
        b = self._b
        try:
            kind, k, i = b.signal_index[name]
        except KeyError:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(b.signal_index)}") from None
        if kind == "x":
            return b.Y[i].copy()
        if kind == "u":
            if b.coupled:
                if self._coupled is None:
                    self._coupled = b._full_view().inputs(self.t, b.Y)[1]
                return self._coupled[k][i].copy()
            return b.U[k][i].copy()
        if k not in self._outputs:
            self._outputs[k] = b._full_view().outputs(k, self.t, b.Y)
        return self._outputs[k][i].copy()

    def __iter__(self):
        return iter(self._b.signal_index)

    def __len__(self):
        return len(self._b.signal_index)

    def unit(self, name: str) -> str:
        """The unit signal ``name`` is read in (as :meth:`simcore.signals.Signals.unit`)."""
        if name not in self._b.signal_index:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(self._b.signal_index)}")
        return self._b._unit(name)


def _split_params(params, systems, controllers):
    if not isinstance(params, Mapping) or not params:
        raise ConfigError("params", params, "a non-empty mapping '<system or controller>.<parameter>' -> 1-D array")
    owners = {s.name: s for s in systems}
    owners.update({c.name: c for c in controllers})
    routed, n, first = {}, None, None
    for key, value in params.items():
        if not isinstance(key, str) or "." not in key:
            raise ConfigError("params", key, "keys '<system or controller name>.<parameter>'")
        # the longest name that prefixes the key: a loop's default name has a dot ("arm.voltage loop")
        owner = max((o for o in owners if key.startswith(o + ".")), key=len, default=key.partition(".")[0])
        pname = key[len(owner) + 1:]
        if owner not in owners:
            raise ConfigError(f"params[{key!r}]", owner, f"the name of a system or controller: {', '.join(owners)}")
        # a Quantity's unit (or a list of them) is converted by the part that owns the parameter
        units = batch_params.has_units(value)
        arr = batch_params.variant_values(f"params[{key!r}]", batch_params.magnitudes(value) if units else value)
        if arr.ndim == 0:
            raise ConfigError(f"params[{key!r}]", float(arr), "a non-empty 1-D array (one value per variant)")
        if arr.ndim != 1 or arr.size == 0:
            raise ConfigError(f"params[{key!r}]", f"<array of shape {arr.shape}>", "a non-empty 1-D array")
        if n is None:
            n, first = arr.size, key
        elif arr.size != n:
            raise ConfigError(f"params[{key!r}]", f"<array of length {arr.size}>",
                              f"length {n}, as params[{first!r}] (one value per variant)")
        routed.setdefault(owner, {})[pname] = value if units else arr
    return routed, n


def simulate_batch(systems, t_end, controllers=(), *, params, t0=0.0, x0=None, inputs=None, rtol=1e-8,
                   atol=1e-10, max_step=None, record="all") -> BatchResult:
    """Simulate ``N`` parameter variants of ``systems`` under ``controllers`` in one integration.

    Parameters
    ----------
    systems, t_end, controllers, t0, rtol, atol, max_step
        As :func:`simcore.simulate` (the method is RK45).
    params : mapping of str to 1-D array-like
        ``"<system or controller name>.<parameter>"`` -> one value per variant, every array
        of the same length ``N`` (e.g. ``{"arm.mass": masses, "pid.kp": gains}``). See
        :mod:`simcore.models.batched` and :mod:`simcore.controllers.batched` for the
        parameters each part takes.
    x0, inputs : mapping of str to float or (N,) array, optional
        Initial states and held inputs, one value for all variants or one per variant.
    record : {"all", "ticks"}
        ``"all"`` (default) keeps every accepted step of every variant, as ``simulate`` does;
        ``"ticks"`` keeps only the rows at ticks and events (far less memory; the per-variant
        Results and metrics then see those rows only).

    Returns
    -------
    BatchResult

    Raises
    ------
    ConfigError
        A params key that names no system or controller, a parameter the part does not
        have, arrays of different lengths, or a part that cannot batch (naming it).

    Warns
    -----
    StiffnessWarning
        Once, when some variants' RK45 steps are limited by stability, not accuracy (found by
        the rule their own ``simulate(..., method="RK45")`` warns by), naming them (the first
        twenty, with how many in all) and when each was found; their times are in
        :attr:`BatchResult.stiff_at`. The serial ``simulate`` with ``method="auto"`` or
        ``"Radau"`` integrates such a variant with far fewer evaluations.
    """
    # The serial engine's own checks of the parts and the tolerances (x0 and inputs may be per variant
    # here, so they are checked below instead).
    serial = Simulator(systems, controllers, t0=t0, method="RK45", rtol=rtol, atol=atol, max_step=max_step)
    systems, controllers = serial.systems, serial.controllers
    names, cnames = [s.name for s in systems], [c.name for c in controllers]
    if set(cnames) & set(names):
        raise ConfigError("controllers", cnames, "controller names distinct from the system names (params are "
                                                 "addressed by name)")
    rtol, atol, max_step = serial.rtol, serial.atol, serial.max_step
    if record not in ("all", "ticks"):
        raise ConfigError("record", record, "'all' or 'ticks'")
    routed, n = _split_params(params, systems, controllers)
    t0_ns = to_ns("t0", t0)
    t_end_ns = to_ns("t_end", t_end)
    if t_end_ns < t0_ns:
        raise ConfigError("t_end", t_end, f"a time >= t0={t0_ns / NS_PER_S!r} s")
    batch = _Batch(systems, controllers, routed, n, t0_ns, x0, inputs, float(rtol), float(atol), float(max_step),
                   record, np)
    result = batch.run(t_end_ns)
    message = batch.stiffness_warning()
    if message is not None:
        warnings.warn(message, StiffnessWarning, stacklevel=2)
    return result
