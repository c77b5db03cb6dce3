"""The hub's bulk reads and the SDK's bulk-caching modes (exact: ``LynxModule``).

A bulk read is one Lynx command that returns every motor's encoder count,
velocity and at-target flag of one hub at once, with its digital inputs and
analog input voltages. ``LynxModule.BulkCachingMode``
decides when a read is answered from the last bulk read instead of its own
command:

``OFF`` (the SDK's default)
    Every read sends its own command (one round trip each). ``getVelocity``
    sends a bulk read and takes its velocity.
``MANUAL``
    Encoder counts, velocities and ``isBusy`` come from the cached bulk read; a
    new bulk read is sent only when there is none, i.e. after
    :meth:`BulkCache.clear` (``hub.clearBulkCache()``, the user's job at the top
    of each loop). Without it the values never change.
``AUTO``
    As MANUAL, but a read that was already answered from the current cache
    clears it first, so a loop that reads each value once per iteration gets one
    bulk read per iteration. "The same read" is the SDK's test: the same command
    to the same motor (``getVelocity`` keeps a history of its own per motor).

``getCurrent`` and I2C reads are never cached. Switching to OFF clears the
cache; switching between MANUAL and AUTO keeps it. ``hub.getBulkData()`` always
sends a bulk read.
"""
from __future__ import annotations

import enum
from typing import Callable, Mapping

from .timing import spend_round_trips

__all__ = ["BulkCachingMode", "BulkData", "BulkCache"]


class BulkCachingMode(enum.Enum):
    """``LynxModule.BulkCachingMode``."""

    OFF = "OFF"
    MANUAL = "MANUAL"
    AUTO = "AUTO"

    def __str__(self):
        return self.name


class BulkData:
    """``LynxModule.BulkData``: one bulk read's values, in the hub's raw direction (ports 0..3).

    A port with no motor configured reads 0 / not busy.
    """

    def __init__(self, counts: Mapping[int, int], velocities: Mapping[int, int], busy: Mapping[int, bool],
                 fake: bool = False, digital: Mapping[int, bool] = None, analog: Mapping[int, float] = None):
        self._digital = dict(digital or {})
        self._analog = dict(analog or {})
        self._counts = dict(counts)
        self._velocities = dict(velocities)
        self._busy = dict(busy)
        self._fake = fake

    def getMotorCurrentPosition(self, motor: int) -> int:
        """Encoder count of port ``motor``, raw direction, ticks."""
        return self._counts.get(motor, 0)

    def getMotorVelocity(self, motor: int) -> int:
        """Velocity of port ``motor`` as the hub reports it, raw direction, ticks/s."""
        return self._velocities.get(motor, 0)

    def isMotorBusy(self, motor: int) -> bool:
        """``not atTarget`` of port ``motor`` (False outside RUN_TO_POSITION, as the simulator's hub says)."""
        return self._busy.get(motor, False)

    def getDigitalChannelState(self, pin: int) -> bool:
        """Level of digital ``pin`` (True high; an unconfigured pin reads high, its pull-up)."""
        return self._digital.get(pin, True)

    def getAnalogInputVoltage(self, port: int) -> float:
        """Voltage of analog ``port``, V (whole millivolts; 0 unconfigured)."""
        return self._analog.get(port, 0.0)

    def isFake(self) -> bool:
        """True for the SDK's placeholder data (a read that could not be made)."""
        return self._fake

    def __repr__(self):
        return f"BulkData(counts={self._counts}, velocities={self._velocities}, busy={self._busy})"


class BulkCache:
    """One hub's bulk-read cache (``LynxModule``'s ``recordBulkCachingCommandIntent``).

    Parameters
    ----------
    take_snapshot : callable
        ``() -> BulkData``: the hub's values now (what a bulk read returns).
    """

    def __init__(self, take_snapshot: Callable[[], BulkData]):
        self._take_snapshot = take_snapshot
        self.mode = BulkCachingMode.OFF
        self._last = None
        self._history: set = set()  # the reads answered from the current cache (AUTO)

    def set_mode(self, mode: BulkCachingMode) -> None:
        """Change the caching mode; OFF clears the cache."""
        if not isinstance(mode, BulkCachingMode):
            raise TypeError(f"mode={mode!r}: expected a LynxModule.BulkCachingMode")
        if mode is BulkCachingMode.OFF:
            self.clear()
        self.mode = mode

    def clear(self) -> None:
        """``clearBulkCache()``: the next cached read sends a bulk read."""
        self._history.clear()
        self._last = None

    def read(self) -> BulkData:
        """``getBulkData()``: a bulk read now (one round trip), which becomes the cache."""
        self.clear()
        self._last = self._take_snapshot()
        spend_round_trips(1)
        return self._last

    def cached(self, key) -> BulkData:
        """The bulk data that answers the read ``key`` in a caching mode (a bulk read if needed)."""
        if self.mode is BulkCachingMode.AUTO and key in self._history:
            self.clear()
        data = self._last if self._last is not None else self.read()
        if self.mode is BulkCachingMode.AUTO:
            self._history.add(key)
        return data
