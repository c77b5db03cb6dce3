"""Loops that tick inside the kernel: their table, their schedule on the integer-nanosecond clock, one tick.

A run whose controllers are all built in (a :func:`~simcore.controllers.control_loop` around a
:class:`~simcore.controllers.PIDController`, ...) need not return to Python between its ticks: the
kernel integrates to the next tick, runs the loops due there in their order, each a zero-order hold
(it reads the state at the tick, before any write there, and writes an input held until its next
tick), fires the events the writes trigger and goes on, as :class:`simcore.engine.Simulator` does
with Python controllers (its docstring's loop; this module keeps its semantics exactly).

The loop table ``CT`` (one row per loop, in the order the controllers were given) holds integers
(``C_*``): the loop's kind, its first tick (``t0 + offset``) and period, ns; the stacked state it
measures; the stacked input it commands; its first parameter in the variant's parameter vector (after
the parts'); its first state in the loops' state ``CS``; flags. A loop of kind :data:`LOOP_PID` has the
parameters of :mod:`simcore.kernel.pid` and then ``L_*``: its constant setpoint, its feedforward
(a constant: a feedforward object evaluated at a constant setpoint), its output limits, and the range
the commanded input accepts (a write outside it, or a non-finite one, is refused: the tick is left to
the Python path, which raises the error naming it).

A row of kind :data:`LOOP_PYTHON` is a controller that ticks in Python (robot code, a loop the kernel
cannot run) beside the kernel's loops: the kernel knows its schedule only. At an instant where one is
due, no loop ticks in the kernel: :func:`tick` refuses the instant, and every controller due there ticks
in Python, in the order given (the kernel's loops by their Python ticks, which compute what the kernel's
do), so the order of the ticks at one instant is always the order given.

Tick ``i`` of loop ``c`` is at ``CT[c, C_FIRST_NS] + i * CT[c, C_PERIOD_NS]``, never accumulated; ``TICKS[c]``
counts the ticks done.
"""
from __future__ import annotations

import math

from . import pid
from .jit import jit

__all__ = ["C_KIND", "C_FIRST_NS", "C_PERIOD_NS", "C_MEASURE", "C_COMMAND", "C_P", "C_S", "C_FLAGS", "N_LOOP_FIELDS",
           "LOOP_PID", "LOOP_PYTHON", "FLAG_FEEDFORWARD", "FLAG_LIMITS", "L_SETPOINT", "L_FEEDFORWARD", "L_LOW",
           "L_HIGH", "L_RANGE_LOW", "L_RANGE_HIGH", "N_PID_LOOP_PARAMETERS", "next_tick_ns", "tick"]

C_KIND, C_FIRST_NS, C_PERIOD_NS, C_MEASURE, C_COMMAND, C_P, C_S, C_FLAGS = range(8)
N_LOOP_FIELDS = 8
#: A control loop around a PIDController: ``calculate(measured state, constant setpoint)``.
LOOP_PID = 1
#: A controller that ticks in Python: its instants are left to Python whole.
LOOP_PYTHON = 2
#: Flags: a feedforward is added; the output is clamped to its limits.
FLAG_FEEDFORWARD, FLAG_LIMITS = 1, 2
(L_SETPOINT, L_FEEDFORWARD, L_LOW, L_HIGH, L_RANGE_LOW,
 L_RANGE_HIGH) = range(pid.N_PID_PARAMETERS, pid.N_PID_PARAMETERS + 6)
N_PID_LOOP_PARAMETERS = pid.N_PID_PARAMETERS + 6


@jit(internal=True)
def next_tick_ns(CT, ticks):
    """The earliest tick still to run, ns (-1 without loops)."""
    best = -1
    for c in range(CT.shape[0]):
        t = CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS]
        if best < 0 or t < best:
            best = t
    return best


@jit
def tick(CT, p, CS, ticks, t_ns, X, U, U_before, cs_before, out):
    """Run the loops due at ``t_ns`` in their order (``p`` the variant's parameters, ``U`` its held inputs,
    written): ``U_before`` gets the inputs before the writes, ``out[c]`` each due loop's write (NaN for the
    others). Returns False, with the loops' states and the inputs as they were, when a write is refused
    (non-finite, or outside the input's range) or a :data:`LOOP_PYTHON` row is due: then no loop ran."""
    for c in range(CT.shape[0]):
        if CT[c, C_KIND] == LOOP_PYTHON and CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS] == t_ns:
            return False
    for i in range(U.shape[0]):
        U_before[i] = U[i]
    for i in range(CS.shape[0]):
        cs_before[i] = CS[i]
    ok = True
    for c in range(CT.shape[0]):
        out[c] = math.nan
        if CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS] != t_ns:
            continue
        po = CT[c, C_P]
        value = pid.calculate(p, po, CS, CT[c, C_S], X[CT[c, C_MEASURE]], p[po + L_SETPOINT], True)  # (given)
        flags = CT[c, C_FLAGS]
        if flags & FLAG_FEEDFORWARD:
            value = value + p[po + L_FEEDFORWARD]
        if flags & FLAG_LIMITS:
            value = min(max(value, p[po + L_LOW]), p[po + L_HIGH])
        if not (math.isfinite(value) and p[po + L_RANGE_LOW] <= value <= p[po + L_RANGE_HIGH]):
            ok = False
            break
        U[CT[c, C_COMMAND]] = value
        out[c] = value
    if not ok:
        for i in range(U.shape[0]):
            U[i] = U_before[i]
        for i in range(CS.shape[0]):
            CS[i] = cs_before[i]
        return False
    for c in range(CT.shape[0]):
        if not math.isnan(out[c]):
            ticks[c] += 1
    return True
