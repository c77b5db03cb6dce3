"""The swerve drive's slots in the kernel, in plain Python: its parameter vector, modes, events and outputs.

Shared by the compiled drive (:mod:`simcore.kernel.swerve`) and by the model
(:class:`simcore.models.swerve.SwerveDrive`), whose constructor derives the vector without loading numba. The
kernel's swerve has four modules (the event table holds a breakaway and two grips per wheel of four wheels).
"""
from __future__ import annotations

from .chassis_layout import N_CONTACT_SETS, N_WALL_BLOCK, N_WALLS, N_WHEEL, sample_size

#: The drive motors' group (one MotorDrive, slots ``SW_R`` ... ``SW_CONVERSION`` as
#: :func:`simcore.models.tank.channel_parameters` writes them: ``TP_*`` of :mod:`simcore.kernel.tank_layout`), and
#: from SW_STEER the steer motors' group laid out alike.
(SW_R, SW_INV_KV, SW_KV, SW_KT, SW_GEARING, SW_EFFICIENCY, SW_DUTY, SW_LIMITED, SW_STATOR_LIMIT, SW_SUPPLY_LIMIT,
 SW_B_ROTOR, SW_CONDUCTANCE, SW_CONVERSION) = range(13)
SW_STEER = 13
#: Then: drive rotor rad per m at the rim ``k = G_d/r``, the wheel radius m, mass kg, yaw moment of inertia kg·m²,
#: a wheel's rotating mass at the rim kg, a module's steering inertia kg·m², the couple ratio, the scrub radius m,
#: the tyres' friction coefficient, the square of the slip speed epsilon m²/s², whether energy is tracked, whether
#: any channel has current limits (then no supply curve); the input slots of the drive brake, the steer brake,
#: the external force x and the bus voltage.
(SW_K, SW_WHEEL_RADIUS, SW_MASS, SW_MOI, SW_WHEEL_MASS, SW_STEER_MOI, SW_COUPLE_RATIO, SW_SCRUB_RADIUS, SW_MU,
 SW_SLIP_EPS2, SW_TRACK_ENERGY, SW_ANY_LIMITED, SW_DRIVE_BRAKE, SW_STEER_BRAKE, SW_EXTERNAL,
 SW_BUS) = range(26, 42)
#: The offset of the walls block (:mod:`simcore.kernel.chassis_layout`'s ``WB_*``, after the wheel blocks) from the
#: drive's first parameter, or 0 for a drive without walls.
SW_WALLS = 42
#: The four wheel blocks (:mod:`simcore.kernel.chassis_layout`'s ``W_*``; the contact point in W_PX, W_PY, the
#: directions, which steer, in the sample).
SW_WHEELS = 43
N_SWERVE_MODULES = 4
N_SWERVE_PARAMETERS = SW_WHEELS + N_WHEEL * N_SWERVE_MODULES


def n_swerve_parameters(walls: bool = False) -> int:
    """The parameters of a drive (with its walls block, with ``walls``)."""
    return N_SWERVE_PARAMETERS + (N_WALL_BLOCK if walls else 0)

#: The sample: the chassis' (the drive channels in each wheel's WS_CHANNEL), then per module from
#: ``SM_BASE + N_SM * i``: its steer channel (8 slots, ``CH_*`` of :mod:`simcore.kernel.tank_layout`), the torque
#: on its steering Q (N·m), the scrub torque (N·m), the steer acceleration (rad/s²), the steer rotor's speed
#: (rad/s).
SM_BASE = sample_size(N_SWERVE_MODULES)
SM_CHANNEL, SM_Q, SM_SCRUB, SM_STEER_ACCEL, SM_ROTOR = 0, 8, 9, 10, 11
N_SM = 12
N_SWERVE_SAMPLE = SM_BASE + N_SM * N_SWERVE_MODULES

#: The states: pose, field-frame velocity and yaw rate, the steer angles, the steer rates, the rim speeds, the rim
#: distances, then the energy states.
I_STEER_ANGLE, I_STEER_RATE, I_WHEEL_SPEED, I_WHEEL_DISTANCE, I_ENERGY = 6, 10, 14, 18, 22

#: The events by kernel id (as the mecanum's): module ``i``'s breakaway (armed rolling) is ``i``; its grip armed
#: slipping forward is ``4 + 2 i``, slipping backward ``5 + 2 i``; with walls, wall ``w``'s event ``12 + w``, the
#: leave_wall of contact ``(wall, corner)`` ``16 + 4 wall + corner``. Each event's guard code is its id plus
#: SWERVE_GUARD_BASE (the tank's and the mecanum's codes are below it).
EV_SWERVE_BREAKAWAY, EV_SWERVE_GRIP, EV_SWERVE_WALL, EV_SWERVE_LEAVE_WALL = 0, 4, 12, 16
N_SWERVE_EVENTS = EV_SWERVE_LEAVE_WALL + 4 * N_WALLS
SWERVE_GUARD_BASE = 60
#: The guards that read the held inputs: the breakaways (the force rolling takes follows the commands) and the
#: wall contacts' pushes.
SWERVE_GUARDS_READING_INPUTS = (tuple(SWERVE_GUARD_BASE + EV_SWERVE_BREAKAWAY + i for i in range(4))
                                + tuple(SWERVE_GUARD_BASE + EV_SWERVE_LEAVE_WALL + b for b in range(4 * N_WALLS)))
#: The modes: the mecanum's wheel codes (81), plus with walls 81 times the contact set's index.
N_SWERVE_MODES = 81
N_SWERVE_WALL_MODES = N_SWERVE_MODES * N_CONTACT_SETS

#: The outputs without walls (SwerveDrive.output_names' order): robot_vx, robot_vy, supply_current,
#: kinetic_energy, eleven per module (slip speed, ground force, the drive channel's stator and supply current and
#: applied voltage, the steer channel's, the drive rotor position, the scrub torque, the normal load), then
#: supply_voltage.
N_SWERVE_OUTPUTS = 4 + 11 * N_SWERVE_MODULES + 1


def n_swerve_outputs(walls: bool = False) -> int:
    """The outputs of a drive (``wall_force`` last, with ``walls``)."""
    return N_SWERVE_OUTPUTS + (1 if walls else 0)
