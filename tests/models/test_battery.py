"""The battery's bus solve (exact from the loads' supply curves) and the roboRIO's brownout behaviour."""

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore import ConfigError, PeriodicController
from simcore.models.battery import Battery, SupplyCurve, bus_root
from simcore.models.motors import GOBILDA_BARE, KRAKEN_X60, NEO


def _drivetrains():
    tank = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0, moi=5.0,
                            friction_coefficient=1.0)
    mec = models.MecanumDrive(GOBILDA_BARE, 19.2, track_width=0.36, wheelbase=0.3, wheel_radius=0.048, mass=12.0,
                              moi=0.35, command="duty")
    return tank, mec


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_bus_solve_agrees_with_the_numeric_one(seed):
    """Random speeds, commands (voltage, duty, neutral brake and coast, regenerating) on two drivetrains:
    the piecewise solve from one evaluation per load equals the secant/Brent root of the loads' currents."""
    rng = np.random.default_rng(seed)
    tank, mec = _drivetrains()
    bat = Battery(resistance=float(rng.uniform(0.005, 0.08)))
    systems = [tank, mec, bat]
    coupling = bat.couplings(systems)[0]
    for _ in range(20):
        xt, xm = tank.initial_state(), mec.initial_state()
        xt[3:5] = rng.uniform(-4, 4, 2)
        xt[7], xt[8] = rng.uniform(-4, 4), rng.uniform(-3, 3)
        xm[3:6] = rng.uniform(-1.5, 1.5, 3)
        xm[6:10] = rng.uniform(-2, 2, 4)
        ut, um = tank.initial_inputs(), mec.initial_inputs()
        ut[0:2] = rng.choice([0.0, 12.0, -12.0, 5.0, -3.0, 14.0], 2)
        ut[2] = rng.choice([0.0, 1.0])
        um[0:4] = rng.choice([0.0, 1.0, -1.0, 0.4, -0.7, 1.3], 4)
        um[4:8] = rng.choice([0.0, 1.0], 4)
        for s, x, u in ((tank, xt, ut), (mec, xm, um)):
            s.mode = s.initial_mode(0.0, x, u) if s.mode is None else ((0,) * s.chassis.n_wheels, ())
        xs, us = [xt, xm, np.zeros(0)], [ut, um, bat.initial_inputs()]
        v_exact, i_exact, collapsed = coupling._solve(xs, us)
        v_num, i_num, collapsed_num = coupling._solve_numerically(xs, us)
        assert collapsed == collapsed_num
        assert v_exact == pytest.approx(v_num, abs=1e-9)
        assert i_exact == pytest.approx(i_num, rel=1e-9, abs=1e-9)
        if not collapsed:
            assert v_exact == pytest.approx(bat.open_circuit_voltage - bat.resistance * i_exact, abs=1e-9)


def test_supply_curve_of_one_motor_follows_its_branches():
    R, emf = 0.05, 6.0
    c = SupplyCurve()
    c.add_motor(R, emf, False, 9.0, 1.0)  # a 9 V request: met above 9 V, the full bus below
    assert c.at(12.0) == pytest.approx(9.0 * (9.0 - emf) / (R * 12.0))
    assert c.at(8.0) == pytest.approx((8.0 - emf) / R)
    coast = SupplyCurve()
    coast.add_motor(R, emf, False, 0.0, 0.0)  # coasting: the diodes conduct only below V = E
    assert coast.at(7.0) == 0.0 and coast.at(5.0) == pytest.approx((5.0 - emf) / R)
    assert bus_root(SupplyCurve(), 12.0, 0.02) == 12.0


# -- brownout -------------------------------------------------------------------------------------------------
def _brownout_robot(behaviour, **battery):
    """Issue 12's 471 A case: four Kraken X60 on a tank and two on a flywheel, no current limits, from rest at
    full voltage: the bus would sit at 2.6 V."""
    tank = models.TankDrive(KRAKEN_X60, 8.0, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=55.0,
                            moi=6.0)
    fly = models.Flywheel(KRAKEN_X60, 1.0, 0.004, n_motors=2)
    bat = Battery(brownout_behaviour=behaviour, **battery)

    def code(t, s):
        # full power, then at 0.1 s the code backs off (3 V on the drive, flywheel off)
        on = t < 0.1 - 1e-9
        return {"drive.left_voltage": 12.0 if on else 3.0, "drive.right_voltage": 12.0 if on else 3.0,
                "flywheel.voltage": 12.0 if on else 0.0}

    return simcore.simulate([tank, fly, bat], 0.3, [PeriodicController(0.01, code, name="code")])


def test_flag_only_reports_the_brownout_while_the_motors_keep_full_duty():
    r = _brownout_robot("flag")
    early = r.t < 0.01
    assert r["battery.voltage"][early][1:].max() < 3.0
    assert r["battery.current"][early].max() == pytest.approx(12.0 / (0.02 + 1 / (6 * 366 / 12)), rel=1e-3)
    assert np.all(r["drive.left_applied_voltage"][early][1:] < 3.0)  # the full (sagged) bus
    assert r["battery.brownout"][early][1:].min() == 1.0


def test_disable_sends_outputs_to_neutral_below_the_threshold_and_restores_them_above():
    r = _brownout_robot("disable", brownout_voltage=6.75)  # a roboRIO 2's default
    off = r["battery.brownout"] == 1.0
    on = ~off
    assert off[1] and on[-1]  # from the first tick (row 0 is the state before the controllers ran)
    # while browned out every output is neutral (brake: 0 V on the windings), nothing is drawn and the bus is
    # the open-circuit voltage (above the 7.5 V recovery level)
    for out in ("drive.left_applied_voltage", "drive.right_applied_voltage", "flywheel.applied_voltage"):
        assert np.all(r[out][off] == 0.0)
    np.testing.assert_allclose(r["battery.current"][off], 0.0, atol=1e-12)
    assert r["battery.voltage"][off].min() > 7.5
    # the outputs come back at the first 20 ms re-enable after the code backed off at 0.1 s, with the commands
    # the code wrote meanwhile, and the bus then stays above the threshold
    events = [(e.t, e.name) for e in r.events if e.system == "battery"]
    assert events[-1][1] == "brownout_recovery" and events[-1][0] == pytest.approx(0.12, abs=1e-12)
    back = r.t > 0.12
    np.testing.assert_array_equal(r["drive.left_applied_voltage"][back], 3.0)
    assert r["battery.voltage"][back].min() > 6.75
    assert r["flywheel.applied_voltage"][back].max() == 0.0
    # before it: the recoveries that would have browned the bus out again stayed off
    assert [n for _, n in events].count("brownout_recovery") == 6


def test_brownout_parameters_are_checked():
    with pytest.raises(ConfigError) as info:
        Battery(brownout_behaviour="shutdown")
    assert info.value.parameter == "brownout_behaviour"
    with pytest.raises(ConfigError) as info:
        Battery(brownout_voltage=7.0, recovery_voltage=6.0)
    assert info.value.parameter == "recovery_voltage"


def test_a_batched_run_takes_either_brownout_behaviour():
    from simcore import simulate_batch

    def run(battery):
        fly = models.Flywheel(NEO, 1.0, moi=0.01)
        return simulate_batch([fly, battery], 0.05, inputs={"flywheel.voltage": 6.0},
                              params={"battery.resistance": [0.01, 0.05]})

    bus = run(Battery()).final("flywheel.bus_voltage")
    assert bus[1] < bus[0] < 12.0  # the higher resistance sags more
    # 6 V on one NEO from rest: above 6.8 V on either battery, so "disable" never acts and the bus is the same
    np.testing.assert_array_equal(run(Battery(brownout_behaviour="disable")).final("flywheel.bus_voltage"), bus)


def test_recovery_settings_that_could_never_act_are_refused():
    # A 12 V battery: with no load the bus sits at 12 V, so it can never rise above 20 V and a
    # robot that browned out would stay disabled for good.
    for bad in (20.0, 12.0):
        with pytest.raises(ConfigError) as info:
            Battery(brownout_behaviour="disable", recovery_voltage=bad)
        assert info.value.parameter == "recovery_voltage" and info.value.value == bad
    with pytest.raises(ConfigError) as info:
        Battery(brownout_behaviour="disable", brownout_voltage=7.0, recovery_voltage=6.9)
    assert info.value.parameter == "recovery_voltage"
    Battery(brownout_behaviour="disable", recovery_voltage=11.9)  # below 12 V: reachable
    # "flag" never disables the outputs: a recovery setting would be silently ignored.
    for parameter, value in (("recovery_voltage", 9.0), ("recovery_time", 0.1)):
        with pytest.raises(ConfigError) as info:
            Battery(**{parameter: value})
        assert info.value.parameter == parameter and "disable" in str(info.value)
    # ...while the defaults stay valid whatever the flag threshold (they are not the user's).
    assert Battery(brownout_voltage=8.0).brownout_voltage == 8.0
