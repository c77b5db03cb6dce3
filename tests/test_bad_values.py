"""Property: every bad value given to a public constructor or value type is refused with ConfigError.

For each constructor below, one parameter of an otherwise valid call is replaced by each of
the bad values of that parameter's kind in turn (strings, None, bools, NaN, infinities,
complex numbers, sequences, Quantities of a dimension no parameter has, and the kind's own:
zero or negative for a positive quantity, > 1 for an efficiency, a float for a count ...):
every combination, as the space is small (a few thousand calls, about 2 s). The call must
raise ConfigError (a ValueError; ConfigTypeError is one too) naming that parameter: never be
accepted, never raise OverflowError, ZeroDivisionError or Python's bare TypeError, and never
the unknown-keyword error (which would mean the table misspells the parameter).

Values at the ends of the float range (1e308, 5e-324) may be legitimate; they must give either
ConfigError or an object whose first evaluation (derivatives and outputs at the initial state)
raises nothing but the project's errors.

Lean for CI: nothing here runs a simulation, so no call can take long; a SIGALRM guard turns
a hang into a failure.
"""
import math
import signal
from contextlib import contextmanager

import numpy as np
import pytest

import simcore.controllers as controllers
import simcore.models as models
from simcore import Q_, SimError
from simcore.errors import ConfigError
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.motors import NEO

#: A dimension no parameter has (charge per temperature).
ALIEN = Q_(1.0, "A*s/K")
NOT_NUMBERS = ["1.0", "abc", b"2", None, True, False, 1j, [1.0, 2.0], (), {}, object(), ALIEN]
NOT_FINITE = [math.nan, -math.nan, math.inf, -math.inf]
HUGE_TINY = [1e308, -1e308, 5e-324, -5e-324, 1e-300, 10 ** 400]

#: For parameters that take an array (one value per batch variant): bad arrays instead of any array.
NOT_ARRAYS = [v for v in NOT_NUMBERS if not isinstance(v, list)] + [[1.0, math.nan], ["1", "2"], [True, False], []]

BAD = {
    "real": NOT_NUMBERS + NOT_FINITE,
    "real_or_array": NOT_ARRAYS + NOT_FINITE,
    "gain": NOT_ARRAYS + NOT_FINITE + [-1.0, -1e-300, [1.0, -1.0]],
    "positive": NOT_NUMBERS + NOT_FINITE + [0.0, -0.0, -1.0, -1e-300, -math.inf],
    "nonnegative": NOT_NUMBERS + NOT_FINITE + [-1.0, -1e-300],
    "efficiency": NOT_NUMBERS + NOT_FINITE + [0.0, -0.5, 1.0000001, 2.0],
    "count": NOT_NUMBERS + NOT_FINITE + [0, -1, 2.0, 2.5, np.float64(2.0)],
    "flag": ["yes", "True", 1, 0, 1.0, None, np.int64(1)],
    "choice": ["Brake", "BRAKE", " brake", 1, None, True, b"brake"],
    "tolerance": NOT_NUMBERS + [math.nan, -1.0, -math.inf],
    "optional_callable": [5, "f", 1.0, True],
    # None means "the default" and an infinity "no limit" for these:
    "optional_nonnegative": [v for v in NOT_NUMBERS if v is not None] + [math.nan, math.inf, -1.0],
    "optional_positive": [v for v in NOT_NUMBERS if v is not None] + [math.nan, 0.0, -1.0, -math.inf],
    "lower_stop": [v for v in NOT_NUMBERS if v is not None] + [math.nan, math.inf],
    "upper_stop": [v for v in NOT_NUMBERS if v is not None] + [math.nan, -math.inf],
    "pair": ["ab", None, 5, (1.0,), (1.0, 2.0, 3.0), (math.nan, 0.0), ("a", 0.0), (ALIEN, 0.0)],
    "pose": ["abc", None, 5, (1.0, 2.0), (0.0, 0.0, math.nan), (0.0, "x", 0.0), (ALIEN, 0.0, 0.0)],
    "motor": [None, "NEO", 5, GOBILDA_5203_312],
}
#: Kinds whose extreme magnitudes must be handled (ConfigError or a working object).
EXTREME_KINDS = ("real", "positive", "nonnegative", "optional_positive", "optional_nonnegative", "lower_stop",
                 "upper_stop")


def arm(**kw):
    return models.Arm(NEO, 100, **{**dict(mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0), **kw})


def elevator(**kw):
    return models.Elevator(NEO, 10, **{**dict(carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0),
                                       **kw})


DRIVE = {"n_motors": "count", "efficiency": "efficiency", "neutral_mode": "choice", "command": "choice",
         "stator_current_limit": "optional_positive", "supply_current_limit": "optional_positive",
         "nominal_bus_voltage": "optional_positive"}
MECHANISM = {"viscous_friction": "optional_nonnegative", "static_friction": "nonnegative",
             "kinetic_friction": "optional_nonnegative",
             "rotor_inertia": "nonnegative", "track_energy": "flag", "start_velocity": "real"}

#: A drivetrain's chassis parameters (issue 12).
CHASSIS = {"wheel_radius": "positive", "mass": "positive", "moi": "positive", "slip_epsilon": "positive",
           "gravity": "positive", "track_energy": "flag", "start_pose": "pose", "cog_height": "nonnegative",
           "viscous_friction": "optional_nonnegative"}
#: A drivetrain's motor options (``command`` None is the default: by motor kind for Tank and Mecanum).
DRIVETRAIN_DRIVE = {k: v for k, v in DRIVE.items() if k != "command"}


def tank(**kw):
    return models.TankDrive(**{**dict(motor=NEO, gearing=8.45, n_motors_per_side=2, wheel_radius=0.0762,
                                      track_width=0.6, mass=50.0, moi=6.0, friction_coefficient=1.0, wheelbase=0.6),
                               **kw})


def swerve(**kw):
    return models.SwerveDrive(**{**dict(drive_motor=NEO, steer_motor=NEO, drive_gearing=6.75, steer_gearing=21.4,
                                        module_positions=[(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)],
                                        wheel_radius=0.0508, mass=55.0, moi=6.0), **kw})


def mecanum(**kw):
    return models.MecanumDrive(**{**dict(motor=NEO, gearing=12.0, track_width=0.5, wheelbase=0.4,
                                         wheel_radius=0.05, mass=20.0, moi=1.5), **kw})


#: (name, factory(**kwargs), {parameter: kind}); the factory's defaults make a valid object.
CASES = [
    ("Flywheel", lambda **kw: models.Flywheel(**{**dict(motor=NEO, gearing=2.0, moi=0.01), **kw}),
     {"motor": "motor", "gearing": "positive", "moi": "positive", **DRIVE, **MECHANISM}),
    ("Arm", arm, {"mass": "positive", "com_distance": "positive", "moi": "optional_positive",
                  "min_angle": "lower_stop", "max_angle": "upper_stop", "start_angle": "real", "gravity": "flag", "g": "nonnegative",
                  "gravity_direction": "real", **DRIVE, **MECHANISM}),
    ("Arm.from_wpilib", lambda **kw: models.Arm.from_wpilib(**{**dict(gearbox=NEO, gearing=100, moi=0.5,
                                                                      arm_length=0.6, min_angle=-1.0,
                                                                      max_angle=2.0), **kw}),
     {"gearing": "positive", "moi": "positive", "arm_length": "positive", "simulate_gravity": "flag",
      "starting_angle": "real"}),
    ("Elevator.from_wpilib", lambda **kw: models.Elevator.from_wpilib(
        **{**dict(gearbox=NEO, gearing=10, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0),
           **kw}), {"gearing": "positive", "carriage_mass": "positive", "drum_radius": "positive",
                    "simulate_gravity": "flag", "starting_height": "real", "min_height": "lower_stop"}),
    ("Elevator", elevator, {"carriage_mass": "positive", "drum_radius": "positive", "min_height": "lower_stop",
                            "max_height": "upper_stop", "start_height": "real", "constant_force": "real",
                            "counterweight_mass": "nonnegative", "g": "nonnegative", **DRIVE, **MECHANISM}),
    ("HubMotor", lambda **kw: models.HubMotor(GOBILDA_5203_312, **{**dict(load_inertia=0.01), **kw}),
     {"load_inertia": "nonnegative", "external_torque": "optional_callable", "rotor_inertia": "optional_nonnegative",
      "start_angle": "real", **{k: v for k, v in DRIVE.items() if k != "n_motors"}}),
    ("Battery", lambda **kw: models.Battery(**kw),
     {"open_circuit_voltage": "positive", "resistance": "nonnegative", "brownout_voltage": "nonnegative"}),
    ("DCMotor", lambda **kw: models.DCMotor(**{**dict(nominal_voltage=12.0, stall_torque=2.6, stall_current=105.0,
                                                       free_current=1.8, free_speed=594.0), **kw}),
     {"nominal_voltage": "positive", "stall_torque": "positive", "stall_current": "positive",
      "free_current": "nonnegative", "free_speed": "positive"}),
    ("MotorDrive", lambda **kw: models.drive.MotorDrive(**{**dict(motor=NEO, gearing=2.0), **kw}),
     {"motor": "motor", "gearing": "positive", **DRIVE}),
    ("TankDrive", tank, {"n_motors_per_side": "count", "track_width": "positive", "wheelbase": "optional_positive",
                         "friction_coefficient": "optional_positive", "wheel_inertia": "optional_nonnegative",
                         "rotor_inertia": "nonnegative", **CHASSIS,
                         **{k: v for k, v in DRIVETRAIN_DRIVE.items() if k != "n_motors"}}),
    ("SwerveDrive", swerve, {"drive_motor": "motor", "steer_motor": "motor", "drive_gearing": "positive",
                             "steer_gearing": "positive", "friction_coefficient": "positive",
                             "wheel_inertia": "nonnegative", "steer_inertia": "nonnegative",
                             "drive_rotor_inertia": "nonnegative", "steer_rotor_inertia": "nonnegative",
                             "couple_ratio": "real", "scrub_radius": "nonnegative", "command": "choice",
                             "steer_viscous_friction": "optional_nonnegative", **CHASSIS, **DRIVETRAIN_DRIVE,
                             **{"steer_" + k: v for k, v in DRIVETRAIN_DRIVE.items()}}),
    ("MecanumDrive", mecanum, {"track_width": "positive", "wheelbase": "positive",
                               "friction_coefficient": "positive", "roller_friction": "nonnegative",
                               "wheel_inertia": "nonnegative", "rotor_inertia": "nonnegative", **CHASSIS,
                               **DRIVETRAIN_DRIVE}),
    ("PIDController", lambda **kw: controllers.PIDController(**{**dict(kp=1.0, ki=0.5, kd=0.1), **kw}),
     {"kp": "gain", "ki": "gain", "kd": "gain", "period": "positive",
      "derivative_kick": "flag"}),
    ("ProfiledPIDController", lambda **kw: controllers.ProfiledPIDController(
        **{**dict(kp=1.0, ki=0.0, kd=0.0, max_velocity=1.0, max_acceleration=2.0), **kw}),
     {"kp": "gain", "max_velocity": "positive", "max_acceleration": "positive", "period": "positive"}),
    ("TrapezoidProfile", lambda **kw: controllers.TrapezoidProfile(**{**dict(max_velocity=1.0,
                                                                             max_acceleration=2.0), **kw}),
     {"max_velocity": "positive", "max_acceleration": "positive"}),
    ("Constraints", lambda **kw: controllers.Constraints(**{**dict(max_velocity=1.0, max_acceleration=2.0), **kw}),
     {"max_velocity": "positive", "max_acceleration": "positive"}),
    ("SimpleMotorFeedforward", lambda **kw: controllers.SimpleMotorFeedforward(**{**dict(ks=0.1, kv=2.0), **kw}),
     {"ks": "real_or_array", "kv": "gain", "ka": "gain", "period": "positive"}),
    ("ArmFeedforward", lambda **kw: controllers.ArmFeedforward(**{**dict(ks=0.1, kg=0.5, kv=2.0, ka=0.1), **kw}),
     {"ks": "real_or_array", "kg": "real_or_array", "kv": "gain", "ka": "gain", "period": "positive"}),
    ("ElevatorFeedforward", lambda **kw: controllers.ElevatorFeedforward(**{**dict(ks=0.1, kg=0.5, kv=2.0), **kw}),
     {"ks": "real_or_array", "kg": "real_or_array", "kv": "gain", "ka": "gain"}),
    ("BangBangController", lambda **kw: controllers.BangBangController(**kw), {"tolerance": "tolerance"}),
    ("DifferentialKinematics", lambda **kw: controllers.DifferentialKinematics(**{**dict(track_width=0.6), **kw}),
     {"track_width": "positive"}),
    ("MecanumKinematics", lambda **kw: controllers.MecanumKinematics(
        **{**dict(front_left=(0.3, 0.3), front_right=(0.3, -0.3), rear_left=(-0.3, 0.3), rear_right=(-0.3, -0.3)),
           **kw}), {"front_left": "pair", "rear_right": "pair"}),
    ("control_loop", lambda **kw: _loop_run_for_a_tick(
        **{**dict(controller=controllers.PIDController(1.0, 0.0, 0.0), measure="arm.angle", command="arm.voltage"),
           **kw}), {"setpoint": "real_or_array", "rate": "optional_positive", "offset": "nonnegative", "feedforward": "optional_callable"}),
    ("ChassisSpeeds", lambda **kw: controllers.ChassisSpeeds(**kw), {"vx": "real", "vy": "real", "omega": "real"}),
    ("SwerveModuleState", lambda **kw: controllers.SwerveModuleState(**kw), {"speed": "real", "angle": "real"}),
    ("SwerveModulePosition", lambda **kw: controllers.SwerveModulePosition(**kw),
     {"distance": "real", "angle": "real"}),
    ("DifferentialWheelSpeeds", lambda **kw: controllers.DifferentialWheelSpeeds(**kw),
     {"left": "real", "right": "real"}),
    ("MecanumWheelSpeeds", lambda **kw: controllers.MecanumWheelSpeeds(**kw),
     {"front_left": "real", "rear_right": "real"}),
    ("Pose2d", lambda **kw: controllers.Pose2d(**kw), {"x": "real", "y": "real", "heading": "real"}),
    ("Twist2d", lambda **kw: controllers.Twist2d(**kw), {"dx": "real", "dy": "real", "dtheta": "real"}),
    ("State", lambda **kw: controllers.State(**kw), {"position": "real", "velocity": "real"}),
]


@contextmanager
def hang_guard(seconds=30):
    """A hang becomes a failure (a safety net for CI, not a timing assertion: a construction takes ms)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hung(signum, frame):
        raise AssertionError(f"no answer within {seconds} s: hung")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _loop_run_for_a_tick(**kwargs):
    """A control loop, built and run through its first tick on an arm: a setpoint Quantity is converted
    to the measured signal's unit when the run starts (the loop does not know that unit before)."""
    from simcore import simulate

    loop = controllers.control_loop(**kwargs)
    simulate(models.Arm(NEO, 100.0, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0), 0.0, [loop])
    return loop


def first_evaluation(obj):
    """Evaluate a constructed System once, as a run's first step would (no integration)."""
    if isinstance(obj, models.Battery) or not hasattr(obj, "derivatives"):
        return
    x, u = np.asarray(obj.initial_state(), float), np.asarray(obj.initial_inputs(), float)
    with np.errstate(all="ignore"):  # an overflow to inf is fine here: the engine reports it by name
        obj.mode = obj.initial_mode(0.0, x, u)
        obj.derivatives(0.0, x, u)
        obj.outputs(0.0, x, u)


CASE_IDS = [case[0] for case in CASES]


def bad_value_findings(case) -> list[str]:
    """Every call of ``case`` with one bad value that is not refused with a ConfigError naming the parameter."""
    name, make, params = case
    wrong = []
    for parameter, kind in sorted(params.items()):
        for value in BAD[kind]:
            with hang_guard():
                try:
                    make(**{parameter: value})
                except ConfigError as exc:
                    if exc.parameter.split("[")[0].split(".")[0] != parameter:
                        wrong.append(f"{name}({parameter}={value!r}) raised {exc!r}, naming {exc.parameter!r}")
                except Exception as exc:  # noqa: BLE001 - any other error is the finding
                    wrong.append(f"{name}({parameter}={value!r}) raised {exc!r}")
                else:
                    wrong.append(f"{name}({parameter}={value!r}) was accepted")
    return wrong


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_bad_value_is_refused_with_a_config_error_naming_its_parameter(case):
    wrong = bad_value_findings(case)
    assert not wrong, "\n".join(wrong)


def test_a_misspelt_parameter_in_the_table_is_a_finding():
    # Flywheel takes **options: the misspelling reaches the keyword splitter, whose error names
    # "Flywheel() keyword", not the parameter, and so must count as a finding.
    name, make, _ = CASES[0]
    assert name == "Flywheel"
    wrong = bad_value_findings((name, make, {"kinetc_friction": "nonnegative"}))
    assert len(wrong) == len(BAD["nonnegative"]) and "Flywheel() keyword" in wrong[0]
    assert bad_value_findings((name, make, {"kinetic_friction": "optional_nonnegative"})) == []


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_values_at_the_ends_of_the_float_range_give_a_config_error_or_a_working_object(case):
    name, make, params = case
    for parameter in sorted(p for p, kind in params.items() if kind in EXTREME_KINDS):
        for value in HUGE_TINY:
            with hang_guard():
                try:
                    obj = make(**{parameter: value})
                except ConfigError:
                    continue
                try:
                    first_evaluation(obj)
                except SimError:
                    pass  # the project's own error (a NonFiniteError naming the signal) is an answer


def test_every_listed_parameter_exists_and_the_defaults_are_valid():
    import inspect

    for name, make, params in CASES:
        obj = make()
        first_evaluation(obj)
        target = {"Arm.from_wpilib": models.Arm.from_wpilib, "Elevator.from_wpilib": models.Elevator.from_wpilib,
                  "control_loop": controllers.control_loop}.get(name)
        if target is None:
            target = type(obj)
        signature = inspect.signature(target)
        takes_options = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
        for p in params:
            assert p in signature.parameters or takes_options, (name, p)
