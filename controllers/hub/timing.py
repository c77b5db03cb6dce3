"""What a hardware read costs, and the clock robot code sees.

On a robot every read of the hub (an encoder count, a velocity, ``isBusy``, a
motor current, the IMU) is a Lynx command sent by the op mode's thread, which
then waits for the hub's answer: the read takes one *round trip* of real time.
In a simulation that time is simulated: a Java-style op mode
(:class:`simcore.controllers.hub.LinearOpMode`) pays for each read by handing
over to the simulation until the answer is due. How long that is, is the one
number of :class:`HubTiming`.

APPROXIMATION (the "round trip" row)
    ``round_trip`` = 2 ms per Lynx command: gm0's "Control System Internals"
    page gives about 2 ms per command over the Control Hub's internal UART and
    about 3 ms over USB to an Expansion Hub. Every read costs one, except I2C
    reads (the IMU), which cost ``i2c_read_round_trips`` = 2: the SDK's I2C read
    (``LynxI2cDeviceSynchV2``) sends a write-read command and then polls the read
    status at least once (gm0: "multiple LynxCommands must be sent"). Writes
    (``setPower``, ``setMode``, ...) take no simulated time (on a robot they wait
    for the hub's acknowledgement too).

What a read returns: the hub's state when the read was issued; the op mode
continues one round trip later. A measurement therefore reaches a command the
op mode sends on it one round trip old, as on a robot (the hub samples the
request half a round trip in, and the command needs half a round trip to arrive).

The clock robot code sees (``ElapsedTime``, ``getRuntime``) is the simulation
time of the tick that last resumed it, kept per thread: the op mode's own
thread for Java-style op modes, the simulation's thread (while a generator or
iterative op mode runs) otherwise. Outside an op mode there is no robot clock:
reads cost nothing (code driving a hub between ``Simulator.advance`` calls).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Optional

from simcore import checks
from simcore.errors import ConfigError

from .untraced import sdk_method

__all__ = ["HubTiming", "DEFAULT_TIMING", "ElapsedTime", "RobotClock", "robot_clock", "set_robot_clock",
           "spend_round_trips", "spend_i2c_read"]

_NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class HubTiming:
    """How long robot code's hardware reads take (APPROXIMATIONS; see the module docstring).

    Parameters
    ----------
    round_trip : float
        Time from sending a Lynx command to its answer, s (default 0.002, the
        Control Hub; about 0.003 for an Expansion Hub over USB). A Java-style op
        mode runs at this rate: it is its controller's period, resolved to whole
        nanoseconds.
    i2c_read_round_trips : int
        Round trips one I2C read (an IMU read) takes (default 2).
    """

    round_trip: float = 0.002
    i2c_read_round_trips: int = 2

    def __post_init__(self):
        round_trip = checks.positive("round_trip", self.round_trip, "s", what="time")
        if round_trip < 1e-9:
            raise ConfigError("round_trip", self.round_trip, "a time of at least 1 ns (the simulation's clock)")
        object.__setattr__(self, "round_trip", round_trip)
        object.__setattr__(self, "i2c_read_round_trips", checks.integer(
            "i2c_read_round_trips", self.i2c_read_round_trips, minimum=1, what="a whole number of round trips"))

    def replace(self, **changes) -> "HubTiming":
        """A copy with some fields changed."""
        return replace(self, **changes)


#: The Control Hub's timing (the defaults of :class:`HubTiming`).
DEFAULT_TIMING = HubTiming()


class RobotClock:
    """The time robot code sees, and what it does when a read costs time.

    The base class is the clock of code run on the simulation's thread (generator
    and iterative op modes): :attr:`now_ns` is set by the op mode's controller at
    each tick, and reads cost nothing (the op mode's loop period paces it). The
    Java-style op mode's clock overrides :meth:`spend` to hand over.
    """

    #: Round trips an I2C read costs on this clock (see HubTiming).
    i2c_read_round_trips = DEFAULT_TIMING.i2c_read_round_trips

    def __init__(self, now_ns: int = 0):
        self.now_ns = int(now_ns)
        self.init_ns = int(now_ns)  # when the op mode was initialised (ElapsedTime's default start)

    @property
    def now(self) -> float:
        """Simulation time, s."""
        return self.now_ns / _NS_PER_S

    def spend(self, round_trips: int) -> None:
        """Wait ``round_trips`` hub round trips (nothing here)."""


_local = threading.local()


def robot_clock() -> Optional[RobotClock]:
    """The robot clock of the calling thread, or None outside an op mode."""
    return getattr(_local, "clock", None)


def set_robot_clock(clock: Optional[RobotClock]) -> Optional[RobotClock]:
    """Make ``clock`` the calling thread's robot clock; returns the one it replaces."""
    previous = getattr(_local, "clock", None)
    _local.clock = clock
    return previous


def spend_round_trips(round_trips: int) -> None:
    """Charge a hardware read to the calling op mode (a no-op outside a Java-style op mode)."""
    clock = getattr(_local, "clock", None)
    if clock is not None:
        clock.spend(round_trips)


def spend_i2c_read() -> None:
    """Charge an I2C read (``i2c_read_round_trips`` round trips) to the calling op mode."""
    clock = getattr(_local, "clock", None)
    if clock is not None:
        clock.spend(clock.i2c_read_round_trips)


class ElapsedTime:
    """The SDK's ``ElapsedTime`` on simulation time.

    ``ElapsedTime()`` starts now: at the current op mode tick, or, created
    outside a running op mode (as a field of an op mode object, the SDK samples'
    habit), when the op mode it is first read in was initialised.
    ``ElapsedTime(ElapsedTime.Resolution.MILLISECONDS)`` makes :meth:`time`
    count milliseconds. Reading it outside an op mode raises RuntimeError: there
    is no simulation time there.
    """

    class Resolution:
        """``ElapsedTime.Resolution``."""

        SECONDS = "SECONDS"
        MILLISECONDS = "MILLISECONDS"

    SECOND_IN_NANO = 1_000_000_000
    MILLIS_IN_NANO = 1_000_000

    def __init__(self, resolution: str = "SECONDS"):
        checks.choice("resolution", resolution, (self.Resolution.SECONDS, self.Resolution.MILLISECONDS))
        self._resolution = self.SECOND_IN_NANO if resolution == self.Resolution.SECONDS else self.MILLIS_IN_NANO
        clock = robot_clock()
        self._start_ns = None if clock is None else clock.now_ns

    @staticmethod
    def _clock() -> RobotClock:
        clock = robot_clock()
        if clock is None:
            raise RuntimeError("ElapsedTime is read on simulation time: read it inside a running op mode")
        return clock

    def _now_ns(self) -> int:
        clock = self._clock()
        if self._start_ns is None:
            self._start_ns = clock.init_ns
        return clock.now_ns

    def reset(self) -> None:
        """Restart from zero now."""
        self._start_ns = self._clock().now_ns

    def nanoseconds(self) -> int:
        """Elapsed time, ns (whole: the simulation clock is integer nanoseconds)."""
        now = self._now_ns()
        return now - self._start_ns

    def seconds(self) -> float:
        """Elapsed time, s."""
        return self.nanoseconds() / self.SECOND_IN_NANO

    def milliseconds(self) -> float:
        """Elapsed time, ms."""
        return self.seconds() * 1000

    def time(self) -> float:
        """Elapsed time in the resolution's unit (s or ms)."""
        return self.nanoseconds() / self._resolution

    def startTime(self) -> float:
        """When it was (re)started, in the resolution's unit since the simulation's zero."""
        self._now_ns()
        return self._start_ns / self._resolution

    def startTimeNanoseconds(self) -> int:
        """When it was (re)started, ns."""
        self._now_ns()
        return self._start_ns

    def getResolution(self) -> str:
        """``Resolution.SECONDS`` or ``Resolution.MILLISECONDS``."""
        return self.Resolution.SECONDS if self._resolution == self.SECOND_IN_NANO else self.Resolution.MILLISECONDS

    def toString(self) -> str:
        """The SDK's ``"%1.4f seconds"`` (or milliseconds)."""
        unit = "seconds" if self._resolution == self.SECOND_IN_NANO else "milliseconds"
        return f"{self.time():1.4f} {unit}"

    __str__ = toString

    def __repr__(self):
        return f"ElapsedTime(start_ns={self._start_ns!r}, resolution={self.getResolution()})"


#: ElapsedTime's SDK methods run with the op mode's line counter off (simcore's code: :mod:`.untraced`).
for _name in [n for n in vars(ElapsedTime) if n[:1].islower() and callable(vars(ElapsedTime)[n])]:
    setattr(ElapsedTime, _name, sdk_method(vars(ElapsedTime)[_name]))
del _name
