"""The mecanum drive's slots in the kernel, in plain Python: its parameter vector, modes, events and outputs.

Shared by the compiled drive (:mod:`simcore.kernel.mecanum`) and by the model
(:class:`simcore.models.mecanum.MecanumDrive`), whose constructor derives the vector without loading numba.
"""
from __future__ import annotations

from .chassis_layout import N_CONTACT_SETS, N_WALL_BLOCK, N_WALLS, N_WHEEL, sample_size

#: The four channels' motor group (one MotorDrive: resistance ohm, 1/Kv and Kv, Kt N·m/A, gearing, efficiency,
#: whether the command is a duty, whether it has current limits, the limits A, the rotor's viscous friction
#: N·m·s/rad, the conductance 1/R S and ``1/Kv - Kt``); rotor rad per m at the rim ``k = G/r``, the wheel radius m,
#: mass kg, moment of inertia kg·m², each wheel's rotating mass at the rim kg, the rollers' rolling resistance per
#: load, the square of the slip speed epsilon m²/s², whether energy is tracked; the input slots of the external
#: force x and the bus voltage, then each wheel's brake (four slots from MP_BRAKE); the number of odometry pods
#: and the slot of the first pod's state; then the four wheel blocks (:mod:`simcore.kernel.chassis_layout`'s
#: ``W_*``) from MP_WHEELS, then per odometry pod (from MP_PODS, ``N_POD`` slots each) its contact point (m, robot
#: frame), the cosine and sine of its rolling direction's heading, and its wheel radius (m).
(MP_R, MP_INV_KV, MP_KV, MP_KT, MP_GEARING, MP_EFFICIENCY, MP_DUTY, MP_LIMITED, MP_STATOR_LIMIT, MP_SUPPLY_LIMIT,
 MP_B_ROTOR, MP_CONDUCTANCE, MP_CONVERSION, MP_K, MP_WHEEL_RADIUS, MP_MASS, MP_MOI, MP_WHEEL_MASS,
 MP_ROLLER_FRICTION, MP_SLIP_EPS2, MP_TRACK_ENERGY, MP_EXTERNAL, MP_BUS) = range(23)
MP_BRAKE = 23
MP_N_PODS, MP_POD_STATE = 27, 28
#: The offset of the walls block (:mod:`simcore.kernel.chassis_layout`'s ``WB_*``, after the pods) from the
#: drive's first parameter, or 0 for a drive without walls.
MP_WALLS = 29
MP_WHEELS = 30
N_MECANUM_WHEELS = 4
MP_PODS = MP_WHEELS + N_WHEEL * N_MECANUM_WHEELS
PD_X, PD_Y, PD_COS, PD_SIN, PD_RADIUS = range(5)
N_POD = 5
#: The parameters of a drive without pods.
N_MECANUM_PARAMETERS = MP_PODS


def n_mecanum_parameters(n_pods: int, walls: bool = False) -> int:
    """The parameters of a drive with ``n_pods`` odometry pods (and its walls block, with ``walls``)."""
    return MP_PODS + N_POD * n_pods + (N_WALL_BLOCK if walls else 0)


N_MECANUM_SAMPLE = sample_size(N_MECANUM_WHEELS)

#: The states: pose, field-frame velocity and yaw rate, the rim speeds, the rim distances, then the energy states.
I_WHEEL_VELOCITY, I_WHEEL_POSITION, I_ENERGY = 6, 10, 14
#: impact_loss among the energy states (simcore.models.chassis.DRIVE_ENERGY_STATES).
IMPACT_LOSS = 5

#: A mode: the wheels' traction modes, coded ``27 w_0 + 9 w_1 + 3 w_2 + w_3`` with each wheel's index in
#: :data:`MECANUM_WHEEL_MODES` (roll, forward, backward), plus, with walls, ``N_MECANUM_MODES`` times the index of
#: its wall contacts in :data:`simcore.kernel.chassis_layout.CONTACT_SETS`.
MECANUM_WHEEL_MODES = (0, 1, -1)
N_MECANUM_MODES = 81
N_MECANUM_WALL_MODES = N_MECANUM_MODES * N_CONTACT_SETS

#: The events by kernel id: wheel ``i``'s breakaway (armed rolling) is ``i``; its grip armed slipping forward is
#: ``4 + 2 i``, slipping backward ``5 + 2 i``.
#: With walls: wall ``w``'s event (a bumper corner reaching it; armed while fewer than two corners touch it) is
#: ``12 + w``; the leave_wall of contact ``(wall, corner)`` (armed while it holds) ``16 + 4 wall + corner``.
EV_MECANUM_BREAKAWAY, EV_MECANUM_GRIP, EV_MECANUM_WALL, EV_MECANUM_LEAVE_WALL = 0, 4, 12, 16
N_MECANUM_EVENTS = EV_MECANUM_LEAVE_WALL + 4 * N_WALLS
#: Each event's guard code is its id plus this (the tank's codes are below it, the swerve's above).
MECANUM_GUARD_BASE = 20
#: The guards that read the held inputs: the breakaways (the force rolling takes follows the commands) and the
#: wall contacts' pushes (so do they); a wall's gap reads the pose alone.
MECANUM_GUARDS_READING_INPUTS = (tuple(MECANUM_GUARD_BASE + EV_MECANUM_BREAKAWAY + i for i in range(4))
                                 + tuple(MECANUM_GUARD_BASE + EV_MECANUM_LEAVE_WALL + b for b in range(4 * N_WALLS)))

#: The outputs without walls or pods (MecanumDrive.output_names' order): robot_vx, robot_vy, supply_current,
#: kinetic_energy, seven per wheel (slip, stator, supply, applied, rotor position, rotor velocity, roller speed),
#: supply_voltage and the four normal loads; then per odometry pod its wheel's angle (rad) and speed (rad/s).
N_MECANUM_OUTPUTS = 4 + 7 * N_MECANUM_WHEELS + 1 + N_MECANUM_WHEELS


def n_mecanum_outputs(n_pods: int, walls: bool = False) -> int:
    """The outputs of a drive with ``n_pods`` odometry pods (and ``wall_force`` before theirs, with ``walls``)."""
    return N_MECANUM_OUTPUTS + (1 if walls else 0) + 2 * n_pods

