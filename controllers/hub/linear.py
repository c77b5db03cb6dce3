"""Java-style op modes: ``LinearOpMode.runOpMode()`` as teams write it, on its own thread.

Subclass :class:`LinearOpMode`, write ``runOpMode(self)`` as the Java reads
(``self.hardwareMap.get(DcMotorEx, "left_drive")``, ``self.waitForStart()``,
``while self.opModeIsActive() and motor.isBusy(): ...``, ``self.sleep(250)``,
``self.telemetry.addData(...)``), and run it with :func:`run_opmode`, which
returns the controllers to give ``simcore.simulate``. No ``yield``: as in the
SDK, the op mode runs on a thread of its own.

The hand-over (deterministic)
-----------------------------
The op mode's thread and the simulation's never run at the same time. The op
mode is a periodic controller ticking every hub round trip
(``timing.round_trip``, :mod:`simcore.controllers.hub.timing`). At a tick where
it is due, the simulation hands the op mode the turn and waits; the op mode
runs until it does something that takes time on a robot, and hands the turn
back until then:

* a hardware read that sends a command (``getCurrentPosition``, ``getVelocity``,
  ``isBusy`` in RUN_TO_POSITION, ``getCurrent``, ``getTargetPosition``, the IMU:
  which reads send one depends on the hub's bulk-caching mode): resume one round
  trip later (two for an IMU read), with the value the hub had when the read
  was issued;
* ``sleep(ms)``: resume at the first tick at least ``ms`` later (``sleep(0)``:
  the next tick);
* ``waitForStart()``: resume at the first tick at or after ``start_time``
  (no wait once started);
* ``idle()`` (which ``opModeIsActive()`` calls, as in the SDK): resume at the
  next tick, unless the op mode has already handed over since its last
  ``idle()``. On a robot ``idle()`` only yields the processor; here it lets a
  loop that reads no hardware (drive by time, a TeleOp) advance one tick per
  iteration, and costs nothing in a loop whose reads take time already.

So ``while motor.isBusy(): pass`` ends (each ``isBusy`` is a round trip), and two
runs are bit-identical. A loop that does none of these never lets time pass,
so it would hang the simulation: after ``max_lines_without_handover`` lines of
Python (in the op mode's own code, the sample op modes included; simcore's and numba's frames are not
counted, nor the standard library's run under simcore's SDK calls, which run with the counter off when they
cannot reach robot code: :mod:`simcore.controllers.hub.untraced`) without a
hand-over it is stopped with :class:`OpModeStuckError` (an init loop such as
``while not self.isStarted(): ...`` needs an ``idle()`` too). The count uses
``sys.settrace`` on the op mode's thread (a debugger or coverage tool does not
see that thread's lines): each line run counts, and each pass of a loop written on
one line (``while True: pass``) counts as one line too (its frames trace opcodes, as
Python 3.11 reports such a loop's line once).

The run's life
--------------
``runOpMode`` starts at the controller's first tick (INIT pressed at
``t0``); ``start_time`` is when PLAY is pressed; at ``stop_time`` (optional;
30 s after the start for an autonomous) STOP is pressed. As in the SDK, the op
mode goes on: it is woken at that instant from a ``sleep`` or ``waitForStart`` (a
read in progress completes first), ``opModeIsActive()`` returns False and
``isStopRequested()`` True, so the code after ``while opModeIsActive():`` runs;
its writes reach the hub and its telemetry is recorded from the stop instant on.
After STOP, ``sleep`` returns at the next tick (the SDK interrupts the op mode's
thread, which cuts a sleep short) and ``waitForStart`` at once; reads keep their
round trips. The SDK force-stops an op mode that has not ended 900 ms after STOP
(``OpModeInternal.MS_BEFORE_FORCE_STOP_AFTER_STOP_REQUESTED`` in the FTC SDK's
RobotCore; ftc_app issue #709 describes the older 1000 ms watchdog): here, from
:data:`STOP_GRACE_PERIOD` after STOP, its next hand-over ends it (its ``finally``
blocks run) with a ``UserWarning``. When the op mode ends, by returning or by
the stop, every hub gets the SDK's fail-safe (:meth:`Hub.failSafe`: every channel
disabled), and its motors' methods raise
:class:`~simcore.controllers.hub.motor.OpModeEndedError` until a new run. An
exception from robot code propagates from the tick with its own type, the
simulation time noted.

The thread never outlives its run: it ends with the op mode, when the
simulation and the controllers are dropped (garbage collected), when the same
controllers start a new simulation (``on_start``), on
:meth:`OpModeRunner.close`, and after an interrupted tick (KeyboardInterrupt):
an abandoned op mode's next hand-over ends it (its ``finally`` blocks run on its
thread; a new run of the same controllers first waits for the last one to
unwind). It is a daemon thread, so it never holds up the interpreter's exit. So that the waiting thread does not keep
the simulation alive through the hubs, the hubs (and IMUs) of a Java-style op
mode hold the simulation's signals weakly: reading a motor after the run needs
the :class:`simcore.Simulator` kept (``simulate`` drops it; read its Result).
"""
from __future__ import annotations

import dis
import importlib.util
import os
import sys
import threading
import warnings
import weakref
from typing import Callable, Iterable, Mapping, Optional

import simcore
import simcore.controllers
import simcore.models
from simcore import checks
from simcore.controller import PeriodicController
from simcore.errors import ConfigError, ConfigTypeError, SimError

from .gamepad import Gamepad
from .hardware_map import HardwareMap
from .motor import DcMotorEx, Hub, check_hub_names
from .sdk import IllegalArgumentException
from .telemetry import Telemetry, TelemetryLog
from .timing import DEFAULT_TIMING, HubTiming, RobotClock, robot_clock, set_robot_clock
from .untraced import _ROBOT_CODE, register_line_counter, sdk_method, unregister_line_counter

__all__ = ["LinearOpMode", "run_opmode", "OpModeRunner", "OpModeController", "OpModeStuckError",
           "MAX_LINES_WITHOUT_HANDOVER", "STOP_GRACE_PERIOD"]

#: Default bound: lines of the op mode's own Python between two hand-overs before it is declared stuck.
MAX_LINES_WITHOUT_HANDOVER = 1_000_000
#: Simulated s an op mode may run on after STOP before it is ended (the SDK's force stop: 900 ms).
STOP_GRACE_PERIOD = 0.9

_NS_PER_S = 1_000_000_000
#: Wall time, s, to wait for an ended run's thread to unwind before a new run starts.
_JOIN_TIMEOUT = 5.0
def _package_dirs(*names) -> tuple:
    """The folders of the installed packages ``names`` (without importing them), each ending in a separator."""
    dirs = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
            dirs.append(os.path.join(folder, ""))
    return tuple(dirs)


#: Frames of simcore's own code are not counted towards the bound (but the sample op modes are robot code), nor
#: the compiler's: a read in the op mode's thread may be the first use of a compiled kernel function, which numba
#: then compiles or loads from its cache there (millions of lines of numba's Python the first time).
_SIMCORE_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (simcore, simcore.models, simcore.controllers)
                      ) + _package_dirs("numba", "llvmlite")
#: file name -> whether its frames go uncounted (the test above made once per file: the tracer runs at every call).
_UNCOUNTED_FILES: dict = {}


class OpModeStuckError(SimError, RuntimeError):
    """An op mode ran too long without a hardware read, ``sleep``, ``idle`` or ``waitForStart``."""


class _Terminated(BaseException):
    """Raised at an op mode's hand-over once its run is over: unwinds ``runOpMode`` (not an Exception, so
    robot code's ``except Exception`` does not swallow it)."""


class _Stuck(BaseException):
    """Raised by the line counter inside a stuck op mode."""


def _release(lock: threading.Lock) -> None:
    """Release ``lock`` if it is held (teardown paths may find it released already)."""
    try:
        lock.release()
    except RuntimeError:
        pass


class LinearOpMode:
    """The SDK's ``LinearOpMode``: override :meth:`runOpMode`; run it with :func:`run_opmode`.

    Attributes ``hardwareMap``, ``telemetry``, ``gamepad1`` and ``gamepad2`` are
    set for each run. The methods below are the SDK's; what each costs in
    simulated time is in the module docstring.
    """

    hardwareMap: Optional[HardwareMap] = None
    telemetry: Optional[Telemetry] = None
    gamepad1: Optional[Gamepad] = None
    gamepad2: Optional[Gamepad] = None
    _session: Optional["_Session"] = None

    def runOpMode(self) -> None:
        """The robot code. Override it."""
        raise NotImplementedError(f"{type(self).__name__}.runOpMode: override it with the op mode's code")

    def _run(self) -> "_Session":
        s = robot_clock()  # the calling thread's own run (a later run of this op mode has its own thread)
        if not (isinstance(s, _Session) and s.opmode is self):
            s = self._session
        if s is None:
            raise RuntimeError(f"{type(self).__name__} is not running: run it with "
                               "simcore.controllers.hub.run_opmode(...) in a simulation")
        return s

    def waitForStart(self) -> None:
        """Wait until PLAY (``start_time``)."""
        s = self._run()
        if s.now_ns < s.start_ns and not s.stop_requested:
            s.hand_over(s.start_ns, interruptible=True)

    def idle(self) -> None:
        """Let the simulation run for one tick, unless the op mode handed over since its last ``idle()``."""
        s = self._run()
        if s.handed_over_since_idle:
            s.handed_over_since_idle = False
            return
        s.hand_over(s.now_ns + 1)
        s.handed_over_since_idle = False

    def sleep(self, milliseconds) -> None:
        """Sleep ``milliseconds`` of simulated time (resume at the first tick at least that much later)."""
        s = self._run()
        milliseconds = checks.finite("milliseconds", milliseconds)
        if milliseconds < 0:
            raise IllegalArgumentException("timeout value is negative")
        if s.stop_requested:  # the SDK's interrupted thread: a sleep after STOP returns early
            s.hand_over(s.now_ns + 1)
        else:
            s.hand_over(s.now_ns + round(milliseconds * 1_000_000), interruptible=True)

    def isStarted(self) -> bool:
        """True once PLAY was pressed (or the op mode was told to stop)."""
        s = self._run()
        return s.now_ns >= s.start_ns or s.stop_requested

    def isStopRequested(self) -> bool:
        """True once STOP was pressed (``stop_time``) or :meth:`requestOpModeStop` was called."""
        return self._run().stop_requested

    def opModeIsActive(self) -> bool:
        """Started and not told to stop; calls :meth:`idle` when it is, as the SDK's does.

        The answer is taken after the idle, so a STOP that arrives during it gives False.
        """
        if not self.isStopRequested() and self.isStarted():
            self.idle()
        return not self.isStopRequested() and self.isStarted()

    def opModeInInit(self) -> bool:
        """Not started yet and not told to stop."""
        return not self.isStarted() and not self.isStopRequested()

    def requestOpModeStop(self) -> None:
        """Ask for the op mode to be stopped, as STOP would (see the module docstring)."""
        self._run().request_stop()

    def getRuntime(self) -> float:
        """Simulated seconds since the op mode was initialised (or :meth:`resetRuntime`)."""
        s = self._run()
        return (s.now_ns - s.runtime_zero_ns) / _NS_PER_S

    def resetRuntime(self) -> None:
        """Restart :meth:`getRuntime` from zero now."""
        s = self._run()
        s.runtime_zero_ns = s.now_ns


#: LinearOpMode's SDK methods run with the line counter off (simcore's code: :mod:`.untraced`).
for _name in ("waitForStart", "idle", "sleep", "isStarted", "isStopRequested", "opModeIsActive", "opModeInInit",
              "requestOpModeStop", "getRuntime", "resetRuntime"):
    setattr(LinearOpMode, _name, sdk_method(vars(LinearOpMode)[_name]))
del _name


class _Session(RobotClock):
    """One run of ``runOpMode``: the op mode's thread, its clock and the hand-over (see the module docstring).

    The simulation's side calls :meth:`tick`; the op mode's side calls
    :meth:`hand_over` (through ``spend``, ``sleep``, ...). Two locks pass the turn:
    the op mode waits on ``_resume``, the simulation on ``_yielded``.
    """

    def __init__(self, opmode: LinearOpMode, hubs: tuple, hardware_map: HardwareMap, gamepad_scripts: tuple,
                 start_ns: int, stop_ns: Optional[int], round_trip_ns: int, timing: HubTiming, max_lines: int,
                 name: str):
        super().__init__()
        self.opmode, self.hubs, self.hardware_map, self.name = opmode, hubs, hardware_map, name
        self.start_ns, self.stop_ns = start_ns, stop_ns
        self.round_trip_ns = round_trip_ns  # the op mode controller's period
        self.i2c_read_round_trips = timing.i2c_read_round_trips
        self.max_lines = max_lines
        self.telemetry = Telemetry()
        self.gamepads = tuple(Gamepad(s, f"gamepad{i + 1}") for i, s in enumerate(gamepad_scripts))
        self.runtime_zero_ns = 0
        self.stop_requested = False
        self.stop_at_ns: Optional[int] = None  # when STOP came (stop_time or requestOpModeStop)
        self.grace_ns = round(STOP_GRACE_PERIOD * _NS_PER_S)
        self.force_stopped = False
        self.interruptible = False  # the current hand-over ends at STOP (sleep, waitForStart)
        self.handed_over_since_idle = False
        self.wake_ns = 0
        self.thread: Optional[threading.Thread] = None
        self.finished = False
        self.error: Optional[BaseException] = None
        self._terminating = False
        self._lines = 0
        self._line_tracer = self._trace_line  # one bound method, handed to every counted frame
        self._resume = threading.Lock()
        self._resume.acquire()
        self._yielded = threading.Lock()
        self._yielded.acquire()

    # -- the simulation's side -------------------------------------------------------------------
    def tick(self, t: float) -> None:
        """The op mode's controller at tick ``t`` (s): give it the turn if it is due, wait for it."""
        if self.finished:
            return
        t_ns = round(t * _NS_PER_S)
        if self.thread is None:
            self.now_ns = self.init_ns = self.runtime_zero_ns = t_ns
            for hub in self.hubs:
                hub.begin_run()
            self._refresh_gamepads(t)
            self.thread = threading.Thread(target=self._main, name=f"opmode {self.name}", daemon=True)
            self.thread.start()
        else:
            stopping = self.stop_ns is not None and t_ns >= self.stop_ns and not self.stop_requested
            if stopping:
                self.now_ns = t_ns
                self.request_stop()
            if t_ns < self.wake_ns and not (self.stop_requested and self.interruptible) \
                    and not self._past_grace(t_ns):
                return
            self.now_ns = t_ns
            self._refresh_gamepads(t)
            self._resume.release()
        try:
            self._yielded.acquire()
        except BaseException:  # interrupted while the op mode runs: abandon it, its next hand-over ends it
            self.abandon()
            raise
        if self.finished:
            self.thread.join()
            for hub in self.hubs:
                hub.failSafe()
                hub.end_run(f"the op mode {self.name!r} run ended at t={t!r} s")
            if self.force_stopped:
                warnings.warn(f"op mode {self.name!r} had not ended {STOP_GRACE_PERIOD} s after STOP (at "
                              f"t={self.stop_at_ns / _NS_PER_S!r} s): it was ended at t={t!r} s, as the SDK "
                              "force-stops it. Let the code after STOP return promptly.", UserWarning,
                              stacklevel=2)
            if self.error is not None:
                error, self.error = self.error, None
                raise error

    def _refresh_gamepads(self, t: float) -> None:
        for gamepad in self.gamepads:
            gamepad.refresh(t)

    def request_stop(self) -> None:
        """STOP, now (``stop_time`` or ``requestOpModeStop``): the grace period starts."""
        if not self.stop_requested:
            self.stop_requested = True
            self.stop_at_ns = self.now_ns

    def _past_grace(self, t_ns: int) -> bool:
        return self.stop_at_ns is not None and t_ns >= self.stop_at_ns + self.grace_ns

    def abandon(self) -> None:
        """End the run without waiting: the op mode's next hand-over (or the one it waits in) ends it."""
        self._terminating = True
        _release(self._resume)

    # -- the op mode's side ------------------------------------------------------------------------
    def spend(self, round_trips: int) -> None:
        """A read's wait: ``round_trips`` hub round trips."""
        self.hand_over(self.now_ns + round_trips * self.round_trip_ns)

    def hand_over(self, wake_ns: int, interruptible: bool = False) -> None:
        """Give the simulation the turn until the first tick at or after ``wake_ns`` (or STOP, if
        ``interruptible``: a sleep or waitForStart, not a read's wait)."""
        self._end_if_over()
        self.wake_ns = wake_ns
        self.interruptible = interruptible
        self.handed_over_since_idle = True
        self._yielded.release()
        self._resume.acquire()
        self._lines = 0
        self._end_if_over()

    def _end_if_over(self) -> None:
        if self._terminating:
            raise _Terminated()
        if self._past_grace(self.now_ns):
            self.force_stopped = True
            raise _Terminated()

    def _main(self) -> None:
        set_robot_clock(self)
        opmode = self.opmode
        opmode._session = self
        opmode.hardwareMap = self.hardware_map
        opmode.telemetry = self.telemetry
        opmode.gamepad1, opmode.gamepad2 = self.gamepads
        tracer = self._trace_call if self.max_lines else None
        if tracer is not None:
            register_line_counter(tracer)
            sys.settrace(tracer)
        try:
            opmode.runOpMode()
        except _Terminated:
            pass
        except _Stuck:
            self.error = OpModeStuckError(
                f"op mode {self.name!r} ran {self.max_lines} lines of Python at t={self.now!r} s without a "
                "hardware read, sleep(), idle() or waitForStart(): simulated time does not pass in such a loop, "
                "so it would never end. Read the hardware in the loop, or call idle() (opModeIsActive() does) "
                "or sleep().")
        except BaseException as exc:  # robot code's own error: raised again from the simulation's tick
            self.error = exc
        finally:
            sys.settrace(None)
            if tracer is not None:
                unregister_line_counter(tracer)
            set_robot_clock(None)
            self.finished = True
            _release(self._yielded)

    # -- the bound on a loop that never hands over ----------------------------------------------------
    def _trace_call(self, frame, event, arg):
        filename = frame.f_code.co_filename
        uncounted = _UNCOUNTED_FILES.get(filename)
        if uncounted is None:
            uncounted = _UNCOUNTED_FILES[filename] = (filename.startswith(_SIMCORE_DIRS)
                                                      and not filename.startswith(_ROBOT_CODE))
        if uncounted:
            return None
        if not _has_one_line_loop(frame.f_code):
            return self._line_tracer
        # Python 3.11 reports one "line" event for a loop written on one line whose jump back lands on itself
        # (``while True: pass``), not one per pass: such a function's frames also trace opcodes, and a backward
        # jump that no "line" event reported counts as the line it runs again (only there: opcode tracing is
        # slow).
        frame.f_trace_opcodes = True
        last_offset = -1
        line_reported = False

        def trace_local(frame, event, arg):
            nonlocal last_offset, line_reported
            if event == "opcode":
                offset = frame.f_lasti
                if offset <= last_offset and not line_reported:
                    self._count_line()
                last_offset, line_reported = offset, False
            elif event == "line":
                line_reported = True
                self._count_line()
            return trace_local

        return trace_local

    def _trace_line(self, frame, event, arg):
        if event == "line":  # _count_line inlined: this runs at every line of robot code
            self._lines += 1
            if self._lines > self.max_lines:
                raise _Stuck()
        return self._line_tracer

    def _count_line(self) -> None:
        self._lines += 1
        if self._lines > self.max_lines:
            raise _Stuck()


#: code object -> whether it holds a loop on one line whose passes "line" events miss.
_ONE_LINE_LOOPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: CPython 3.11 reports a "line" event at every backward jump (its ``maybe_call_line_trace``: "trace backward
#: edges") except one that lands on the jump itself, so only such a jump needs the opcodes traced: a
#: generator expression or a ``while n: n -= 1`` on one line is counted pass by pass by its line events.
#: Elsewhere every backward jump to its own line is treated so.
_ONLY_SELF_JUMPS_UNREPORTED = sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)


def _has_one_line_loop(code) -> bool:
    found = _ONE_LINE_LOOPS.get(code)
    if found is None:
        line_at = {}
        for start, end, line in code.co_lines():
            for offset in range(start, end, 2):
                line_at[offset] = line
        found = any(ins.opcode in _JUMPS and isinstance(ins.argval, int)
                    and (ins.argval == ins.offset if _ONLY_SELF_JUMPS_UNREPORTED else
                         ins.argval <= ins.offset and line_at.get(ins.argval) == line_at.get(ins.offset))
                    for ins in dis.get_instructions(code))
        _ONE_LINE_LOOPS[code] = found
    return found


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


class OpModeRunner:
    """The op mode's :class:`~simcore.PeriodicController` function (see :func:`run_opmode`).

    ``opmode``, ``telemetry`` (the current run's), ``finished`` and
    :meth:`close` are for the user; the rest is called by the engine.
    """

    def __init__(self, opmode: LinearOpMode, hubs: tuple, devices: tuple, hardware_map: HardwareMap,
                 gamepad_scripts: tuple, start_time: float, stop_time: Optional[float], timing: HubTiming,
                 max_lines: int, name: str):
        self.opmode = opmode
        self.devices = devices  # the hubs and the other devices that observe the signals (IMUs)
        self._args = (opmode, hubs, hardware_map, gamepad_scripts, round(start_time * _NS_PER_S),
                      None if stop_time is None else round(stop_time * _NS_PER_S))
        self.timing, self.max_lines, self.name = timing, max_lines, name
        self.period_ns = 0  # set by run_opmode from its controller
        self._current = [None]  # the running session, shared with the finalizer (which must not hold self)
        weakref.finalize(self, _abandon_current, self._current)
        for device in devices:
            device.hold_signals_weakly()

    def _new_session(self) -> "_Session":
        previous = self._current[0]
        if previous is not None:  # end the last run first: its unwinding must not overlap the new one
            previous.abandon()
            if previous.thread is not None:
                previous.thread.join(_JOIN_TIMEOUT)
        s = _Session(*self._args, self.period_ns, self.timing, self.max_lines, self.name)
        self._current[0] = s
        return s

    def on_start(self, t: float, signals) -> None:
        """A new simulation starts: a new run of the op mode (any previous one is ended)."""
        self._new_session()

    def __call__(self, t: float, signals):
        for device in self.devices:
            device.observe(signals)
        s = self._current[0] or self._new_session()
        s.tick(t)
        return None

    @property
    def telemetry(self) -> Optional[Telemetry]:
        """The telemetry of the current (or last) run: its frames carry their simulation times."""
        s = self._current[0]
        return None if s is None else s.telemetry

    @property
    def finished(self) -> bool:
        """True once ``runOpMode`` has ended."""
        s = self._current[0]
        return s is not None and s.finished

    @property
    def thread(self) -> Optional[threading.Thread]:
        """The current run's thread (None before its first tick)."""
        s = self._current[0]
        return None if s is None else s.thread

    def close(self, timeout: float = 5.0) -> None:
        """End the op mode's run now and wait (up to ``timeout`` s of wall time) for its thread to finish."""
        s = self._current[0]
        if s is None:
            return
        s.abandon()
        if s.thread is not None:
            s.thread.join(timeout)


class OpModeController(PeriodicController):
    """The op mode's controller: a PeriodicController whose run record (``Result.records[name]``) is the telemetry."""

    def run_record(self) -> Optional[TelemetryLog]:
        """The frames the op mode's telemetry recorded so far (a copy; None before its first tick)."""
        telemetry = self.fn.telemetry
        return None if telemetry is None else TelemetryLog(telemetry.frames)


def _abandon_current(current: list) -> None:
    s = current[0]
    if s is not None:
        s.abandon()


def run_opmode(opmode, *, hubs: Iterable[Hub], configuration: Mapping, gamepad1: Optional[Callable] = None,
               gamepad2: Optional[Callable] = None, start_time=0.0, stop_time=None,
               timing: HubTiming = DEFAULT_TIMING, max_lines_without_handover: int = MAX_LINES_WITHOUT_HANDOVER,
               name: Optional[str] = None) -> list:
    """Run a :class:`LinearOpMode` in a simulation; returns the controllers for ``simulate`` / ``Simulator``.

    Parameters
    ----------
    opmode : LinearOpMode or LinearOpMode subclass
        The op mode (a class is instantiated with no arguments, as the SDK does).
    hubs : iterable of Hub
        Every hub the robot code uses; their firmware controllers are returned
        after the op mode's, so a command is seen by the firmware in its tick.
    configuration : mapping of str to device
        The robot configuration: device name -> ``DcMotorEx`` (``hub.motor(...)``,
        on one of ``hubs``), ``IMU`` or hub. ``hardwareMap.get(DcMotorEx, name)``
        returns them.
    gamepad1, gamepad2 : callable ``f(t) -> {field: value}``, optional
        Scripted gamepads (:mod:`simcore.controllers.hub.gamepad`).
    start_time : float
        When PLAY is pressed, s (INIT is at the simulation's start).
    stop_time : float, optional
        When STOP is pressed, s (None: never; the op mode ends when it returns).
    timing : HubTiming
        The round trip a read costs (APPROXIMATION, :mod:`simcore.controllers.hub.timing`);
        also the op mode controller's period.
    max_lines_without_handover : int
        Lines of the op mode's own code between two hand-overs before it is
        stopped with :class:`OpModeStuckError` (0: no bound, and no tracing).
    name : str, optional
        The controller's name (default: the op mode's class name).

    Returns
    -------
    list of PeriodicController
        ``[op mode, *hub firmware]``. ``result[0].fn`` is the :class:`OpModeRunner`
        (``.telemetry``, ``.finished``, ``.close()``). The run's Result keeps the
        telemetry: ``res.records[name]`` is a :class:`~.telemetry.TelemetryLog`.
    """
    if isinstance(opmode, type) and issubclass(opmode, LinearOpMode):
        opmode = opmode()
    if not isinstance(opmode, LinearOpMode):
        raise ConfigTypeError("opmode", opmode, "a LinearOpMode (subclass instance, or the subclass)")
    try:
        hubs = tuple(hubs)
    except TypeError:
        raise ConfigTypeError("hubs", hubs, "an iterable of Hub") from None
    if not hubs or not all(isinstance(h, Hub) for h in hubs):
        raise ConfigTypeError("hubs", hubs, "one or more Hub objects")
    if len({id(h) for h in hubs}) != len(hubs):
        raise ConfigError("hubs", [h.name for h in hubs], "distinct hubs (each given once)")
    check_hub_names(hubs)
    hardware_map = HardwareMap(configuration, hubs)
    driven = {}
    for device_name, device in configuration.items():
        if isinstance(device, Hub) and not any(device is h for h in hubs):
            raise ConfigError(f"configuration[{device_name!r}]", device, "one of the hubs given")
        if isinstance(device, DcMotorEx):
            if not any(device.getController() is h for h in hubs):
                raise ConfigError(f"configuration[{device_name!r}]", device, "a motor on one of the hubs given")
            target = (device.mechanism_name, device.wheel)
            other = driven.setdefault(target, device)
            if other is not device:
                raise ConfigError(f"configuration[{device_name!r}]", device,
                                  f"a motor whose mechanism (and wheel) no other configured motor drives: {other!r} "
                                  "drives it too")
    devices = hubs + tuple(d for d in configuration.values() if not isinstance(d, (DcMotorEx, Hub)))
    for key, script in (("gamepad1", gamepad1), ("gamepad2", gamepad2)):
        if script is not None and not callable(script):
            raise ConfigTypeError(key, script, "None or a function f(t) -> {field: value}")
    # INIT is pressed at the simulation's start: PLAY and STOP cannot come before it.
    start_time = checks.nonnegative("start_time", start_time, "s", what="time")
    if stop_time is not None:
        stop_time = checks.nonnegative("stop_time", stop_time, "s", what="time")
        if not stop_time > start_time:
            raise ConfigError("stop_time", stop_time, f"a time after start_time={start_time!r} s (STOP comes after "
                                                      "PLAY; None: no STOP)")
    if not isinstance(timing, HubTiming):
        raise ConfigTypeError("timing", timing, "a HubTiming")
    bound = checks.integer("max_lines_without_handover", max_lines_without_handover, minimum=0,
                           what="a whole number of lines (0: no bound)")
    if name is None:
        name = type(opmode).__name__
    for hub in hubs:  # a hub whose last op mode run ended is configured for this one
        hub.begin_run()
    runner = OpModeRunner(opmode, hubs, devices, hardware_map, (gamepad1, gamepad2), start_time, stop_time, timing,
                          bound, name)
    controller = OpModeController(timing.round_trip, runner, name=name, on_start=runner.on_start)
    runner.period_ns = controller.period_ns
    return [controller] + [c for h in hubs for c in h.controllers()]
