"""The kernel chassis' slots, in plain Python: a wheel's fixed data in a parameter vector, and one evaluation's
per-wheel and chassis quantities in a sample array.

Shared by the compiled chassis core (:mod:`simcore.kernel.chassis`), the drivetrains built on it
(:mod:`simcore.kernel.mecanum`) and their models, which derive the parameter vectors without loading numba.
A drivetrain lays out its own parameters and puts one wheel block (``N_WHEEL`` slots, ``W_*``) per wheel
where its layout says; its sample is :data:`N_CHASSIS_SAMPLE` chassis slots (``S_*``), then ``N_WS`` slots per
wheel (``WS_*``), the traction directions among them, so that a wheel that steers (a swerve module) writes its
present direction there before the solve.
"""
from __future__ import annotations

import bisect

#: A wheel's fixed data (one contact per wheel): its rotating mass at the rim ``M_i`` (kg), its friction
#: coefficient along the traction direction and it times ``1 + BREAKAWAY_MARGIN``, its contact's load at rest
#: (N), its load transfer coefficients (N per m/s² of the chassis acceleration along x and y; zero without a
#: cog height), and for wheels that do not steer the contact point (m, robot frame), the traction direction
#: ``d``, the arm ``r x d`` (m), the couplings ``e . d`` and ``e . n``, the free direction ``n`` and its arm
#: ``r x n`` (m).
(W_MASS_EQ, W_MU, W_MU_BREAKAWAY, W_LOAD0, W_LOAD_X, W_LOAD_Y, W_PX, W_PY, W_DX, W_DY, W_ARM, W_COUPLE,
 W_COUPLE_FREE, W_NX, W_NY, W_FREE_ARM) = range(16)
N_WHEEL = 16

#: The chassis at one instant: accelerations (robot frame, m/s², rad/s²), the heading's cosine and sine, the
#: chassis velocity (robot frame, m/s, rad/s), the bus voltage (V), the ledger's friction and external power (W).
(S_AX, S_AY, S_ALPHA, S_COS, S_SIN, S_VX, S_VY, S_OM, S_BUS, S_FRICTION_POWER, S_EXTERNAL_POWER) = range(11)
#: The wall contacts of the mode (Chassis.wall_rows and the solve's wall forces): their number, then from
#: S_CONTACTS, ``N_CS`` slots each in the mode's order (ascending pair index ``4 wall + corner``): the pair, the
#: wall's normal in the robot frame (x, y), the arm ``corner x n`` (m), the right-hand side ``omega^2 n . corner``
#: (m/s²) and the wall's push (N).
S_N_CONTACTS = 11
S_CONTACTS = 12
CS_PAIR, CS_NX, CS_NY, CS_CHI, CS_RHS, CS_FORCE = range(6)
N_CS = 6
#: The most wall contacts at once: two walls meeting at a field corner, two bumper corners on each (a drive whose
#: bumper can reach two opposite walls at once has no kernel form: :func:`walls_fit`).
MAX_CONTACTS = 4
S_WHEELS = S_CONTACTS + N_CS * MAX_CONTACTS
N_CHASSIS_SAMPLE = S_WHEELS

#: Per wheel, from ``S_WHEELS + N_WS * i``: its traction mode (ROLL 0, FORWARD 1, BACKWARD -1, as a float); its
#: geometry at this instant (as ``W_DX`` ... ``W_FREE_ARM``); what the solve takes: ``h`` (the ground acceleration
#: along ``d`` that is no unknown, m/s²), the drive force at the rim ``D`` (N), the free force's coefficient
#: (``g = -coef N``); the contact's velocity along ``d`` and ``n`` (m/s), the slip if it slid and its slip
#: (m/s), the rim and rotor speeds (m/s, rad/s), the free slip (a mecanum roller's rolling speed, m/s); what the
#: solve gives: the traction force's constant and its A_x, A_y, alpha coefficients, the traction force (N), the
#: rim acceleration (m/s²), the contact's normal load and free force (N); the motor channel's state (8 slots from
#: ``WS_CHANNEL``, in :func:`simcore.kernel.channels.channel`'s order: ``CH_*`` of
#: :mod:`simcore.kernel.tank_layout`).
(WS_MODE, WS_DX, WS_DY, WS_ARM, WS_COUPLE, WS_COUPLE_FREE, WS_NX, WS_NY, WS_FREE_ARM, WS_H, WS_D, WS_COEF,
 WS_ALONG, WS_ACROSS, WS_SLIP_FREE, WS_SLIP, WS_W, WS_ROTOR, WS_FREE_SLIP, WS_F0, WS_FX, WS_FY, WS_FA, WS_F,
 WS_WA, WS_NORMAL, WS_G) = range(27)
WS_CHANNEL = 27
N_WS = 35


def sample_size(n_wheels: int) -> int:
    """The slots of a sample of a chassis on ``n_wheels`` wheels."""
    return N_CHASSIS_SAMPLE + N_WS * n_wheels


# -- walls (simcore.models.chassis' "Walls": the bumper's corners against the field's four walls) ------------------
#: A drive's walls block in its parameter vector: the bumper's corners (robot frame, m; front-left, front-right,
#: rear-left, rear-right, x then y), then per wall (Chassis.walls' order: x_min, x_max, y_min, y_max) its inward
#: normal (x, y) and its offset (m): a point ``q``'s gap is ``n . q - offset``.
WB_CORNERS = 0
WB_WALLS = 8
WL_NX, WL_NY, WL_OFFSET = range(3)
N_WALL = 3
N_WALLS, N_CORNERS = 4, 4
N_WALL_BLOCK = WB_WALLS + N_WALL * N_WALLS
#: A wall contact ``(wall, corner)`` is the pair ``4 wall + corner``; a set of contacts a 16-bit mask of pairs.
#: The pairs of bumper corners that can touch one wall together (the bumper's sides), and the walls that can be
#: touched together (those meeting at a field corner).
BUMPER_SIDES = ((0, 1), (0, 2), (1, 3), (2, 3))
ADJACENT_WALLS = ((0, 2), (0, 3), (1, 2), (1, 3))


def _contact_sets() -> tuple:
    """Every set of wall contacts a bumper that cannot reach two opposite walls can hold, as masks, ascending:
    on each wall none, one corner or one side, on no wall, one wall or two that meet."""
    on_one_wall = [(k,) for k in range(N_CORNERS)] + [side for side in BUMPER_SIDES]
    masks = {0}
    for w in range(N_WALLS):
        for corners in on_one_wall:
            masks.add(sum(1 << (4 * w + k) for k in corners))
    for w0, w1 in ADJACENT_WALLS:
        for c0 in on_one_wall:
            for c1 in on_one_wall:
                masks.add(sum(1 << (4 * w0 + k) for k in c0) + sum(1 << (4 * w1 + k) for k in c1))
    return tuple(sorted(masks))


#: The contact sets a mode can hold, ascending (index 0: none). A drive with walls codes its mode as its wheel
#: modes' code plus ``N_WHEEL_CODES`` times the index of its contact set here.
CONTACT_SETS = _contact_sets()
N_CONTACT_SETS = len(CONTACT_SETS)


def contact_set_index(contacts) -> int:
    """The index in :data:`CONTACT_SETS` of the contacts ``contacts`` (``(wall, corner)`` pairs), or -1."""
    mask = sum(1 << (4 * w + k) for w, k in contacts)
    i = bisect.bisect_left(CONTACT_SETS, mask)
    return i if i < N_CONTACT_SETS and CONTACT_SETS[i] == mask else -1


def contacts_of_set(index: int) -> tuple:
    """The sorted ``(wall, corner)`` pairs of contact set ``index``."""
    mask = CONTACT_SETS[index]
    return tuple((b // 4, b % 4) for b in range(4 * N_WALLS) if mask >> b & 1)


def walls_fit(bumper, field) -> bool:
    """Whether a bumper ``(length, width)`` (m) can touch no two opposite walls of ``field`` ``(x_min, y_min,
    x_max, y_max)`` (m) at once: its diagonal shorter than the field's length and width (then its contacts are
    one of :data:`CONTACT_SETS`)."""
    diagonal = (bumper[0] ** 2 + bumper[1] ** 2) ** 0.5
    return diagonal < field[2] - field[0] and diagonal < field[3] - field[1]


def wall_block(chassis) -> list:
    """The walls block (``N_WALL_BLOCK`` values) of a :class:`simcore.models.chassis.Chassis` with walls."""
    block = [v for corner in chassis.corners for v in corner]
    for (nx, ny), off in chassis.walls:
        block += [nx, ny, off]
    return block
