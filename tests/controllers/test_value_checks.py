"""Every value checked: NaN commands raise with the signal and time, bools are not numbers, errors name
the parameter the user passed, value types refuse what is not a value of their kind."""
import math

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore import Q_, ConfigError, NonFiniteError
from simcore.controllers import (ChassisSpeeds, PIDController, Pose2d, ProfiledPIDController, State,
                                 SwerveKinematics, SwerveModuleState, TrapezoidProfile, control_loop, input_modulus,
                                 swerve_module_controllers, tank_drive_controller)
from simcore.errors import ConfigTypeError
from simcore.models.motors import CIM, FALCON_500, KRAKEN_X60, NEO

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]


def swerve():
    return models.SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75,
                              steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0, moi=6.0)


def test_a_nan_chassis_command_raises_with_the_signal_and_the_tick_time_instead_of_stopping():
    sw = swerve()
    command = lambda t, s: (math.nan if t >= 0.1 else 1.0, 0.0, 0.0)  # noqa: E731
    with pytest.raises(NonFiniteError) as ei:
        simcore.simulate([sw], 0.3, swerve_module_controllers(sw, SwerveKinematics(POS), command, rate=200.0))
    assert ei.value.t == 0.1 and ei.value.signal == "swerve_chassis command_fn().vx"
    tank = models.TankDrive(CIM, 10.0, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                            moi=5.0)
    with pytest.raises(NonFiniteError) as ei:
        simcore.simulate([tank], 0.3, [tank_drive_controller(tank, lambda t, s: (1.0, 0.0, math.inf if t >= 0.2 else 0.0))])
    assert ei.value.t == 0.2 and ei.value.signal == "drive_tank command_fn().omega"


def test_a_nan_setpoint_function_raises_with_the_loop_and_the_tick_time():
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    loop = control_loop(PIDController(10.0, 0.0, 0.0), measure="arm.angle", command="arm.voltage",
                        setpoint=lambda t: math.nan if t >= 0.04 else 0.5)
    with pytest.raises(NonFiniteError) as ei:
        simcore.simulate(arm, 0.1, [loop])
    assert ei.value.t == 0.04 and ei.value.signal == "arm.voltage loop"


@pytest.mark.parametrize("make, parameter", [
    (lambda: PIDController(1, 0, 0, period=True), "period"),
    (lambda: PIDController(True, 0, 0), "kp"),
    (lambda: PIDController(1, 0, 0).calculate(False), "measurement"),
    (lambda: TrapezoidProfile(True, 1.0), "max_velocity"),
    (lambda: control_loop(PIDController(1, 0, 0), measure="a.x", command="a.u", setpoint=True), "setpoint"),
    (lambda: ChassisSpeeds(True), "vx"),
])
def test_controllers_refuse_bools_as_numbers(make, parameter):
    with pytest.raises(ConfigTypeError) as ei:
        make()
    assert ei.value.parameter == parameter


@pytest.mark.parametrize("make, parameter", [
    (lambda: control_loop(lambda m, r: 0.0, measure="a.x", command="a.u", rate=1e12), "rate"),
    (lambda: control_loop(lambda m, r: 0.0, measure="a.x", command="a.u", rate=1e-300), "rate"),
    (lambda: control_loop(lambda m, r: 0.0, measure="a.x", command="a.u", rate=-5.0), "rate"),
    (lambda: swerve_module_controllers(swerve(), SwerveKinematics(POS), lambda t, s: (0, 0, 0), chassis_rate=0.0),
     "chassis_rate"),
    (lambda: swerve_module_controllers(swerve(), SwerveKinematics(POS), lambda t, s: (0, 0, 0), rate=3e9), "rate"),
])
def test_a_bad_rate_is_named_as_the_user_gave_it_never_as_the_period_derived_from_it(make, parameter):
    with pytest.raises(ConfigError) as ei:
        make()
    assert ei.value.parameter == parameter


def test_input_modulus_refuses_an_empty_period_and_non_finite_values():
    assert input_modulus(3 * math.pi / 2, -math.pi, math.pi) == pytest.approx(-math.pi / 2, abs=1e-15)
    for args in ((1.0, 1.0, 1.0), (1.0, 2.0, 1.0), (math.nan, -1.0, 1.0), (1.0, -1e308, 1e308), ("1", 0, 1)):
        with pytest.raises(ConfigError):
            input_modulus(*args)
    pid = PIDController(1, 0, 0)
    with pytest.raises(ConfigError, match="maximum_input"):
        pid.enable_continuous_input(math.pi, -math.pi)


@pytest.mark.parametrize("make", [
    lambda v: ChassisSpeeds(v, 0.0, 0.0),
    lambda v: ChassisSpeeds(0.0, 0.0, v),
    lambda v: SwerveModuleState(v, 0.0),
    lambda v: SwerveModuleState(1.0, v),
    lambda v: Pose2d(v, 0.0, 0.0),
    lambda v: Pose2d(0.0, 0.0, v),
    lambda v: State(v, 0.0),
    lambda v: State(0.0, v),
])
@pytest.mark.parametrize("bad", ["1.0", None, math.nan, math.inf, Q_(1.0, "kg"), True, [1.0, 2.0]])
def test_value_types_refuse_what_is_not_a_finite_value_of_their_dimension(make, bad):
    with pytest.raises(ConfigError):
        make(bad)


def test_value_types_convert_quantities_of_their_dimension_and_stay_tuples():
    c = ChassisSpeeds(Q_(36.0, "km/h"), 0, Q_(180.0, "deg/s"))
    assert c == pytest.approx((10.0, 0.0, math.pi), rel=1e-15) and type(c.vx) is float
    assert c._replace(vy=2) == (c.vx, 2.0, c.omega)
    with pytest.raises(ConfigError):
        c._replace(vy=math.nan)
    assert SwerveModuleState(1.0, Q_(90.0, "deg")).angle == pytest.approx(math.pi / 2, rel=1e-15)
    assert Pose2d(Q_(50.0, "cm"), 0.0, 0.0).x == 0.5
    assert State(Q_(10.0, "cm"), Q_(1.0, "m/s")) == State(0.1, 1.0)
    assert State(Q_(90.0, "deg"), 0.0).position == pytest.approx(math.pi / 2, rel=1e-15)
    vx, vy, omega = c  # unpacking, as WPILib-style code does
    assert (vx, vy, omega) == tuple(c)


def test_a_profiled_goal_or_measurement_that_is_not_a_number_is_refused():
    ctl = ProfiledPIDController(1.0, 0.0, 0.0, 1.0, 1.0)
    for goal in ("1.0", (1.0, "a"), (math.nan, 0.0)):
        with pytest.raises(ConfigError):
            ctl.set_goal(goal)
    with pytest.raises(ConfigError) as ei:
        ctl.calculate(math.nan)
    assert ei.value.parameter == "measurement"
    assert np.isfinite(ctl.calculate(0.0, 1.0))
