"""A batch with a Battery that disables the outputs on a brownout: each variant (resistance, open-circuit voltage,
brownout and recovery voltages varied) is its own serial run to the bit, at any batch size and position: rows,
every signal, events with their modes (``("browned_out", t_off)``), modes, step count. Bad battery variants are
refused naming the parameter, the variant and its value."""
from __future__ import annotations

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore import ConfigError, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.models.motors import NEO, VEX_775PRO


def _systems(resistance=0.02, voc=12.0, brownout=7.0, recovery=7.5):
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2,
                     efficiency=0.8)
    elevator = models.Elevator(VEX_775PRO, 20.0, carriage_mass=6.0, drum_radius=0.02, min_height=0.0,
                               max_height=1.0, static_friction=5.0)
    flywheel = models.Flywheel(NEO, 1.0, moi=0.004, n_motors=2)
    battery = models.Battery(resistance=resistance, open_circuit_voltage=voc, brownout_voltage=brownout,
                             recovery_voltage=recovery, brownout_behaviour="disable")
    return [arm, elevator, flywheel, battery]


def _code(t, s):
    """Robot code written element-wise: P laws, a quarter of the output while the battery reports a brownout."""
    scale = np.where(s["battery.brownout"] == 1.0, 0.25, 1.0)
    return {"arm.voltage": scale * np.clip(80.0 * (1.4 - s["arm.angle"]) - s["arm.velocity"], -12.0, 12.0),
            "elevator.voltage": scale * np.clip(200.0 * (0.8 - s["elevator.position"]), -12.0, 12.0),
            "flywheel.voltage": scale * np.clip(0.05 * (500.0 - s["flywheel.velocity"]), -12.0, 12.0)}


def _controller():
    return elementwise(simcore.PeriodicController(0.01, _code, name="code"))


def _assert_is_its_serial_run(variant, serial):
    assert np.array_equal(variant.t, serial.t)
    assert variant.names == serial.names
    for name in serial.names:
        assert np.array_equal(variant[name], serial[name]), name
    assert [(e.t, e.name, e.system, e.mode_before, e.mode_after, e.at_tick) for e in variant.events] == \
        [(e.t, e.name, e.system, e.mode_before, e.mode_after, e.at_tick) for e in serial.events]
    assert variant.modes == serial.modes
    assert variant.stats["n_steps"] == serial.stats["n_steps"]


@pytest.mark.parametrize("seed", range(3))
def test_each_variant_of_a_disabling_battery_is_its_own_serial_run(seed):
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(2, 7))
    p = {"resistance": rng.uniform(0.01, 0.04, n), "open_circuit_voltage": rng.uniform(11.5, 13.0, n),
         "brownout_voltage": rng.uniform(6.3, 7.5, n)}
    p["recovery_voltage"] = p["brownout_voltage"] + rng.uniform(0.0, 1.5, n)
    batch = simulate_batch(_systems(), 0.3, [_controller()], params={f"battery.{k}": v for k, v in p.items()})
    browned = 0
    for j in rng.permutation(n)[:3]:
        j = int(j)
        serial = simulate(_systems(*(float(p[k][j]) for k in ("resistance", "open_circuit_voltage",
                                                                 "brownout_voltage", "recovery_voltage"))),
                          0.3, [_controller()], method="RK45")
        _assert_is_its_serial_run(batch[j], serial)
        browned += any(e.name == "brownout_recovery" for e in serial.events)
    assert browned  # the battery disabled the outputs in some compared variant


def test_a_variant_with_a_disabling_battery_is_the_same_in_any_batch_size_and_position():
    resistance = np.array([0.03, 0.012, 0.02, 0.035])
    whole = simulate_batch(_systems(), 0.25, [_controller()], params={"battery.resistance": resistance})
    order = [2, 0]
    part = simulate_batch(_systems(), 0.25, [_controller()], params={"battery.resistance": resistance[order]})
    for i, j in enumerate(order):
        _assert_is_its_serial_run(part[i], whole[j])
    # a weaker battery browns out more often (a stiffer one may not at all)
    counts = [sum(e.name == "brownout_recovery" for e in whole[j].events) for j in range(4)]
    assert counts[0] >= counts[2] >= counts[1] and counts[0] > 0


def test_bad_battery_variants_are_named():
    def run(behaviour="disable", **params):
        fly = models.Flywheel(NEO, 1.0, moi=0.01)
        return simulate_batch([fly, models.Battery(brownout_behaviour=behaviour)], 0.02,
                              params={f"battery.{k}": v for k, v in params.items()})

    with pytest.raises(ConfigError) as info:
        run(recovery_voltage=[7.5, 6.0])  # below the 6.8 V brownout threshold
    assert info.value.parameter == "params['battery.recovery_voltage'][1]" and info.value.value == 6.0
    with pytest.raises(ConfigError) as info:
        run(brownout_voltage=[6.8, 12.5])  # at or above the 12 V open-circuit voltage
    assert info.value.parameter == "params['battery.brownout_voltage'][1]" and info.value.value == 12.5
    with pytest.raises(ConfigError) as info:
        run(recovery_voltage=[7.5, 12.0])  # the bus never rises above the open-circuit voltage
    assert info.value.parameter == "params['battery.recovery_voltage'][1]" and info.value.value == 12.0
    with pytest.raises(ConfigError) as info:
        run("flag", recovery_voltage=[7.5, 8.0])  # a flagging battery never disables: no effect
    assert info.value.parameter == "params['battery.recovery_voltage']" and "disable" in str(info.value)
