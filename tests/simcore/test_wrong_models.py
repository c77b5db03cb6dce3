"""Every wrong model and bad option caught with an error that names it; natural ways to write a System;
Quantities as inputs; a simulator interrupted inside advance() stays consistent."""
import math

import numpy as np
import pytest

import simcore.models as models
from simcore import (Q_, ConfigError, PeriodicController, Simulator, StateEvent, System, simulate)
from simcore.errors import ConfigTypeError
from simcore.models.motors import NEO


class Cart(System):
    """x' = v, v' = u - v (two states, one input, one output)."""

    def __init__(self, rhs=None, out=None):
        super().__init__("cart", ["x", "v"], ["force"], ["speed"], {"x": "m", "v": "m/s", "force": "N",
                                                                     "speed": "m/s"})
        self.rhs, self.out = rhs, out

    def derivatives(self, t, x, u):
        return self.rhs(t, x, u) if self.rhs else np.array([x[1], u[0] - x[1]])

    def outputs(self, t, x, u):
        return self.out(t, x, u) if self.out else (x[1],)


# -- 5. wrong models -----------------------------------------------------------------------------------
@pytest.mark.parametrize("returned", [
    lambda t, x, u: np.array([x[1]]),  # one value for two states (was broadcast silently)
    lambda t, x, u: 1.0,  # a scalar
    lambda t, x, u: None,  # a forgotten return
    lambda t, x, u: np.array([x[1], 1j * u[0]]),  # complex
])
def test_derivatives_of_the_wrong_shape_or_kind_name_the_system_and_what_was_expected(returned):
    with pytest.raises(ConfigError, match=r"cart\.derivatives\(\).*expected .*2 real numbers ordered as "
                                          r"\('x', 'v'\)"):
        simulate(Cart(rhs=returned), 0.5, inputs={"cart.force": 1.0})


@pytest.mark.parametrize("returned", [lambda t, x, u: {"speed": x[1]}, lambda t, x, u: (x[1], x[0])])
def test_outputs_of_the_wrong_shape_or_kind_name_the_system(returned):
    r = simulate(Cart(out=returned), 0.2)
    with pytest.raises(ConfigError, match=r"cart\.outputs\(\).*1 real numbers ordered as \('speed',\)"):
        r["cart.speed"]
    reader = PeriodicController(0.1, lambda t, s: {"cart.force": s["cart.speed"]}, name="reader")
    with pytest.raises(ConfigError, match=r"cart\.outputs\(\)"):
        simulate(Cart(out=returned), 0.2, [reader])


def test_a_model_error_at_the_first_evaluation_keeps_its_type_and_time():
    def rhs(t, x, u):
        return np.array([math.sqrt(-1.0), 0.0])  # ValueError: math domain error

    with pytest.raises(ValueError, match="math domain error") as ei:
        simulate(Cart(rhs=rhs), 1.0, t0=0.25)
    assert not isinstance(ei.value, ConfigError)
    assert ei.value.sim_time == 0.25


@pytest.mark.parametrize("make, parameter", [
    (lambda: Simulator(Cart(), max_step=1e-10), "max_step"),  # below the 1 ns clock (it hung)
    (lambda: Simulator(Cart(), max_step=Q_(0.5, "ns")), "max_step"),
    (lambda: Simulator(Cart(), rtol=1e-20), "rtol"),
    (lambda: Simulator(Cart(), rtol=1.5), "rtol"),
    (lambda: simulate(Cart(), 1e300), "t_end"),  # was OverflowError
    (lambda: PeriodicController(1e300, lambda t, s: None), "period"),
    (lambda: Simulator(Cart(), x0=[1.0, 0.0]), "x0"),  # was AttributeError
    (lambda: Simulator(Cart(), inputs=5.0), "inputs"),
    (lambda: Simulator(Cart()).set_inputs([("cart.force", 1.0)]), "set_inputs"),
])
def test_bad_options_name_the_parameter(make, parameter):
    with pytest.raises(ConfigError) as ei:
        make()
    assert ei.value.parameter == parameter


class Flaky(Cart):
    """Raises ``exc`` once, at its first derivative evaluation after ``t_raise``."""

    def __init__(self, exc, t_raise):
        super().__init__()
        self.exc, self.t_raise, self.raised = exc, t_raise, False

    def derivatives(self, t, x, u):
        if t > self.t_raise and not self.raised:
            self.raised = True
            raise self.exc
        return super().derivatives(t, x, u)


def _p_loop():
    return PeriodicController(0.1, lambda t, s: {"cart.force": 2.0 * (1.0 - s["cart.x"])}, name="p")


def _assert_same_rows(got, ref):
    assert np.all(np.diff(got.t) >= 0)
    np.testing.assert_array_equal(got.t, ref.t)
    for name in ref.names:
        np.testing.assert_array_equal(got[name], ref[name])


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), RuntimeError("model bug")])
def test_an_exception_inside_advance_leaves_the_simulator_consistent(exc):
    ref = simulate(Cart(), 1.0, [_p_loop()], max_step=0.01)
    assert np.count_nonzero((ref.t > 0.5) & (ref.t < 0.6)) >= 9  # the interrupted interval has inner rows
    sim = Simulator(Flaky(exc, 0.55), [_p_loop()], max_step=0.01)
    with pytest.raises(type(exc)):
        for _ in range(10):
            sim.advance(0.1)
    assert sim.t == 0.5
    sim.run_until(1.0)
    _assert_same_rows(sim.result(), ref)


def test_a_controller_exception_inside_advance_is_retried_at_its_tick():
    state = {"raised": False}

    def flaky(t, s):
        if t == 0.5 and not state["raised"]:
            state["raised"] = True
            raise KeyboardInterrupt
        return {"cart.force": 2.0 * (1.0 - s["cart.x"])}

    ref = simulate(Cart(), 1.0, [_p_loop()])
    sim = Simulator(Cart(), [PeriodicController(0.1, flaky, name="p")])
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(1.0)
    assert sim.t == 0.5
    sim.run_until(1.0)
    _assert_same_rows(sim.result(), ref)
    assert len(sim.result().ticks("p")) == len(ref.ticks("p"))


# -- 6. natural ways to write a System ------------------------------------------------------------------
class Declared(System):
    """The contract attributes as class attributes: no __init__ at all."""

    name = "tank"
    state_names = ("level",)
    input_names = ("inflow",)
    output_names = ("level_cm",)
    units = {"level": "m", "inflow": "m/s", "level_cm": "cm"}

    def derivatives(self, t, x, u):
        return np.array([u[0] - 0.5 * x[0]])

    def outputs(self, t, x, u):
        return (100.0 * x[0],)


class OwnInit(System):
    """An own __init__ that never calls super().__init__()."""

    def __init__(self, rate):
        self.name = "decay"
        self.state_names = ["x"]
        self.rate = rate

    def initial_state(self):
        return np.array([1.0])

    def derivatives(self, t, x, u):
        return np.array([-self.rate * x[0]])


def test_a_system_declared_by_class_attributes_needs_no_init():
    r = simulate(Declared(), 2.0, inputs={"tank.inflow": 0.5})
    np.testing.assert_allclose(r["tank.level"], 1.0 - np.exp(-0.5 * r.t), rtol=0, atol=1e-8)
    assert r.unit("tank.level_cm") == "cm"


def test_a_system_whose_init_does_not_call_super_works():
    r = simulate(OwnInit(2.0), 1.0)
    np.testing.assert_allclose(r["decay.x"], np.exp(-2.0 * r.t), rtol=1e-7)
    assert r.unit("decay.x") == ""


def test_a_system_without_a_name_is_refused_naming_its_class():
    class Nameless(System):
        state_names = ("x",)

        def __init__(self):
            pass

    with pytest.raises(ConfigError, match="Nameless.name"):
        simulate(Nameless(), 0.1)


@pytest.mark.parametrize("make", [
    lambda: System("s", "xy"),
    lambda: simulate(type("Letters", (Declared,), {"state_names": "xy", "name": "letters"})(), 0.1),
])
def test_one_string_where_a_list_of_names_belongs_is_refused(make):
    with pytest.raises(ConfigTypeError, match="state_names='xy'"):
        make()


@pytest.mark.parametrize("kwargs, parameter", [(dict(terminal="no"), "terminal"), (dict(terminal=1), "terminal"),
                                               (dict(direction=True), "direction")])
def test_event_flags_are_checked_as_what_they_are(kwargs, parameter):
    with pytest.raises(ConfigError) as ei:
        StateEvent(lambda t, x, u: x[0], **kwargs)
    assert ei.value.parameter == parameter


# -- 7. Quantities as inputs, and error notes -----------------------------------------------------------------
def test_quantities_are_converted_to_each_signals_unit():
    a = simulate(Cart(), 0.5, x0={"cart.x": Q_(20.0, "cm"), "cart.v": Q_(3.6, "km/h")},
                 inputs={"cart.force": Q_(1000.0, "mN")})
    b = simulate(Cart(), 0.5, x0={"cart.x": 0.2, "cart.v": 1.0}, inputs={"cart.force": 1.0})
    np.testing.assert_allclose(a["cart.x"], b["cart.x"], rtol=1e-15)
    sim = Simulator(Cart())
    sim.set_inputs({"cart.force": Q_(2.0, "kN")})
    assert sim.signals["cart.force"] == 2000.0
    pc = PeriodicController(0.1, lambda t, s: {"cart.force": Q_(500.0, "mN")}, name="q")
    assert simulate(Cart(), 0.2, [pc]).final("cart.force") == 0.5
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    r = simulate(arm, 0.1, x0={"arm.angle": Q_(45.0, "deg")}, inputs={"arm.voltage": Q_(6000.0, "mV")})
    assert r["arm.angle"][0] == pytest.approx(math.pi / 4, rel=1e-15) and r["arm.voltage"][0] == 6.0


@pytest.mark.parametrize("make", [
    lambda: simulate(Cart(), 0.1, x0={"cart.x": Q_(1.0, "s")}),
    lambda: simulate(Cart(), 0.1, inputs={"cart.force": Q_(1.0, "V")}),
    lambda: Simulator(Cart()).set_inputs({"cart.force": Q_(1.0, "m")}),
    lambda: simulate(Cart(), 0.2, [PeriodicController(0.1, lambda t, s: {"cart.force": Q_(1.0, "A")})]),
])
def test_a_quantity_of_the_wrong_dimension_is_refused(make):
    with pytest.raises(ConfigError, match="convertible to"):
        make()


def test_error_notes_give_plain_times_and_say_stage_or_tick():
    def rhs(t, x, u):
        if t > 0.3:
            raise ZeroDivisionError("model bug")
        return np.array([x[1], -x[1]])

    with pytest.raises(ZeroDivisionError) as ei:
        simulate(Cart(rhs=rhs), 1.0)
    note = ei.value.__notes__[-1]
    assert "solver stage" in note and "np.float64" not in note and type(ei.value.sim_time) is float

    def robot(t, s):
        raise KeyError("no such motor")

    with pytest.raises(KeyError) as ei:
        simulate(Cart(), 1.0, [PeriodicController(0.25, robot, name="robot")])
    assert "(tick)" in ei.value.__notes__[-1] and "t=0.0 s" in ei.value.__notes__[-1]


def _falling(reset=None, init=None, init_u=None):
    class Falling(System):
        name = "s"
        state_names = ("x", "v")
        input_names = ("u",)

        def initial_state(self):
            return np.array([1.0, 0.0]) if init is None else init

        def initial_inputs(self):
            return np.array([0.0]) if init_u is None else init_u

        def derivatives(self, t, x, u):
            return np.array([x[1], -9.81])

        def events(self):
            return [StateEvent(lambda t, x, u: x[0], direction=-1, name="floor", reset=reset, terminal=True)]
    return Falling()


@pytest.mark.parametrize("returned", [
    np.array([0.0 + 1j, 2j]), np.array([[0.0], [1.0]]), None, {"x": 0.0, "v": 1.0}, np.array([True, False]),
    np.array([0.0])])
def test_a_reset_returning_the_wrong_kind_names_the_event(returned):
    # Review finding 6: complex parts were dropped, a (2, 1) array flattened, None read as nan.
    with pytest.raises(ConfigError, match=r"reset of s:floor") as ei:
        simulate(_falling(reset=lambda t, x, u: returned), 1.0)
    assert "2 real numbers ordered as ('x', 'v')" in str(ei.value)


@pytest.mark.parametrize("what, kwargs", [
    ("initial_state", {"init": np.array([1 + 2j, 0])}), ("initial_state", {"init": np.array([[1.0], [0.0]])}),
    ("initial_state", {"init": "10"}), ("initial_inputs", {"init_u": np.array([1j])}),
    ("initial_inputs", {"init_u": np.array([[0.0]])}), ("initial_inputs", {"init_u": None}),
])
def test_initial_values_of_the_wrong_kind_name_the_system_and_the_method(what, kwargs):
    if kwargs.get("init_u", 0) is None:
        class NoneInputs(type(_falling())):
            def initial_inputs(self):
                return None
        system = NoneInputs()
    else:
        system = _falling(**kwargs)
    with pytest.raises(ConfigError) as ei:
        simulate(system, 0.1)
    assert ei.value.parameter == f"s.{what}()"


class KickedBox(System):
    """x' = u - 0.1 x; an event when the held input u rises through 0.5 adds 1 to x. With
    ``flaky`` its reset raises KeyboardInterrupt the first time."""

    def __init__(self, flaky=False):
        super().__init__("box", ["x"], ["u"])
        self.flaky, self.raised = flaky, False

    def derivatives(self, t, x, u):
        return np.array([u[0] - 0.1 * x[0]])

    def _reset(self, t, x, u):
        if self.flaky and not self.raised:
            self.raised = True
            raise KeyboardInterrupt
        return x + 1.0

    def events(self):
        return [StateEvent(lambda t, x, u: u[0] - 0.5, reset=self._reset, direction=1, name="kick")]


# u = 1 from 0.3 s and x(0.3+) = 1 after the kick: x(t) = 10 - 9 exp(-0.1 (t - 0.3)).
_KICKED_X_AT_1 = 10.0 - 9.0 * math.exp(-0.07)


def _step_at_0_3():
    return PeriodicController(0.1, lambda t, s: {"box.u": 1.0 if t >= 0.3 else 0.0}, name="c")


def test_an_exception_in_a_ticks_input_jump_event_keeps_the_event_for_the_retry():
    # Review finding 2: the tick was marked done before its event fired, so the retry lost it.
    ref = simulate(KickedBox(), 1.0, [_step_at_0_3()])
    sim = Simulator(KickedBox(flaky=True), [_step_at_0_3()])
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(1.0)
    sim.run_until(1.0)
    got = sim.result()
    assert [(e.name, e.at_tick) for e in got.events] == [("kick", True)]
    assert got.events[0].t == pytest.approx(0.3, abs=1e-12)
    assert got.final("box.x") == pytest.approx(_KICKED_X_AT_1, rel=1e-7)
    _assert_same_rows(got, ref)


def test_an_exception_in_the_event_set_inputs_triggers_applies_nothing():
    def run(flaky):
        sim = Simulator(KickedBox(flaky))
        for k in range(10):
            u = {"box.u": 1.0 if k >= 3 else 0.0}
            try:
                sim.set_inputs(u)
            except KeyboardInterrupt:
                assert sim.signals["box.u"] == 0.0  # not applied
                sim.set_inputs(u)
            sim.advance(0.1)
        return sim.result()

    ref, got = run(False), run(True)
    assert [e.name for e in got.events] == ["kick"] and got.events[0].t == pytest.approx(0.3, abs=1e-12)
    assert got.final("box.x") == pytest.approx(_KICKED_X_AT_1, rel=1e-7)
    _assert_same_rows(got, ref)


def test_a_refused_set_inputs_call_writes_none_of_its_values():
    # Review finding 7: the values before the refused one were kept.
    sim = Simulator([models.Flywheel(NEO, 2.0, 0.01, name="a"), models.Flywheel(NEO, 2.0, 0.01, name="b")])
    sim.advance(0.1)
    with pytest.raises(ConfigTypeError):
        sim.set_inputs({"a.voltage": 12.0, "b.voltage": "twelve"})
    assert sim.signals["a.voltage"] == 0.0
    sim.advance(0.1)
    assert np.all(sim.result()["a.voltage"] == 0.0)


def test_time_never_runs_backwards_after_an_interrupted_advance():
    # Review finding 3: a target between the last tick and the event the run stopped at was accepted.
    from _systems import FreeFall

    class FlakyBall(FreeFall):
        raised = False

        def derivatives(self, t, x, u):
            if t > 0.6 and not self.raised:
                self.raised = True
                raise KeyboardInterrupt
            return super().derivatives(t, x, u)

    # Dropped from 1 m, the ball bounces at sqrt(2 / 9.81) s, between the 1 Hz controller's ticks.
    sim = Simulator(FlakyBall(1.0, e=0.8), [PeriodicController(1.0, lambda t, s: None, name="idle")],
                    max_step=0.05)
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(1.0)
    assert sim.t == pytest.approx(math.sqrt(2 / 9.81), abs=1e-9)
    with pytest.raises(ConfigError, match="not before the current time") as ei:
        sim.run_until(0.3)
    assert ei.value.parameter == "t_end"
    with pytest.raises(ConfigError, match="not before the current time") as ei:
        sim.advance(0.3)  # counted from the last tick, at 0: also before the bounce
    assert ei.value.parameter == "dt"
    sim.run_until(1.0)
    assert np.all(np.diff(sim.result().t) >= 0) and sim.t == 1.0


class _Pushed(System):
    def __init__(self, units=None, input_ranges=None):
        super().__init__("s", ["x"], ["u"], [], units=units)
        if input_ranges is not None:
            self.input_ranges = input_ranges

    def derivatives(self, t, x, u):
        return np.array([u[0]])


@pytest.mark.parametrize("kwargs, parameter", [
    ({"units": {"x": "meterz"}}, "s.units['x']"),
    ({"units": {"x": 3}}, "s.units['x']"),
    ({"input_ranges": {"uu": (0, 1)}}, "s.input_ranges"),
    ({"input_ranges": {"u": "ab"}}, "s.input_ranges['u']"),
    ({"input_ranges": {"u": (0, 1, 2)}}, "s.input_ranges['u']"),
    ({"input_ranges": {"u": (1, 0)}}, "s.input_ranges['u']"),
    ({"input_ranges": {"u": (math.nan, 1)}}, "s.input_ranges['u']"),
])
def test_bad_unit_and_range_declarations_are_refused_when_the_simulation_is_built(kwargs, parameter):
    # Review finding 8: these were kept silently or failed later with raw pint or numpy errors. (A
    # units key that is no signal stays allowed: the models declare every configuration's units.)
    with pytest.raises(ConfigError) as ei:
        Simulator(_Pushed(**kwargs))
    assert ei.value.parameter == parameter


@pytest.mark.parametrize("make, parameter", [
    (lambda: Simulator(Cart(), rtol=10**400), "rtol"),  # was OverflowError (review finding 9)
    (lambda: Simulator(Cart(), atol=10**400), "atol"),
    (lambda: Simulator(Cart(), record=math.inf), "record"),  # a value error, not "expected 'all', ..."
    (lambda: Simulator(Cart(), record=1e-12), "record"),  # a window below the 1 ns clock
    (lambda: StateEvent(lambda t, x, u: x[0], name=5), "name"),
])
def test_more_bad_options_name_the_parameter(make, parameter):
    with pytest.raises(ConfigError) as ei:
        make()
    assert ei.value.parameter == parameter
    if parameter == "record":
        assert type(ei.value) is ConfigError and "window length" in str(ei.value)
