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
S_WHEELS = 11
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
