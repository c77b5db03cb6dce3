"""The real-hub check (simcore.reference, "The FTC hub"): seven experiments, on the simulator and a real hub's log.

Run ``python -m simcore.controllers.hub_check [--csv FILE] [--out DIR] [--motor NAME] [--max-accel A]``.

Each experiment runs on the simulator (the hub's firmware model,
:mod:`simcore.controllers.hub.firmware`, whose constants are APPROXIMATIONS) with one
unloaded motor of type ``--motor`` (a constant of :mod:`simcore.models.ftc_motor_types`,
default ``GOBILDA_5203_312``) whose load inertia gives ``--max-accel`` free
speeds per second of acceleration from rest at full power (default 12, the hub
specification's reference case), and prints each figure the check list asks for:

1. **Default gains**: ``getPIDFCoefficients(RUN_USING_ENCODER)`` and
   ``(RUN_TO_POSITION)`` on a fresh hub (expect 10/3/0/0 and 10/0/0/0).
2. **Velocity step**: ``setVelocity(half of free speed)`` from rest: the first
   crossing of 98 % (``t98_s``), the 2 % settling time (``settling_2pct_s``: from
   then on within 2 % of the target; the specification's "about 0.3 s" is this one),
   peak overshoot, steady error.
3. **Feedforward units**: P = I = D = 0, F = 32767 / free speed,
   ``setVelocity(half)``: settled speed / half (1.00 if the output units are right).
4. **Position step**: ``setTargetPosition(2000)``, RUN_TO_POSITION, power 1.0:
   time to first not-busy, peak overshoot (ticks), how often ``isBusy()``
   flickers back to true; repeated at power 0.3: peak speed / free speed and /
   (0.3 x achievable max), and the cruise speed (median over the middle half of
   the move) / the cap. The simulator's criterion: cruise within 5 % of the
   cap, peak within 15 % (the velocity loop overshoots its capped step).
5. **Holding under load**: an arm held horizontal in RUN_TO_POSITION (gravity
   30 % of stall torque): steady error (ticks), current held vs the open-loop
   current for the same torque, the largest error and the return time after a
   push (a torque of 1.5 x stall, more than the motor, for 0.3 s).
6. **Tolerance boundary**: RUN_TO_POSITION at power 0, target = position + 5:
   ``isBusy()`` (False: the boundary is inclusive, as the model assumes).
7. **Target after reset**: reach a target, STOP_AND_RESET_ENCODER, RUN_TO_POSITION
   with no new target: does it throw TargetPositionNotSetException?

CSV log from a real hub (``--csv``)
-----------------------------------
One row per loop iteration of the robot's logging op mode (at the bulk-read
rate), comma separated, with a header row naming these columns:

``experiment``
    ``velocity_step``, ``feedforward``, ``position_step_1.0``,
    ``position_step_0.3`` or ``holding`` (rows of other experiments are ignored).
``t``
    Time since that experiment's command was sent, s.
``position``
    ``getCurrentPosition()``, ticks.
``velocity``
    ``getVelocity()``, ticks/s.
``busy``
    ``isBusy()`` as 0/1 (position experiments; may be empty elsewhere).
    Optional: without it the busy figures (first not-busy time, flickers) are
    reported as missing and the others (overshoot, peak speed) are computed.
``current``
    ``getCurrent(CurrentUnit.AMPS)``, A (optional; empty if not logged).
``push``
    ``holding`` only, optional: 1 on the rows logged while the arm is being
    pushed off by hand, 0 (or empty) otherwise. The push is the first run of
    rows marked 1; the steady error and current are averaged over the rows
    before it (from 0.6 of its start time), and the return time is measured from
    the first row after it to the first row back within 5 ticks (the default
    tolerance) of the target. Nothing else in a log marks the push, so without
    this column no return time is computed (it is reported as missing) and the
    steady figures come from the last 40 % of the log.

``t``, ``position`` and ``velocity`` must be numbers on every row of a
recognised experiment; the optional columns may be empty. A cell that is not a
number is an error naming the file, its line and the column; so are a column
named twice in the header and a cell longer than :data:`MAX_FIELD_CHARS`. A
UTF-8 byte-order mark (what spreadsheet programs write) is accepted. An
experiment with fewer than :data:`MIN_ROWS` rows is read, with a
:class:`ShortLogWarning`: its figures cannot be measured reliably.

The position experiments are the check list's commands: target 2000 ticks, power 1.0
or 0.3 (from the experiment name). ``holding`` holds target 0 (the encoder
zeroed with the arm horizontal). For each experiment present, the same figures
are computed from the log and printed next to the simulator's; the experiments
whose commands depend on the free speed use the motor type's model
(``--motor``), so log the motor the report names. With ``--out DIR`` a PNG per
experiment overlays the real and the simulated traces, and the simulated traces
are written as ``DIR/sim_<experiment>.csv`` in the same columns.

Record the date, firmware version and motor of each real result next to the
constant of :class:`simcore.controllers.hub.FirmwareConstants` it confirms or replaces.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

import simcore.models as models
import simcore
from simcore.controllers.hub import (CurrentUnit, FirmwareConstants, Hub, RunMode, TargetPositionNotSetException,
                             linear_opmode)
from simcore.models import ftc_motor_types

__all__ = ["Trace", "velocity_step_figures", "position_step_figures", "holding_figures", "run_simulated",
           "read_csv", "main", "EXPERIMENTS", "MIN_ROWS", "MAX_FIELD_CHARS", "ShortLogWarning"]

EXPERIMENTS = ("velocity_step", "feedforward", "position_step_1.0", "position_step_0.3", "holding")
_OPMODE_PERIOD = 0.01  # s, the logging loop's period in the simulated runs
#: Rows an experiment's log needs for its figures to mean something (fewer: a ShortLogWarning).
MIN_ROWS = 10
#: Longest cell accepted in a log, characters (a number never needs more).
MAX_FIELD_CHARS = 1000

#: What each printed figure is, where its name alone could mislead.
_DESCRIPTIONS = {"t98_s": "first crossing of 98 %", "settling_2pct_s": "within 2 % from then on"}


class ShortLogWarning(UserWarning):
    """A real log too short to measure its figures reliably."""


@dataclass
class Trace:
    """One experiment's log: arrays of equal length (position ticks, velocity ticks/s, busy 0/1, current A)."""

    t: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    busy: np.ndarray = field(default=None)
    current: np.ndarray = field(default=None)
    push: np.ndarray = field(default=None)  # 0/1, real holding logs only (see the module docstring)


def _missing(column: str) -> str:
    """What a figure reads when the log lacks the column it needs."""
    return f"n/a (no {column} column)"


# ------------------------------------------------------------------------------------------------
# Figures (the same functions read the simulated and the real logs)
# ------------------------------------------------------------------------------------------------
def velocity_step_figures(tr: Trace, target: float) -> dict:
    """First crossing of 98 % (s), 2 % settling time (s), peak overshoot (fraction), steady error (ticks/s,
    mean of the last 20 %).

    The settling time is the first sample from which every later sample is
    within 2 % of ``target`` (nan if the last one is not).
    """
    v = np.asarray(tr.velocity, float)
    reached = np.nonzero(v >= 0.98 * target)[0]
    t98 = float(tr.t[reached[0]]) if reached.size else math.nan
    outside = np.nonzero(np.abs(v - target) > 0.02 * abs(target))[0]
    if not outside.size:
        settling = float(tr.t[0])
    else:
        settling = float(tr.t[outside[-1] + 1]) if outside[-1] + 1 < len(v) else math.nan
    tail = v[int(0.8 * len(v)):]
    return {"t98_s": t98, "settling_2pct_s": settling, "overshoot": float(v.max() / target - 1.0),
            "steady_error_tps": float(target - tail.mean()), "settled_ratio": float(tail.mean() / target)}


def position_step_figures(tr: Trace, target: float) -> dict:
    """First not-busy time (s), peak overshoot (ticks), busy flickers after it, peak speed (ticks/s).

    Without a busy trace (``tr.busy`` None) the two busy figures are the string
    ``"n/a (no busy column)"``; the others do not need it.
    """
    if tr.busy is None:
        first_s = flickers = _missing("busy")
    else:
        busy = np.asarray(tr.busy, float) > 0.5
        idle = np.nonzero(~busy)[0]
        first = int(idle[0]) if idle.size else None
        flickers = int(np.sum(busy[first + 1:] & ~busy[first:-1])) if first is not None else 0
        first_s = float(tr.t[first]) if first is not None else math.nan
    return {"first_not_busy_s": first_s,
            "peak_overshoot_ticks": float(np.max(tr.position) - target),
            "busy_flickers": flickers, "peak_speed_tps": float(np.max(np.abs(tr.velocity)))}


def _position_step_all(tr: Trace, power: float, motor_type) -> dict:
    """:func:`position_step_figures` for the check's step (target 2000 ticks at ``power``), and the peak
    speed over the modelled free speed and over the cap ``power`` x achievable max."""
    f = position_step_figures(tr, 2000)
    cap = power * motor_type.getAchieveableMaxTicksPerSecondRounded()
    f["peak_speed_over_free"] = f["peak_speed_tps"] / _free_tps(motor_type)
    f["peak_speed_over_cap"] = f["peak_speed_tps"] / cap
    f["cruise_speed_over_cap"] = _cruise_speed(tr, 2000) / cap
    return f


def _cruise_speed(tr: Trace, target: float) -> float:
    """Median speed (ticks/s) over the samples in the middle half of a move to ``target`` (nan if none)."""
    pos = np.asarray(tr.position, float)
    middle = (pos >= 0.25 * target) & (pos <= 0.75 * target)
    return float(np.median(np.abs(np.asarray(tr.velocity, float)[middle]))) if middle.any() else math.nan


def holding_figures(tr: Trace, target: float, push_end: float | None = None, tolerance: int = 5,
                    push_start: float | None = None) -> dict:
    """Steady error before the push (ticks), mean current then (A), return time after the push (s).

    The steady window is [0.6 push_start, push_start) with ``push_start`` (s)
    given, else (0.6 push_end, push_end - 0.3) (the simulated push lasts 0.3 s),
    else the last 40 % of the trace. The return time (s, from ``push_end`` to the
    first sample within ``tolerance`` ticks of ``target``) needs ``push_end``.
    """
    t = np.asarray(tr.t, float)
    pos = np.asarray(tr.position, float)
    if push_start is not None:
        before = (t >= 0.6 * push_start) & (t < push_start)
    else:
        before = (t > 0.6 * (push_end if push_end else t[-1])) & (t < (push_end - 0.3 if push_end else t[-1] + 1))
    out = {"steady_error_ticks": float(np.mean(target - pos[before])) if before.any() else math.nan,
           "current_A": float(np.mean(tr.current[before])) if tr.current is not None and before.any() else math.nan}
    out["max_error_ticks"] = float(np.max(np.abs(target - pos)))
    if push_end is not None:
        after = t >= push_end
        back = np.nonzero(after & (np.abs(pos - target) <= tolerance))[0]
        out["return_s"] = float(t[back[0]] - push_end) if back.size else math.nan
    return out


# ------------------------------------------------------------------------------------------------
# The simulated experiments
# ------------------------------------------------------------------------------------------------
def _mechanism(motor_type, max_accel, external_torque=None, name="motor"):
    """The motor alone (models.HubMotor), its rotor inertia set so that it accelerates from rest at
    stall torque by ``max_accel`` free speeds per second."""
    mot = motor_type.motor
    return models.HubMotor(motor_type, rotor_inertia=mot.stall_torque / (mot.free_speed * max_accel),
                           external_torque=external_torque, name=name)


def _free_tps(motor_type) -> float:
    """No-load speed at 12 V in encoder counts/s: the datasheet free speed, which the
    HubMotor reaches exactly (its free current is modelled as the motor's friction)."""
    m = motor_type.motor
    return m.free_speed / (2 * math.pi) * motor_type.encoder_counts_per_motor_rev


def _driven_from_outside(motor_type, max_accel, firmware):
    """A fresh hub and motor in a Simulator that robot code drives between ``advance`` calls."""
    hub = Hub(firmware=firmware)
    mech = _mechanism(motor_type, max_accel)
    m = hub.motor(0, mech, motor_type)
    sim = simcore.Simulator([mech], hub.controllers())
    hub.observe(sim.signals)
    return m, sim


def _run(motor_type, max_accel, code, t_end, firmware=None, external_torque=None):
    mech = _mechanism(motor_type, max_accel, external_torque)
    hub = Hub(firmware=firmware)
    m = hub.motor(0, mech, motor_type)
    rows = []

    def log(t):
        rows.append((t, m.getCurrentPosition(), m.getVelocity(), float(m.isBusy()), m.getCurrent(CurrentUnit.AMPS)))

    def opmode():  # runs the experiment's code, logging every loop as the robot's logging op mode would
        gen = code(m)
        t = 0.0
        try:
            item = next(gen)
            while True:
                log(t)
                t = yield item
                item = gen.send(t)
        except StopIteration:
            log(t)

    simcore.simulate([mech], t_end, controllers=[linear_opmode(opmode, period=_OPMODE_PERIOD, hubs=[hub]),
                                                 *hub.controllers()])
    a = np.array(rows, float)
    return Trace(a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4]), m


def _loop_for(seconds):
    for _ in range(int(round(seconds / _OPMODE_PERIOD))):
        yield


def run_simulated(motor_type=ftc_motor_types.GOBILDA_5203_312, max_accel=12.0, firmware=None) -> dict:
    """Run the seven experiments on the simulator; returns {experiment: (figures, Trace or None)}."""
    out = {}
    free = _free_tps(motor_type)
    half = free / 2

    # 1. default gains
    hub = Hub(firmware=firmware)
    m = hub.motor(0, _mechanism(motor_type, max_accel), motor_type)
    out["default_gains"] = ({"RUN_USING_ENCODER": m.getPIDFCoefficients(RunMode.RUN_USING_ENCODER).toString(),
                             "RUN_TO_POSITION": m.getPIDFCoefficients(RunMode.RUN_TO_POSITION).toString()}, None)

    # 2. velocity step
    def vel(m):
        m.setVelocity(half)
        yield from _loop_for(1.5)
    tr, _ = _run(motor_type, max_accel, vel, 1.6, firmware)
    out["velocity_step"] = (velocity_step_figures(tr, half), tr)

    # 3. feedforward units
    def ff(m):
        m.setVelocityPIDFCoefficients(0, 0, 0, 32767 / free)
        m.setVelocity(half)
        yield from _loop_for(1.5)
    tr, _ = _run(motor_type, max_accel, ff, 1.6, firmware)
    out["feedforward"] = (velocity_step_figures(tr, half), tr)

    # 4. position steps
    cap_full = motor_type.getAchieveableMaxTicksPerSecondRounded()
    for power in (1.0, 0.3):
        def pos(m, power=power):
            m.setTargetPosition(2000)
            m.setMode(RunMode.RUN_TO_POSITION)
            m.setPower(power)
            yield from _loop_for(2000 / (power * cap_full) + 1.5)
        tr, _ = _run(motor_type, max_accel, pos, 2000 / (power * cap_full) + 1.6, firmware)
        out[f"position_step_{power:.1f}"] = (_position_step_all(tr, power, motor_type), tr)

    # 5. holding under load: zero ticks = horizontal, holding level takes 30 % of stall torque
    ticks_per_rad_out = motor_type.encoder_counts_per_output_rev / (2 * math.pi)
    push = {"on": False}
    push_start, push_end = 1.5, 1.8

    def gravity(angle):
        return -0.3 * math.cos(angle) + (-1.5 if push["on"] else 0.0)  # a hand stronger than the motor

    def hold(m):
        m.setTargetPosition(0)
        m.setMode(RunMode.RUN_TO_POSITION)
        m.setPower(1.0)
        t = 0.0
        while t < 3.0:
            push["on"] = push_start <= t < push_end
            t = yield
    tr, _ = _run(motor_type, max_accel, hold, 3.05, firmware, external_torque=gravity)
    f = holding_figures(tr, 0.0, push_end)
    mot = motor_type.motor
    stall_current_out = mot.stall_current
    # open loop: the torque 0.3 stall at zero speed needs duty 0.3: stator 0.3 I_stall, supply 0.3 * that
    f["open_loop_stator_A"] = 0.3 * stall_current_out
    f["open_loop_supply_A"] = 0.3 * 0.3 * stall_current_out
    f["ticks_per_output_rad"] = ticks_per_rad_out
    out["holding"] = (f, tr)

    # 6. tolerance boundary
    m, sim = _driven_from_outside(motor_type, max_accel, firmware)
    m.setTargetPosition(0)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.0)
    sim.advance(0.2)
    m.setTargetPosition(m.getCurrentPosition() + 5)
    out["tolerance_boundary"] = ({"isBusy_at_position_plus_5": m.isBusy()}, None)

    # 7. target after reset
    m, sim = _driven_from_outside(motor_type, max_accel, firmware)
    m.setTargetPosition(300)
    m.setMode(RunMode.RUN_TO_POSITION)
    m.setPower(0.5)
    sim.advance(1.0)
    m.setMode(RunMode.STOP_AND_RESET_ENCODER)
    try:
        m.setMode(RunMode.RUN_TO_POSITION)
        threw = False
    except TargetPositionNotSetException:
        threw = True
    out["target_after_reset"] = ({"throws_TargetPositionNotSetException": threw}, None)
    return out


# ------------------------------------------------------------------------------------------------
# Real logs
# ------------------------------------------------------------------------------------------------
_REQUIRED = ("t", "position", "velocity")
_OPTIONAL = ("busy", "current", "push")


def read_csv(path) -> dict:
    """Read a real hub's log (columns in the module docstring) into {experiment: Trace}.

    Raises
    ------
    ValueError
        A required column is missing or a column is named twice, a cell is
        longer than :data:`MAX_FIELD_CHARS`, or a cell of a recognised
        experiment's row is not a number (or, in a required column, is empty or
        not finite); the message names the file, the line (the header is line 1)
        and the column.

    Warns
    -----
    ShortLogWarning
        An experiment has fewer than :data:`MIN_ROWS` rows.
    """
    data: dict[str, list] = {}
    with open(path, newline="", encoding="utf-8-sig") as fh:  # -sig: a spreadsheet's byte-order mark
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames or ()
        except csv.Error as exc:
            raise ValueError(f"{path}, line 1: {exc}") from None
        names = [n.strip() for n in header]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{path}, line 1: columns named twice: {twice}")
        reader.fieldnames = names
        missing = {"experiment", *_REQUIRED} - set(names)
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        rows = iter(reader)
        while True:
            try:
                row = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:  # the csv module's own limit, far above ours
                raise ValueError(f"{path}, line {reader.line_num}: {exc}") from None
            for key, v in row.items():
                if isinstance(v, str) and len(v) > MAX_FIELD_CHARS:
                    raise ValueError(f"{path}, line {reader.line_num}, column {key!r}: a cell of {len(v)} "
                                     f"characters (at most {MAX_FIELD_CHARS})")
            exp = (row.get("experiment") or "").strip()
            if exp not in EXPERIMENTS:
                continue

            def num(key):
                v = (row.get(key) or "").strip()
                if not v and key not in _REQUIRED:
                    return math.nan
                try:
                    x = float(v)
                    ok = math.isfinite(x) or key not in _REQUIRED
                except ValueError:
                    ok = False
                if not ok:
                    raise ValueError(f"{path}, line {reader.line_num}, column {key!r}: {v!r} is not a "
                                     f"{'finite ' if key in _REQUIRED else ''}number"
                                     f"{'' if v else ' (the column is required)'}")
                return x
            data.setdefault(exp, []).append(tuple(num(k) for k in _REQUIRED + _OPTIONAL))
    out = {}
    for exp, rows in data.items():
        if len(rows) < MIN_ROWS:
            warnings.warn(f"{path}: experiment {exp!r} has {len(rows)} rows, too few to measure its figures "
                          f"reliably (at least {MIN_ROWS}; log every loop at the bulk-read rate)",
                          ShortLogWarning, stacklevel=2)
        a = np.array(sorted(rows), float)
        optional = [a[:, i] if not np.all(np.isnan(a[:, i])) else None for i in range(3, 6)]
        out[exp] = Trace(a[:, 0], a[:, 1], a[:, 2], *optional)
    return out


def _push_interval(tr: Trace):
    """(start, end) of the first run of rows marked ``push`` = 1, s; end is the first row after it."""
    pushed = np.nan_to_num(np.asarray(tr.push, float)) > 0.5
    on = np.nonzero(pushed)[0]
    if not on.size:
        return None, None
    off = np.nonzero(~pushed[on[0]:])[0]
    end = float(tr.t[on[0] + off[0]]) if off.size else None  # still pushed at the end of the log: no return
    return float(tr.t[on[0]]), end


def _real_figures(exp, tr, motor_type):
    half = _free_tps(motor_type) / 2
    if exp in ("velocity_step", "feedforward"):
        return velocity_step_figures(tr, half)
    if exp.startswith("position_step"):
        return _position_step_all(tr, float(exp.rsplit("_", 1)[1]), motor_type)
    if exp == "holding":
        if tr.push is None:
            f = holding_figures(tr, 0.0, None)
            f["return_s"] = _missing("push")
        else:
            start, end = _push_interval(tr)
            f = holding_figures(tr, 0.0, end, push_start=start)
            if start is None:
                f["return_s"] = "n/a (no row has push = 1)"
            elif end is None:
                f["return_s"] = "n/a (pushed until the log ends)"
        if tr.current is None:
            f["current_A"] = _missing("current")
        return f
    return {}


def _fmt(v):
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def _write_trace(path, exp, tr):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["experiment", "t", "position", "velocity", "busy", "current"])
        for i in range(len(tr.t)):
            w.writerow([exp, tr.t[i], tr.position[i], tr.velocity[i],
                        "" if tr.busy is None else int(tr.busy[i]), "" if tr.current is None else tr.current[i]])


def _plot(path, exp, sim_tr, real_tr):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    a1.plot(sim_tr.t, sim_tr.position, label="simulated")
    a2.plot(sim_tr.t, sim_tr.velocity, label="simulated")
    if real_tr is not None:
        a1.plot(real_tr.t, real_tr.position, label="real hub")
        a2.plot(real_tr.t, real_tr.velocity, label="real hub")
    a1.set_ylabel("position, ticks")
    a2.set_ylabel("velocity, ticks/s")
    a2.set_xlabel("t, s")
    a1.set_title(exp)
    a1.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None, stream=None) -> int:
    """Command-line entry point; returns the exit status."""
    stream = stream or sys.stdout
    ap = argparse.ArgumentParser(prog="python -m simcore.controllers.hub_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", help="a real hub's log (see the module docstring)")
    ap.add_argument("--out", help="directory for plots and the simulated traces")
    ap.add_argument("--motor", default="GOBILDA_5203_312", help="motor type constant (simcore.models.ftc_motor_types)")
    ap.add_argument("--max-accel", type=float, default=12.0, help="free speeds per second at full power, unloaded")
    args = ap.parse_args(argv)
    motor_type = ftc_motor_types.FTC_MOTOR_TYPES.get(args.motor)
    if motor_type is None:
        ap.error(f"--motor {args.motor!r}: one of {', '.join(ftc_motor_types.FTC_MOTOR_TYPES)}")
    if not args.max_accel > 0:
        ap.error("--max-accel must be positive")
    real = {}
    if args.csv:  # an unreadable or malformed log is a usage error, not a traceback
        try:
            real = read_csv(args.csv)
        except OSError as exc:
            ap.error(f"--csv {args.csv!r}: {exc.strerror or exc}")
        except ValueError as exc:
            ap.error(f"--csv: {exc}")
    sim = run_simulated(motor_type, args.max_accel)
    p = lambda *a: print(*a, file=stream)  # noqa: E731
    p(f"Real-hub check: {motor_type.name}, maxAccel {args.max_accel:g} /s, "
      f"free speed (model) {_free_tps(motor_type):.1f} ticks/s, firmware model {FirmwareConstants()!r}")
    titles = {"default_gains": "1. Default gains", "velocity_step": "2. Velocity step",
              "feedforward": "3. Feedforward units", "position_step_1.0": "4. Position step, power 1.0",
              "position_step_0.3": "4. Position step, power 0.3", "holding": "5. Holding under load",
              "tolerance_boundary": "6. Tolerance boundary", "target_after_reset": "7. Target after reset"}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    for exp, (figs, tr) in sim.items():
        p(f"\n{titles[exp]}")
        rfigs = _real_figures(exp, real[exp], motor_type) if exp in real else {}
        for k, v in figs.items():
            label = f"{k} ({_DESCRIPTIONS[k]})" if k in _DESCRIPTIONS else k
            line = f"  {label:44s} sim {_fmt(v)}"
            if k in rfigs:
                line += f"   real {_fmt(rfigs[k])}"
            p(line)
        if args.out and tr is not None:
            _write_trace(os.path.join(args.out, f"sim_{exp}.csv"), exp, tr)
            _plot(os.path.join(args.out, f"{exp}.png"), exp, tr, real.get(exp))
    if args.csv:
        p(f"\nReal log: {args.csv}: experiments {sorted(real) or 'none recognised'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
