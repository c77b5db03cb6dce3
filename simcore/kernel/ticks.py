"""Loops that tick inside the kernel: their table, their schedule on the integer-nanosecond clock, one tick.

A run whose controllers are all built in (a :func:`~simcore.controllers.control_loop` around a
:class:`~simcore.controllers.PIDController`, ...) need not return to Python between its ticks: the
kernel integrates to the next tick, runs the loops due there in their order, each a zero-order hold
(it reads the state at the tick, before any write there, and writes an input held until its next
tick), fires the events the writes trigger and goes on, as :class:`simcore.engine.Simulator` does
with Python controllers (its docstring's loop; this module keeps its semantics exactly).

The loop table ``CT`` (one row per loop, in the order the controllers were given) holds integers
(``C_*``): the loop's kind, its first tick (``t0 + offset``) and period, ns; the stacked states it
measures (``C_MEASURE``, ``C_MEASURE_2``, ``C_MEASURE_3``; -1 where the kind measures fewer); the stacked
inputs it commands (``C_COMMAND``, ``C_COMMAND_2``; -1 where it commands one); its first parameter in the
variant's parameter vector (after the parts'); its first state in the loops' state ``CS`` and how many
it has; flags. A write outside the range its input accepts, or a non-finite one, is refused: the tick is
left to the Python path, which raises the error naming it.

* :data:`LOOP_PID` (a ``control_loop`` around a PIDController) measures one state and commands one input;
  its parameters are :mod:`simcore.kernel.pid`'s and then ``L_*``: its constant setpoint, its
  feedforward (a constant: a feedforward object evaluated at a constant setpoint), its output limits, and
  the range of the commanded input.
* :data:`LOOP_PROFILED_PID` (a ``control_loop`` around a ProfiledPIDController) measures one state and
  commands one input; its parameters are the inner PID's (:mod:`simcore.kernel.pid`), the profile's
  (:mod:`simcore.kernel.profile`), then ``G_*``: its constant goal (position and velocity), feedforward,
  output limits and the commanded input's range; its state the inner PID's, then
  :mod:`simcore.kernel.profiled_pid`'s. Each tick sets the goal and then calls the controller's law, as
  its Python tick's ``calculate(measurement, goal)`` does.
* :data:`LOOP_BANGBANG` (a ``control_loop`` around a BangBangController) measures one state and commands one
  input; its parameters are :mod:`simcore.kernel.bangbang`'s, then ``B_*``, laid out as the PID loop's ``L_*``.
* :data:`LOOP_SWERVE_MODULE` (a module loop of ``swerve_module_controllers``) measures the steer angle,
  steer rate and wheel speed and commands the drive and the steer input; its parameters and state are
  :mod:`simcore.kernel.swerve_module`'s, its flags :data:`FLAG_OPTIMIZE` and :data:`FLAG_COSINE_SCALE`.

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

import numpy as np

from . import bangbang, pid, profile
from . import profiled_pid as ppid
from . import swerve_module as sm
from .jit import jit

__all__ = ["C_KIND", "C_FIRST_NS", "C_PERIOD_NS", "C_MEASURE", "C_COMMAND", "C_P", "C_S", "C_FLAGS", "C_MEASURE_2",
           "C_MEASURE_3", "C_COMMAND_2", "C_STATE_SIZE", "N_LOOP_FIELDS", "LOOP_PID", "LOOP_PYTHON",
           "LOOP_SWERVE_MODULE", "LOOP_PROFILED_PID", "LOOP_BANGBANG", "LOOP_KINDS", "FLAG_FEEDFORWARD",
           "FLAG_LIMITS", "FLAG_OPTIMIZE", "FLAG_COSINE_SCALE", "LOOP_FLAGS", "L_SETPOINT", "L_FEEDFORWARD", "L_LOW",
           "L_HIGH", "L_RANGE_LOW", "L_RANGE_HIGH", "N_PID_LOOP_PARAMETERS", "G_GOAL_POSITION", "G_GOAL_VELOCITY",
           "G_FEEDFORWARD", "G_LOW", "G_HIGH", "G_RANGE_LOW", "G_RANGE_HIGH", "N_PROFILED_LOOP_PARAMETERS",
           "B_SETPOINT", "B_FEEDFORWARD", "N_BANGBANG_LOOP_PARAMETERS", "MAX_WRITES", "loop_row", "python_row",
           "next_tick_ns", "tick", "held_after_ticks"]

(C_KIND, C_FIRST_NS, C_PERIOD_NS, C_MEASURE, C_COMMAND, C_P, C_S, C_FLAGS, C_MEASURE_2, C_MEASURE_3, C_COMMAND_2,
 C_STATE_SIZE) = range(12)
N_LOOP_FIELDS = 12
#: The most inputs one loop commands (a tick record holds that many values).
MAX_WRITES = 2
#: A control loop around a PIDController: ``calculate(measured state, constant setpoint)``.
LOOP_PID = 1
#: A controller that ticks in Python: its instants are left to Python whole.
LOOP_PYTHON = 2
#: A swerve module's motor-controller loop (:mod:`simcore.kernel.swerve_module`).
LOOP_SWERVE_MODULE = 3
#: A control loop around a ProfiledPIDController: ``calculate(measured state, constant goal)``.
LOOP_PROFILED_PID = 4
#: A control loop around a BangBangController: ``calculate(measured state, constant setpoint)``.
LOOP_BANGBANG = 5
#: Flags: a feedforward is added; the output is clamped to its limits (the PID-style kinds); the target is optimized;
#: the speed is scaled by the cosine of the steer error (LOOP_SWERVE_MODULE).
FLAG_FEEDFORWARD, FLAG_LIMITS, FLAG_OPTIMIZE, FLAG_COSINE_SCALE = 1, 2, 4, 8
#: The flags by the names a loop spec gives them.
LOOP_FLAGS = {"feedforward": FLAG_FEEDFORWARD, "limits": FLAG_LIMITS, "optimize": FLAG_OPTIMIZE,
              "cosine_scale": FLAG_COSINE_SCALE}
(L_SETPOINT, L_FEEDFORWARD, L_LOW, L_HIGH, L_RANGE_LOW,
 L_RANGE_HIGH) = range(pid.N_PID_PARAMETERS, pid.N_PID_PARAMETERS + 6)
N_PID_LOOP_PARAMETERS = pid.N_PID_PARAMETERS + 6
(G_GOAL_POSITION, G_GOAL_VELOCITY, G_FEEDFORWARD, G_LOW, G_HIGH, G_RANGE_LOW,
 G_RANGE_HIGH) = range(pid.N_PID_PARAMETERS + profile.N_PROFILE_PARAMETERS,
                       pid.N_PID_PARAMETERS + profile.N_PROFILE_PARAMETERS + 7)
N_PROFILED_LOOP_PARAMETERS = G_RANGE_HIGH + 1
B_SETPOINT, B_FEEDFORWARD = bangbang.N_BANGBANG_PARAMETERS, bangbang.N_BANGBANG_PARAMETERS + 1
N_BANGBANG_LOOP_PARAMETERS = bangbang.N_BANGBANG_PARAMETERS + 6
#: The kinds by the names a loop spec gives them (its ``kind``): ``(kind, parameters, state)`` (how many).
LOOP_KINDS = {"pid": (LOOP_PID, N_PID_LOOP_PARAMETERS, pid.N_PID_STATE),
              "swerve_module": (LOOP_SWERVE_MODULE, sm.N_MODULE_PARAMETERS, sm.N_MODULE_STATE),
              "profiled_pid": (LOOP_PROFILED_PID, N_PROFILED_LOOP_PARAMETERS, pid.N_PID_STATE + ppid.N_PROFILED_STATE),
              "bangbang": (LOOP_BANGBANG, N_BANGBANG_LOOP_PARAMETERS, bangbang.N_BANGBANG_STATE)}


def python_row(first_ns: int, period_ns: int) -> np.ndarray:
    """A row of ``CT`` for a controller ticking in Python (:data:`LOOP_PYTHON`)."""
    row = np.full(N_LOOP_FIELDS, -1, dtype=np.int64)  # (-1: no state measured, no input commanded)
    row[[C_P, C_S, C_FLAGS, C_STATE_SIZE]] = 0
    row[C_KIND], row[C_FIRST_NS], row[C_PERIOD_NS] = LOOP_PYTHON, first_ns, period_ns
    return row


def loop_row(kind: str, flags, first_ns: int, period_ns: int, measured, commanded, p_first: int,
             s_first: int) -> np.ndarray:
    """A row of ``CT`` for a loop the kernel ticks: its kind and flags by name (:data:`LOOP_KINDS`,
    :data:`LOOP_FLAGS`), first tick and period (ns), the stacked indices of the states it measures and of the
    inputs it commands (in the kind's order), its first parameter and first state."""
    code, _, n_state = LOOP_KINDS[kind]
    row = python_row(first_ns, period_ns)
    row[C_KIND], row[C_P], row[C_S], row[C_STATE_SIZE] = code, p_first, s_first, n_state
    row[C_FLAGS] = sum(LOOP_FLAGS[f] for f in flags)
    for column, index in zip((C_MEASURE, C_MEASURE_2, C_MEASURE_3), measured):
        row[column] = index
    for column, index in zip((C_COMMAND, C_COMMAND_2), commanded):
        row[column] = index
    return row


@jit(internal=True)
def next_tick_ns(CT, ticks):
    """The earliest tick still to run, ns (-1 without loops)."""
    best = -1
    for c in range(CT.shape[0]):
        t = CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS]
        if best < 0 or t < best:
            best = t
    return best


@jit(internal=True)
def _accepted(value, low, high):
    """Whether a write of ``value`` is finite and in ``[low, high]``."""
    return math.isfinite(value) and low <= value <= high


@jit(internal=True)
def _loop_output(value, flags, p, e):
    """A PID-style loop's write: the controller's output ``value`` plus the feedforward, clamped to the output
    limits (as ``flags`` say), from ``p[e:e + 5]`` (feedforward, limits, the input's range); NaN when the write
    is refused (non-finite, or outside the commanded input's range)."""
    if flags & FLAG_FEEDFORWARD:
        value = value + p[e]
    if flags & FLAG_LIMITS:
        value = min(max(value, p[e + 1]), p[e + 2])
    return value if _accepted(value, p[e + 3], p[e + 4]) else math.nan


@jit
def tick(CT, p, CS, ticks, t_ns, X, U, U_before, cs_before, out):
    """Run the loops due at ``t_ns`` in their order (``p`` the variant's parameters, ``U`` its held inputs,
    written): ``U_before`` gets the inputs before the writes, ``out[c]`` each due loop's writes, in the order
    of its commanded inputs (NaN for the others and where it commands fewer than :data:`MAX_WRITES`). Returns
    False, with the loops' states and the inputs as they were, when a write is refused (non-finite, or outside
    the input's range) or a :data:`LOOP_PYTHON` row is due: then no loop ran."""
    for c in range(CT.shape[0]):
        if CT[c, C_KIND] == LOOP_PYTHON and CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS] == t_ns:
            return False
    for i in range(U.shape[0]):
        U_before[i] = U[i]
    for i in range(CS.shape[0]):
        cs_before[i] = CS[i]
    ok = True
    for c in range(CT.shape[0]):
        for w in range(MAX_WRITES):
            out[c, w] = math.nan
        if CT[c, C_FIRST_NS] + ticks[c] * CT[c, C_PERIOD_NS] != t_ns:
            continue
        po, so, flags = CT[c, C_P], CT[c, C_S], CT[c, C_FLAGS]
        kind = CT[c, C_KIND]
        if kind == LOOP_PID or kind == LOOP_PROFILED_PID or kind == LOOP_BANGBANG:
            if kind == LOOP_BANGBANG:
                value = _loop_output(bangbang.calculate(CS, so, X[CT[c, C_MEASURE]], p[po + B_SETPOINT], True),
                                     flags, p, po + B_FEEDFORWARD)
            elif kind == LOOP_PID:
                value = _loop_output(pid.calculate(p, po, CS, so, X[CT[c, C_MEASURE]], p[po + L_SETPOINT], True),
                                     flags, p, po + L_FEEDFORWARD)  # (the setpoint given)
            else:
                sp = so + pid.N_PID_STATE  # (the goal set, then the law: the Python tick's calculate(m, goal))
                CS[sp + ppid.Y_GOAL_POSITION] = p[po + G_GOAL_POSITION]
                CS[sp + ppid.Y_GOAL_VELOCITY] = p[po + G_GOAL_VELOCITY]
                value = _loop_output(ppid.calculate(p, po, CS, so, p, po + pid.N_PID_PARAMETERS, CS, sp,
                                                    X[CT[c, C_MEASURE]]), flags, p, po + G_FEEDFORWARD)
            if math.isnan(value):
                ok = False
                break
            U[CT[c, C_COMMAND]] = value
            out[c, 0] = value
        else:  # LOOP_SWERVE_MODULE
            speed, angle, drive, steer = sm.tick_commands(
                p[po + sm.W_SPEED], p[po + sm.W_ANGLE], X[CT[c, C_MEASURE]], X[CT[c, C_MEASURE_2]],
                X[CT[c, C_MEASURE_3]], p[po + sm.W_STEER_KP], p[po + sm.W_STEER_KD], p[po + sm.W_DRIVE_KV],
                p[po + sm.W_DRIVE_KP], p[po + sm.W_DRIVE_SCALE], p[po + sm.W_STEER_SCALE],
                (flags & FLAG_OPTIMIZE) != 0, (flags & FLAG_COSINE_SCALE) != 0)
            if not (_accepted(drive, p[po + sm.W_DRIVE_RANGE_LOW], p[po + sm.W_DRIVE_RANGE_HIGH])
                    and _accepted(steer, p[po + sm.W_STEER_RANGE_LOW], p[po + sm.W_STEER_RANGE_HIGH])):
                ok = False
                break
            CS[so + sm.Y_TARGET_SPEED] = speed
            CS[so + sm.Y_TARGET_ANGLE] = angle
            U[CT[c, C_COMMAND]] = drive
            U[CT[c, C_COMMAND_2]] = steer
            out[c, 0] = drive
            out[c, 1] = steer
    if not ok:
        for i in range(U.shape[0]):
            U[i] = U_before[i]
        for i in range(CS.shape[0]):
            CS[i] = cs_before[i]
        return False
    for c in range(CT.shape[0]):
        if not math.isnan(out[c, 0]):
            ticks[c] += 1
    return True


@jit
def held_after_ticks(held, commands, records, out):
    """The held inputs after each of ``n`` tick records (``records``, the kernel's ``TICK_ROWS``: time, loop,
    then its writes in the order of its commanded inputs): ``out[0]`` the inputs ``held`` before them, ``out[j + 1]``
    those after record ``j``, each commanded input holding the last value written to it, by whichever loop wrote
    it (``commands[c]``: loop ``c``'s commanded inputs, -1 where it commands fewer)."""
    n_u = held.shape[0]
    for i in range(n_u):
        out[0, i] = held[i]
    for j in range(records.shape[0]):
        for i in range(n_u):
            out[j + 1, i] = out[j, i]
        c = int(records[j, 1])
        for w in range(commands.shape[1]):
            if commands[c, w] >= 0:
                out[j + 1, commands[c, w]] = records[j, 2 + w]
