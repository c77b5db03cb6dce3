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
