"""Wiring a controller between a measured signal and a commanded input, as a periodic controller.

One line in a notebook::

    pid = PIDController(40.0, 0.0, 1.5, period=0.02)
    loop = control_loop(pid, measure="arm.angle", command="arm.voltage", setpoint=1.0,
                        feedforward=lambda t, r, s: ff.calculate(r, 0.0))
    result = simulate(arm, 3.0, [loop])

The returned :class:`simcore.PeriodicController` ticks at the controller's own
period (``rate`` or ``period`` override it; a mismatch with a controller that
knows its period is an error, since its derivative and integral assume it). At
each tick it reads ``measure``, evaluates the setpoint (a constant or a function
of time), calls ``controller.calculate(measurement, setpoint)``, adds the
feedforward, clamps to ``output_limits`` when given, and writes ``command``.

Each run starts the controller afresh, just before its first tick: any controller
with a ``reset()`` is reset (see :class:`simcore.protocols.Resettable`): a
:class:`~simcore.controllers.PIDController` forgets its integral and error history
from an earlier run, and a :class:`~simcore.controllers.ProfiledPIDController`, whose
``reset`` takes the measurement, restarts its profile from the measured position at
rest, as robot code does in its init. So the same loop object gives the same result
in every simulation it is passed to. A team's own controller gets the same treatment
by having ``reset()``.

A setpoint function that returns NaN or an infinity raises
:class:`~simcore.errors.NonFiniteError` naming the loop and the tick time.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from simcore import PeriodicController, checks, protocols
from simcore.batch_params import is_quantity
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError

from .feedforward import ArmFeedforward, ElevatorFeedforward, SimpleMotorFeedforward
from .bangbang import BangBangController
from .pid import PIDController
from .profile import State
from .profiled_pid import ProfiledPIDController

__all__ = ["control_loop"]


def control_loop(controller, *, measure: str, command: str, setpoint=0.0, rate: float | None = None,
                 period: float | None = None, feedforward: Callable | None = None,
                 output_limits: tuple[float, float] | None = None, name: str | None = None,
                 offset: float = 0.0) -> PeriodicController:
    """A periodic controller that closes a loop from ``measure`` to ``command``.

    Parameters
    ----------
    controller : object with ``calculate(measurement, setpoint)``, or callable ``f(measurement, setpoint)``
        PIDController, ProfiledPIDController (setpoint = goal), BangBangController, ...
    measure : str
        Signal read each tick, ``"system.signal"``.
    command : str
        Input written each tick, ``"system.input"``.
    setpoint : float, pint.Quantity, State or callable ``r(t)``
        Reference (a ProfiledPIDController's goal: also a profile ``State`` or a ``(position, velocity)``
        pair). A number (or what the function returns: plain numbers, not Quantities) is in
        the measured signal's SI unit (rad, m, rad/s, ...). A Quantity (``Q_(30, "deg")``, ``Q_(2, "ft")``) is converted
        to that unit when a run starts, the unit the measured system declares for the signal;
        one of another dimension raises ConfigError then.
    rate : float, optional
        Loop rate, Hz.
    period : float, optional
        Loop period, s (default: ``controller.period``, else 0.02 s).
    feedforward : callable ``ff(t, setpoint, signals) -> float``, or a feedforward object, optional
        Added to the controller's output. A SimpleMotorFeedforward, ElevatorFeedforward or
        ArmFeedforward is evaluated at the setpoint, as WPILib's examples do:
        ``calculate(setpoint)`` (a velocity loop), ``calculate(0)`` (an elevator held
        against gravity), ``calculate(setpoint, 0)`` (an arm at its reference angle); its
        gains can then vary in ``simcore.simulate_batch``.
    output_limits : (float, float), optional
        Clamp of the written command (e.g. ``(-12, 12)`` V), applied as a motor
        controller's configured limits would be.
    name : str, optional
        Tick-log name (default ``"<command> loop"``).
    offset : float
        Delay of the first tick, s.
    """
    calc = protocols.loop_controller(controller)
    reset = protocols.reset_call(controller)
    for pname, v in (("measure", measure), ("command", command)):
        if not isinstance(v, str) or "." not in v:
            raise ConfigError(pname, v, "a signal name 'system.signal'")
    own = getattr(controller, "period", None)
    if rate is not None and period is not None:
        raise ConfigError("rate", rate, "either rate or period, not both")
    if rate is not None:
        period = checks.period_from_rate("rate", rate)
    elif period is not None:
        period = checks.positive("period", period, "s", what="period")
    else:
        period = own if own is not None else 0.02
    if own is not None and abs(own - period) > 1e-12 * max(1.0, own):
        raise ConfigError("rate" if rate is not None else "period", rate if rate is not None else period,
                          f"the controller's own period {own!r} s (its derivative and integral assume it)")
    if output_limits is not None:
        if isinstance(output_limits, (str, bytes)) or not hasattr(output_limits, "__len__") \
                or len(output_limits) != 2:
            raise ConfigError("output_limits", output_limits, "(low, high) with low < high")
        lo, hi = checks.real("output_limits[0]", output_limits[0]), checks.real("output_limits[1]", output_limits[1])
        if not lo < hi:
            raise ConfigError("output_limits", output_limits, "(low, high) with low < high")
        output_limits = (lo, hi)
    offset = checks.duration("offset", offset)
    if isinstance(feedforward, (SimpleMotorFeedforward, ElevatorFeedforward, ArmFeedforward)):
        feedforward = _AtSetpoint(feedforward)
    elif feedforward is not None and not callable(feedforward):
        raise ConfigTypeError("feedforward", feedforward, "None, a callable ff(t, setpoint, signals) or a "
                                                          "feedforward object")
    elif feedforward is not None:
        protocols.check_callable(feedforward, 3, parameter="feedforward", role="a callable ff(t, setpoint, signals)")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ConfigTypeError("name", name, "None (the default name) or a non-empty string")
    name = name or f"{command} loop"
    if callable(setpoint):
        ref = protocols.check_callable(setpoint, 1, parameter="setpoint", role="a number or a function f(t)")
    elif is_quantity(setpoint):
        ref = QuantitySetpoint(setpoint, measure)
    else:
        if isinstance(setpoint, State):  # a profiled controller's goal: the pair its set_goal reads
            if not isinstance(controller, ProfiledPIDController):
                raise ConfigTypeError("setpoint", setpoint, "a number, a Quantity or a function r(t) (a State is a "
                                                            "ProfiledPIDController's goal)")
            setpoint = (setpoint.position, setpoint.velocity)
        constant = checks.finite("setpoint", setpoint, allow_array=True)
        if isinstance(feedforward, _AtSetpoint) and isinstance(controller, ProfiledPIDController) \
                and np.ndim(constant) != 0:
            raise ConfigError("feedforward", feedforward.model, "with a (position, velocity) goal, a function "
                                                                "ff(t, goal, signals): a feedforward object is "
                                                                "evaluated at a number setpoint")
        ref = lambda t: constant  # noqa: E731

    def start(t, signals):
        if isinstance(ref, QuantitySetpoint):
            ref.convert(signals)
        # A controller object reused for a second run starts it as it started the first:
        # no integral or error history from the last run, a profile from the measured state.
        if reset is not None:
            reset(signals[measure])

    def tick(t, signals):
        r = ref(t)
        if callable(setpoint):
            _check_setpoint(r, name, t)
        out = calc(signals[measure], r)
        if feedforward is not None:
            out = out + feedforward(t, r, signals)
        if output_limits is not None:
            out = min(max(out, output_limits[0]), output_limits[1])
        return {command: out}

    loop = PeriodicController(period, tick, name=name, offset=offset, on_start=start)
    spec = {"controller": controller, "measure": measure, "command": command, "reference": ref,
            "setpoint_function": setpoint if callable(setpoint) else None, "feedforward": feedforward,
            "output_limits": output_limits}

    def batched(params, n, xp=None):
        # The same loop for many variants at once (simcore.simulate_batch): controllers/batched.py.
        from .batched import BatchedControlLoop

        return BatchedControlLoop(spec, loop.name, params, n)

    loop.batched = batched
    kernel_loop = _KERNEL_LOOPS.get(type(controller))
    if kernel_loop is not None and not callable(setpoint) \
            and (feedforward is None or isinstance(feedforward, _AtSetpoint)):
        loop.kernel_loop = kernel_loop(controller, measure, command, ref, feedforward, output_limits, tick)
    return loop


class KernelPIDLoop:
    """What :class:`simcore.Simulator` needs to run a loop's ticks inside the compiled kernel
    (:mod:`simcore.kernel.ticks`, a loop around a PIDController with a constant setpoint): its kind and
    flags (by name), the signals it measures and commands, the objects holding its state (two loops
    sharing one tick in Python), its numbers when a stretch of ticks starts (the controller's parameters
    and state, the setpoint, the feedforward at it, the output limits), and where its state goes back after.
    The controller object stays the loop's state between stretches, so its ticks may run in Python or in
    the kernel alike.
    """

    kind = "pid"

    def __init__(self, pid, measure, command, reference, feedforward, output_limits, tick):
        self.pid, self.measure, self.command = pid, measure, command
        self.reference, self.feedforward, self.output_limits = reference, feedforward, output_limits
        self.tick = tick
        self.measured, self.commanded = (measure,), (command,)
        self.flags = ("feedforward",) * (feedforward is not None) + ("limits",) * (output_limits is not None)

    @property
    def holders(self) -> tuple:
        """The objects holding the loop's state (the controller)."""
        return (self.pid,)

    def unchanged(self, loop) -> bool:
        """Whether ``loop`` still ticks as :func:`control_loop` made it: its function is the loop's own and the
        controller's ``calculate`` its class's (a team may wrap either; then the loop ticks in Python)."""
        return loop.fn is self.tick and "calculate" not in vars(self.pid)

    def numbers(self, t: float, signals):
        """``(parameters, state)`` as lists of floats (the controller's own :mod:`simcore.kernel.pid` vectors,
        then the loop's setpoint, feedforward and output limits), or None when the loop holds what the kernel
        cannot run (a controller or a setpoint of arrays)."""
        vectors = self.pid.kernel_vectors()
        r = self.reference(t)
        if vectors is None or _plain(r) is None:
            return None
        written = self._feedforward_and_limits(t, r, signals)
        if written is None:
            return None
        p, s = vectors
        return p.tolist() + [float(r)] + written, s.tolist()

    def _feedforward_and_limits(self, t, r, signals):
        """``[feedforward at the setpoint r, low, high]`` (floats; limits infinite where none are given), or None
        when the feedforward is not one number."""
        ff = self.feedforward(t, r, signals) if self.feedforward is not None else 0.0
        if _plain(ff) is None:
            return None
        lo, hi = self.output_limits if self.output_limits is not None else (-math.inf, math.inf)
        return [float(ff), lo, hi]

    def store(self, state) -> None:
        """The controller's state from the kernel's vector (after a stretch of ticks there)."""
        self.pid.kernel_vectors()[1][:] = state


class KernelProfiledPIDLoop(KernelPIDLoop):
    """:class:`KernelPIDLoop` for a loop around a ProfiledPIDController with a constant goal (a number, the
    position at rest, or a (position, velocity) pair): the kernel's ``profiled_pid`` kind, whose numbers are the
    inner PID's vectors, the profile's parameters and the controller's own state (its last plan, goal and
    setpoint)."""

    kind = "profiled_pid"

    @property
    def holders(self) -> tuple:
        """The objects holding the loop's state: the controller and its inner PIDController (which another loop
        may hold too)."""
        return (self.pid, self.pid.pid)

    def numbers(self, t: float, signals):
        """``(parameters, state)`` as lists of floats (the inner PID's and the profile's parameters, then the
        goal's position and velocity, the feedforward and the output limits; the inner PID's state, then the
        controller's), or None when the loop holds what the kernel cannot run (gains or a goal of arrays)."""
        vectors = self.pid.kernel_vectors()
        r = self.reference(t)
        # (a (position, velocity) pair, as set_goal reads it; control_loop gives a State goal as one)
        goal = (r[0], r[1]) if np.ndim(r) == 1 and len(r) == 2 else (r, 0.0)
        if vectors is None or _plain(goal[0]) is None or _plain(goal[1]) is None:
            return None
        written = self._feedforward_and_limits(t, r, signals)
        if written is None:
            return None
        pid_p, pid_s, profile_p, own = vectors
        return (pid_p.tolist() + profile_p.tolist() + [float(goal[0]), float(goal[1])] + written,
                pid_s.tolist() + own.tolist())

    def store(self, state) -> None:
        """The controller's state (the inner PID's, then its own) from the kernel's vector."""
        _, pid_s, _, own = self.pid.kernel_vectors()
        pid_s[:] = state[:len(pid_s)]
        own[:] = state[len(pid_s):]


class KernelBangBangLoop(KernelPIDLoop):
    """:class:`KernelPIDLoop` for a loop around a BangBangController (whose ``kernel_vectors`` are laid out as a
    PIDController's are, parameters then state): the kernel's ``bangbang`` kind."""

    kind = "bangbang"


#: The loops the kernel can tick, by the type of their controller (exactly: a subclass may change the law).
_KERNEL_LOOPS = {PIDController: KernelPIDLoop, ProfiledPIDController: KernelProfiledPIDLoop,
                 BangBangController: KernelBangBangLoop}


def _plain(value):
    """``value`` as a float when it is a plain real number (a Python or numpy scalar), else None."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    return None


def _check_setpoint(value, loop: str, t: float) -> None:
    """Refuse what a setpoint function returned unless it is finite numbers (a number, an array, a profile
    State). None (a path that forgot to return, which ``calculate(m, None)`` would take as "keep the last
    setpoint") and strings raise ConfigTypeError naming the function and the time; NaN NonFiniteError."""
    if not _finite(value, loop, t):
        raise NonFiniteError("setpoint of", loop, value, t)


def refuse_quantity_setpoint(value, loop: str, t: float) -> None:
    """A setpoint function returns plain numbers: converting a Quantity at every tick would put pint in
    the control loop, and it was read as dimensionless (30 deg on a height was 0.52 m)."""
    if is_quantity(value):
        raise ConfigTypeError(f"the setpoint function of {loop!r} at t={t!r} s returned", value,
                              "a plain number in the measured signal's SI unit (give a constant setpoint as a "
                              "Quantity, or convert once outside the function: q.m_as('m'))")


def _finite(value, loop: str, t: float) -> bool:
    refuse_quantity_setpoint(value, loop, t)
    if value is None or isinstance(value, (str, bytes, bool, complex)):
        raise ConfigTypeError(f"the setpoint function of {loop!r} at t={t!r} s returned", value,
                              "a finite number, an array of numbers or a profile State")
    try:
        return bool(math.isfinite(value))
    except TypeError:
        pass
    try:
        items = list(value)
    except TypeError:
        return True  # not a number at all: the controller's own check names it
    return all([_finite(v, loop, t) for v in items])


class QuantitySetpoint:
    """A constant setpoint given as a pint Quantity, as a loop's reference ``r(t)``.

    The loop learns the measured signal's unit only from the simulation it runs in (the system
    declares it), so the Quantity is converted when each run starts, once: the ticks read a float.
    Its magnitude is checked when the loop is built.
    """

    def __init__(self, quantity, measure: str):
        checks.finite("setpoint", quantity.magnitude, allow_array=True)
        self.quantity, self.measure, self.value = quantity, measure, None

    def convert(self, signals) -> None:
        """Convert to the unit ``signals`` (a run's :class:`~simcore.signals.Signals`) gives ``measure``."""
        unit = signals.unit(self.measure)
        try:
            self.value = checks.finite("setpoint", self.quantity, unit, allow_array=True)
        except ConfigError as exc:
            exc.add_note(f"the loop measures {self.measure!r}, which its system declares in "
                         f"{unit or 'no unit (a dimensionless number)'}")
            raise

    def __call__(self, t):
        return self.value


class _AtSetpoint:
    """A feedforward object as a loop's ``ff(t, setpoint, signals)``: evaluated at the setpoint."""

    def __init__(self, model):
        self.model = model

    def __call__(self, t, setpoint, signals):
        if isinstance(self.model, ArmFeedforward):
            return self.model.calculate(setpoint, 0.0)
        if isinstance(self.model, ElevatorFeedforward):
            return self.model.calculate(0.0)
        return self.model.calculate(setpoint)
