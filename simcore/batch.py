"""Many parameter variants in one run, each with exactly the result of its own ``simulate``.

``simulate_batch(systems, t_end, controllers, params={"arm.mass": masses, "loop.kp": gains})``
runs ``N`` variants of one simulation: the same systems and controllers, with some
parameters given as arrays of length ``N``. Each variant's trajectory is what its own
``simulate(..., method="RK45")`` gives it, to the bit:

* **Between ticks, the serial engine's own kernel.** Every variant is advanced by the compiled
  kernel a serial run of built-in parts uses (:mod:`simcore.kernel.advance`, through
  :class:`simcore.compiled_run.CompiledRun`): its own Dormand-Prince steps and step size carried
  from tick to tick, its own event search and firing (simultaneous events, restart sides, the Zeno
  bound), its own stiffness count. Variants share nothing there, so a variant's result does not
  depend on the batch's size, its position in it, or the number of threads the chunks of
  variants run on.
* **Ticks are shared** (one clock), so at each tick every controller runs once, vectorized
  over the variants, reading ``(N,)`` arrays and writing ``(N,)`` arrays; the events those writes
  trigger fire per variant, in the kernel, as in a serial run.
* **Loops tick in the kernel** where a serial run's would (:mod:`simcore.kernel.ticks`): when every
  controller is a :func:`~simcore.controllers.control_loop` around a PIDController of its own with a
  constant setpoint (one number, or one per variant), measuring a state and commanding an input no
  coupling drives, with or without a feedforward object and output limits, their first ticks run in
  Python (they start the loops) and from there each variant's loops tick inside the kernel, each
  variant with its own gains, setpoint, feedforward and PID state, to the end of the run: the kernel
  returns to Python only to hand over each buffer of rows. The recorder then stores each kernel call's
  rows as one block, each row with its epoch (the tick whose inputs it was held at). Where the kernel
  stops a variant (a write refused, a failure), the batch runs again with the loops ticking in Python,
  which raise the error that variant's own run raises. A disabling battery keeps the loops in Python.
* **Modes per variant**, as integer codes into each batched system's ``MODES``.
* **Stiffness per variant**: a variant is found stiff at the step where its own
  ``simulate(..., method="RK45")`` warns, and the run warns once
  (:class:`~simcore.solvers.StiffnessWarning`) naming every such variant and when it was found;
  :attr:`BatchResult.stiff_at` keeps the times.

What batches. A system batches when it has a kernel form (``kernel_form()``: Flywheel, Arm,
Elevator, HubMotor, ServoMechanism, TankDrive (without a cog height, walls or pods), MecanumDrive (without a
cog height or walls), CharacterizedTankDrive, and a Battery, with ``brownout_behaviour="flag"`` or ``"disable"`` (a disabling one not
with a tank or mecanum drive)): its
variants' parameters come from its own ``kernel_parameters``, their outputs and the bus from the kernel's functions
(:mod:`simcore.batch_parts`);
a controller when it has a ``batched`` attribute (:func:`simcore.controllers.control_loop`'s
loops with a PIDController or an element-wise callable; any PeriodicController whose function is
written element-wise, marked with :func:`elementwise`). Anything else raises, naming itself.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Mapping

import numpy as np

from . import batch_params
from .batch_result import BatchResult
from .clock import NS_PER_S, to_ns
from .controller import PeriodicController, checked_writes, note_controller_error
from .engine import Simulator
from .errors import ConfigError, ConfigTypeError, IntegrationError, NonFiniteError
from .event_handler import MAX_EVENTS_AT_ONE_INSTANT, ZENO_GAP
from .kernel import layout as kl
from .kernel import loaded
from .signals import stacked
from .solvers import STIFF_METHOD, StiffnessWarning

__all__ = ["simulate_batch", "elementwise", "BatchResult"]

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


class BatchView:
    """Some variants of the batch at once (``idx``, their global indices; None: every variant): their
    batched systems, held inputs and modes, from which the controllers' signals and the recorder
    evaluate outputs and coupled inputs."""

    def __init__(self, batch, idx=None):
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

    @classmethod
    def assembled(cls, batch, idx, systems, U, modes) -> "BatchView":
        """A view of the variants ``idx`` (global indices) from their parts as given: the batched systems
        of those variants, their held inputs and their modes."""
        new = object.__new__(cls)
        new.batch, new.idx, new.m = batch, idx, len(idx)
        new.systems, new.U, new.modes = systems, U, modes
        new.couplings = [c for s in systems for c in s.couplings(systems)] if batch.coupled else []
        return new

    def inputs(self, t, Y):
        xs = [Y[sl] for sl in self.batch.slices]
        if self.couplings:
            us = [u.copy() for u in self.U]
            for c in self.couplings:
                c.apply(t, self.systems, xs, us, self.modes)
            return xs, us
        return xs, self.U

    def outputs(self, k, t, Y):
        xs, us = self.inputs(t, Y)
        return self.systems[k].outputs(t, xs[k], us[k], self.modes[k])


class _Batch:
    """One batch run: the variants' state, the tick loop of :func:`simulate_batch`, and the compiled
    kernel's run of every variant between ticks."""

    def __init__(self, systems, controllers, params, n, t0_ns, x0, inputs, rtol, atol, max_step, record,
                 loops_in_kernel=True):
        from .batch_parts import variants_of  # (numba loads with the first batch, not with simcore)
        from .compiled_run import CompiledRun, disabling_battery_beside_a_tank
        from .dopri5 import check_tableau

        changed = check_tableau()
        if changed is not None:  # (a serial run then takes the Python path; a batch has none)
            raise IntegrationError(f"simulate_batch steps with scipy's RK45 tableau as the compiled kernel reads it, "
                                   f"and the installed scipy's differs: {changed}", t0_ns / NS_PER_S)

        self.params = params
        self.n, self.rtol, self.atol, self.max_step, self.record = n, rtol, atol, max_step, record
        self.controllers = controllers
        forms = [s.kernel_form() if callable(getattr(s, "kernel_form", None)) else None for s in systems]
        for s, form in zip(systems, forms):
            if form is None or not hasattr(s, "kernel_parameters"):
                refusal = s.kernel_refusal() if callable(getattr(s, "kernel_refusal", None)) else None
                raise ConfigTypeError("systems", s, f"a system that can batch (a Flywheel, Arm, Elevator, HubMotor, "
                                                    f"ServoMechanism, TankDrive, MecanumDrive, SwerveDrive, "
                                                    f"CharacterizedTankDrive or Battery, not a subclass that changes "
                                                    f"its physics); {type(s).__name__} {s.name!r} cannot batch"
                                                    + (f": it has {refusal}" if refusal else ""))
        if disabling_battery_beside_a_tank(forms):
            battery = next(s for s in systems if getattr(s, "brownout_behaviour", None) == "disable")
            raise ConfigTypeError("systems", battery, f"a Battery with brownout_behaviour='flag' beside a drivetrain: "
                                                      f"battery {battery.name!r} disables the outputs, which a batch "
                                                      f"models for geared mechanisms only (simulate runs it)")
        self.systems = [variants_of(s, form, params.get(s.name, {}), n) for s, form in zip(systems, forms)]
        self.bcontrollers = []
        for c in controllers:
            make = getattr(c, "batched", None)
            if make is None:
                raise ConfigTypeError("controllers", c, f"a controller that can batch; controller {c.name!r} cannot "
                                                        "(a plain PeriodicController runs one variant's Python: use "
                                                        "control_loop, or simcore.batch.elementwise for a function "
                                                        "written element-wise)")
            self.bcontrollers.append(make(params.get(c.name, {}), n))
        self.slices, self.nx, self.signal_index = stacked(self.systems)
        self.state_owner = [(k, f"{s.name}.{nm}") for k, s in enumerate(self.systems) for nm in s.state_names]
        self.coupled_names = {}  # inputs solved continuously (a battery's bus) -> the system that solves them
        for s in self.systems:
            for c in s.couplings(self.systems):
                for name in c.targets:
                    self.coupled_names[name] = s.name
        self.coupled = bool(self.coupled_names)
        self.kinds = [(k, j, ev) for k, s in enumerate(self.systems) for j, ev in enumerate(s.events)]
        # Per system and mode: whether a guard armed in that mode reads the held inputs (then a tick's writes
        # may make it jump across zero: the kernel fires what they trigger, for the variants in such modes).
        self.mode_reads_inputs = [
            np.logical_or.reduce([ev.active for ev in s.events if ev.reads_inputs] + [np.zeros(len(s.MODES), bool)])
            for s in self.systems]

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
        self.modes = [np.zeros(n, dtype=np.int16) for _ in self.systems]
        self.T = np.full(n, self.t)  # each variant's time (the recorder's last rows)
        self.started = [False] * len(controllers)
        self.n_steps = np.zeros(n, dtype=np.int64)
        self.stiff_at = np.full(n, np.nan)  # when each variant was found stiff (nan: not)
        self.n_stiff = 0
        self.every = np.arange(n, dtype=np.int32)  # every variant's index, as the recorder keeps them (never written)
        self.res = BatchResult._recorder(self)

        # The kernel's run of the variants, each with its own parameters.
        loops = self._kernel_loops() if loops_in_kernel else None
        self._cr = CompiledRun([(s.kind, s.P, s.MODES) for s in self.systems], self.slices,
                               [len(s.input_names) for s in self.systems], n, rtol=rtol, atol=atol, max_step=max_step,
                               method="RK45", keep_steps=record == "all", loops=loops)
        # Whether the loops may tick in the kernel (a disabling battery's held-back commands tick in Python).
        self._loops_in_kernel = loops is not None and self._cr.brownout_part is None
        # The kernel's (part, event id) -> this batch's event kind (self.kinds).
        self._kind_of = {(k, ev.kernel_id): e for e, (k, j, ev) in enumerate(self.kinds)}
        self._jump_fired = None

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
        if (type(value) is np.ndarray and value.dtype == np.float64 and value.shape == (self.n,)
                and np.isfinite(value).all()):
            v = value.copy()  # what _column returns for it, without the labels; a copy: the controller may reuse it
        else:
            v = self._column(f"{who}[{name!r}]", value, self._unit(name))
        s = self.systems[kind[1]]
        rng = s.input_ranges.get(s.input_names[kind[2]])
        if rng is not None and not ((v >= rng[0]).all() and (v <= rng[1]).all()):
            j = int(np.flatnonzero((v < rng[0]) | (v > rng[1]))[0])
            raise ConfigError(f"{who}[{name!r}][{j}]", v[j], f"a value in [{rng[0]}, {rng[1]}] (variant {j}, "
                                                             f"at t={self.t!r} s)")
        self.U[kind[1]][kind[2]] = self._command_kept(kind[1], kind[2], v)
        return v

    def _command_kept(self, k, i, v):
        """``v`` written to input ``i`` of system ``k``, except where it is a motor command of a variant whose
        outputs a battery holds off and ``v`` is exactly ``-0.0`` (the battery's neutral marker): as in a
        serial run, that writes nothing new, and the command held back comes back at the recovery."""
        cr = getattr(self, "_cr", None)
        b = None if cr is None else cr.brownout_part
        if b is None or i != 0:
            return v
        from .kernel import battery as kb
        from .kernel.parts import KIND_GEARED

        if self.systems[k].kind != KIND_GEARED:  # (a geared part's command is its first input)
            return v

        keep = (v == 0.0) & np.signbit(v) & (self.modes[b] == kb.MODE_BROWNED_OUT)
        return np.where(keep, self.U[k][i], v) if keep.any() else v

    # -- modes ------------------------------------------------------------------------------
    def _settle_modes(self):
        view = BatchView(self, None)
        xs, us = view.inputs(self.t, self.Y)
        for k, s in enumerate(self.systems):
            try:
                self.modes[k] = np.asarray(s.initial_mode(self.t, xs[k], us[k]), dtype=np.int16)
            except ConfigError as exc:
                self._blame_x0(k, xs, us, exc)
                raise
        b = self._cr.brownout_part
        if b is not None:  # the outputs of a battery browned out at the start went off then
            from .kernel.battery import MODE_BROWNED_OUT

            self._cr.U[:, self._cr.n_u] = np.where(self.modes[b] == MODE_BROWNED_OUT, self.t, np.nan)
            self.systems[b].start_time = self.t

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
        before = None if initial else self._inputs_now()
        ran = self._tick_controllers(t, due)
        self.res.tick(t, ran)
        if initial:
            return
        fired = self._input_jumps(t, before)
        self.res.tick_rows(self.every if fired is None else np.flatnonzero(~fired).astype(np.int32), t, self.Y,
                           self.modes)

    def _tick_controllers(self, t, due) -> list:
        """Run the controllers ``due`` at ``t`` (vectorized), writing their inputs; ``[(name, written)]``."""
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
                logged[name] = self._write(name, value, f"controller {c.name!r}")
            signals.invalidate()
            ran.append((c.name, logged))
        return ran

    # -- between the kernel and the batch --------------------------------------------------------
    def _load(self) -> None:
        """The variants' states, held inputs, modes and time into the kernel's run."""
        cr = self._cr
        cr.X[:] = self.Y.T
        cr.U[:, :cr.n_u] = self._inputs_now()  # (a disabling battery's run state after them stays the kernel's)
        for k, m in enumerate(self.modes):
            cr.modes[:, k] = m
        cr.RS[:, kl.S_T] = self.t

    def _inputs_now(self) -> np.ndarray:
        """The held inputs, (N, n_inputs), in the kernel's stacked order."""
        rows = [row for rows in self.U for row in rows]
        out = np.empty((self.n, len(rows)))
        for i, r in enumerate(rows):
            out[:, i] = r
        return out

    def _store(self) -> None:
        """The kernel's states, modes, step counts and stiffness findings back into the batch."""
        cr = self._cr
        self.Y = np.ascontiguousarray(cr.X.T)
        self.modes = [cr.modes[:, k].astype(np.int16) for k in range(len(self.systems))]
        self.n_steps = cr.RS[:, kl.S_NSTEPS].astype(np.int64)
        warned = cr.RS[:, kl.RS_WARN_T]
        new = ~np.isnan(warned) & np.isnan(self.stiff_at)
        if new.any():
            self.stiff_at[new] = warned[new]
            self.n_stiff += int(new.sum())

    def _drain(self, n_rows, n_events, epoch_of_count=None) -> None:
        """The kernel's buffered rows and events into the recorder: one block per row position (each
        block holds at most one row of a variant, in the variants' order, as the recorder keeps them);
        with ``epoch_of_count`` (loops ticking in the kernel: the epoch after each count of the kernel's
        ticks), one block of every row, each with its epoch."""
        cr, res, n = self._cr, self.res, self.n
        n_sys = len(self.systems)
        rows_m = cr.ROWS_M
        base = res.counts.copy() if cr.brownout_part is not None else None  # rows before this drain
        if epoch_of_count is not None and n_rows.max():
            # Every buffered row, variant by variant (simcore.kernel.rows); the epochs, one per row, as narrow as they
            # fit, and the rows' modes as narrow as their codes fit.
            narrow = lambda top: np.uint16 if top < 2 ** 16 else np.int64  # noqa: E731
            codes = rows_m[:, :, :n_sys]
            wide = n_sys and (codes.min() < np.iinfo(np.int8).min or codes.max() > np.iinfo(np.int8).max)
            total = int(n_rows.sum())
            t, X = np.empty(total), np.empty((cr.ROWS_Y.shape[2], total))
            modes = np.empty((n_sys, total), dtype=np.int16 if wide else np.int8)
            epochs = np.empty(total, dtype=narrow(len(res.epochs) + len(epoch_of_count)))
            gather = functools.partial(loaded("rows").gather_rows, n_rows=n_rows, ROWS_T=cr.ROWS_T, ROWS_Y=cr.ROWS_Y,
                                       ROWS_M=rows_m, epoch_of_count=epoch_of_count, t=t, X=X, modes=modes,
                                       epochs=epochs)
            _on_threads(gather, n_rows)
            res.rows(n_rows, t, X, modes, local=True, copy=False, epochs=epochs)
            n_rows = n_rows * 0
        for r in range(int(n_rows.max())):
            idx = np.flatnonzero(n_rows > r)
            modes = []
            for k in range(n_sys):
                m = np.zeros(n, dtype=np.int16)
                m[idx] = rows_m[idx, r, k]
                modes.append(m)
            res.rows(idx.astype(np.int32), cr.ROWS_T[idx, r].copy(), np.ascontiguousarray(cr.ROWS_Y[idx, r].T),
                     modes, local=True, copy=False)
        for r in range(int(n_events.max())):
            idx = np.flatnonzero(n_events > r)
            rec = cr.EVR_F[idx, r]
            keys = rec[:, [kl.E_PART, kl.E_ID, kl.E_AT_TICK]].astype(np.int64)
            for key in np.unique(keys, axis=0):
                sel = np.flatnonzero((keys == key).all(axis=1))
                k, ev_id, at_tick = (int(v) for v in key)
                sl = self.slices[k]
                nx = sl.stop - sl.start
                res.event(self._kind_of[(k, ev_id)], idx[sel], rec[sel, kl.E_T].copy(),
                          cr.EVR_X[idx[sel], r, 0, :nx].T.copy(), cr.EVR_X[idx[sel], r, 1, :nx].T.copy(),
                          rec[sel, kl.E_MODE_BEFORE].astype(np.int16), rec[sel, kl.E_MODE_AFTER].astype(np.int16),
                          bool(at_tick))
                if k == cr.brownout_part:  # from the row after it, when the outputs went off (its modes' names)
                    from .kernel.battery import MODE_BROWNED_OUT

                    off = np.where(rec[sel, kl.E_MODE_AFTER] == MODE_BROWNED_OUT, rec[sel, kl.E_T], np.nan)
                    res.brownout_rows.append((idx[sel], base[idx[sel]] + rec[sel, kl.E_ROW].astype(np.int64), off))
        self._jump_fired = n_events > 0

    def _check(self, status) -> None:
        """Raise the error of the first variant the kernel stopped with a failure (as its own simulate would)."""
        bad = np.flatnonzero((status != kl.DONE) & (status != kl.PAUSE))
        if not len(bad):
            return
        j = int(bad[0])
        RS = self._cr.RS[j]
        s = int(status[j])
        t_bad = float(RS[kl.S_BAD_T])
        if s == kl.STEP_TOO_SMALL:
            raise IntegrationError(f"RK45 solver failed for variant {j}: Required step size is less than spacing "
                                   "between numbers.", float(RS[kl.S_T]))
        if s == kl.NONFINITE_STATE:
            raise IntegrationError(f"the state of variant {j} became non-finite", t_bad)
        if s == kl.ZENO:
            k, ev_id = divmod(int(RS[kl.RS_ZENO_EVENT]), kl.N_EVENTS)
            raise IntegrationError(f"variant {j}: more than {MAX_EVENTS_AT_ONE_INSTANT} events each within "
                                   f"{ZENO_GAP:g} s (relative) of the last: the events accumulate (Zeno); last: "
                                   f"{self.systems[k].name}:{self.kinds[self._kind_of[(k, ev_id)]][2].name}", t_bad)
        if s in (kl.NONFINITE_DERIVATIVE, kl.NONFINITE_GUARD):
            self._raise_nonfinite(j, s, t_bad)
        raise IntegrationError(f"variant {j}: the compiled kernel stopped with status {s}", float(RS[kl.S_T]))

    def _raise_nonfinite(self, j, status, t_bad):
        """The named error of a non-finite derivative or guard of variant ``j`` (evaluated again here)."""
        from .kernel import parts

        cr = self._cr
        x = cr.BAD_X[j].copy()
        if status == kl.NONFINITE_DERIVATIVE:
            d = np.empty_like(x)
            parts.derivatives(cr.table, cr.P[j], cr.U[j], cr.modes[j], t_bad, x, d)
            i = int(np.flatnonzero(~np.isfinite(d))[0]) if (~np.isfinite(d)).any() else 0
            _, name = self.state_owner[i]
            raise NonFiniteError("derivative of", f"{name} (variant {j})", d[i], t_bad)
        a = cr.ACTIVE[j, int(cr.RS[j, kl.S_BAD_INDEX])]
        k = int(a[kl.A_PART])
        name = self.kinds[self._kind_of[(k, int(a[kl.A_ID]))]][2].name
        raise NonFiniteError("guard", f"{self.systems[k].name}:{name} (variant {j})", float("nan"), t_bad)

    def _integrate(self, t_end):
        self._load()
        status = self._cr.advance(t_end, self._drain)
        self._check(status)
        self._store()
        self.T[:] = t_end

    def _input_jumps(self, t, before):
        """Fire, in the kernel, the events the tick's writes trigger (``before``: the held inputs before
        them); returns which variants fired one (None: no variant is in a mode where a guard reads the
        inputs)."""
        reading = np.zeros(self.n, dtype=bool)
        for k, m in enumerate(self.modes):
            reading |= self.mode_reads_inputs[k][m]
        if not reading.any():
            return None
        self._load()
        self._jump_fired = np.zeros(self.n, dtype=bool)
        before = np.concatenate([before, self._cr.U[:, self._cr.n_u:]], axis=1)  # with the run state
        status = self._cr.input_jumps(t, before, self._drain, np.flatnonzero(reading))
        self._check(status)
        self._store()
        return self._jump_fired

    def stiffness_warning(self) -> str | None:
        """The message of the run's StiffnessWarning: the variants found stiff, when each was first;
        None if none was."""
        if not self.n_stiff:
            return None
        ids = np.flatnonzero(~np.isnan(self.stiff_at))
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
        for i, (t_ns, due) in enumerate(schedule + [(t_end_ns, None)]):
            if self._loops_in_kernel and all(self.started) and self._compiled_ticks(t_end_ns, schedule[i:]):
                break
            if t_ns > self.t_ns:
                self._integrate(t_ns / NS_PER_S)
                self.t_ns, self.t = t_ns, t_ns / NS_PER_S
            if due is not None:
                self._run_ticks(t_ns, due)
        return self.res.result()

    # -- the loops ticking in the kernel (simcore.kernel.ticks) ---------------------------------------------
    def _kernel_loops(self):
        """``(CT, parameters, n_cs)`` for the kernel's run when every controller is a loop the kernel can tick
        (as for a serial run, :func:`simcore.engine._kernel_loops`: a ``control_loop`` around its own
        PIDController, with a constant setpoint, measuring a state and commanding an input no coupling
        drives), else None: the loops tick in Python, on arrays. The parameters are placeholders: each
        variant's are set when the kernel's ticks start (:meth:`_loop_numbers`)."""
        from .controllers.batched import BatchedControlLoop
        from .kernel import pid as kp
        from .kernel import ticks as kt

        cs = self.controllers
        specs = [getattr(c, "kernel_loop", None) for c in cs]
        # (a batch ticks PID loops alone in the kernel: a swerve module loop ticks in Python, on arrays)
        if not cs or any(s is None or s.kind != "pid" or not s.unchanged(c) for s, c in zip(specs, cs)) \
                or len({id(s.pid) for s in specs}) < len(specs) \
                or not all(type(bc) is BatchedControlLoop and bc.pid is not None for bc in self.bcontrollers):
            return None
        u_first = np.cumsum([0] + [len(s.input_names) for s in self.systems])
        CT = np.zeros((len(cs), kt.N_LOOP_FIELDS), dtype=np.int64)
        for c, (ctl, spec) in enumerate(zip(cs, specs)):
            measured, commanded = self.signal_index.get(spec.measure), self.signal_index.get(spec.command)
            if measured is None or measured[0] != "x" or commanded is None or commanded[0] != "u" \
                    or spec.command in self.coupled_names:
                return None  # (the Python ticks check the names and raise where they are wrong)
            CT[c] = kt.loop_row("pid", spec.flags, self.t_ns + ctl.offset_ns, ctl.period_ns, [measured[2]],
                                [u_first[commanded[1]] + commanded[2]], c * kt.N_PID_LOOP_PARAMETERS,
                                c * kp.N_PID_STATE)
        return CT, np.zeros(len(cs) * kt.N_PID_LOOP_PARAMETERS), len(cs) * kp.N_PID_STATE

    def _loop_numbers(self, t):
        """Each loop's ``(parameters (N, N_PID_LOOP_PARAMETERS), state (N, N_PID_STATE))`` when the kernel's ticks
        start at ``t``: its controller's rows, its setpoint, its feedforward there, its output limits and the
        range of the input it commands (:mod:`simcore.kernel.ticks`); None when one holds what the kernel cannot
        run (a setpoint or feedforward neither one number nor one per variant)."""
        n, out = self.n, []
        signals = BatchSignals(self, t)
        for bc in self.bcontrollers:
            rows = bc.pid.kernel_rows(n)
            r = bc.setpoint if bc.setpoint is not None else bc.reference(t)
            ff = bc.feedforward(t, r, signals) if bc.feedforward is not None else 0.0
            if rows is None or not all(_per_variant(v, n) for v in (r, ff)):
                return None
            _, k, i = self.signal_index[bc.command]
            s = self.systems[k]
            lo, hi = s.input_ranges.get(s.input_names[i], (-math.inf, math.inf))
            limits = bc.limits if bc.limits is not None else (-math.inf, math.inf)
            extra = np.empty((n, 6))
            extra[:, 0], extra[:, 1] = r, ff
            extra[:, 2:] = (limits[0], limits[1], float(lo), float(hi))
            out.append((np.concatenate([rows[0], extra], axis=1), rows[1]))
        return out

    def _compiled_ticks(self, t_end_ns, schedule) -> bool:
        """Run every variant to ``t_end_ns`` with its loops ticking in the kernel at the instants of ``schedule``
        (``[(t_ns, due)]``, those still to come), recording what the Python ticks record. Returns False, with
        nothing changed, where a loop holds what the kernel cannot run (the Python ticks run it). Raises
        :class:`_KernelStopped` where the kernel stopped a variant (a write refused, a failure): the run is
        then made again with the loops ticking in Python, which raise the error the variant's own run raises,
        at the tick it raises it (the first variant's, at the first such tick, as the Python ticks find it)."""
        from .kernel import pid as kp
        from .kernel import ticks as kt

        cr, res, n = self._cr, self.res, self.n
        numbers = self._loop_numbers(self.t)
        if numbers is None:
            self._loops_in_kernel = False
            return False
        CT = cr.CT
        for c, (params, state) in enumerate(numbers):
            po, so = int(CT[c, kt.C_P]), int(CT[c, kt.C_S])
            cr.P[:, po:po + params.shape[1]] = params
            cr.CS[:, so:so + state.shape[1]] = state
            cr.TICKS[:, c] = len(res.ticks[self.controllers[c].name])
        self._load()
        cr.RS[:, kl.RS_T_NS], cr.RS[:, kl.RS_TARGET_NS], cr.RS[:, kl.RS_N_TICKS] = self.t_ns, t_end_ns, 0
        # The writes to come, in order (instant by instant, each due loop in order): their values fill one row of
        # W each, for every variant; a row's tick count (writes before it) tells its epoch.
        n_writes = sum(len(due) for _, due in schedule)
        W = np.empty((n_writes, n))
        done = np.zeros(n, dtype=np.int64)  # each variant's writes so far
        base = len(res.epochs) - 1
        epoch_of_count = np.zeros(n_writes + 1, dtype=np.int64)
        epoch_of_count[np.cumsum([len(due) for _, due in schedule], dtype=np.int64)] = np.arange(1, len(schedule) + 1)
        epoch_of_count += base

        def drain(n_rows, n_events, n_ticks):
            for v0 in range(0, n, 4096):  # (a few variants at a time: the index arrays stay small)
                v, r = np.nonzero(np.arange(cr.TICK_ROWS.shape[1])[None, :] < n_ticks[v0:v0 + 4096, None])
                v += v0
                W[done[v] + r, v] = cr.TICK_ROWS[v, r, 2]
            done[:] += n_ticks
            self._drain(n_rows, n_events, epoch_of_count)

        first_block = len(res.blocks)
        status = cr.advance_ticking(drain)
        if (status != kl.DONE).any():
            raise _KernelStopped
        self._store()
        for c, bc in enumerate(self.bcontrollers):
            so = int(CT[c, kt.C_S])
            bc.pid.store_kernel_rows(cr.CS[:, so:so + kp.N_PID_STATE].copy())
        at = 0
        for t_ns, due in schedule:  # each instant's epoch: the inputs the loops wrote there (rows of W)
            ran = []
            for c in due:
                _, k, i = self.signal_index[self.bcontrollers[c].command]
                self.U[k][i] = W[at]
                ran.append((self.controllers[c].name, {self.bcontrollers[c].command: W[at]}))
                at += 1
            res.tick(t_ns / NS_PER_S, ran)
        res.kernel_ticks(base + 1, np.array([t_ns / NS_PER_S for t_ns, _ in schedule]), first_block)
        self.t_ns, self.t = t_end_ns, t_end_ns / NS_PER_S
        self.T[:] = self.t
        return True


def _on_threads(gather, n_rows) -> None:
    """``gather(v0, v1, j0)`` over every variant, in a few pieces on the kernel's threads when there are many rows
    (``j0``: the rows of the variants before ``v0``; the pieces write disjoint parts of the block, and filling
    fresh memory, most of a gather's time, then runs on every core too)."""
    from .compiled_run import _pool, usable_cores

    n, cores = len(n_rows), usable_cores()
    if cores == 1 or n < 2 * _GATHER_PIECE_VARIANTS:
        gather(v0=0, v1=n, j0=0)
        return
    starts = np.concatenate([[0], np.cumsum(n_rows)])
    bounds = np.linspace(0, n, 2 * cores + 1).astype(np.int64)
    futures = [_pool().submit(gather, v0=int(a), v1=int(b), j0=int(starts[a])) for a, b in zip(bounds, bounds[1:])]
    for f in futures:
        f.result()


#: Fewer variants than twice this are gathered on the calling thread.
_GATHER_PIECE_VARIANTS = 512


class _KernelStopped(Exception):
    """The kernel stopped a variant while its loops ticked there (:meth:`_Batch._compiled_ticks`)."""


def _per_variant(value, n) -> bool:
    """Whether ``value`` is one real number, or one per variant (shape (n,))."""
    shape = np.shape(value)
    return (shape == () or shape == (n,)) and np.issubdtype(np.asarray(value).dtype, np.number) \
        and not np.issubdtype(np.asarray(value).dtype, np.complexfloating)


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
                    self._coupled = BatchView(b).inputs(self.t, b.Y)[1]
                return self._coupled[k][i].copy()
            return b.U[k][i].copy()
        if k not in self._outputs:
            self._outputs[k] = BatchView(b).outputs(k, self.t, b.Y)
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
        of the same length ``N`` (e.g. ``{"arm.mass": masses, "pid.kp": gains}``). A model's are
        its ``BATCH_PARAMETERS`` (see its ``kernel_parameters``), a loop's those of
        :mod:`simcore.controllers.batched`.
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
    args = (systems, controllers, routed, n, t0_ns, x0, inputs, float(rtol), float(atol), float(max_step), record)
    try:
        batch = _Batch(*args)
        result = batch.run(t_end_ns)
    except _KernelStopped:  # (the loops ticked in the kernel: the Python ticks raise the error where they meet it)
        batch = _Batch(*args, loops_in_kernel=False)
        result = batch.run(t_end_ns)
    message = batch.stiffness_warning()
    if message is not None:
        warnings.warn(message, StiffnessWarning, stacklevel=2)
    return result
