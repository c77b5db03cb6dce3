"""The battery bus in kernel form: the loads' supply curve, its exact root, the numeric root, the bus solve.

The physics is documented in :mod:`simcore.models.battery` (:class:`Battery`, :class:`SupplyCurve`,
``bus_root``), whose Python path calls these functions; the compiled kernel calls them too
(:func:`solve_bus`, from :mod:`simcore.kernel.parts` before every evaluation of derivatives and
input-reading guards, as the Python coupling is applied before each). The bus voltage ``V`` solves
``V = V_oc - R I(V)`` with ``I`` the loads' total supply current:

* exactly, when the loads give their curve ``I(V) = a V + b + c / V`` with breakpoints
  (:func:`motor_supply_piece`, :func:`curve_at`, :func:`bus_root`);
* numerically otherwise (:func:`search_start`, :func:`search_next`): a secant from the
  power-balance guess, to ``1e-13 V_oc``; when it fails, a bracket of the largest root by a
  downward grid walk and Brent's method on it (:mod:`simcore.kernel.brent`). The search is driven
  from outside (it says where to evaluate ``I`` next), so the Python path, whose loads may be
  Python objects, and the kernel, whose loads are built-in parts, run the same search.

A parameter vector ``p`` (``P_*``): open-circuit voltage V, resistance ohm, brownout threshold V, whether
the brownout disables the outputs (1.0, ``brownout_behaviour="disable"``, else 0.0), the recovery voltage V
and the recovery time s.

**Brownout "disable"** (the roboRIO's stage 2, :class:`simcore.models.battery.Battery`'s docstring): the
battery's mode is :data:`MODE_NORMAL` or :data:`MODE_BROWNED_OUT`; its events are :data:`EV_BROWNOUT`
(guard :func:`brownout_guard`, falling) and :data:`EV_RECOVERY` (guard :func:`recovery_guard`, rising; the
outputs come back unless :func:`stays_browned_out` with the restored commands). While browned out every
motor command is held at neutral (:func:`held_back`: the command moves to a store, ``-0.0`` takes its
place); back in the normal mode each stored command returns where the slot still holds ``-0.0``
(:func:`restored`). The Python path's coupling and the kernel's (:mod:`simcore.kernel.parts`) both call
these.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .layout import GUARD_BROWNOUT, GUARD_RECOVERY

P_VOC, P_R, P_BROWNOUT, P_DISABLE, P_RECOVERY_VOLTAGE, P_RECOVERY_TIME = range(6)
N_PARAMETERS = 6

#: The battery's modes in the kernel (``brownout_behaviour="disable"``; a flagging battery stays normal).
MODE_NORMAL, MODE_BROWNED_OUT = 0, 1
#: Its events (kernel ids) and their directions: the bus falls below the threshold; the outputs may come back.
EV_BROWNOUT, EV_RECOVERY = 0, 1
#: Per event (``EV_*``): its guard (``GUARD_*`` of :mod:`simcore.kernel.layout`), its direction, whether it
#: resets the state (neither does), its name.
EVENT_GUARD = np.array([GUARD_BROWNOUT, GUARD_RECOVERY], dtype=np.int64)
EVENT_DIRECTION = np.array([-1, 1], dtype=np.int64)
EVENT_HAS_RESET = np.array([False, False])
EVENT_NAMES = ("brownout", "brownout_recovery")

#: The numeric search's slots in its float array (length :data:`N_SEARCH`): where to evaluate next, the
#: secant's two points, its iterations, the grid walk's top and current point, the stage.
(S_V, S_A, S_FA, S_B, S_FB, S_ITER, S_TOL, S_VOC, S_R, S_HI, S_UPPER, S_J, S_STAGE) = range(13)
N_SEARCH = 13
#: What the caller of :func:`search_next` does next.
SEARCH_EVALUATE, SEARCH_ROOT, SEARCH_BRACKETED, SEARCH_COLLAPSED, SEARCH_NO_BOUND = range(5)
SECANT_ITERATIONS = 30
GRID_POINTS = 257
_F0, _SECANT, _GROW, _GRID = 0.0, 1.0, 2.0, 3.0
#: Brent on the bracket: scipy brentq's tolerances as the bus uses them.
BUS_XTOL = 1e-14
BUS_RTOL = 4 * 2.220446049250313e-16
BUS_MAX_ITERATIONS = 100


# -- the exact solve ------------------------------------------------------------------------------------------
@jit
def motor_supply_piece(g, emf, duty_command, command, brake):
    """One motor controller without current limits as a piece of a supply curve.

    Returns ``(da, db, dc, v_k, bda, bdb, bdc)``: the increments of ``(a, b, c)`` above its breakpoint
    ``v_k`` (V; ``-1`` for none) and those added below it (``g = 1/R`` S, ``emf`` V, ``command`` V or
    duty, exactly 0 neutral; ``brake >= 0.5`` brake at neutral). The branches of
    :func:`simcore.kernel.motor_drive.electrical`.
    """
    if command == 0.0:
        if brake >= 0.5 or emf == 0.0:
            return 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0  # shorted windings (or nothing turning): nothing drawn
        # Coast: the body diodes conduct below V = |E|, connecting the winding across the bus.
        return 0.0, 0.0, 0.0, abs(emf), g, -abs(emf) * g, 0.0
    s = 1.0 if command > 0.0 else -1.0
    if duty_command:
        if command >= 1.0 or command <= -1.0:
            return g, -(s * emf * g), 0.0, -1.0, 0.0, 0.0, 0.0
        return command * command * g, -(command * emf * g), 0.0, -1.0, 0.0, 0.0, 0.0
    # A voltage request: met above V = |command| (fixed power), the full bus below it.
    p = command * (command - emf) * g
    return 0.0, 0.0, p, abs(command), g, -s * emf * g, -p


@jit
def curve_at(a, b, c, breaks, voltage):
    """The curve's current at ``voltage`` (> 0, or 0 for the dead-bus limit), A; ``breaks`` (n, 4) rows
    ``(v_k, da, db, dc)``."""
    for k in range(breaks.shape[0]):
        if voltage < breaks[k, 0]:
            a, b, c = a + breaks[k, 1], b + breaks[k, 2], c + breaks[k, 3]
    if voltage <= 0.0:
        # Below every breakpoint no request is met, so no c / V term is left (c is round-off there).
        return b
    return a * voltage + b + c / voltage


@jit
def bus_root(a, b, c, breaks, voc, r):
    """The largest bus voltage ``V >= 0`` with ``V = V_oc - R I(V)``, or NaN when there is none.

    ``breaks`` (n, 4) sorted from the top (as Python sorts the tuples, descending). Searches the
    pieces from the top down; on each, ``V (V - V_oc + R I(V))`` is the quadratic
    ``(1 + R a) V^2 - (V_oc - R b) V + R c`` (``1 + R a > 0``: ``a`` never decreases a load's current
    with the bus). ``I`` is continuous at the breakpoints, so a root that round-off places a hair
    outside its piece is accepted.
    """
    slack = 1e-12 * voc
    hi = math.inf
    k, n = 0, breaks.shape[0]
    while True:
        if k < n:
            lo = breaks[k, 0]
        else:
            lo, c = 0.0, 0.0  # below every breakpoint no request is met: c is round-off
        # The largest root of qa V^2 + qb V + qc (qa > 0) in [lo - slack, hi + slack], clipped to the
        # piece. With qc = 0 the quadratic is V times the bus equation itself, whose root V = 0 is not
        # one: the linear root alone is taken.
        qa, qb, qc = 1.0 + r * a, r * b - voc, r * c
        lo_s, hi_s = lo - slack, hi + slack
        if qc == 0.0:
            v = -qb / qa
            if lo_s <= v <= hi_s and v >= -slack:
                return min(max(v, lo, 0.0), hi)
        else:
            disc = qb * qb - 4.0 * qa * qc
            if disc >= 0.0:
                sq = math.sqrt(disc)
                q = -0.5 * (qb + sq if qb >= 0.0 else qb - sq)  # the roots without cancellation: q / qa, qc / q
                if q == 0.0:
                    v1 = v2 = 0.0
                else:
                    v1, v2 = q / qa, qc / q
                    if v1 < v2:
                        v1, v2 = v2, v1  # the larger first
                if lo_s <= v1 <= hi_s and v1 >= -slack:
                    return min(max(v1, lo, 0.0), hi)
                if lo_s <= v2 <= hi_s and v2 >= -slack:
                    return min(max(v2, lo, 0.0), hi)
        if k >= n:
            return math.nan
        hi = lo  # step below the next breakpoint (equal breakpoints together)
        while k < n and breaks[k, 0] == hi:
            a, b, c = a + breaks[k, 1], b + breaks[k, 2], c + breaks[k, 3]
            k += 1


# -- brownout "disable" ----------------------------------------------------------------------------------------
@jit
def brownout_guard(bus_voltage, brownout_voltage):
    """The brownout event's guard: the bus voltage over the threshold, V (falls through zero)."""
    return bus_voltage - brownout_voltage


@jit
def recovery_guard(t, t_off, recovery_time, bus_voltage, recovery_voltage):
    """The recovery event's guard (rises through zero): positive once ``recovery_time`` (s) has passed since the
    outputs went off at ``t_off`` (s) and the bus is above ``recovery_voltage`` (V); the smaller of the two
    margins (as Python's ``min``: the first unless the second is smaller)."""
    wait = t - (t_off + recovery_time)
    margin = bus_voltage - recovery_voltage
    return margin if margin < wait else wait


@jit
def stays_browned_out(restored_bus_voltage, brownout_voltage):
    """Whether the outputs stay off at a recovery: the bus with the commands restored (V) would be below the
    threshold again."""
    return restored_bus_voltage < brownout_voltage


@jit
def active_events(p, po, mode, ids):
    """The battery's events armed in ``mode`` (ids into ``ids``); returns their number (none when it only
    flags the brownout)."""
    if p[po + P_DISABLE] == 0.0:
        return 0
    ids[0] = EV_BROWNOUT if mode == MODE_NORMAL else EV_RECOVERY
    return 1


@jit(internal=True)
def is_neutral_marker(command):
    """The bus coupling's neutral command ``-0.0``, as distinct from a controller's ``0.0``."""
    return command == 0.0 and math.copysign(1.0, command) < 0.0


@jit
def held_back(command, stored):
    """A motor command while the outputs are off: ``(command now, stored)``. A command other than the neutral
    marker (one a controller wrote since, or the one in force when they went off) is stored and replaced by
    the marker; the marker leaves the store as it was (NaN: nothing stored)."""
    if is_neutral_marker(command):
        return command, stored
    return -0.0, command


@jit
def restored(command, stored):
    """A motor command when the outputs are back: the stored one where the slot still holds the marker (a
    command written since wins); the store is then emptied (NaN)."""
    if not math.isnan(stored) and is_neutral_marker(command):
        return stored
    return command


# -- the numeric solve ----------------------------------------------------------------------------------------
@jit
def search_start(s, voc, r):
    """Begin the numeric search for the bus of a battery ``(voc V, r ohm > 0)``; the caller evaluates the
    loads' total supply current at ``s[S_V]`` (``voc``) and passes it to :func:`search_next`."""
    s[S_VOC], s[S_R] = voc, r
    s[S_TOL] = 1e-13 * voc
    s[S_STAGE] = _F0
    s[S_V] = voc
    return SEARCH_EVALUATE


@jit
def search_next(s, current):
    """Take ``current``, the loads' total supply current (A) at ``s[S_V]``. Returns
    :data:`SEARCH_EVALUATE` (evaluate at ``s[S_V]`` next), :data:`SEARCH_ROOT` (the bus is ``s[S_V]``),
    :data:`SEARCH_BRACKETED` (the largest root is in ``[s[S_V], s[S_UPPER]]``: the caller finds it by
    Brent's method with :data:`BUS_XTOL`, :data:`BUS_RTOL`), :data:`SEARCH_COLLAPSED` (no bus voltage >= 0 satisfies the loads) or :data:`SEARCH_NO_BOUND` (the
    loads regenerate past any bound)."""
    voc, r = s[S_VOC], s[S_R]
    v = s[S_V]
    phi = v - voc + r * current
    stage = s[S_STAGE]
    if stage == _F0:
        if phi == 0.0:
            return SEARCH_ROOT
        # Closed form when no controller saturates: the electrical power each draws is fixed.
        p = voc * (phi / r)
        disc = voc * voc - 4.0 * r * p
        v1 = 0.5 * (voc + math.sqrt(disc)) if disc >= 0 else 0.5 * voc
        s[S_A], s[S_FA], s[S_B], s[S_ITER] = voc, phi, v1, 0.0
        s[S_STAGE] = _SECANT
        s[S_V] = v1
        return SEARCH_EVALUATE
    if stage == _SECANT:
        b, fb, a, fa = v, phi, s[S_A], s[S_FA]
        tol = s[S_TOL]
        if s[S_ITER] < SECANT_ITERATIONS:
            if not (abs(fb) <= tol or fb == fa):
                c = b - fb * (b - a) / (fb - fa)
                s[S_A], s[S_FA], s[S_B] = b, fb, c
                s[S_ITER] += 1.0
                s[S_V] = c
                return SEARCH_EVALUATE
            if math.isfinite(b) and abs(fb) <= 10 * tol and b >= 0:
                return SEARCH_ROOT
        # Fallback: the physical bus voltage is the largest root. Bracket it from above: grow an upper
        # bound past a regenerating bus, then walk down a grid to the first sign change.
        s[S_STAGE] = _GROW
        s[S_V] = voc
        return SEARCH_EVALUATE
    if stage == _GROW:
        if phi < 0:
            hi = v * 2.0
            if hi > 1e6 * voc:
                return SEARCH_NO_BOUND
            s[S_V] = hi
            return SEARCH_EVALUATE
        s[S_HI], s[S_UPPER], s[S_J] = v, v, 1.0
        s[S_STAGE] = _GRID
        s[S_V] = _grid_point(v, 1)
        return SEARCH_EVALUATE
    if stage == _GRID:
        if phi < 0.0:
            return SEARCH_BRACKETED  # the root is in [s[S_V], s[S_UPPER]]: Brent's method there
        j = int(s[S_J]) + 1
        if j >= GRID_POINTS:
            return SEARCH_COLLAPSED  # no root on a live bus
        s[S_UPPER], s[S_J] = v, j
        s[S_V] = _grid_point(s[S_HI], j)
        return SEARCH_EVALUATE
    return SEARCH_NO_BOUND  # not reached: every stage returns above


@jit(internal=True)
def _grid_point(hi, j):
    """Point ``j`` of ``numpy.linspace(hi, 0, GRID_POINTS)``."""
    if j == GRID_POINTS - 1:
        return 0.0
    return j * (-hi / (GRID_POINTS - 1)) + hi

