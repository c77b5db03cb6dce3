"""Bad inputs raise the project's errors, naming the parameter/signal, the value and the time."""
import math

import numpy as np
import pytest

import models
from models.motors import NEO
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
