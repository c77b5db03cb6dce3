"""The kernel's layout: the slots of its state arrays, its statuses and codes, in plain Python.

Shared by the compiled modules and by the engine (:mod:`simcore.engine`, :mod:`simcore.compiled_run`),
which reads the kernel's results without importing numba for it.
"""
from __future__ import annotations

# -- statuses of a segment or an advance ---------------------------------------------------------------
(DONE, EVENT, SWITCH, PAUSE, STEP_TOO_SMALL, NONFINITE_STATE, NONFINITE_DERIVATIVE, NONFINITE_GUARD,
 WARN_STIFF, TICK_REFUSED) = range(10)
#: Events accumulated (Zeno).
ZENO = 20

# -- the per-variant scalars: a segment's (S_*), then the run's (RS_*) -------------------------------------
(S_T, S_H, S_T_END, S_NFEV, S_NSTEPS, S_NROWS, S_TE, S_T_NEW, S_NROOTS, S_STIFF, S_CALM, S_STEPS_HERE, S_SPAN,
 S_BAD_T, S_BAD_INDEX, S_SWITCH_DUE, S_WARN_DUE, S_DROPPED) = range(18)
N_STATE = 18
(RS_IN_SEGMENT, RS_ZENO_RUN, RS_LAST_EVENT_T, RS_N_FIRED, RS_N_EVENTS, RS_N_SEGMENTS, RS_N_ACTIVE,
 RS_ZENO_EVENT, RS_N_EV_RECORDS, RS_DETECT, RS_WARN_T) = range(N_STATE, N_STATE + 11)
#: With loops ticking in the kernel (simcore.kernel.ticks): the time reached and the time to reach, integer ns
#: (held exactly in a float below 2**53 ns, 104 days); the ticks run in the kernel so far (each row records
#: how many, so that its held inputs can be told); the tick records in the buffer.
RS_T_NS, RS_TARGET_NS, RS_N_TICKS, RS_N_TICK_RECORDS = range(N_STATE + 11, N_STATE + 15)
N_RUN_STATE = N_STATE + 15

# -- a variant's arrays in its row of the run's float block and of its integer block, in this order ----------
#: X (n), U (inputs), F0 (n), RS (N_RUN_STATE), G_PREV (A), SEARCH (parts, N_EVENTS), LAST_T (parts, N_EVENTS),
#: FIRED (A, 4), X_BEFORE (n), CS (the kernel loops' states); A = MAX_ACTIVE * parts (parts at least 1). With a
#: disabling battery U ends with its run state (simcore.kernel.parts.brownout_slots).
FLOAT_BLOCK = ("X", "U", "F0", "RS", "G_PREV", "SEARCH", "LAST_T", "FIRED", "X_BEFORE", "CS")
#: modes (parts), ACTIVE (A, 4), TICKS (each kernel loop's ticks so far).
INT_BLOCK = ("modes", "ACTIVE", "TICKS")

# -- what a run hands its kernel calls besides its state: its constants, its output buffers, scratch ------------
#: A run's constants (``consts``, float): the tolerances and the largest step; the stiffness rule (R_* below, five);
#: the variant's sizes (states, their largest part, rows and event records a buffer holds, tick records); the
#: guard-sampling fractions of a step (K_N_FRACTIONS of them from K_FRACTIONS on), then their interior weights
#: (fractions x 6, row by row).
(K_RTOL, K_ATOL, K_MAX_STEP) = range(3)
K_STIFF_RULE = 3
(K_N, K_NX_MAX, K_ROWS, K_RECORDS, K_TICK_ROWS, K_N_FRACTIONS) = range(8, 14)
K_FRACTIONS = 14
#: A variant's output buffers in its row of the run's float block and of its integer block, in this order: rows'
#: times (rows), states (rows, n), event records (records, N_EVENT_FIELDS), their states before and after
#: (records, 2, largest part), the state where a failure was found (n), tick records (tick rows, 2 + MAX_WRITES);
#: rows' modes (rows, parts + 1: the kernel's ticks before the row last) and the advance's status.
OUT_FLOAT_BLOCK = ("ROWS_T", "ROWS_Y", "EVR_F", "EVR_X", "BAD_X", "TICK_ROWS")
OUT_INT_BLOCK = ("ROWS_M", "STATUS")


def scratch_sizes(n, A, n_frac, n_u, n_cs, n_loops, max_writes):
    """The floats, integers and booleans of one advance's scratch (simcore.kernel.advance.advance_chunk carves
    it in this order): for ``n`` states, ``A`` armed events at most, ``n_frac`` sampling fractions, ``n_u``
    inputs, ``n_cs`` loop states and ``n_loops`` loops of ``max_writes`` writes each."""
    floats = 16 * n + 6 * A + 2 + A * n_frac + 3 * n_frac + 4 + n_u + n_cs + n_loops * max_writes
    ints = 4 * A + 1 + MAX_ACTIVE
    bools = N_FLAGS + max(A // MAX_ACTIVE, 1)
    return floats, ints, bools


# -- flags of a call: "auto"; stiffness estimates made; every step recorded; guards armed; segment start; the
# -- loops tick in the kernel (the advance goes to RS_TARGET_NS, not S_T_END) --
F_AUTO, F_DETECT, F_KEEP, F_ARMED, F_START, F_TICKING = range(6)
N_FLAGS = 6

# -- the stiffness rule's numbers, in this order (simcore.solvers') --------------------------------------
R_BOUNDARY, R_STIFF_STEPS, R_CLEAR_AFTER, R_SKIP_STEPS, R_MIN_EXPLICIT = range(5)

# -- an armed event (ACTIVE[v, j]) and a just-fired one (FIRED[v, j]) ---------------------------------------
A_PART, A_CODE, A_DIR, A_ID = range(4)
FD_PART, FD_ID, FD_PRE_SIDE, FD_PREV_T = range(4)

# -- an event record (EVR_F[v, e]) ---------------------------------------------------------------------------
#: E_ROW: the index, in the variant's row buffer, of the row after the event (the first in the new mode).
E_T, E_PART, E_ID, E_MODE_BEFORE, E_MODE_AFTER, E_AT_TICK, E_ROW = range(7)
N_EVENT_FIELDS = 7

# -- the geared mechanism's modes and events (simcore.kernel.geared) -------------------------------------
MODE_MOVING, MODE_FORWARD, MODE_REVERSE, MODE_STUCK, MODE_LOWER_STOP, MODE_UPPER_STOP = range(6)
MODE_NAMES = ("moving", "forward", "reverse", "stuck", "lower_stop", "upper_stop")
(EV_LOWER_STOP, EV_UPPER_STOP, EV_VELOCITY_ZERO_FORWARD, EV_VELOCITY_ZERO_REVERSE, EV_BREAKAWAY_FORWARD,
 EV_BREAKAWAY_REVERSE, EV_LEAVE_LOWER_STOP, EV_LEAVE_UPPER_STOP) = range(8)
#: The most event ids of one part (the geared mechanism's 8; a mecanum drive's 32: a breakaway and two grips per
#: wheel, a wall event per wall, a leave_wall per wall contact (wall, corner)) and the most armed at once in one
#: part (a mecanum drive's 10: its four wheels one each, and in a field corner, one corner on each of the two
#: walls, the four walls' events and the two contacts' leave_wall; or a side on one wall and a corner on the other,
#: three walls' and three contacts'; or a side on each, two and four).
N_EVENTS = 32
MAX_ACTIVE = 10
#: The geared mechanism's guards: ``x[0] - min``; ``x[0] - max``; ``x[1]``; the forward push over
#: breakaway; the backward push over it. The last two read the held inputs, the others the state alone.
GUARD_LOWER_STOP, GUARD_UPPER_STOP, GUARD_VELOCITY, GUARD_FORWARD_PUSH, GUARD_BACKWARD_PUSH = range(5)
#: The battery's guards (simcore.kernel.battery, brownout "disable"): the bus over the brownout threshold; the
#: recovery's. Both read the bus, which the held inputs move.
GUARD_BROWNOUT, GUARD_RECOVERY = 5, 6
#: The guards that read the held inputs (a tick's writes can move only these across zero).
GUARDS_READING_INPUTS = (GUARD_FORWARD_PUSH, GUARD_BACKWARD_PUSH, GUARD_BROWNOUT, GUARD_RECOVERY)
#: The geared mechanism's load kinds: none; gravity on an arm ``a sin(b - q)`` (a = m g d, b = the gravity
#: direction); a constant force ``a`` (an elevator's weight and constant force).
LOAD_NONE, LOAD_ARM_GRAVITY, LOAD_CONSTANT = 0, 1, 2

# -- the geared mechanism's parameter vector (simcore.kernel.geared; GearedMechanism.kernel_parameters) ---------
#: Motor group (resistance ohm, torque constant N·m/A, velocity constant rad/s per V, current limits A, whether the
#: command is a duty), gearbox (ratio, efficiency); the mechanism: its transmission ratio k (rotor rad per unit of
#: q), k per gearing, its inertia with the rotors M, viscous friction at the mechanism and at the rotors (rotor
#: torque per unit of mechanism speed), kinetic and breakaway force, the stops, whether the direction of motion
#: is a mode, whether energy is tracked, the load (kind, a, b) and the drum radius (m; 1 for a rotary one).
P_R, P_KT, P_KV, P_STATOR_LIMIT, P_SUPPLY_LIMIT, P_DUTY_COMMAND, P_GEARING, P_EFFICIENCY = range(8)
(P_K, P_K_PER_GEARING, P_M, P_LOAD_VISCOUS, P_SHAFT_FRICTION, P_KINETIC, P_BREAKAWAY, P_MIN, P_MAX,
 P_DIRECTIONAL, P_TRACK_ENERGY, P_LOAD_KIND, P_LOAD_A, P_LOAD_B, P_DRUM_RADIUS) = range(8, 23)
N_PARAMETERS = 23

# -- the geared mechanism's outputs, in GearedMechanism.output_names' order (simcore.kernel.geared.outputs) ----
(Y_ACCELERATION, Y_ROTOR_POSITION, Y_ROTOR_VELOCITY, Y_ROTOR_ACCELERATION, Y_STATOR_CURRENT, Y_SUPPLY_CURRENT,
 Y_APPLIED_VOLTAGE, Y_SUPPLY_VOLTAGE, Y_TORQUE, Y_MOTOR_TORQUE, Y_SATURATED, Y_CURRENT_LIMITED) = range(12)
N_OUTPUTS = 12
OUTPUT_NAMES = ("acceleration", "rotor_position", "rotor_velocity", "rotor_acceleration", "stator_current",
                "supply_current", "applied_voltage", "supply_voltage", "torque", "motor_torque", "saturated",
                "current_limited")

# -- the servo (simcore.kernel.servo; ServoMechanism.kernel_parameters): the geared vector, then its electronics --
#: Accepted pulse range (µs), the position-mode target per µs (rad/µs), the loop's proportional band (rad),
#: whether it is set to continuous rotation (0/1), and the continuous mode's full-speed pulse offset (µs); each
#: an offset from the part's first parameter.
(SP_PULSE_MIN, SP_PULSE_MAX, SP_RADIANS_PER_MICROSECOND, SP_PROPORTIONAL_BAND, SP_CONTINUOUS,
 SP_FULL_SPEED_PULSE) = range(N_PARAMETERS, N_PARAMETERS + 6)
N_SERVO_PARAMETERS = N_PARAMETERS + 6
#: The servo's outputs after the geared ones (ServoMechanism's extra outputs): the position-mode target of the
#: held pulse (rad) and the duty its loop applies.
Y_TARGET_ANGLE, Y_LOOP_DUTY = N_OUTPUTS, N_OUTPUTS + 1
N_SERVO_OUTPUTS = N_OUTPUTS + 2

# -- the drivetrains' guards that read the held inputs too (simcore.kernel.tank_layout) -------------------------
from .tank_layout import TANK_GUARDS_READING_INPUTS as _TANK_GUARDS_READING_INPUTS  # noqa: E402

GUARDS_READING_INPUTS = GUARDS_READING_INPUTS + _TANK_GUARDS_READING_INPUTS
from .mecanum_layout import MECANUM_GUARDS_READING_INPUTS as _MECANUM_GUARDS_READING_INPUTS  # noqa: E402

GUARDS_READING_INPUTS = GUARDS_READING_INPUTS + _MECANUM_GUARDS_READING_INPUTS
from .swerve_layout import SWERVE_GUARDS_READING_INPUTS as _SWERVE_GUARDS_READING_INPUTS  # noqa: E402

GUARDS_READING_INPUTS = GUARDS_READING_INPUTS + _SWERVE_GUARDS_READING_INPUTS
