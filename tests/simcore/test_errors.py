"""Bad inputs raise the project's errors, naming the parameter/signal, the value and the time."""
import math

import numpy as np
import pytest

import simcore.models as models
from simcore.models.motors import NEO
from simcore import (ConfigError, IntegrationError, NonFiniteError, PeriodicController, SimError, StateEvent,
                     System, simulate, Simulator)


class Scalar(System):
    def __init__(self, rhs=None, out=None):
        super().__init__("s", ["x"], ["u"], ["y"])
        self.rhs = rhs or (lambda t, x, u: np.array([u[0] - x[0]]))
        self.out = out or (lambda t, x, u: (x[0],))

    def initial_state(self):
        return np.array([1.0])

    def derivatives(self, t, x, u):
        return self.rhs(t, x, u)

    def outputs(self, t, x, u):
        return self.out(t, x, u)


def test_config_error_is_value_error_and_names_parameter():
    with pytest.raises(ConfigError, match=r"moi=-1\.0: expected a positive moment of inertia") as ei:
        models.Flywheel(NEO, 2.0, -1.0)
    assert isinstance(ei.value, ValueError) and isinstance(ei.value, SimError)
    assert ei.value.parameter == "moi" and ei.value.value == -1.0


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(method="Euler"), "method"),
    (dict(rtol=0.0), "rtol"),
    (dict(atol=float("nan")), "atol"),
    (dict(max_step=-1.0), "max_step"),
])
def test_bad_simulation_options(kwargs, parameter):
    with pytest.raises(ConfigError, match=parameter):
        simulate(Scalar(), 1.0, **kwargs)


def test_bad_controller_period_and_unknown_x0():
    with pytest.raises(ConfigError, match="period=0"):
        PeriodicController(0.0, lambda t, s: None)
    with pytest.raises(ConfigError, match=r"x0=.*s\.nope.*s\.x"):
        simulate(Scalar(), 1.0, x0={"s.nope": 1.0})
    with pytest.raises(ConfigError, match="t_end"):
        simulate(Scalar(), -1.0)
    with pytest.raises(ConfigError, match=r"x0\['s\.x'\]=nan: expected a finite number"):
        simulate(Scalar(), 1.0, x0={"s.x": math.nan})


def test_writing_unknown_signal_lists_valid_inputs():
    pc = PeriodicController(0.1, lambda t, s: {"s.volts": 1.0}, name="bad")
    with pytest.raises(ConfigError, match=r"controller 'bad' signal='s\.volts'.*valid inputs: s\.u"):
        simulate(Scalar(), 1.0, [pc])
    pc = PeriodicController(0.1, lambda t, s: {"s.x": 1.0}, name="bad")
    with pytest.raises(ConfigError, match=r"a state given"):
        simulate(Scalar(), 1.0, [pc])


def test_nan_input_from_controller_names_signal_and_time():
    pc = PeriodicController(0.1, lambda t, s: {"s.u": math.nan if t >= 0.3 else 1.0}, name="c")
    with pytest.raises(NonFiniteError, match=r"at t=0\.3 s: input 's\.u' is nan") as ei:
        simulate(Scalar(), 1.0, [pc])
    assert ei.value.t == 0.3 and ei.value.signal == "s.u"


def test_nan_derivative_names_state_and_time():
    sys_ = Scalar(rhs=lambda t, x, u: np.array([-x[0]]) if t <= 0.5 else np.array([np.nan]))
    with pytest.raises(NonFiniteError, match=r"derivative of 's\.x' is nan") as ei:
        simulate(sys_, 1.0)
    assert 0.5 < ei.value.t <= 1.0


def test_nan_output_names_output_and_time():
    sys_ = Scalar(out=lambda t, x, u: (math.inf if t > 0.25 else x[0],))
    # Outputs are computed when first read: the error is raised there, never a silent inf.
    r = simulate(sys_, 1.0)
    with pytest.raises(NonFiniteError, match=r"output 's\.y' is inf") as ei:
        r["s.y"]
    assert ei.value.t > 0.25
    # A controller reading the output at a tick meets it during the run.
    pc = PeriodicController(0.1, lambda t, s: {"s.u": s["s.y"]}, name="reader")
    with pytest.raises(NonFiniteError, match=r"at t=0\.3 s: output 's\.y' is inf"):
        simulate(Scalar(out=lambda t, x, u: (math.inf if t > 0.25 else x[0],)), 1.0, [pc])


def test_solver_failure_reports_time_and_message():
    # x' = x^2 from x = 1 blows up at t = 1: the solver cannot pass it.
    sys_ = Scalar(rhs=lambda t, x, u: np.array([x[0] ** 2]))
    with pytest.raises(IntegrationError, match=r"RK45 solver failed: .*step size.*Radau") as ei:
        simulate(sys_, 2.0)
    assert ei.value.t == pytest.approx(1.0, abs=1e-3)


def test_robot_code_exception_keeps_type_and_reports_time():
    def fn(t, s):
        if t >= 0.2:
            raise KeyError("boom")
        return {"s.u": 0.0}

    with pytest.raises(KeyError) as ei:
        simulate(Scalar(), 1.0, [PeriodicController(0.1, fn, name="robot")])
    assert ei.value.sim_time == 0.2
    assert any("t=0.2 s" in n for n in ei.value.__notes__)


def test_controllers_need_distinct_names():
    a = PeriodicController(0.1, lambda t, s: None, name="loop")
    b = PeriodicController(0.05, lambda t, s: None, name="loop")
    with pytest.raises(ConfigError, match="distinct names"):
        simulate(Scalar(), 1.0, [a, b])


def test_bad_system_definitions():
    with pytest.raises(ConfigError, match="distinct names"):
        simulate([Scalar(), Scalar()], 1.0)
    with pytest.raises(ConfigError, match="name"):
        System("a.b")
    with pytest.raises(ConfigError, match="direction"):
        StateEvent(lambda t, x, u: 0.0, direction=2)


def test_terminated_run_cannot_advance():
    class Stopper(Scalar):
        def events(self):
            return [StateEvent(lambda t, x, u: x[0] - 0.5, direction=-1, terminal=True)]

    sim = Simulator(Stopper())
    sim.advance(2.0)
    assert sim.terminated and sim.t == pytest.approx(math.log(2.0), abs=1e-9)
    with pytest.raises(IntegrationError, match="terminal"):
        sim.advance(0.1)


@pytest.mark.parametrize("make, parameter", [
    (lambda: models.Flywheel(NEO, 2.0, "0.01"), "moi"),
    (lambda: simulate(Scalar(), "2"), "t_end"),
    (lambda: PeriodicController("0.02", lambda t, s: None), "period"),
    (lambda: simulate(Scalar(), 0.1, x0={"s.x": "0.5"}), "x0['s.x']"),
    (lambda: models.Flywheel(NEO, 2.0, 0.01, track_energy="no"), "track_energy"),
])
def test_number_like_strings_and_non_bools_are_refused(make, parameter):
    with pytest.raises(ConfigError) as ei:  # ConfigTypeError is a ConfigError
        make()
    assert ei.value.parameter == parameter


def test_a_controller_writing_a_string_is_refused():
    pc = PeriodicController(0.1, lambda t, s: {"s.u": "5"}, name="c")
    with pytest.raises(ConfigError, match=r"controller 'c'\['s.u'\]='5': expected a real number"):
        simulate(Scalar(), 0.2, [pc])


@pytest.mark.parametrize("seconds", [1.4e-9, 2.5e-9, 1e-10, 1e-12])
def test_times_that_whole_nanoseconds_would_change_raise(seconds):
    # Rounding would move these by 29 %, 20 % or to zero; 1/3 s (off by 1e-9 relative) is fine.
    with pytest.raises(ConfigError, match="whole nanoseconds"):
        PeriodicController(seconds, lambda t, s: None)
    with pytest.raises(ConfigError, match="whole nanoseconds"):
        simulate(Scalar(), seconds)
    assert PeriodicController(1 / 3, lambda t, s: None).period_ns == 333_333_333


def test_numpy_scalars_are_numbers():
    r = simulate(Scalar(), np.float64(0.5), rtol=np.float32(1e-6), atol=np.float64(1e-9))
    assert r.t[-1] == 0.5
    assert models.Flywheel(NEO, 2.0, 0.01, n_motors=np.int64(2)).drive.n_motors == 2


def test_one_controller_or_none_is_accepted_like_one_system():
    pc = PeriodicController(0.1, lambda t, s: {"s.u": 1.0}, name="c")
    a, b = simulate(Scalar(), 0.3, pc), simulate(Scalar(), 0.3, [pc])
    np.testing.assert_array_equal(a["s.x"], b["s.x"])
    assert simulate(Scalar(), 0.3, controllers=None).controller_names == []
    with pytest.raises(ConfigError, match="controllers"):
        simulate(Scalar(), 0.3, 5)


def test_sample_refuses_non_finite_times():
    r = simulate(Scalar(), 0.3)
    with pytest.raises(ConfigError, match="times"):
        r.sample("s.x", [0.1, math.nan])


def test_infinite_friction_in_volts_is_refused():
    from simcore import Q_
    with pytest.raises(ConfigError, match="static_friction"):
        models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0,
                   static_friction=Q_(math.inf, "V"))


def test_pid_refuses_nan_instead_of_poisoning_its_integrator():
    from simcore.controllers import PIDController
    pid = PIDController(1.0, 1.0, 0.0)
    with pytest.raises(ConfigError, match="measurement=nan"):
        pid.calculate(math.nan, 1.0)
    assert pid.calculate(0.0, 1.0) == pytest.approx(1.0 + 1.0 * 0.02)  # untouched by the refused call
    for call, parameter in ((lambda: pid.set_setpoint(math.nan), "setpoint"),
                            (lambda: pid.calculate(0.0, "a"), "setpoint"),
                            (lambda: pid.set_integrator_range("a", 1), "minimum_integral")):
        with pytest.raises(ConfigError) as ei:
            call()
        assert ei.value.parameter == parameter


@pytest.mark.parametrize("name, value", [("arm.bus_voltage", -5.0), ("arm.brake", 2.0), ("arm.brake", -0.5)])
def test_inputs_outside_their_physical_range_are_refused(name, value):
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    pc = PeriodicController(0.1, lambda t, s: {name: value}, name="c")
    with pytest.raises(ConfigError, match=rf"controller 'c'\['{name}'\]={value}: expected a value in \["):
        simulate(arm, 0.3, [pc])
    with pytest.raises(ConfigError, match=name):
        simulate(arm, 0.3, inputs={name: value})
    simulate(arm, 0.3, inputs={"arm.bus_voltage": 0.0, "arm.brake": 1.0})  # the ends are allowed


def test_negative_gravity_magnitude_is_refused():
    with pytest.raises(ConfigError, match=r"g=-9.8: expected a non-negative"):
        models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0, g=-9.8)
    with pytest.raises(ConfigError, match=r"g=-1"):
        models.Elevator(NEO, 10, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.0, g=-1)


def test_a_non_finite_error_raised_without_a_time_gets_the_simulation_time():
    # Model code that does not know t (a load function of position) raises with t = nan;
    # the engine, which knows t, re-raises it at that time.
    def rhs(t, x, u):
        if x[0] > 2.0:
            raise NonFiniteError("load of", "s", math.inf, math.nan)
        return np.array([1.0])

    with pytest.raises(NonFiniteError) as ei:
        simulate(Scalar(rhs=rhs), 3.0)
    assert 0.9 < ei.value.t < 1.01 and ei.value.signal == "s"  # x = 1 + t passes 2 at t = 1


def test_a_misspelt_mechanism_keyword_names_the_class_the_user_called():
    with pytest.raises(ConfigError, match=r"Arm\(\) keyword='masss'") as ei:
        models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0, masss=3)
    assert isinstance(ei.value, TypeError)
    with pytest.raises(ConfigError, match=r"HubMotor\(\) keyword='load_intertia'"):
        models.HubMotor(models.hub_motor.GOBILDA_5203_312, load_intertia=0.01)


def test_an_exception_in_model_code_carries_the_simulation_time():
    def rhs(t, x, u):
        if t > 0.5:
            raise ZeroDivisionError("model bug")
        return np.array([-x[0]])

    with pytest.raises(ZeroDivisionError) as ei:
        simulate(Scalar(rhs=rhs), 1.0)
    assert 0.5 < ei.value.sim_time <= 0.6
    assert any("s.derivatives at simulation time" in n for n in ei.value.__notes__)


def test_initial_state_and_inputs_from_a_system_are_checked():
    class Bad(Scalar):
        def initial_inputs(self):
            return np.array([math.nan])

    with pytest.raises(ConfigError, match=r"s.initial_inputs\(\)\['u'\]=nan"):
        simulate(Bad(), 0.1)
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    arm.initial_inputs = lambda: np.array([0.0, 1.0, -12.0])  # a negative bus voltage
    with pytest.raises(ConfigError, match=r"arm.initial_inputs\(\)\['bus_voltage'\]=-12.0"):
        simulate(arm, 0.1)


def test_max_step_takes_a_quantity():
    from simcore import Q_
    a = simulate(Scalar(), 0.2, max_step=Q_(10, "ms"))
    b = simulate(Scalar(), 0.2, max_step=0.01)
    np.testing.assert_array_equal(a["s.x"], b["s.x"])
