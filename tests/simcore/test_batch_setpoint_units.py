"""A loop's setpoint given as a pint Quantity, in a batch: converted to the measured signal's unit, as serially."""
import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, Q_, simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO


def _elevator(carriage_mass=5.0):
    return models.Elevator(NEO, 10.0, carriage_mass=carriage_mass, drum_radius=0.03, min_height=0.0, max_height=1.5)


def _loop(setpoint):
    return control_loop(PIDController(40.0, 0.0, 2.0), measure="elevator.position", command="elevator.voltage",
                        setpoint=setpoint, name="height")


def _assert_equal_to_serial(batch, serial_runs):
    ticks = batch.tick_times("height")
    got = batch.at_ticks("elevator.position", "height")
    ref = np.stack([r.sample("elevator.position", ticks) for r in serial_runs])
    np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-12)


def test_varied_setpoint_quantities_convert_to_the_measured_unit():
    feet = [1.0, 2.0, 3.0]
    batch = simulate_batch(_elevator(), 0.6, [_loop(0.0)], params={"height.setpoint": Q_(feet, "ft")})
    _assert_equal_to_serial(batch, [simulate(_elevator(), 0.6, [_loop(f * 0.3048)], method="RK45") for f in feet])


def test_the_loops_own_setpoint_quantity_converts_in_a_batch():
    masses = [4.0, 6.0]
    batch = simulate_batch(_elevator(), 0.6, [_loop(Q_(50.0, "cm"))], params={"elevator.carriage_mass": masses})
    _assert_equal_to_serial(batch, [simulate(_elevator(m), 0.6, [_loop(0.5)], method="RK45") for m in masses])


def test_a_varied_setpoint_quantity_of_the_wrong_dimension_is_refused_naming_the_param():
    # degrees are dimensionless to pint: converted as dimensionless they were 0.17 and 0.35 m without a word
    with pytest.raises(ConfigError) as ei:
        simulate_batch(_elevator(), 0.1, [_loop(0.0)], params={"height.setpoint": Q_([10.0, 20.0], "deg")})
    assert ei.value.parameter.startswith("params['height.setpoint']")
    assert "elevator.position" in "".join(getattr(ei.value, "__notes__", []))
    with pytest.raises(ConfigError) as ei:  # and the loop's own
        simulate_batch(_elevator(), 0.1, [_loop(Q_(10.0, "deg"))], params={"elevator.carriage_mass": [4.0, 5.0]})
    assert ei.value.parameter == "setpoint"
    with pytest.raises(ConfigError) as ei:  # a non-finite magnitude is named with its variant before the run
        simulate_batch(_elevator(), 0.1, [_loop(0.0)], params={"height.setpoint": Q_([0.1, np.nan], "m")})
    assert ei.value.parameter == "params['height.setpoint'][1]"


def test_a_list_of_setpoint_quantities_converts_each_to_the_measured_unit():
    # whole-number magnitudes: numpy once stacked such a list as whole SI units (30 deg -> 0 rad)
    batch = simulate_batch(_elevator(), 0.6, [_loop(0.0)], params={"height.setpoint": [Q_(1, "ft"), Q_(50, "cm")]})
    _assert_equal_to_serial(batch, [simulate(_elevator(), 0.6, [_loop(s)], method="RK45") for s in (0.3048, 0.5)])


def test_a_loop_with_its_default_dotted_name_can_be_varied():
    """A loop's default name is "<command> loop" ("elevator.voltage loop"): its params are routed to it,
    not to the system its name starts with."""
    loop = control_loop(PIDController(40.0, 0.0, 2.0), measure="elevator.position", command="elevator.voltage",
                        setpoint=0.5)
    gains = [20.0, 60.0]
    batch = simulate_batch(_elevator(), 0.6, [loop], params={f"{loop.name}.kp": gains})
    ticks = batch.tick_times(loop.name)
    for k, kp in enumerate(gains):
        serial = simulate(_elevator(), 0.6, [control_loop(PIDController(kp, 0.0, 2.0), measure="elevator.position",
                                                          command="elevator.voltage", setpoint=0.5)], method="RK45")
        np.testing.assert_allclose(batch.at_ticks("elevator.position", loop.name)[k],
                                   serial.sample("elevator.position", ticks), rtol=1e-7, atol=1e-12)


def test_quantities_in_lists_object_arrays_and_series_convert_to_their_parameters_units():
    """Every way of giving one Quantity per variant reaches the part that owns it with its unit: 1 ft is
    0.3048 m; degrees on a height are refused, as simulate refuses them (they were 0.17 and 0.35 m)."""
    pd = pytest.importorskip("pandas")
    feet = [Q_(1, "ft"), Q_(2, "ft")]
    as_object = np.empty(2, dtype=object)
    as_object[:] = feet
    for given in (feet, tuple(feet), as_object, pd.Series(feet)):
        x0 = simulate_batch(_elevator(), 0.0, params={"elevator.carriage_mass": [4.0, 5.0]},
                            x0={"elevator.position": given})
        np.testing.assert_allclose(x0.final("elevator.position"), [0.3048, 0.6096], rtol=1e-15)
        varied = simulate_batch(_elevator(), 0.6, [_loop(0.0)], params={"height.setpoint": given})
        _assert_equal_to_serial(varied, [simulate(_elevator(), 0.6, [_loop(s)], method="RK45")
                                         for s in (0.3048, 0.6096)])
    held = simulate_batch(_elevator(), 0.0, params={"elevator.carriage_mass": [4.0, 5.0]},
                          inputs={"elevator.voltage": [Q_(6000, "mV"), Q_(3, "V")]})
    np.testing.assert_array_equal(held.final("elevator.voltage"), [6.0, 3.0])
    degrees = [Q_(10, "deg"), Q_(20, "deg")]
    with pytest.raises(ConfigError) as ei:
        simulate_batch(_elevator(), 0.0, params={"elevator.carriage_mass": [4.0, 5.0]},
                       x0={"elevator.position": degrees})
    assert ei.value.parameter.startswith("x0['elevator.position']")
    with pytest.raises(ConfigError) as ei:
        simulate_batch(_elevator(), 0.1, [_loop(0.0)], params={"height.setpoint": pd.Series(degrees)})
    assert ei.value.parameter.startswith("params['height.setpoint']")
