"""simcore.protocols: each contract between the parts is checked where the object is handed over,
and a misspelt member raises then, naming it, instead of being silently ignored later."""
import pickle

import numpy as np
import pytest

import simcore.models as models
from simcore import Simulator, System, protocols, simulate
from simcore.controllers import PIDController, control_loop
from simcore.controllers.hub import Hub
from simcore.errors import ConfigError, ConfigTypeError, ProtocolError
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.motors import NEO


class Decay(System):
    """dx/dt = -x (the engine's protocol done right)."""

    def __init__(self, name="s"):
        super().__init__(name, ["x"], ["u"], ["y"])

    def initial_state(self):
        return np.array([1.0])

    def derivatives(self, t, x, u):
        return np.array([-x[0]])


def raises_naming(member, fn, *args, **kwargs):
    with pytest.raises(ProtocolError) as ei:
        fn(*args, **kwargs)
    assert ei.value.member == member and member in str(ei.value)
    assert isinstance(ei.value, ConfigTypeError) and isinstance(ei.value, TypeError)
    return ei.value


# -- the engine ------------------------------------------------------------------------------------------
def test_a_system_with_a_misspelt_derivatives_fails_when_the_simulation_is_built():
    class Typo(Decay):
        derivative = Decay.derivatives
        derivatives = System.derivatives  # the base class's, which raises only at the first step

    err = raises_naming("derivatives", Simulator, Typo())
    assert "'derivative'" in str(err) and err.parameter == "systems[0]"


def test_a_misspelt_optional_method_and_a_wrong_signature_fail_at_build():
    class EventTypo(Decay):
        def event(self):  # meant to be events(): would never be called
            return []

    raises_naming("events", Simulator, [Decay("a"), EventTypo("b")])

    class TwoArgs(Decay):
        def derivatives(self, x, u):
            return np.array([-x[0]])

    err = raises_naming("derivatives", Simulator, TwoArgs())
    assert "derivatives(t, x, u)" in str(err)
    simulate(Decay(), 0.1)  # the correct one runs


# -- the battery -----------------------------------------------------------------------------------------
class Load(System):
    """A resistive load on the bus: draws V/R (a heater), with no states."""

    def __init__(self, ohms=2.0, name="load"):
        super().__init__(name, (), ("bus_voltage",), ())
        self.ohms = ohms

    def initial_inputs(self):
        return np.array([12.0])

    def derivatives(self, t, x, u):
        return np.zeros(0)

    def supply_current_at(self, x, u, bus_voltage):
        return bus_voltage / self.ohms


def test_a_custom_load_on_the_battery_draws_its_current():
    # V = Voc - Rb V / R  =>  V = Voc R / (R + Rb): a divider, computed here independently.
    r = simulate([models.Battery(resistance=0.5), Load(2.0)], 0.1)
    assert r.final("battery.voltage") == pytest.approx(12.0 * 2.0 / 2.5, rel=1e-12)
    assert r.final("battery.current") == pytest.approx(12.0 / 2.5, rel=1e-12)


def test_a_load_with_a_misspelt_supply_current_at_fails_instead_of_drawing_nothing():
    class Typo(System):
        def __init__(self):
            super().__init__("load", (), ("bus_voltage",), ())

        def initial_inputs(self):
            return np.array([12.0])

        def derivatives(self, t, x, u):
            return np.zeros(0)

        def supply_currents_at(self, x, u, bus_voltage):
            return bus_voltage / 2.0

    err = raises_naming("supply_current_at", Simulator, [models.Battery(), Typo()])
    assert "supply_currents_at" in str(err) and "battery 'battery'" in str(err)
    Simulator([Typo()])  # without a battery its bus_voltage input is a held input: nothing to feed


def test_a_load_with_a_misspelt_bus_voltage_input_fails():
    class Volts(Load):
        def __init__(self):
            System.__init__(self, "load", (), ("bus_volts",), ())

    raises_naming("bus_voltage", Simulator, [models.Battery(), Volts()])


def test_a_load_whose_supply_current_at_takes_the_wrong_arguments_fails():
    class TwoArgs(Load):
        def supply_current_at(self, x, u):
            return 1.0

    raises_naming("supply_current_at", Simulator, [models.Battery(), TwoArgs()])


# -- the field view --------------------------------------------------------------------------------------
class Cart(System):
    """A robot sliding along x at 1 m/s: pose states only."""

    def __init__(self):
        super().__init__("cart", ["x", "y", "heading"], [], [])

    def derivatives(self, t, x, u):
        return np.array([1.0, 0.0, 0.0])


def test_a_drivetrain_with_a_misspelt_outline_or_module_positions_fails_at_build():
    class Outlines(Cart):
        def outlines(self):
            return [(0.3, 0.3), (-0.3, 0.3), (-0.3, -0.3), (0.3, -0.3)]

    raises_naming("outline", Simulator, Outlines())

    class Modules(Cart):
        module_position = ((0.3, 0.3), (-0.3, -0.3))

    raises_naming("module_positions", Simulator, Modules())
    simulate(Cart(), 0.1)  # outline() is optional: the field view draws a default square


# -- the hub ---------------------------------------------------------------------------------------------
def test_a_hub_channel_refuses_a_mechanism_it_cannot_drive_naming_what_is_missing():
    err = raises_naming("duty", protocols.check_hub_mechanism, models.Flywheel(NEO, 2.0, 0.01))
    assert "command='duty'" in str(err)
    with pytest.raises(ConfigError, match="duty"):  # the hub's own channel check names the signal first
        Hub().motor(0, models.Flywheel(NEO, 2.0, 0.01))

    class Probe:
        name = "probe"
        input_names = ("duty", "brake")
        state_names = ("rotor_position", "rotor_velocity")
        output_names = ("stator_current", "supply_current")  # no supply_voltage
        motor_type = GOBILDA_5203_312

    raises_naming("supply_voltage", protocols.check_hub_mechanism, Probe())
    with pytest.raises(ConfigError, match="supply_voltage"):
        Hub().motor(0, Probe())
    Probe.output_names += ("supply_voltage",)
    Probe.motortype = Probe.motor_type
    del Probe.motor_type
    raises_naming("motor_type", Hub().motor, 0, Probe())
    raises_naming("motor_type", Hub().motor, 0, Probe(), GOBILDA_5203_312)  # a near miss, even given a type
    Hub().motor(0, models.Flywheel(NEO, 2.0, 0.01, command="duty"), GOBILDA_5203_312)  # a duty mechanism binds


# -- control_loop ----------------------------------------------------------------------------------------
def test_control_loop_refuses_a_controller_with_a_misspelt_calculate():
    class Calc:
        def calculat(self, measurement, setpoint):
            return 0.0

    raises_naming("calculate", control_loop, Calc(), measure="s.x", command="s.u")

    class OneArg:
        def calculate(self, measurement):
            return 0.0

    raises_naming("calculate", control_loop, OneArg(), measure="s.x", command="s.u")


def test_control_loop_resets_a_team_controller_with_reset_before_each_run():
    class Integrator:
        """u = -k * integral of x: its state must not leak from one run into the next."""

        def __init__(self):
            self.total, self.resets = 0.0, 0

        def calculate(self, measurement, setpoint):
            self.total += (setpoint - measurement) * 0.01
            return 5.0 * self.total

        def reset(self):
            self.total = 0.0
            self.resets += 1

    ctl = Integrator()
    loop = control_loop(ctl, measure="s.x", command="s.u", period=0.01)
    first, second = simulate(Decay(), 0.5, [loop]), simulate(Decay(), 0.5, [loop])
    np.testing.assert_array_equal(first["s.u"], second["s.u"])
    assert ctl.resets == 2 and first.final("s.u") != 0.0


def test_control_loop_gives_a_reset_that_takes_the_measurement_the_measured_value():
    seen = []

    class FromMeasurement:
        def calculate(self, measurement, setpoint):
            return 0.0

        def reset(self, measured_position):
            seen.append(measured_position)

    simulate(Decay(), 0.05, [control_loop(FromMeasurement(), measure="s.x", command="s.u")])
    assert seen == [1.0]  # x(0) = 1


def test_control_loop_refuses_a_misspelt_reset():
    class Rest:
        def calculate(self, measurement, setpoint):
            return 0.0

        def rest(self):
            pass

    raises_naming("reset", control_loop, Rest(), measure="s.x", command="s.u")

    class TwoArgs(Rest):
        def reset(self, a, b):
            pass

    raises_naming("reset", control_loop, TwoArgs(), measure="s.x", command="s.u")


def test_the_project_objects_satisfy_their_protocols_and_the_error_pickles():
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
    assert isinstance(arm, protocols.SimulatedSystem) and isinstance(arm, protocols.BusLoad)
    assert isinstance(PIDController(1, 0, 0), protocols.LoopController)
    assert isinstance(PIDController(1, 0, 0), protocols.Resettable)
    protocols.check_hub_mechanism(models.HubMotor(GOBILDA_5203_312))
    err = pickle.loads(pickle.dumps(ProtocolError("systems[0]", "x", "a System with derivatives", "derivatives")))
    assert err.member == "derivatives" and str(err).startswith("systems[0]='x'")
