"""Op modes: robot code run as a simcore periodic controller.

Two styles, as in the FTC SDK:

* :func:`linear_opmode` (``LinearOpMode``): the robot code is a Python
  *generator function*. Each ``yield`` ends one loop iteration, so the SDK idiom
  ``while (motor.isBusy()) { idle(); }`` becomes ``while motor.isBusy(): yield``.
  ``t = yield`` receives the time of the tick that resumes it (s), and
  ``yield 0.5`` sleeps: the code resumes at the first tick at least 0.5 s later
  (the SDK's ``sleep(500)``). When the generator returns, the op mode does
  nothing more.
* :func:`iterative_opmode` (``OpMode``): ``init()`` once at the first tick,
  ``init_loop()`` at every tick before ``start_time``, ``start()`` then ``loop()``
  at the first tick at or after ``start_time``, ``loop()`` at every tick after,
  and ``stop()`` once at the first tick at or after ``stop_time``. Give an
  object (for instance a subclass of :class:`OpMode`) with those methods, or the
  methods as keywords.

Both return a :class:`simcore.PeriodicController` whose ``fn`` writes no input
itself: the DcMotorEx calls change the hub's registers, and the hub's firmware
controller applies them at its next pass. List the op mode *before*
``hub.controllers()`` so that a command is seen by the firmware in the same tick.
Pass ``hubs=[hub, ...]`` so that reads made before the firmware's first pass
(the op mode's first tick) see the signals too.

An exception raised by robot code propagates with its own type (the engine adds
the simulation time), as it would end the op mode on a robot.

While robot code runs, its thread's robot clock (:mod:`simcore.controllers.hub.timing`)
reads the tick's time, so ``ElapsedTime`` works in both styles; hardware reads
cost no time here (the loop period paces the op mode). For robot code written as
the Java reads, without ``yield``, see :mod:`simcore.controllers.hub.linear`.
"""
from __future__ import annotations

import math
import numbers
import types
from typing import Callable, Iterable, Optional

from simcore.controller import PeriodicController
from simcore.errors import ConfigError, ConfigTypeError

from .motor import Hub, check_hub_names
from .timing import RobotClock, set_robot_clock

__all__ = ["linear_opmode", "iterative_opmode", "OpMode", "LinearOpModeRunner", "IterativeOpModeRunner"]

_EPS = 1e-9  # s; ticks are whole nanoseconds


def _check_hubs(hubs) -> tuple:
    hubs = tuple(hubs or ())
    for h in hubs:
        if not hasattr(h, "observe"):
            raise ConfigTypeError("hubs", h, "Hub objects (or other devices with observe(signals), an IMU)")
    check_hub_names([h for h in hubs if isinstance(h, Hub)])
    for h in hubs:  # a hub whose last Java-style run ended is configured for this one
        if hasattr(h, "begin_run"):
            h.begin_run()
    return hubs


class _RobotClockAt:
    """Context manager: the calling thread's robot clock reads tick ``t`` while robot code runs."""

    def __init__(self, clock: RobotClock, t: float):
        clock.now_ns = round(t * 1e9)
        self.clock = clock

    def __enter__(self):
        self.previous = set_robot_clock(self.clock)

    def __exit__(self, *exc):
        set_robot_clock(self.previous)


class LinearOpModeRunner:
    """The ``fn`` of a linear op mode's controller; ``started``/``finished`` tell its state."""

    def __init__(self, generator_fn: Callable, hubs: tuple, stop_time: Optional[float]):
        self.generator_fn = generator_fn
        self.hubs = hubs
        self.stop_time = stop_time
        self.generator = None
        self.started = False
        self.finished = False
        self._wake = None
        self.clock = RobotClock()

    def __call__(self, t: float, signals):
        for h in self.hubs:
            h.observe(signals)
        if self.finished:
            return None
        stopping = self.stop_time is not None and t >= self.stop_time - _EPS
        if not stopping and self._wake is not None and t < self._wake - _EPS:
            return None  # asleep: no robot code runs at this tick
        with _RobotClockAt(self.clock, t):
            return self._step(t, stopping)

    def _step(self, t: float, stopping: bool):
        if stopping:
            if self.generator is not None:
                self.generator.close()
            self.finished = True
            return None
        try:
            if not self.started:
                self.started = True
                self.clock.init_ns = self.clock.now_ns
                self.generator = self.generator_fn()
                if not isinstance(self.generator, types.GeneratorType):
                    raise TypeError(f"linear_opmode: {self.generator_fn!r} returned {self.generator!r}, "
                                    "not a generator (robot code must yield once per loop)")
                value = next(self.generator)
            else:
                value = self.generator.send(t)
        except StopIteration:
            self.finished = True
            return None
        except BaseException:
            self.finished = True
            raise
        if value is None:
            self._wake = None
        elif isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            self._wake = t + float(value)
        else:
            self.finished = True
            self.generator.close()
            raise TypeError(f"robot code yielded {value!r}: yield nothing (one loop) or a sleep time in s (>= 0)")
        return None


def linear_opmode(generator_fn: Callable, *, period, name: Optional[str] = None, offset=0.0,
                  hubs: Iterable = (), stop_time: Optional[float] = None) -> PeriodicController:
    """Run a generator function as a LinearOpMode.

    Parameters
    ----------
    generator_fn : callable
        Called with no argument at the first tick; must return a generator.
    period : float or Quantity
        Loop period, s (the time one ``yield`` takes).
    name : str, optional
        Controller name (defaults to the function's name).
    offset : float
        Delay of the first tick, s.
    hubs : iterable of Hub
        Hubs to hand the signals to at every tick (see the module docstring).
    stop_time : float, optional
        Simulation time, s, at which the op mode is stopped (the generator is
        closed, so ``finally:`` blocks run).

    Returns
    -------
    simcore.PeriodicController
        Its ``fn`` is a :class:`LinearOpModeRunner`.
    """
    if not callable(generator_fn):
        raise ConfigTypeError("generator_fn", generator_fn, "a generator function (robot code that yields)")
    if stop_time is not None and not (isinstance(stop_time, numbers.Real) and math.isfinite(stop_time)):
        raise ConfigError("stop_time", stop_time, "a finite time in s or None")
    if stop_time is not None and isinstance(offset, numbers.Real) and not stop_time > offset:
        raise ConfigError("stop_time", stop_time, f"a time after the op mode's start, offset={offset!r} s "
                                                  "(None: no STOP)")
    runner = LinearOpModeRunner(generator_fn, _check_hubs(hubs), stop_time)
    if name is None:
        name = getattr(generator_fn, "__name__", None) or "linear_opmode"
    return PeriodicController(period, runner, name=name, offset=offset)


class OpMode:
    """Base class for iterative op modes (the SDK's ``OpMode``): override what you need.

    ``time`` is the simulation time, s, of the current tick minus the time of the
    first tick (as the SDK's ``time`` field, seconds since the op mode was
    initialised); ``getRuntime()`` returns it.
    """

    time: float = 0.0

    def init(self):
        """Once, at the first tick."""

    def init_loop(self):
        """Every tick before ``start_time``."""

    def start(self):
        """Once, at the first tick at or after ``start_time``, before ``loop()``."""

    def loop(self):
        """Every tick from ``start_time`` on."""

    def stop(self):
        """Once, at ``stop_time``."""

    def getRuntime(self) -> float:
        """Seconds since the op mode was initialised (simulation time)."""
        return self.time

    def resetRuntime(self) -> None:
        """Restart :meth:`getRuntime` from zero at the current tick."""
        self._runtime_zero = getattr(self, "_runtime_zero", 0.0) + self.time
        self.time = 0.0


class IterativeOpModeRunner:
    """The ``fn`` of an iterative op mode's controller; ``phase`` is
    ``"new"``, ``"init"``, ``"running"`` or ``"stopped"``."""

    def __init__(self, methods: dict, target, hubs: tuple, start_time: float, stop_time: Optional[float]):
        self.methods = methods
        self.target = target
        self.hubs = hubs
        self.start_time = start_time
        self.stop_time = stop_time
        self.phase = "new"
        self._t_init = None
        self.clock = RobotClock()

    def _call(self, which):
        fn = self.methods.get(which)
        if fn is not None:
            fn()

    def __call__(self, t: float, signals):
        for h in self.hubs:
            h.observe(signals)
        if self.phase == "stopped":
            return None
        with _RobotClockAt(self.clock, t):
            return self._step(t)

    def _step(self, t: float):
        if self._t_init is None:
            self._t_init = t
            self.clock.init_ns = self.clock.now_ns
        if isinstance(self.target, OpMode):
            self.target.time = t - self._t_init - getattr(self.target, "_runtime_zero", 0.0)
        if self.stop_time is not None and t >= self.stop_time - _EPS:
            self.phase = "stopped"
            self._call("stop")
            return None
        if self.phase == "new":
            self.phase = "init"
            self._call("init")
        elif self.phase == "init":
            if t >= self.start_time - _EPS:
                self.phase = "running"
                self._call("start")
                self._call("loop")
            else:
                self._call("init_loop")
        else:
            self._call("loop")
        return None


def iterative_opmode(opmode=None, *, period, init=None, init_loop=None, start=None, loop=None, stop=None,
                     start_time: float = 0.0, stop_time: Optional[float] = None, name: Optional[str] = None,
                     offset=0.0, hubs: Iterable = ()) -> PeriodicController:
    """Run an iterative OpMode (``init``/``init_loop``/``start``/``loop``/``stop``).

    Parameters
    ----------
    opmode : object, optional
        An object with any of the methods ``init``, ``init_loop``, ``start``,
        ``loop``, ``stop`` (no arguments), e.g. an :class:`OpMode` subclass.
    period : float or Quantity
        Loop period, s.
    init, init_loop, start, loop, stop : callable, optional
        The methods as functions of no argument (override the object's).
    start_time : float
        Simulation time, s, at which "play" is pressed (default 0: ``start()``
        and the first ``loop()`` run at the second tick, after ``init()``).
    stop_time : float, optional
        Simulation time, s, at which ``stop()`` runs; nothing runs after it.
    name, offset, hubs
        As :func:`linear_opmode`.
    """
    methods = {}
    for key in ("init", "init_loop", "start", "loop", "stop"):
        fn = locals()[key]
        if fn is None and opmode is not None:
            fn = getattr(opmode, key, None)
        if fn is not None and not callable(fn):
            raise ConfigTypeError(key, fn, "a callable of no argument")
        methods[key] = fn
    if not any(methods.values()):
        raise ConfigError("opmode", opmode, "an object with init/loop/... methods, or those methods as keywords")
    for key, v in (("start_time", start_time), ("stop_time", stop_time)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)):
            raise ConfigError(key, v, "a finite time in s")
    if stop_time is not None and not stop_time > start_time:
        raise ConfigError("stop_time", stop_time, f"a time after start_time={start_time!r} s (STOP comes after "
                                                  "PLAY; None: no STOP)")
    runner = IterativeOpModeRunner(methods, opmode, _check_hubs(hubs), float(start_time), stop_time)
    if name is None:
        name = type(opmode).__name__ if opmode is not None else "iterative_opmode"
    return PeriodicController(period, runner, name=name, offset=offset)
