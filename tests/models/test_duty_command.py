"""command="duty": every FRC mechanism and drivetrain takes a duty in [-1, 1] applied against the bus voltage
of the same evaluation, which is the voltage command V = duty * V_bus with no lag."""
import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore.models.motors import KRAKEN_X60, NEO

MODULES = [(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)]


def _swerve(command):
    return models.SwerveDrive(KRAKEN_X60, NEO, module_positions=MODULES, drive_gearing=6.75, steer_gearing=12.8,
                              wheel_radius=0.05, mass=50.0, moi=5.0, command=command,
                              steer_command=command)


FACTORIES = {
    "flywheel": lambda c: models.Flywheel(NEO, 2.0, 0.01, command=c, static_friction=0.02),
    "arm": lambda c: models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=0.9, command=c),
    "elevator": lambda c: models.Elevator(KRAKEN_X60, 10, carriage_mass=5.0, drum_radius=0.02, min_height=0,
                                          max_height=0.3, command=c),
    "tank": lambda c: models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6,
                                       mass=50.0, moi=5.0, command=c),
    "mecanum": lambda c: models.MecanumDrive(NEO, 10.0, wheel_radius=0.076, track_width=0.5, wheelbase=0.5,
                                             mass=50.0, moi=5.0, command=c),
    "swerve": _swerve,
}


def _commands(system):
    """A different duty for each command input (a turn for drivetrains), in input order."""
    names = [n for n in system.input_names if n.endswith("duty") or "_duty_" in n]
    return {n: 0.9 - 0.35 * k for k, n in enumerate(names)}


def _run(system, writes, t_end=0.1, extra=()):
    pc = simcore.PeriodicController(0.02, lambda t, s: writes, name="drive")
    return simcore.simulate([system, *extra], t_end, [pc])


@pytest.mark.parametrize("kind", list(FACTORIES))
def test_duty_is_the_voltage_command_at_the_same_bus_voltage(kind):
    duty_sys, volt_sys = FACTORIES[kind]("duty"), FACTORIES[kind]("voltage")
    duties = _commands(duty_sys)
    assert duties, duty_sys.input_names
    bus = duty_sys.initial_inputs()[list(duty_sys.input_names).index("bus_voltage")]
    assert bus == 12.0  # the motors' nominal voltage: an ideal bus
    volts = {n.replace("duty", "voltage"): d * bus for n, d in duties.items()}
    a = _run(duty_sys, {f"{duty_sys.name}.{n}": v for n, v in duties.items()})
    b = _run(volt_sys, {f"{volt_sys.name}.{n}": v for n, v in volts.items()})
    states = [f"{duty_sys.name}.{s}" for s in duty_sys.state_names]
    assert np.array_equal(a.t, b.t)
    for s in states:
        np.testing.assert_array_equal(a[s], b[s], err_msg=s)


@pytest.mark.parametrize("kind", list(FACTORIES))
def test_on_a_battery_the_applied_voltage_is_duty_times_the_sagging_bus_at_every_row(kind):
    system = FACTORIES[kind]("duty")
    duties = {n: 0.5 * d for n, d in _commands(system).items()}  # within every current limit and the bus
    r = _run(system, {f"{system.name}.{n}": v for n, v in duties.items()}, extra=[models.Battery()])
    bus = r["battery.voltage"]
    assert bus.min() < 11.9  # it sags
    np.testing.assert_array_equal(r[f"{system.name}.bus_voltage"], bus)
    after = r.t > 0  # from the first write on
    for out in (o for o in system.output_names if o.endswith("applied_voltage") or "_applied_voltage_" in o):
        duty = r[f"{system.name}.{out.replace('applied_voltage', 'duty')}"]
        np.testing.assert_allclose(r[f"{system.name}.{out}"][after], (duty * bus)[after], rtol=1e-12, atol=1e-12,
                                   err_msg=out)
