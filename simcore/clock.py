"""Integer-nanosecond clock for periodic controllers.

Tick times are ``t0 + offset + k * period`` computed in integer nanoseconds, never
accumulated in floating point, so a 10 ms and a 30 ms controller coincide exactly
every 30 ms (in floats ``0.01 * 3 != 0.03``). A tick's float time is
``ns / 1e9``, the same float for every controller ticking at that instant.
"""
from __future__ import annotations

from .errors import ConfigError

__all__ = ["NS_PER_S", "MAX_NS", "to_ns", "TickSchedule"]

NS_PER_S = 1_000_000_000

#: Latest representable time, ns (about 292 years): the clock's integers stay 64-bit
#: quantities, and a float time this large still resolves a millisecond.
MAX_NS = 2 ** 63 - 1


def to_ns(parameter: str, seconds, *, positive: bool = False, nonnegative: bool = False) -> int:
    """Convert a time in seconds (float or pint Quantity) to integer nanoseconds.

    Raises
    ------
    ConfigError
        Not a finite number, beyond :data:`MAX_NS` in magnitude, not representable to
        the nanosecond within 1e-6 relative (e.g. a period of 1/3 s is accepted and
        rounded; 1e-12 s is not), or of the wrong sign.
    """
    from .units import to_si

    s = to_si(parameter, seconds, "s")
    ns_float = s * NS_PER_S
    if not abs(ns_float) <= MAX_NS:
        raise ConfigError(parameter, seconds, f"a time of at most {MAX_NS / NS_PER_S:.3g} s in magnitude")
    ns = int(round(ns_float))
    # Rounding to the nanosecond may move a time by at most 1e-6 of itself (1/3 s is
    # fine); 1.4e-9 s or 1e-12 s would be changed by 30 % or to zero, so they raise.
    # The 1e-9 ns floor absorbs the float error of s * 1e9 for exact nanoseconds.
    if abs(ns - ns_float) > 1e-6 * abs(ns_float) + 1e-9:
        raise ConfigError(parameter, seconds, "a time representable in whole nanoseconds (within 1e-6 of itself)")
    if positive and ns <= 0:
        raise ConfigError(parameter, seconds, "a positive time of at least 1 ns")
    if nonnegative and ns < 0:
        raise ConfigError(parameter, seconds, "a non-negative time")
    return ns


class TickSchedule:
    """When each periodic controller ticks next, in integer nanoseconds.

    Controller ``i`` ticks at ``t0 + offset_i + k_i * period_i`` for ``k_i = 0, 1, ...``;
    :meth:`done` moves it to its next tick. A controller whose tick did not complete
    (its code raised) stays due at that instant, so a run continued after the error
    retries it there.

    Parameters
    ----------
    t0_ns : int
        Start time of the run, ns.
    controllers : sequence of PeriodicController
        Their ``period_ns`` and ``offset_ns`` are read once.
    """

    def __init__(self, t0_ns: int, controllers):
        self._base = [t0_ns + c.offset_ns for c in controllers]
        self._period = [c.period_ns for c in controllers]
        self._k = [0] * len(controllers)
        self._next = list(self._base)

    def next_ns(self):
        """The earliest pending tick, ns, or None without controllers."""
        return min(self._next) if self._next else None

    def due(self, t_ns: int) -> list[int]:
        """Indices of the controllers due at ``t_ns``, in the order given."""
        return [i for i, tn in enumerate(self._next) if tn == t_ns]

    def done(self, i: int) -> None:
        """Controller ``i`` completed its pending tick: schedule its next one."""
        self._k[i] += 1
        self._next[i] = self._base[i] + self._k[i] * self._period[i]
