"""The tank drives' slots in the kernel, in plain Python: parameter vectors and outputs.

Shared by the compiled tank modules (:mod:`simcore.kernel.characterized_tank`) and by the models
(:mod:`simcore.models.tank`), whose constructors derive the parameter vectors without loading numba.
"""
from __future__ import annotations

# -- the characterized tank drive (simcore.kernel.characterized_tank; CharacterizedTankDrive.kernel_parameters) --
#: WPILib's drivetrain plant on the side speeds ``a = A v + B V'`` (``A = [[A1, A2], [A2, A1]]`` 1/s,
#: ``B = [[B1, B2], [B2, B1]]`` m/s² per V), the kS deadband (V) and the track width (m).
CP_A1, CP_A2, CP_B1, CP_B2, CP_KS, CP_TRACK_WIDTH = range(6)
N_CHARACTERIZED_PARAMETERS = 6
#: Its states: the pose, the side speeds and the side distances.
(CX_X, CX_Y, CX_HEADING, CX_LEFT_VELOCITY, CX_RIGHT_VELOCITY, CX_LEFT_POSITION,
 CX_RIGHT_POSITION) = range(7)
N_CHARACTERIZED_STATES = 7
#: Its inputs: the side voltages and the bus voltage.
CU_LEFT_VOLTAGE, CU_RIGHT_VOLTAGE, CU_BUS_VOLTAGE = range(3)
#: Its outputs, in CharacterizedTankDrive.output_names' order.
(CY_VELOCITY, CY_YAW_RATE, CY_LEFT_ACCELERATION, CY_RIGHT_ACCELERATION, CY_LEFT_APPLIED_VOLTAGE,
 CY_RIGHT_APPLIED_VOLTAGE) = range(6)
CHARACTERIZED_OUTPUT_NAMES = ("velocity", "yaw_rate", "left_acceleration", "right_acceleration",
                              "left_applied_voltage", "right_applied_voltage")
N_CHARACTERIZED_OUTPUTS = 6

# -- the physical tank drive (simcore.kernel.tank; TankDrive.kernel_parameters) ----------------------------------
#: Both sides' motor channel (one MotorDrive): resistance ohm, 1/Kv and Kv, Kt N·m/A, gearing, efficiency, whether
#: the command is a duty, whether it has current limits, the limits A, the rotor's viscous friction N·m·s/rad, the
#: conductance 1/R S and ``1/Kv - Kt`` (the conversion loss's factor); the chassis: rotor rad per m at the rim
#: ``k = G/r``, the wheel radius m, half the track width and the track width m, mass kg, moment of inertia kg·m²,
#: each side's rotating mass at the rim kg, the friction coefficient (NaN: no traction limit) and it times
#: ``1 + BREAKAWAY_MARGIN``, each side's load at rest N, whether there is a traction limit, whether energy is
#: tracked; the input slots of the left and right brake, the external force x and the bus voltage; scrub: whether
#: the drive has axles (a wheelbase), the square of its slip speed epsilon (m²/s²), its number of axles, each side's
#: load transfer coefficients (N per m/s² along x and y: zero without a cog height); then per axle (``TP_AXLES``,
#: ``N_AXLE`` slots each) its x (m), its sideways friction coefficient and its left and right contacts' loads at
#: rest (N).
(TP_R, TP_INV_KV, TP_KV, TP_KT, TP_GEARING, TP_EFFICIENCY, TP_DUTY, TP_LIMITED, TP_STATOR_LIMIT, TP_SUPPLY_LIMIT,
 TP_B_ROTOR, TP_CONDUCTANCE, TP_CONVERSION, TP_K, TP_WHEEL_RADIUS, TP_RB, TP_TRACK_WIDTH, TP_MASS, TP_MOI, TP_MW,
 TP_MU, TP_MU_BREAKAWAY, TP_LOAD0_L, TP_LOAD0_R, TP_TRACTION, TP_TRACK_ENERGY, TP_BRAKE_L, TP_BRAKE_R,
 TP_EXTERNAL, TP_BUS, TP_SCRUB, TP_SLIP_EPS2, TP_N_AXLES, TP_WLX_L, TP_WLX_R, TP_WLY_L, TP_WLY_R) = range(37)
TP_AXLES = 37
AX_X, AX_MU, AX_LOAD0_L, AX_LOAD0_R = range(4)
N_AXLE = 4
#: The most axles the kernel's tank takes (a drive with more runs on the Python path).
MAX_AXLES = 4
MAX_CONTACTS = 2 * MAX_AXLES
#: The parameters of a drive with ``n_axles`` axles (0 without scrub).
def n_tank_parameters(n_axles: int) -> int:
    return TP_AXLES + N_AXLE * n_axles


N_TANK_PARAMETERS = TP_AXLES

#: A tank's modes: the wheels' traction modes (ROLL 0, FORWARD 1, BACKWARD -1 of simcore.models.chassis), coded
#: ``3 w_L + w_R`` with each wheel's index in :data:`TANK_WHEEL_MODES`.
TANK_WHEEL_MODES = (0, 1, -1)
N_TANK_MODES = 9
#: A tank's events by kernel id: each side's breakaway (armed rolling) and grip (armed slipping forward, backward).
(EV_TANK_BREAKAWAY_LEFT, EV_TANK_BREAKAWAY_RIGHT, EV_TANK_GRIP_LEFT_FORWARD, EV_TANK_GRIP_LEFT_BACKWARD,
 EV_TANK_GRIP_RIGHT_FORWARD, EV_TANK_GRIP_RIGHT_BACKWARD) = range(6)
N_TANK_EVENTS = 6
#: Each event's guard code is its id plus this (the geared mechanism's codes are below it).
TANK_GUARD_BASE = 10
#: The tank's guards that read the held inputs: the breakaways (the force rolling takes follows the commands).
TANK_GUARDS_READING_INPUTS = (TANK_GUARD_BASE + EV_TANK_BREAKAWAY_LEFT, TANK_GUARD_BASE + EV_TANK_BREAKAWAY_RIGHT)

#: The slots of one evaluation of a tank (simcore.kernel.tank.evaluate): the chassis solution, the slips, the chassis
#: velocity, the rims' and rotors' speeds, the heading's cosine and sine, the bus, each channel's state (8 slots from
#: TS_CHANNEL_L and TS_CHANNEL_R, in simcore.kernel.channels.channel's order), the power terms of the ledger.
(TS_AX, TS_AY, TS_ALPHA, TS_F_L, TS_F_R, TS_WA_L, TS_WA_R, TS_SLIP_FREE_L, TS_SLIP_FREE_R, TS_SLIP_L, TS_SLIP_R,
 TS_V, TS_VLAT, TS_OM, TS_WS_L, TS_WS_R, TS_ROTOR_L, TS_ROTOR_R, TS_COS, TS_SIN, TS_BUS, TS_NORMAL_L, TS_NORMAL_R,
 TS_FRICTION_POWER, TS_EXTERNAL_POWER) = range(25)
TS_CHANNEL_L, TS_CHANNEL_R = 25, 33
(CH_APPLIED, CH_STATOR, CH_SUPPLY, CH_SATURATED, CH_LIMITED, CH_MOTOR_TORQUE, CH_OUTPUT_TORQUE,
 CH_FRICTION_TORQUE) = range(8)
#: Per ground contact ``j`` (left then right on each axle, front to back; two without scrub): its normal load N at
#: ``TS_NORMAL + j``, its sideways force N at ``TS_FREE + j`` and its sideways slip m/s at ``TS_LATERAL + j``
#: (``TS_NORMAL_L``, ``TS_NORMAL_R`` above are each side's load, the sum of its contacts').
TS_NORMAL, TS_FREE, TS_LATERAL = 41, 41 + MAX_CONTACTS, 41 + 2 * MAX_CONTACTS
N_TANK_SAMPLE = 41 + 3 * MAX_CONTACTS
#: The tank's outputs without walls or pods (simcore.kernel.tank.outputs): four slots that hold, with a traction
#: limit, the slips and the ground forces, else the chassis velocity and yaw rate (and two NaN); then acceleration,
#: yaw acceleration, supply current, kinetic energy; 12 per side (SIDE_OUTPUTS); the supply voltage, each
#: contact's normal load, and with scrub the lateral acceleration. Without scrub: N_TANK_OUTPUTS.
def n_tank_outputs(n_axles: int) -> int:
    return 4 + 4 + 24 + 1 + (2 * n_axles + 1 if n_axles else 2)


N_TANK_OUTPUTS = n_tank_outputs(0)
