"""The integration loop: continuous systems, periodic zero-order-hold controllers, state events.

Engine loop (what :class:`Simulator` does; ``simulate`` runs it to ``t_end``)::

    t = t0; x = x0; u = initial inputs
    loop:
        run every controller due at t (in the order given), each seeing x(t-)
            and the inputs written by those before it; update the held u
        fire the events whose guards changed sign across that update of u
        t_next = min(next tick, t_end)
        integrate (t, t_next] with u held, in segments:
            start the current method's solver at (t, x) (an explicit Runge-Kutta
                solver is moved there with the step size it last proposed)
            after each accepted solver step: count it for the stiffness switch
            (method="auto"); evaluate every guard; on a sign change locate the
            earliest root on the dense output (Brent, 1e-13 s), and fire it and
            every other event located at that instant: record the state before,
            apply reset and mode switch, record the state after; the segment
            ends there (a terminal event ends the run), each fired guard placed
            on the side its motion is heading (see simcore.events); events
            accumulating within 1e-12 s raise (Zeno)
            a segment also ends where "auto" switches method
            keep the segment's rows only once it completes (an exception leaves
            the simulator at the segment's start, ready to integrate it again)
        t = t_next
        stop after the ticks at t_end

Tick times are integer nanoseconds (:class:`simcore.clock.TickSchedule`); every
integration interval ends exactly on the next tick, so the solver never steps
across one and the held input is a true step. The concepts live beside this
module: the signal layout and the right-hand side in :mod:`simcore.signals`, the
event search in :mod:`simcore.event_handler`, the scipy solvers and the stiffness
switch in :mod:`simcore.solvers`, what is kept in :mod:`simcore.recorder`.

Recorded rows (``record="all"``, see :class:`~simcore.result.Result`): every
accepted step; at each tick the row before the controllers ran (old inputs) and
the row after; at each event the row before and the row after the reset.
``record=`` can keep less (:mod:`simcore.recorder`).
"""
from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping
from itertools import repeat
from typing import Iterable, Sequence

import numpy as np

from . import checks
from .clock import NS_PER_S, TickSchedule, to_ns
from .controller import PeriodicController, checked_writes, note_controller_error
from .errors import ConfigError, ConfigTypeError, IntegrationError, NonFiniteError
from .event_handler import EVENT_INTERIOR_POINTS, MAX_EVENTS_AT_ONE_INSTANT, EventHandler, zeno_error
from .events import KEEP_MODE, EventRecord
from .protocols import check_simulation
from .recorder import Recorder, check_record
from .result import Result
from .signals import SignalLayout, Signals, annotate, checked_values, with_time
from .solvers import METHOD_NAMES, METHODS, STIFF_HINT, Integrator, checked_settings
from .kernel import layout as _kl
from .system import System, check_system

__all__ = ["Simulator", "simulate", "METHODS", "METHOD_NAMES", "EVENT_INTERIOR_POINTS",
           "MAX_EVENTS_AT_ONE_INSTANT", "USE_KERNEL"]

#: The kernel's guards that read the held inputs (a write can move only these across zero).
_READS_INPUTS = _kl.GUARDS_READING_INPUTS

#: What :meth:`Simulator._compiled_store` reads of the kernel's run state: its counts (steps, segments, events,
#: dropped rows), then what the integrator carries (step size, stiffness counts).
_CARRIED = np.array([_kl.S_NSTEPS, _kl.RS_N_SEGMENTS, _kl.RS_N_EVENTS, _kl.S_DROPPED, _kl.S_H, _kl.S_STIFF, _kl.S_CALM])

#: More rows than this from one kernel call are recorded as a block (:meth:`simcore.recorder.Recorder.rows_block`).
_ROWS_AS_BLOCK = 8

#: Whether runs made only of built-in parts integrate in the compiled kernel (False: every run takes
#: the Python path; the results are the same, the tests compare the two).
USE_KERNEL = True


def _compiled_run(simulator):
    """The simulation's compiled run (:mod:`simcore.compiled_run`), or None: the kernel, and numba, load
    only for a simulation of built-in parts with a kernel form, no couplings but those the kernel solves (a
    battery's bus), stepped by RK45 or "auto"."""
    lay = simulator._layout
    if (not all(getattr(c, "in_kernel", False) for c in lay.couplings) or simulator.method not in ("auto", "RK45")
            or not all(callable(getattr(s, "kernel_form", None)) for s in simulator.systems)):
        return None
    from .compiled_run import CompiledRun, kernel_forms

    forms = kernel_forms(simulator.systems)
    if forms is None:
        return None
    return CompiledRun(forms, lay.slices, [len(u) for u in lay.U], 1, rtol=simulator.rtol, atol=simulator.atol,
                       max_step=simulator.max_step, method=simulator.method,
                       keep_steps=simulator._rec.keeps_steps, loops=_kernel_loops(simulator))


def _kernel_tickable(simulator) -> list:
    """The indices of the controllers that can tick in the kernel (:mod:`simcore.kernel.ticks`), in the order
    given: loops with a ``kernel_loop`` measuring states and commanding inputs no coupling drives, each
    holding a state (a PIDController, a swerve module's target) no other such loop holds (the kernel keeps
    a state per loop; two loops sharing one update it tick by tick, in Python). The others tick in Python
    (the Python path checks the names and raises where they are wrong)."""
    lay, controllers = simulator._layout, simulator.controllers
    loops = [i for i, c in enumerate(controllers) if getattr(c, "kernel_loop", None) is not None]
    holders = Counter(id(h) for i in loops for h in controllers[i].kernel_loop.holders)
    tickable = []
    for i in loops:
        spec = controllers[i].kernel_loop
        kinds = [lay.index.get(name, ("",))[0] for name in spec.measured] + \
            [lay.index.get(name, ("",))[0] if name not in lay.coupled else "" for name in spec.commanded]
        if all(holders[id(h)] == 1 for h in spec.holders) \
                and kinds == ["x"] * len(spec.measured) + ["u"] * len(spec.commanded):
            tickable.append(i)
    return tickable


def _kernel_loops(simulator):
    """``(CT, parameters, n_cs)`` for :class:`~simcore.compiled_run.CompiledRun` when a controller can tick in
    the kernel (``simulator._in_kernel``, :func:`_kernel_tickable`), else None (every controller ticks in
    Python): a row of the loop table per controller, in their order, those ticking in Python of kind
    ``LOOP_PYTHON`` (the kernel stops at their ticks)."""
    from .kernel import ticks as kt

    lay, controllers, tickable = simulator._layout, simulator.controllers, simulator._in_kernel
    if not tickable:
        return None
    u_first = np.cumsum([0] + [len(u) for u in lay.U])
    CT = np.array([kt.python_row(simulator._t0_ns + ctl.offset_ns, ctl.period_ns) for ctl in controllers])
    n_p = n_s = 0
    for i in tickable:
        ctl = controllers[i]
        spec = ctl.kernel_loop
        measured = [lay.index[name][2] for name in spec.measured]  # (a state's index is the stacked one)
        commanded = [u_first[lay.index[name][1]] + lay.index[name][2] for name in spec.commanded]
        CT[i] = kt.loop_row(spec.kind, spec.flags, simulator._t0_ns + ctl.offset_ns, ctl.period_ns, measured,
                            commanded, n_p, n_s)
        n_p += kt.LOOP_KINDS[spec.kind][1]
        n_s += kt.LOOP_KINDS[spec.kind][2]
    return CT, np.zeros(n_p), n_s


def _stage_coupled_rows(cr, lay, stage, U, T, Y, M, n_rows) -> None:
    """Stage the kernel's rows of a coupled run (a battery's bus) with their coupled inputs, solved for every
    row at once by the kernel's bus solve (:func:`simcore.kernel.parts.couple_rows`, the coupling the run
    itself used) in the row's modes ``M`` and held inputs ``U`` (one set for every row, or one per row); the
    simulation's held inputs are left as the last row's solve leaves them, as the coupling applied row by row
    does."""
    from .kernel.parts import couple_rows

    rows_u = np.repeat(U[None, :], n_rows, axis=0) if U.ndim == 1 else np.array(U, dtype=float)
    couple_rows(cr.table, np.repeat(cr.P[:1], n_rows, axis=0), rows_u,
                np.ascontiguousarray(cr.ROWS_M[0, :n_rows, :-1]), np.array(T), Y)  # (without the tick count)
    M = M.tolist() if isinstance(M, np.ndarray) else list(M)
    if M.count(M[0]) == n_rows:  # one set of modes (no event): its names once
        names = repeat(tuple(cr.mode_name(k, c) for k, c in enumerate(M[0])), n_rows)
    else:
        names_of = {}
        names = []
        for key in map(tuple, M):
            got = names_of.get(key)
            if got is None:
                got = names_of[key] = tuple(cr.mode_name(k, c) for k, c in enumerate(key))
            names.append(got)
    # (each row its own snapshot of inputs, its bus; staged by a loop in C)
    deque(map(stage, zip(T, Y, zip(rows_u, names))), maxlen=0)
    off = 0
    for u in lay.U:
        u[...] = rows_u[-1, off:off + len(u)]
        off += len(u)


class Simulator:
    """A simulation that can be advanced from outside.

    Parameters
    ----------
    systems : System or sequence of System
        The mechanisms simulated together; names must be unique.
    controllers : sequence of PeriodicController
        Run at their ticks in this order.
    t0 : float or Quantity
        Start time, s (resolved to whole nanoseconds).
    x0 : mapping of str to float or Quantity, optional
        Initial states by ``"system.state"``, overriding ``initial_state()``; a
        Quantity is converted to the state's unit.
    inputs : mapping of str to float or Quantity, optional
        Initial held inputs by ``"system.input"``, overriding ``initial_inputs()``.
    method : str
        ``"auto"`` (default: RK45, switching to Radau over stiff stretches and back,
        see :mod:`simcore.solvers`) or one of :data:`METHODS`.
    rtol, atol : float
        Solver tolerances (relative, in (2.22e-14, 1), that is above 100 machine
        epsilons, where scipy would raise it silently; absolute in each state's SI
        unit). They bound the error the solver estimates on each step, as in
        ``solve_ivp``; the error over a run is typically a few to ten times ``rtol``
        for the explicit Runge-Kutta methods. LSODA and BDF restart at first order
        after every tick (the held input jumps), so with a fast controller they are
        less accurate for a given tolerance than without one.
    max_step : float or Quantity, optional
        Largest solver step, s (at least 1 ns).
    record : {"all", "ticks", "none"} or float
        What the result keeps (:mod:`simcore.recorder`): every step, the rows at
        ticks and events only, nothing but the present state (with each
        controller's latest tick and the events), or a rolling window of that many
        seconds (at least 1 ns).

    Notes
    -----
    ``advance(dt)`` integrates to ``t + dt`` and runs every controller due in
    ``(t, t + dt]`` (and those at ``t0`` on the first call), so advancing in
    chunks that end on ticks gives bit-identically the trajectory of one
    :func:`simulate` call. The engine owns each system's ``mode`` while it runs.
    A system's parameters (masses, gearings, a battery's resistance, current limits)
    are fixed for the life of a simulator: what changes between two ``advance``
    calls goes through ``set_inputs``. Changing a parameter in between is not
    supported: the models and the battery's bus keep values derived from the
    parameters for the run (so the change may take effect late, partly or not at
    all), and the result computes its recorded rows' outputs when first read, from
    whatever the models hold then; start a new simulator from the state reached
    (``x0``) instead.
    An exception raised inside ``advance`` (by model or robot code, or a
    KeyboardInterrupt) leaves the simulator at the last completed segment or tick
    (with loops ticking in the compiled kernel: at the end of the last buffer of rows
    it kept): advancing again integrates the interrupted stretch afresh and gives the
    rows an uninterrupted run gives.
    """

    def __init__(self, systems, controllers: Sequence[PeriodicController] = (), *, t0=0.0,
                 x0: Mapping | None = None, inputs: Mapping | None = None, method: str = "auto",
                 rtol: float = 1e-8, atol: float = 1e-10, max_step=None, record="all"):
        systems = checks.one_or_many("systems", systems, System)
        self._check_systems(systems)
        controllers = [] if controllers is None else checks.one_or_many("controllers", controllers,
                                                                         PeriodicController)
        cnames = [c.name for c in controllers]
        if len(set(cnames)) != len(cnames):
            raise ConfigError("controllers", cnames, "controllers with distinct names (tick logs are kept by name)")
        method, rtol, atol, max_step = checked_settings(method, rtol, atol, max_step)
        for pname, v in (("x0", x0), ("inputs", inputs)):
            if v is not None and not isinstance(v, Mapping):
                raise ConfigTypeError(pname, v, "a mapping {'system.signal': value}")

        self.systems = systems
        self.controllers = controllers
        self.method, self.rtol, self.atol, self.max_step = method, rtol, atol, max_step
        self.record = check_record(record)
        self._t0_ns = to_ns("t0", t0)
        self._t_ns = self._t0_ns
        self.t = self._t0_ns / NS_PER_S

        self._layout = lay = SignalLayout(systems)
        X = lay.initial_state()
        lay.set_initial_inputs()
        for name, value in (x0 or {}).items():
            lay.set_state(X, name, value)
        for name, value in (inputs or {}).items():
            lay.write_input(name, value, "inputs", self.t)
        self._X = X

        self._rhs, rhs_floats, self._nfev = lay.make_rhs()
        self._integrator = Integrator(method, self._rhs, self.rtol, self.atol, self.max_step, lay.n_states,
                                      rhs_floats=rhs_floats)
        self._events = EventHandler(lay, self._rhs)
        self._schedule = TickSchedule(self._t0_ns, controllers)
        self._rec = Recorder(self.record, cnames)
        self._ran_once = [False] * len(controllers)  # on_start runs before a controller's first tick
        self._writers = [f"controller {c.name!r}" for c in controllers]  # (who wrote an input, in its errors)
        self._kernel_handed_over = False
        self._kernel_counted = (0, 0, 0, 0)  # the kernel's steps, segments, events, dropped rows already counted
        self._kernel_uncounted = False  # whether the kernel ran since they were
        self._pending_tick = None  # a tick interrupted by an exception: [t_ns, active, g_before, ran]
        self._started = False
        self._terminated = False
        self._signals = Signals(self)
        self._stats = {"n_steps": 0, "n_segments": 0, "n_ticks": 0, "n_events": 0}
        # The controllers whose ticks the kernel can run (the others tick in Python at theirs).
        self._in_kernel = _kernel_tickable(self)
        # Built-in parts only: the RK45 stretches, events included, run in the compiled kernel.
        self._compiled = _compiled_run(self) if USE_KERNEL else None
        self._sink = self._make_sink() if self._compiled is not None else None
        # Whether a loop may ever tick in the kernel (else _ticks_in_kernel is not asked at every tick).
        self._kernel_has_loops = self._compiled is not None and len(self._compiled.CT) > 0
        self._loaded_modes = None  # the kernel's modes as last loaded or stored, when they are the systems'
        self._reads_inputs = {}  # per modes: whether an armed guard reads the held inputs
        # (t, X, modes, inputs) where the kernel last found every armed guard finite, or None.
        self._guards_finite_at = None
        self._events_at_load = None  # the kernel's count of events when it was last loaded
        self._kernel_loops_refused = set()  # loops holding what the kernel cannot tick (arrays)

    @staticmethod
    def _check_systems(systems) -> None:
        """Everything checked of the systems when a simulation is built (one place)."""
        if not systems:
            raise ConfigError("systems", systems, "at least one System")
        for s in systems:
            check_system(s)
        names = [s.name for s in systems]
        if len(set(names)) != len(names):
            raise ConfigError("systems", names, "systems with distinct names")
        check_simulation(systems)  # what the battery and the field view need of each (simcore.protocols)

    # -- signals -------------------------------------------------------------------------------------------
    @property
    def signals(self) -> Signals:
        """Live mapping of every ``"system.signal"`` at the current time."""
        return self._signals

    @property
    def terminated(self) -> bool:
        """True once a terminal event has ended the run."""
        return self._terminated

    def set_inputs(self, mapping: Mapping[str, float]) -> None:
        """Write held inputs from outside the loop (held until written again).

        Values are floats or pint Quantities (converted to the input's unit). Like a
        controller's write at a tick: a guard that changes sign because of it fires
        at the current time (a block resting on a stop is released when the push
        reverses), and the result gets a row before and after the write.
        """
        if not isinstance(mapping, Mapping):
            raise ConfigTypeError("set_inputs", mapping, "a mapping {'system.input': value}")
        lay = self._layout
        # Every value is checked before any is written: a refused call applies nothing.
        writes = [lay.checked_input(name, value, "set_inputs", self.t) for name, value in mapping.items()]
        if not self._started or self._terminated:
            lay.write_inputs(writes)
            return
        ev, rec, t = self._events, self._rec, self.t
        if self._kernel_on():
            active, g_before = None, self._compiled_inputs()  # the kernel compares its guards itself
        else:
            active = ev.active_events()
            g_before = ev.guards(active, t, self._X, "tick")
        before = []
        try:
            if rec.last_t() != t:
                rec.row(t, self._X, lay.held(t, self._X))  # the row before the write (usually the interval's last)
            before = lay.write_inputs(writes)
            self._after_writes(active, g_before, t)
        except BaseException:
            rec.rollback()
            lay.write_inputs(before)  # not applied: calling again sees the same jump and its events
            raise

    def _after_writes(self, active, g_before, t) -> None:
        """Fire the events the inputs just written trigger, record the row after, keep the rows.

        On an exception (in a reset, say) the staged rows are dropped and the modes put
        back, so the same jump can be handled again.
        """
        if self._kernel_on():
            self._compiled_input_jumps(g_before, t)
            return
        rec = self._rec
        modes = self._modes() if active else None  # without events nothing below changes a mode
        n_events = self._stats["n_events"]
        try:
            self._X, fired = self._events.fire_input_jumps(active, g_before, t, self._X, self._fire)
            if not fired:
                rec.row(t, self._X, self._layout.held(t, self._X))
        except BaseException:
            rec.rollback()
            if modes is not None:
                self._restore_modes(modes)
            self._stats["n_events"], self._terminated = n_events, False
            raise
        rec.commit(t)

    def _modes(self) -> list:
        return [s.mode for s in self.systems]

    def _restore_modes(self, modes) -> None:
        for s, m in zip(self.systems, modes):
            s.mode = m
        self._layout.modes_changed()

    # -- events ---------------------------------------------------------------------------------------------
    def _fire(self, k, event, t, X, at_tick=False):
        """Apply ``event`` of system ``k`` at ``t``: record before/after, return the new stacked state."""
        lay, rec = self._layout, self._rec
        s = self.systems[k]
        sl = lay.slices[k]
        rec.row(t, X, lay.held(t, X))
        x_before = X[sl].copy()
        mode_before = s.mode
        if lay.couplings:
            lay.apply_couplings(t, X)
        X = X.copy()
        if event.reset is not None:
            try:
                xn = event.reset(t, x_before.copy(), lay.U[k])
            except NonFiniteError as exc:
                raise with_time(exc, t) from None
            except Exception as exc:
                annotate(exc, t, f"in the reset of {s.name}:{event.name}", "event")
                raise
            xn = checked_values(f"the reset of {s.name}:{event.name} at t={float(t)!r} s", s.state_names, xn)
            if not all(math.isfinite(v) for v in xn):
                raise NonFiniteError("reset state of", f"{s.name}:{event.name}", xn, float(t))
            X[sl] = xn
        if event.mode is not KEEP_MODE:
            try:
                s.mode = event.mode(t, X[sl], lay.U[k]) if callable(event.mode) else event.mode
            except NonFiniteError as exc:
                raise with_time(exc, t) from None
            lay.modes_changed()
        rec.event(EventRecord(t, event.name, s.name, x_before, X[sl].copy(), mode_before, s.mode, at_tick))
        self._stats["n_events"] += 1
        rec.row(t, X, lay.held(t, X))
        if event.terminal:
            self._terminated = True
        return X

    # -- ticks ----------------------------------------------------------------------------------------------
    def _run_ticks(self, t_ns: int, *, initial: bool = False) -> None:
        """Run every controller due at ``t_ns`` (in order), then the events the input jump triggers.

        With ``initial`` (the ticks at t0) no event is checked and nothing is
        recorded: the caller settles the initial modes, then records. A tick
        interrupted by a controller's exception resumes with that controller.
        """
        t = t_ns / NS_PER_S
        lay, ev, rec, sched = self._layout, self._events, self._rec, self._schedule
        pend = self._pending_tick
        if pend is None or pend[0] != t_ns:
            if self._kernel_on() and not initial:  # the kernel compares the guards before and after the writes
                # (the layout's snapshot of the inputs is a copy, made anew after a write)
                u_before = self._compiled_inputs() if lay.couplings else lay.held(t, self._X)[0]
                pend = self._pending_tick = [t_ns, None, u_before, False]
            else:
                active = [] if initial else ev.active_events()
                pend = self._pending_tick = [t_ns, active, ev.guards_before_writes(active, t, self._X), False]
        _, active, g_before, _ = pend
        for i in sched.due(t_ns):
            c = self.controllers[i]
            try:
                if not self._ran_once[i]:
                    if c.on_start is not None:
                        c.on_start(t, self._signals)
                    self._ran_once[i] = True
                written = c.fn(t, self._signals)
            except Exception as exc:
                note_controller_error(exc, c.name, t, "tick")
                raise
            written = checked_writes(c.name, written)
            if written:
                lay.write_each(written, self._writers[i], t)
            sched.done(i)
            self._stats["n_ticks"] += 1
            rec.tick(c.name, t, dict(written))
            pend[3] = True
        if pend[3] and not initial:
            self._after_writes(active, g_before, t)
        self._pending_tick = None  # only now: an exception above leaves the tick's events to fire again

    # -- integration ------------------------------------------------------------------------------------
    def _settle_modes(self) -> None:
        lay = self._layout
        if lay.couplings:
            lay.apply_couplings(self.t, self._X)
        for k, s in enumerate(self.systems):
            try:
                s.mode = s.initial_mode(self.t, self._X[lay.slices[k]].copy(), lay.U[k].copy())
            except NonFiniteError as exc:
                raise with_time(exc, self.t) from None
        lay.modes_changed()

    def _start(self) -> None:
        """Record the initial row, run the controllers due at t0, settle the modes, record again."""
        lay, rec = self._layout, self._rec
        try:
            self._settle_modes()
            rec.row(self.t, self._X, lay.held(self.t, self._X))
            if self._schedule.next_ns() == self._t_ns:
                self._run_ticks(self._t_ns, initial=True)
                self._settle_modes()
                rec.row(self.t, self._X, lay.held(self.t, self._X))
        except BaseException:
            rec.rollback()
            raise
        rec.commit(self.t)
        self._started = True

    def _integrate(self, t_end: float) -> None:
        """Integrate from self.t to t_end with the inputs held, in segments (events, method switches)."""
        while self.t < t_end and not self._terminated:
            if self._kernel_on() and self._integrator.current == "RK45":
                self._compiled_advance(t_end)
            else:
                self._segment(t_end)

    # -- the compiled kernel (simcore.compiled_run) ------------------------------------------------------------
    def _kernel_on(self) -> bool:
        """Whether the kernel runs this simulation's RK45 stretches (until "auto" hands it to Python)."""
        return self._compiled is not None and not self._kernel_handed_over

    def _compiled_inputs(self) -> np.ndarray:
        lay = self._layout
        return np.concatenate(lay.U) if lay.U else np.empty(0)

    def _compiled_load(self, modes=None) -> None:
        """The kernel's variant 0 from the simulation: time, state, held inputs, modes (``modes``: the
        systems' modes, when the caller has them)."""
        cr, lay = self._compiled, self._layout
        # (uncoupled: the snapshot of the held inputs, an array no one writes: kept for _guards_finite_at)
        self._u_loaded = u = self._compiled_inputs() if lay.couplings else lay.held(self.t, self._X)[0]
        try:  # (bytes copied by memoryviews: a few times quicker than numpy's assignment of arrays this small)
            cr.X0_bytes[:] = memoryview(self._X)
            cr.U0_bytes[:] = memoryview(u)
        except (ValueError, TypeError):  # (another layout or type: numpy converts)
            cr.X0[:] = self._X
            cr.U0[:] = u
        if modes is None:
            modes = self._modes()
        if cr.brownout_part is not None:  # the commands a disabling battery holds back (its coupling may have)
            cr.hold_commands(0, self.systems[cr.brownout_part].held_commands())
        if self._loaded_modes is None or modes != self._loaded_modes[0]:  # (an event or a rollback changed them)
            cr.set_modes(0, modes)
            self._loaded_modes = (modes, cr.modes[0].tolist())
        if cr.brownout_part is not None:  # when its outputs went off (NaN: on; set with its mode), for the sink
            self._t_off = cr.t_off(0)
        RS = cr.RS0
        RS[_kl.S_T] = self.t
        self._events_at_load = RS[_kl.RS_N_EVENTS]  # (the sink's: no event since, no mode switched)

    def _make_sink(self):
        """``sink(n_rows, n_events)`` for the kernel's buffers (rows and events to the recorder), made once. A row in the modes the kernel was loaded with
        shares the layout's snapshot of inputs and modes (as the Python path's rows do); a row in other modes
        (after an event) gets a snapshot of those, one per call and modes."""
        cr, rec, lay = self._compiled, self._rec, self._layout
        stage = rec.stager()
        names = [s.name for s in self.systems]
        coupled = bool(lay.couplings)
        disabling = cr.brownout_part is not None  # (a battery that disables the outputs: its run state per row)

        pending = rec.pending_rows()
        ROWS_T, ROWS_Y, ROWS_M = cr.ROWS_T[0], cr.ROWS_Y[0], cr.ROWS_M[0, :, :-1]  # (modes without the tick count)

        RS0, held_now = cr.RS0, lay.held

        def sink(n_rows, n_events):
            T, Y = ROWS_T[:n_rows].tolist(), ROWS_Y[:n_rows].copy()
            if not coupled and not disabling and n_rows and RS0[_kl.RS_N_EVENTS] == self._events_at_load:
                # No event since the kernel was loaded (only an event switches a mode): every row is in the
                # loaded modes, with the held inputs (many rows: kept as one block).
                if n_rows > _ROWS_AS_BLOCK:
                    u, modes = held_now(T[0], Y[0])
                    rec.rows_block(T, Y, u, [modes] * n_rows)
                else:
                    pending.extend(zip(T, Y, repeat(held_now(T[0], Y[0]), n_rows)))
                if n_events:
                    self._sink_events(n_events, names)
                return
            M = ROWS_M[:n_rows].tolist()
            if disabling:
                off, off_before, off_after, self._t_off = cr.brownout_times(0, n_rows, n_events, self._t_off)
            else:
                off, off_before, off_after = None, None, None
            if not coupled and n_rows and M.count(self._loaded_modes[1]) == n_rows:  # every row in the loaded modes
                pending.extend(zip(T, Y, repeat(lay.held(T[0], Y[0]), n_rows)))
                n_rows = 0
            elif coupled and not disabling and n_rows:  # every row's bus in one kernel call
                _stage_coupled_rows(cr, lay, stage, self._compiled_inputs(), T, Y, M, n_rows)
                n_rows = 0
            held_by_modes = {}
            for r in range(n_rows):
                key = tuple(M[r])
                if coupled:  # the coupled inputs (a battery's bus) at the row, solved in the row's modes
                    for k, c in enumerate(key):
                        self.systems[k].mode = cr.mode_name(k, c, off[r]) if disabling else cr.mode_name(k, c)
                    stage((T[r], Y[r], lay.held(T[r], Y[r])))
                    continue
                held = held_by_modes.get(key)
                if held is None:
                    held = held_by_modes[key] = (self._compiled_inputs(),
                                                 tuple(cr.mode_name(k, c) for k, c in enumerate(key)))
                stage((T[r], Y[r], held))
            if n_events:
                self._sink_events(n_events, names, off_before, off_after)

        return sink

    def _sink_events(self, n_events: int, names, off_before=None, off_after=None) -> None:
        """The kernel's first ``n_events`` event records to the recorder (``off_before``, ``off_after``: when a
        disabling battery's outputs went off, before and after each, from :meth:`CompiledRun.brownout_times`)."""
        cr, rec, lay = self._compiled, self._rec, self._layout
        for e in range(n_events):
            t, k, ev_id, mb, ma, at_tick = cr.EVR_F[0, e, :_kl.E_ROW]
            k = int(k)
            nx = lay.slices[k].stop - lay.slices[k].start
            before, after = (math.nan, math.nan) if off_before is None else (off_before[e], off_after[e])
            rec.event(EventRecord(float(t), self.systems[k].kernel_events[int(ev_id)].name, names[k],
                                  cr.EVR_X[0, e, 0, :nx].copy(), cr.EVR_X[0, e, 1, :nx].copy(),
                                  cr.mode_name(k, mb, before), cr.mode_name(k, ma, after), bool(at_tick)))

    def _compiled_store(self) -> None:
        """The simulation from the kernel's variant 0: state, modes (its statistics: :meth:`_kernel_counts_in`)."""
        cr = self._compiled
        self._X = cr.X0.copy()
        loaded = self._loaded_modes
        codes = cr.modes0.tolist()
        if self._layout.couplings or loaded is None or codes != loaded[1]:
            self._modes_from_kernel()  # (an event switched one; a battery's sink set them row by row)
            self._loaded_modes = (self._modes(), codes)
        if cr.brownout_part is not None:
            self.systems[cr.brownout_part].hold_commands(cr.held_commands(0))
        # The statistics and the integrator's carried step wait in the kernel's run state (a rollback restores
        # it with the rest) until read: :meth:`_kernel_counts_in`.
        self._kernel_uncounted = True

    def _kernel_counts_in(self) -> None:
        """Add what the kernel counted since the last call (steps, segments, events, dropped rows) to the
        statistics, and give the integrator the step size and stiffness count the kernel carries: before
        the statistics or the integrator are read (the result, the hand-over to Python)."""
        if not self._kernel_uncounted:
            return
        self._kernel_uncounted = False
        stats, counted = self._stats, self._kernel_counted
        steps, segments, events, dropped, h, stiff, calm = self._compiled.RS0.take(_CARRIED).tolist()  # (one read)
        now = (int(steps), int(segments), int(events), int(dropped))
        if now != counted:
            stats["n_steps"] += now[0] - counted[0]
            stats["n_segments"] += now[1] - counted[1]
            stats["n_events"] += now[2] - counted[2]
            self._rec.dropped["rows"] += now[3] - counted[3]
            self._kernel_counted = now
        self._integrator.kernel_carry(h, stiff, calm, now[1] - counted[1])

    def _modes_from_kernel(self) -> None:
        cr = self._compiled
        for k, s in enumerate(self.systems):
            s.mode = cr.mode_name(k, cr.modes[0, k], cr.t_off(0))
        self._layout.modes_changed()

    def _compiled_advance(self, t_end: float) -> None:
        """Integrate to ``t_end`` in the kernel, events included (what :meth:`_segment` does, many times)."""
        cr, rec = self._compiled, self._rec
        RS = cr.RS0
        X, modes, snap = self._X, self._modes(), cr.snapshot()
        self._compiled_load(modes)
        t_start, n_events = self.t, RS[_kl.RS_N_EVENTS]
        try:
            status = cr.advance_single(t_end, self._sink)
            warn_t = RS[_kl.RS_WARN_T]
            if warn_t == warn_t:  # (not NaN: a forced RK45 found stiff, said once)
                self._integrator.stiffness_warning(warn_t)
                RS[_kl.RS_WARN_T] = math.nan
            if status != _kl.DONE and status != _kl.SWITCH:
                self._compiled_failure(status)
            t_reached = float(RS[_kl.S_T])
            rec.commit(t_reached)
        except BaseException:
            self._compiled_rollback(snap, modes, X)
            raise
        # Kept: only now the statistics and the integrator's carried step (nothing below can fail).
        self._compiled_store()
        self.t = t_reached
        if (status == _kl.DONE and t_start < t_reached and RS[_kl.RS_N_EVENTS] == n_events
                and not self._layout.couplings):
            # Steps only, the last ending here: the kernel found every guard armed in these modes finite at
            # this instant and state with these inputs (a step's end is a guard sample).
            self._guards_finite_at = (t_reached, self._X, modes, self._u_loaded)  # (the inputs loaded: cr.U0's)
        if status == _kl.SWITCH:  # "auto" found the run stiff: its implicit method takes over, in Python
            self._hand_over_to_python()

    # -- the loops ticking in the kernel (simcore.kernel.ticks) ----------------------------------------------
    def _ticks_in_kernel(self) -> bool:
        """Whether the kernel integrates from here with loops ticking in it (until the next tick of a controller
        ticking in Python, where every controller due ticks in Python): at least one loop of ``_in_kernel``
        runs there (:meth:`_loops_in_kernel_now`)."""
        cr = self._compiled
        return (cr is not None and len(cr.CT) > 0 and self._kernel_on()
                and self._integrator.current == "RK45" and self._pending_tick is None
                and cr.brownout_part is None  # (a disabling battery's held-back commands: ticks in Python)
                and bool(self._loops_in_kernel_now()))

    def _loops_in_kernel_now(self) -> list:
        """The loops of ``_in_kernel`` the kernel ticks from here: each has started (its first tick, with its
        ``on_start``, ran in Python), still ticks as :func:`~simcore.controllers.control_loop` made it (not a
        team's own tick or law) and holds numbers, not arrays. The others tick in Python."""
        controllers = self.controllers
        return [c for c in self._in_kernel if self._ran_once[c] and c not in self._kernel_loops_refused
                and getattr(controllers[c], "kernel_loop", None) is not None
                and controllers[c].kernel_loop.unchanged(controllers[c])]

    def _compiled_ticks(self, target_ns: int) -> None:
        """Integrate to ``target_ns`` with the loops ticking in the kernel, the ticks at it included (what
        the loop of :meth:`_run_until_ns` does); stops early where "auto" hands the run to its implicit
        method, at the next tick of a controller ticking in Python (every controller due there then ticks
        in Python), or where a loop's write is refused (that tick is then run in Python, which raises the
        error naming it). The kernel goes on until a buffer of rows fills; each such stretch is kept (recorded, as
        ``record=`` says) before the next, so an exception leaves the simulation at the end of the last
        stretch that completed, as the Python path's leaves it at its last completed tick."""
        from .kernel import ticks as kt

        cr, lay, sched = self._compiled, self._layout, self._schedule
        specs, numbers = {}, {}  # (by the table's rows, which are the controllers')
        for c in self._loops_in_kernel_now():
            spec = self.controllers[c].kernel_loop
            n = spec.numbers(self.t, self._signals)
            if n is None:
                self._kernel_loops_refused.add(c)  # (a controller or setpoint of arrays: it ticks in Python)
            else:
                specs[c], numbers[c] = spec, n
        if not specs:
            return
        CT = cr.CT
        CT[:, kt.C_KIND] = kt.LOOP_PYTHON  # the kernel stops at the ticks of every other controller
        for c, (params, state) in numbers.items():
            CT[c, kt.C_KIND] = kt.LOOP_KINDS[specs[c].kind][0]
            ranges = [float(v) for name in specs[c].commanded
                      for v in lay.input_ranges.get(name, (-math.inf, math.inf))]
            po, so = int(CT[c, kt.C_P]), int(CT[c, kt.C_S])
            cr.P[0, po:po + len(params) + len(ranges)] = params + ranges
            cr.CS[0, so:so + len(state)] = state
        cr.TICKS[0] = sched._k  # (the Python controllers' too: the kernel stops at their next ticks)
        cr.RS[0, _kl.RS_T_NS], cr.RS[0, _kl.RS_TARGET_NS] = self._t_ns, target_ns
        while True:
            status = self._compiled_ticks_stretch(specs, {c: len(n[1]) for c, n in numbers.items()})
            if status != _kl.PAUSE:
                break
        if status == _kl.SWITCH:
            self._hand_over_to_python()

    def _compiled_ticks_stretch(self, specs, state_sizes) -> int:
        """One call of the kernel for :meth:`_compiled_ticks`, kept whole or not at all: returns its status."""
        from .kernel import ticks as kt

        cr, rec, lay, sched = self._compiled, self._rec, self._layout, self._schedule
        X, modes, snap = self._X, self._modes(), cr.snapshot()
        held = [u.copy() for u in lay.U]  # (a coupled run's sink leaves its last row's inputs there)
        self._compiled_load()
        RS, CT = cr.RS[0], cr.CT
        ticked = []
        try:
            status = cr.advance_ticking_single(self._ticking_sink(ticked))
            if not math.isnan(RS[_kl.RS_WARN_T]):
                self._integrator.stiffness_warning(RS[_kl.RS_WARN_T])
                RS[_kl.RS_WARN_T] = math.nan
            if status not in (_kl.DONE, _kl.SWITCH, _kl.TICK_REFUSED, _kl.PAUSE):
                self._compiled_failure(status)
        except BaseException:
            self._compiled_rollback(snap, modes, X)
            for u, before in zip(lay.U, held):
                u[:] = before
            lay.modes_changed()
            raise
        # Kept (nothing below can fail): the ticks' logs and schedule, the held inputs, the loops' states.
        # Each loop's ticks: its writes by the inputs it commands, in their order.
        records = np.concatenate(ticked) if ticked else np.empty((0, 2 + kt.MAX_WRITES))
        for c, spec in specs.items():
            rec.kernel_ticks(self.controllers[c].name, records[records[:, 1] == c], spec.commanded)
        self._stats["n_ticks"] += len(records)
        for c, spec in specs.items():
            sched._k[c] = int(cr.TICKS[0, c])
            sched._next[c] = sched._base[c] + sched._k[c] * sched._period[c]
            so = int(CT[c, kt.C_S])
            spec.store(cr.CS[0, so:so + state_sizes[c]])
        for c, spec in specs.items():  # the commanded inputs only: a coupling's are the Python solve's
            for name, column in zip(spec.commanded, (kt.C_COMMAND, kt.C_COMMAND_2)):
                _, k, i = lay.index[name]
                lay.U[k][i] = cr.U[0, CT[c, column]]
        lay.modes_changed()  # (the held inputs changed: a new snapshot)
        self._compiled_store()
        self._t_ns = int(RS[_kl.RS_T_NS])
        self.t = float(RS[_kl.S_T])
        rec.commit(self.t)
        return status

    def _ticking_sink(self, ticked):
        """``sink(n_rows, n_events, n_ticks)`` of one kernel call of :meth:`_compiled_ticks`: its ticks into
        ``ticked`` (time, loop, value), its rows (each with the inputs held after the ticks before it) and
        events to the recorder."""
        from .kernel import ticks as kt

        cr, rec, lay = self._compiled, self._rec, self._layout
        stage, n_parts = rec.stager(), cr.n_parts
        names = [s.name for s in self.systems]
        coupled = bool(lay.couplings)
        commands = cr.CT[:, [kt.C_COMMAND, kt.C_COMMAND_2]]  # (each loop's commanded inputs; -1: none)
        # The inputs after each count of the kernel's ticks (counted over the run), from the count now.
        held_u = {int(cr.RS[0, _kl.RS_N_TICKS]): cr.U[0].copy()}
        last = [int(cr.RS[0, _kl.RS_N_TICKS])]
        snapshots = {}

        def sink(n_rows, n_events, n_ticks):
            count = last[0]
            U = held_u[count]  # (the inputs after each of this call's ticks, from the count now: one row without)
            if n_ticks:
                records = cr.TICK_ROWS[0, :n_ticks].copy()
                ticked.append(records)
                # The inputs after each of these ticks: each commanded input holds the last value written to it
                # (by whichever loop wrote it last: two loops may command one input), the writes in their order.
                U = np.empty((n_ticks + 1, held_u[count].shape[0]))
                kt.held_after_ticks(held_u[count], commands, records, U)
                held_u[count + n_ticks] = U[n_ticks]
                last[0] = count + n_ticks
            T, Y = cr.ROWS_T[0, :n_rows].tolist(), cr.ROWS_Y[0, :n_rows].copy()
            if coupled and n_rows:  # each row's bus, in its modes with the inputs held there
                M = cr.ROWS_M[0, :n_rows].tolist()
                rows_u = np.array([U[m[n_parts] - count] if n_ticks else U for m in M])
                _stage_coupled_rows(cr, lay, stage, rows_u, T, Y, [m[:n_parts] for m in M], n_rows)
            elif n_rows:
                M = cr.ROWS_M[0, :n_rows]
                if (M[:, :n_parts] == M[0, :n_parts]).all():  # one set of modes (no event): by the tick count alone
                    mode_names = tuple(cr.mode_name(k, m) for k, m in enumerate(M[0, :n_parts].tolist()))
                    # each row's inputs: those after the ticks before it (its tick count, from this call's)
                    rec.rows_block(T, Y, U[M[:, n_parts] - count] if n_ticks else U, [mode_names] * n_rows)
                else:
                    helds = []
                    for key in map(tuple, M.tolist()):
                        held = snapshots.get(key)
                        if held is None:
                            held = snapshots[key] = (U[key[n_parts] - count] if n_ticks else U,
                                                     tuple(cr.mode_name(k, key[k]) for k in range(n_parts)))
                        helds.append(held)
                    rec.pending_rows().extend(zip(T, Y, helds))
            self._sink_events(n_events, names)

        return sink

    def _compiled_input_jumps(self, u_before, t) -> None:
        """:meth:`_after_writes` in the kernel: the events a write triggers, the row after it."""
        cr, rec = self._compiled, self._rec
        modes = self._modes()
        reads = self._reads_inputs.get(tuple(modes))
        if reads is None:
            reads = self._reads_inputs[tuple(modes)] = any(e.kernel_guard in _READS_INPUTS
                                                           for _, e in self._events.active_events())
        if not reads or self._inputs_unchanged_where_guards_finite(u_before, t, modes):
            # No armed guard reads the inputs (a stop's, a velocity's read the state alone), or the writes left
            # them as they were: the write cannot move one across zero. Only the row after the write.
            rec.row(t, self._X, self._layout.held(t, self._X))
            rec.commit(t)
            return
        X, snap = self._X, cr.snapshot()
        self._compiled_load(modes)
        # Uncoupled, the row after the writes is the Python path's own when nothing fires (the kernel then
        # changed nothing of the run: no store); a coupled row's inputs are the kernel's bus solve (its sink).
        quiet_in_kernel = bool(self._layout.couplings)
        RS = cr.RS[0]
        n_events = RS[_kl.RS_N_EVENTS]
        try:
            status = cr.input_jumps_single(t, cr.inputs_before(u_before), self._sink, quiet_in_kernel)
            if status != _kl.DONE:
                self._compiled_failure(status)
            if not quiet_in_kernel and RS[_kl.RS_N_EVENTS] == n_events:
                rec.row(t, X, self._layout.held(t, X))
                rec.commit(t)
                return
            rec.commit(t)
        except BaseException:
            self._compiled_rollback(snap, modes, X)
            raise
        self._compiled_store()

    def _inputs_unchanged_where_guards_finite(self, u_before, t, modes) -> bool:
        """Whether a tick's writes at ``t`` left the inputs bit for bit as they were (``u_before``) where the
        kernel last found every armed guard finite (``_guards_finite_at``: this instant, state, modes and
        inputs). Each guard is then the same number before and after the writes, and finite: the kernel's
        comparison would fire nothing and raise nothing, so it is not called."""
        at = self._guards_finite_at
        if at is None or at[0] != t or at[1] is not self._X or at[2] != modes:
            return False
        u_after = self._layout.held(t, self._X)[0].tobytes()
        return u_after == at[3].tobytes() and u_before.tobytes() == u_after

    def _compiled_rollback(self, snap, modes, X) -> None:
        """Put the simulation and the kernel's run back as they were before a kernel call that raised."""
        self._rec.rollback()
        self._compiled.restore(snap)
        self._loaded_modes = None  # the kernel's modes are the snapshot's again
        self._restore_modes(modes)
        self._X, self._terminated = X, False

    def _compiled_failure(self, status: int) -> None:
        """Raise the error the Python path raises where the kernel stopped (it evaluates the failing
        derivative or guard again, in Python, which names it)."""
        cr = self._compiled
        RS = cr.RS[0]
        t_bad, x_bad = float(RS[_kl.S_BAD_T]), cr.BAD_X[0].copy()
        self._modes_from_kernel()  # the modes the failing evaluation ran in
        if status == _kl.NONFINITE_DERIVATIVE:
            self._rhs(t_bad, x_bad)  # raises NonFiniteError naming the signal
            raise IntegrationError("a derivative became non-finite", t_bad)
        if status == _kl.NONFINITE_GUARD:
            j = int(RS[_kl.S_BAD_INDEX])
            k, ev_id = int(cr.ACTIVE[0, j, _kl.A_PART]), int(cr.ACTIVE[0, j, _kl.A_ID])
            self._events.guards([(k, self.systems[k].kernel_events[ev_id])], t_bad, x_bad)
            raise IntegrationError("a guard became non-finite", t_bad)
        if status == _kl.NONFINITE_STATE:
            raise IntegrationError("the state became non-finite", t_bad)
        if status == _kl.STEP_TOO_SMALL:
            raise IntegrationError(f"{self._integrator.current} solver failed: Required step size is less than "
                                   "spacing between numbers." + STIFF_HINT, float(RS[_kl.S_T]))
        if status == _kl.ZENO:
            k, ev_id = divmod(int(RS[_kl.RS_ZENO_EVENT]), _kl.N_EVENTS)
            raise zeno_error(self.systems[k].name, self.systems[k].kernel_events[ev_id].name, t_bad)
        raise IntegrationError(f"the compiled kernel stopped with status {status}", float(RS[_kl.S_T]))

    def _hand_over_to_python(self) -> None:
        """The rest of the run on the Python path ("auto" switched to its implicit method): the event
        search's state goes to the Python event handler, the method switches."""
        from .event_handler import _Fired

        self._kernel_counts_in()
        cr, ev = self._compiled, self._events
        RS = cr.RS[0]
        objects = [getattr(s, "kernel_events", {}) for s in self.systems]  # (a battery has no events)
        ev.fired_here = [_Fired(int(f[_kl.FD_PART]), objects[int(f[_kl.FD_PART])][int(f[_kl.FD_ID])],
                                float(f[_kl.FD_PRE_SIDE]), cr.X_BEFORE[0].copy(),
                                None if math.isnan(f[_kl.FD_PREV_T]) else float(f[_kl.FD_PREV_T]))
                         for f in cr.FIRED[0, :int(RS[_kl.RS_N_FIRED])]]
        ev.zeno_run = int(RS[_kl.RS_ZENO_RUN])
        ev.last_event_t = None if math.isnan(RS[_kl.RS_LAST_EVENT_T]) else float(RS[_kl.RS_LAST_EVENT_T])
        for target, table in ((ev.event_last_t, cr.LAST_T[0]), (ev.search_from, cr.SEARCH[0])):
            for k, i in zip(*np.nonzero(np.isfinite(table))):
                target[(int(k), id(objects[int(k)][int(i)]))] = float(table[k, i])
        self._integrator.kernel_switch()
        self._kernel_handed_over = True

    def _segment(self, t_end: float) -> None:
        """Integrate from the restart point self.t towards t_end: to t_end, an event or a method switch.

        Nothing of the simulator changes unless the segment completes: on an
        exception its rows, modes, and solver state are put back as they were.
        """
        t, X = self.t, self._X
        integ, ev, rec, lay = self._integrator, self._events, self._rec, self._layout
        stats = self._stats
        snapshot = integ.snapshot()
        modes = self._modes()
        held, keep, stage = lay.held, rec.keeps_steps, rec.stager()
        try:
            solver = integ.start(t, X, t_end)
            stats["n_segments"] += 1
            armed = ev.begin(t, X)
            lists = integ.interior_lists(solver) if armed else None  # one solver per segment: chosen once
            while solver.status == "running":
                t_old = solver.t
                msg = solver.step()
                if solver.status == "failed":
                    raise IntegrationError(f"{integ.current} solver failed: {msg}." + STIFF_HINT, float(solver.t))
                t_new, y_new = solver.t, solver.y
                if not math.isfinite(sum(y_new.tolist())):
                    raise IntegrationError("the state became non-finite", float(t_new))
                stats["n_steps"] += 1
                integ.after_step(solver)
                if armed:
                    hit = ev.step(t_old, t_new, y_new, integ.interior_states(solver), solver.dense_output, lists)
                    if hit is not None:
                        integ.finish(solver)
                        self._X = ev.fire(hit, self._fire)
                        self.t = float(hit[0])
                        rec.commit(self.t)
                        return
                if keep:
                    stage((t_new, y_new, held(t_new, y_new)))
                elif solver.status == "running":
                    rec.skipped_step()
                if integ.switch_now and solver.status == "running":
                    integ.finish(solver)  # "auto" changes method here: a new segment starts at t_new
                    if not keep:
                        rec.row(t_new, y_new, held(t_new, y_new))
                    self._X, self.t = y_new, float(t_new)
                    ev.end_segment(t_new, y_new)
                    rec.commit(t_new)
                    return
            integ.finish(solver)
            self._X = solver.y
            self.t = t_end  # the solver lands exactly on t_bound
            ev.end_segment(t_end, self._X)
            if not keep:
                rec.row(t_end, self._X, held(t_end, self._X))  # the interval's end, for "ticks"
            rec.commit(t_end)
        except BaseException:
            rec.rollback()
            integ.restore(snapshot)
            self._restore_modes(modes)
            self._X, self.t, self._terminated = X, t, False
            raise

    def _run_until_ns(self, target_ns: int, parameter: str = "t_end", value=None) -> None:
        if not self._started:
            self._start()
        if self._terminated:
            raise IntegrationError("the run ended at a terminal event; it cannot be advanced", self.t)
        if target_ns / NS_PER_S < self.t:  # self.t can be past the last tick (an interrupted run stopped at an event)
            raise ConfigError(parameter, target_ns / NS_PER_S if value is None else value,
                              f"an end time not before the current time {self.t!r} s")
        pend = self._pending_tick
        if pend is not None and self._schedule.next_ns() != pend[0]:
            self._run_ticks(pend[0])  # every controller ran; the events of its writes did not complete
            if self._terminated:
                return
        while not self._terminated:
            if self._kernel_has_loops and self._ticks_in_kernel():
                # To the target, unless a Python controller's tick comes first, "auto" hands over or a write
                # is refused.
                self._compiled_ticks(target_ns)
                if self._terminated:
                    return
            nxt = self._schedule.next_ns()
            seg_end_ns = target_ns if nxt is None else min(nxt, target_ns)
            if seg_end_ns > self._t_ns:
                self._integrate(seg_end_ns / NS_PER_S)
                if self._terminated:
                    return
                self._t_ns = seg_end_ns
                self.t = seg_end_ns / NS_PER_S
            if nxt is not None and nxt == seg_end_ns:
                self._run_ticks(seg_end_ns)
                if self._terminated:
                    return
            if seg_end_ns >= target_ns:
                return

    def advance(self, dt) -> "Simulator":
        """Integrate ``dt`` seconds further, running the controllers due in ``(t, t + dt]``.

        On the first call the controllers due at ``t0`` run first.
        """
        dt_ns = to_ns("dt", dt, nonnegative=True)
        self._run_until_ns(self._t_ns + dt_ns, "dt", dt)
        return self

    def run_until(self, t_end) -> "Simulator":
        """Integrate to the absolute time ``t_end`` (s), running the ticks up to and at ``t_end``."""
        self._run_until_ns(to_ns("t_end", t_end))
        return self

    # -- results ----------------------------------------------------------------------------------------
    def result(self) -> Result:
        """Everything recorded so far, as a :class:`~simcore.result.Result`.

        States and inputs are copied in; each system's outputs are computed from the
        recorded rows when one of them is first read. ``stats`` holds the work done
        (``nfev``, ``n_steps``, ``intervals_by_method``: integration segments per
        method, ...); :attr:`Result.dropped` what ``record=`` left out;
        :attr:`Result.records` each controller's ``run_record()``, where it has one.
        """
        if not self._started:
            self._start()
        if self._compiled is not None:
            self._kernel_counts_in()
        integ = self._integrator
        nfev = self._nfev() + (int(self._compiled.RS[0, _kl.S_NFEV]) if self._compiled is not None else 0)
        stats = dict(self._stats, nfev=nfev, njev=integ.njev, nlu=integ.nlu, method=self.method,
                     intervals_by_method=dict(integ.intervals_by_method))
        res = self._rec.result(self._layout, self.t, self._X, stats)
        # A controller that keeps a record of its own (an op mode's telemetry) offers run_record().
        res.records.update((c.name, c.run_record()) for c in self.controllers
                           if callable(getattr(c, "run_record", None)))
        return res


def simulate(systems, t_end, controllers: Iterable[PeriodicController] = (), *, t0=0.0,
             x0: Mapping | None = None, inputs: Mapping | None = None, method: str = "auto",
             rtol: float = 1e-8, atol: float = 1e-10, max_step=None, record="all") -> Result:
    """Simulate ``systems`` from ``t0`` to ``t_end`` under periodic controllers.

    Parameters are those of :class:`Simulator`; ``t_end`` is the final time, s.
    Controllers tick at every ``t0 + offset + k * period <= t_end``, the end
    included. Returns the recorded :class:`~simcore.result.Result`.
    """
    sim = Simulator(systems, controllers, t0=t0, x0=x0, inputs=inputs, method=method, rtol=rtol,
                    atol=atol, max_step=max_step, record=record)
    t_end_ns = to_ns("t_end", t_end)
    if t_end_ns < sim._t0_ns:
        raise ConfigError("t_end", t_end, f"a time >= t0={sim.t!r} s")
    sim._run_until_ns(t_end_ns)
    return sim.result()
