"""The names the issues list under "Contract" exist with the listed signatures (users' code calls them)."""
import inspect
import math

import pytest

import simcore.controllers as controllers
import simcore.controllers.hub as hub
import simcore.models as models
import simcore.models.hub_motor as hub_motor
import simcore.models.motors as motors
import simcore
import simcore.testing


def params(fn):
    return inspect.signature(fn).parameters


def defaults(fn):
    return {k: p.default for k, p in params(fn).items() if p.default is not inspect.Parameter.empty}


def test_engine_contract():
    for name in ("System", "StateEvent", "PeriodicController", "simulate", "Simulator", "ureg", "Q_", "SimError",
                 "ConfigError", "IntegrationError", "sweep"):
        assert hasattr(simcore, name), name
    assert issubclass(simcore.ConfigError, ValueError) and issubclass(simcore.ConfigError, simcore.SimError)
    assert list(params(simcore.StateEvent))[:1] == ["guard"]
    assert defaults(simcore.StateEvent) == {"direction": 0, "reset": None, "terminal": False, "name": None,
                                            "mode": simcore.events.KEEP_MODE}
    d = defaults(simcore.PeriodicController)  # the contract's keywords (more may be added)
    assert {k: d[k] for k in ("name", "offset")} == {"name": None, "offset": 0.0}
    d = defaults(simcore.simulate)
    assert {k: d[k] for k in ("t0", "x0", "inputs", "method", "rtol", "atol", "max_step")} == {
        "t0": 0.0, "x0": None, "inputs": None, "method": "auto", "rtol": 1e-8, "atol": 1e-10, "max_step": None}
    for m in ("advance", "set_inputs", "result", "signals", "t"):
        assert hasattr(simcore.Simulator, m) or m == "t"
    for m in ("names", "ticks", "quantity", "plot", "to_csv", "sample"):
        assert hasattr(simcore.Result, m)
    for m in ("initial_state", "derivatives", "outputs", "events"):
        assert hasattr(simcore.System, m)


def test_motor_catalogue_contract():
    for name in ("CIM", "MINI_CIM", "BAG", "VEX_775PRO", "NEO", "NEO_550", "NEO_VORTEX", "FALCON_500",
                 "FALCON_500_FOC", "KRAKEN_X60", "KRAKEN_X60_FOC", "KRAKEN_X44", "KRAKEN_X44_FOC", "MINION",
                 "GOBILDA_BARE", "REV_HD_HEX_BARE", "NEVEREST_BARE", "REV_CORE_HEX"):
        assert isinstance(getattr(motors, name), motors.DCMotor), name
    assert list(params(motors.DCMotor))[:5] == ["nominal_voltage", "stall_torque", "stall_current", "free_current",
                                                "free_speed"]
    for attr in ("R", "Kt", "Kv", "current", "torque", "gearbox"):
        assert hasattr(motors.NEO, attr)


def test_mechanism_contract():
    assert list(params(models.Flywheel))[:3] == ["motor", "gearing", "moi"]
    assert defaults(models.Battery) == {"open_circuit_voltage": 12.0, "resistance": 0.02, "brownout_voltage": 6.8,
                                        "name": "battery", "brownout_behaviour": "flag", "recovery_voltage": 7.5,
                                        "recovery_time": 0.02}
    a = defaults(models.Arm)
    assert a["moi"] is None and a["gravity"] is True and a["start_angle"] == 0.0 and a["name"] == "arm"
    e = defaults(models.Elevator)
    assert e["gravity"] is True and e["start_height"] == 0.0 and e["name"] == "elevator"
    arm = models.Arm(motors.NEO, 50, mass=1, com_distance=0.2, min_angle=-1, max_angle=1,
                     neutral_mode="coast", stator_current_limit=40, supply_current_limit=30, viscous_friction=0.1,
                     static_friction=0.1, efficiency=0.9)
    assert arm.state_names[:2] == ("angle", "velocity") and "voltage" in arm.input_names
    for out in ("stator_current", "supply_current", "applied_voltage", "supply_voltage", "torque",
                "rotor_position", "rotor_velocity"):
        assert out in arm.output_names
    bat = models.Battery()
    assert bat.output_names == ("voltage", "current", "brownout")


def test_hub_contract():
    for name in ["GOBILDA_5203_%d" % r for r in (6000, 1620, 1150, 435, 312, 223, 117, 84, 60, 43, 30)] + [
            "REV_HD_HEX_20", "REV_HD_HEX_40", "REV_CORE_HEX", "REV_ULTRAPLANETARY", "NEVEREST_20", "NEVEREST_40",
            "NEVEREST_60", "TETRIX"]:
        assert hasattr(hub_motor, name), name
    assert defaults(models.HubMotor) == {"load_inertia": 0.0, "external_torque": None, "rotor_inertia": None,
                                         "name": "motor", "start_angle": 0.0}
    h = hub.Hub()
    assert h.name == "hub" and h.loop_period == 0.010
    for name in ("RunMode", "Direction", "ZeroPowerBehavior", "MotorControlAlgorithm", "PIDFCoefficients",
                 "AngleUnit", "CurrentUnit", "TargetPositionNotSetException", "linear_opmode", "iterative_opmode",
                 "DcMotorEx"):
        assert hasattr(hub, name), name
    for m in ("setMode", "getMode", "setPower", "getPower", "setTargetPosition", "getTargetPosition",
              "setTargetPositionTolerance", "getTargetPositionTolerance", "isBusy", "getCurrentPosition",
              "setDirection", "getDirection", "setVelocity", "getVelocity", "setPIDFCoefficients",
              "getPIDFCoefficients", "setVelocityPIDFCoefficients", "setPositionPIDFCoefficients", "setMotorEnable",
              "setMotorDisable", "isMotorEnabled", "setZeroPowerBehavior", "getCurrent",
              "resetDeviceConfigurationForOpMode", "getAppliedPhysicalPower", "getPhysicalPositionTicks"):
        assert hasattr(hub.DcMotorEx, m), m


def test_hub_contract_issue_26_mounting_and_range():
    """Hub.motor(port, mechanism, motor_type=None, *, wheel=None, mirrored=<the mounting's default>); Range."""
    p = params(hub.Hub.motor)
    assert list(p)[1:4] == ["port", "mechanism", "motor_type"] and p["motor_type"].default is None
    assert p["wheel"].kind is inspect.Parameter.KEYWORD_ONLY and p["wheel"].default is None
    assert p["mirrored"].kind is inspect.Parameter.KEYWORD_ONLY and p["mirrored"].default is None
    assert "Range" in hub.__all__
    for m in ("clip", "scale", "throwIfRangeIsInvalid"):
        assert callable(getattr(hub.Range, m)), m


def test_drivetrain_contract():
    p = params(models.TankDrive)
    assert list(p)[:2] == ["motor", "gearing"]
    for k in ("n_motors_per_side", "wheel_radius", "track_width", "mass", "moi", "name"):
        assert k in p
    c = params(models.TankDrive.characterized)
    for k in ("kv_linear", "ka_linear", "kv_angular", "ka_angular", "ks", "track_width", "name"):
        assert k in c
    s = params(models.SwerveDrive)
    for k in ("drive_motor", "steer_motor", "module_positions", "drive_gearing", "steer_gearing", "wheel_radius",
              "mass", "moi", "friction_coefficient", "name"):
        assert k in s
    assert s["friction_coefficient"].default == 1.2 and s["name"].default == "swerve"
    assert hasattr(models, "MecanumDrive")
    for name in ("SwerveKinematics", "DifferentialKinematics", "MecanumKinematics"):
        assert hasattr(controllers, name)


def test_controllers_and_testing_contract():
    assert defaults(controllers.PIDController)["period"] == 0.02
    pid = controllers.PIDController(1, 0, 0)
    for m in ("calculate", "reset", "enable_continuous_input", "set_integrator_range", "set_tolerance",
              "at_setpoint"):
        assert hasattr(pid, m)
    assert params(controllers.PIDController.set_tolerance)["vel"].default == math.inf
    assert list(params(controllers.TrapezoidProfile.calculate))[1:4] == ["t", "initial_state", "goal_state"]
    for name in ("ProfiledPIDController", "SimpleMotorFeedforward", "ArmFeedforward", "ElevatorFeedforward",
                 "BangBangController"):
        assert hasattr(controllers, name)
    assert defaults(simcore.testing.step_info)["band"] == 0.02
    assert list(params(simcore.sweep))[:3] == ["make_result", "grid", "metrics"]
    assert defaults(simcore.sweep)["executor"] is None


def test_golden_fixture_and_option_registered(pytestconfig):
    assert pytestconfig.getoption("--update-golden") in (False, True)
    assert pytestconfig.pluginmanager.has_plugin("simcore.golden")


def test_sweep_stays_the_function_after_any_import_form():
    import importlib

    import simcore.sweeping as module  # noqa: F401

    importlib.import_module("simcore.sweeping")
    assert callable(simcore.sweep) and simcore.sweep is module.sweep


def test_package_contract():
    # issue 11: one namespace, the public validation helpers, one table type
    import importlib

    assert importlib.import_module("simcore.models") is models
    assert importlib.import_module("simcore.controllers") is controllers
    import simcore.checks as checks
    import simcore.protocols as protocols

    for name in ("positive", "nonnegative", "finite", "flag", "one_or_many", "pose", "angle", "angles",
                 "STANDARD_GRAVITY"):
        assert hasattr(checks, name), name
    for name in ("SimulatedSystem", "BusLoad", "FieldDrawable", "HubMechanism", "Resettable", "check_simulation"):
        assert hasattr(protocols, name), name
    assert callable(simcore.SweepTable.to_pandas)


def test_frc_toolchain_contract():
    """Issue 14: logs, SysId both ways, the robotpy adapter (importable without robotpy installed)."""
    import dataclasses

    import simcore.logs
    import simcore.robotpy
    import simcore.sysid

    assert list(params(simcore.Result.to_wpilog))[:2] == ["self", "path"]
    to_csv = params(simcore.Result.to_csv)
    assert list(to_csv)[:3] == ["self", "path", "names"] and to_csv["layout"].kind is inspect.Parameter.KEYWORD_ONLY
    assert to_csv["layout"].default == "simcore"
    assert list(params(simcore.logs.read_wpilog))[:2] == ["path", "mapping"]
    assert defaults(simcore.logs.read_wpilog)["mapping"] is None
    assert list(params(models.Flywheel.from_sysid))[:3] == ["ks", "kv", "ka"]
    assert "name" in params(models.Flywheel.from_sysid)
    assert list(params(models.Arm.from_sysid))[:4] == ["ks", "kg", "kv", "ka"]
    assert {"min_angle", "max_angle"} <= set(params(models.Arm.from_sysid))
    assert list(params(models.Elevator.from_sysid))[:4] == ["ks", "kg", "kv", "ka"]
    assert {"min_height", "max_height"} <= set(params(models.Elevator.from_sysid))
    assert callable(models.TankDrive.from_sysid)
    assert list(params(simcore.sysid.run))[:1] == ["system"]
    assert list(params(simcore.sysid.fit))[:1] == ["result_or_log"]
    fit = simcore.sysid.SysIdFit
    assert {"ks", "kv", "ka", "kg", "r_squared"} <= {f.name for f in dataclasses.fields(fit)}
    for m in ("update_sim", "motor", "encoder", "duty_cycle_encoder", "gyro", "limit_switch", "battery", "field",
              "power_distribution", "result", "signals", "t"):
        assert hasattr(simcore.robotpy.Physics, m), m
    assert list(params(simcore.robotpy.Physics.update_sim)) == ["self", "now", "tm_diff"]
