"""A Battery with ``brownout_behaviour="disable"`` runs in the compiled kernel, and the run is the Python path's
to the bit: the brownout, the recoveries refused because the restored commands would brown the bus out again,
the commands written meanwhile coming back at the recovery, several motors on one bus.

The instants and voltages are also checked against values worked out here: flywheels at rest on a battery
``V_oc`` behind ``R_b``, their motors (a group of ``n`` NEOs: winding resistance ``R / n``, from the datasheet's
12 V / 105 A stall) commanded a voltage ``u``. With ``u`` above the bus every group is connected across it, so
``V = V_oc / (1 + R_b * sum(n / R))`` at rest (no back-EMF); with ``u`` below it each group draws the fixed power
``u^2 n / R`` and ``V`` is the larger root of ``V^2 - V_oc V + R_b P = 0``. With the motors at neutral nothing
is drawn and the bus is ``V_oc``.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore.controllers import PIDController, control_loop
from simcore.models.battery import RECOVERY_TIME
from simcore.models.motors import NEO, VEX_775PRO
from test_kernel_equals_the_python_path import _assert_same, _both

NEO_STALL_RESISTANCE = 12.0 / 105.0  # ohm: NEO datasheet, 12 V at 105 A stall


def _same_with_modes(kernel, python):
    _assert_same(kernel, python)
    assert kernel[0].modes == python[0].modes  # ("browned_out", when the outputs went off) on every row


def _wheels(n_wheels, resistance, command, **battery):
    """``n_wheels`` flywheels of four NEOs each from rest, commanded ``command(t)`` volts every 10 ms."""
    wheels = [models.Flywheel(NEO, 1.0, moi=0.004, n_motors=4, name=f"wheel{i}") for i in range(n_wheels)]
    bat = models.Battery(resistance=resistance, brownout_behaviour="disable", **battery)
    code = simcore.PeriodicController(0.01, lambda t, s: {f"wheel{i}.voltage": command(t) for i in range(n_wheels)},
                                      name="code")
    return wheels + [bat], [code]


def _stalled_bus(voc, r_battery, n_groups, motors_per_group=4):
    """The bus with every group connected across it at rest, V."""
    return voc / (1.0 + r_battery * n_groups * motors_per_group / NEO_STALL_RESISTANCE)


def _fixed_power_bus(voc, r_battery, n_groups, u, motors_per_group=4):
    """The bus with every group drawing u^2 n / R at rest (u below the bus), V."""
    p = n_groups * u * u * motors_per_group / NEO_STALL_RESISTANCE
    return 0.5 * (voc + math.sqrt(voc * voc - 4.0 * r_battery * p))


def test_a_disabling_battery_runs_in_the_kernel():
    battery = models.Battery(brownout_behaviour="disable")
    sim = simcore.Simulator([models.Flywheel(NEO, 1.0, moi=0.01), battery], [])
    assert battery.kernel_form() is not None and sim._compiled is not None


@pytest.mark.parametrize("method", ["RK45", "auto"])
@pytest.mark.parametrize("n_wheels", [1, 2])
def test_brownout_refused_recoveries_and_recovery_equal_the_python_path(method, n_wheels):
    # Full voltage until 0.1 s, then 4 V: stalled the bus is far below 6.8 V, at 4 V above 7.5 V.
    command = lambda t: 12.0 if t < 0.1 - 1e-9 else 4.0  # noqa: E731
    kernel, python = _both(lambda: _wheels(n_wheels, 0.03, command), 0.3, method=method)
    _same_with_modes(kernel, python)
    r = kernel[0]
    assert _stalled_bus(12.0, 0.03, n_wheels) < 6.8 < 7.5 < _fixed_power_bus(12.0, 0.03, n_wheels, 4.0)
    # The first writes (at t = 0) brown the bus out: the outputs are off from the start. Every 20 ms a recovery
    # is tried; while the code asks 12 V the restored bus would be the stalled one, below 6.8 V: refused
    # (the outputs stay off from that instant). The 4 V written at 0.1 s comes back at 0.12 s.
    events = [(e.t, e.name, e.mode_before, e.mode_after) for e in r.events]
    refused = [0.02, 0.04, 0.06, 0.08, 0.1]
    assert len(events) == len(refused) + 1 and all(name == "brownout_recovery" for _, name, _, _ in events)
    for (t, _, before, after), t_expected, t_off in zip(events, refused, [0.0] + refused):
        assert t == pytest.approx(t_expected, abs=1e-12)
        assert before == ("browned_out", pytest.approx(t_off, abs=1e-12)) and after == ("browned_out", t)
    t_back, _, _, after = events[-1]
    assert t_back == pytest.approx(0.12, abs=1e-12) and after == "normal"
    off = r["battery.brownout"] == 1.0
    # flag up from the first writes (row 0 is the state before them) to the row before the recovery
    assert not off[0] and np.all(off[1:][r.t[1:] < t_back]) and not np.any(off[r.t > t_back])
    at_back = off[r.t == t_back]  # (the 0.12 s tick's rows, then the recovery's before and after)
    assert at_back[:-1].all() and not at_back[-1]
    for i in range(n_wheels):
        assert np.all(r[f"wheel{i}.applied_voltage"][off] == 0.0)  # neutral (brake): nothing applied
        assert np.all(np.signbit(r[f"wheel{i}.voltage"][off][1:]))  # the command slot holds the marker -0.0
        np.testing.assert_array_equal(r[f"wheel{i}.applied_voltage"][r.t > t_back], 4.0)
    np.testing.assert_array_equal(r["battery.voltage"][off], 12.0)  # nothing drawn: the open-circuit voltage
    np.testing.assert_array_equal(r["battery.current"][off], 0.0)
    first_on = np.flatnonzero(~off & (r.t == t_back))[0]  # the recovery's after-row: wheels still at rest
    assert r["battery.voltage"][first_on] == pytest.approx(_fixed_power_bus(12.0, 0.03, n_wheels, 4.0), rel=1e-9)


def test_a_recovery_is_refused_exactly_when_the_restored_bus_would_brown_out():
    # A 7.2 V threshold: 5.8 V on one group would sag the bus to 6.83 V (browned out again), 4 V to 10.4 V
    # (not). The code steps down 12, 5.8, 4 V; only 4 V is let back on.
    command = lambda t: 12.0 if t < 0.05 - 1e-9 else (5.8 if t < 0.1 - 1e-9 else 4.0)  # noqa: E731
    bus_at_12 = _stalled_bus(12.0, 0.03, 1)
    bus_at_6 = _fixed_power_bus(12.0, 0.03, 1, 5.8)
    bus_at_4 = _fixed_power_bus(12.0, 0.03, 1, 4.0)
    assert bus_at_12 < 7.2 and 5.8 < bus_at_6 < 7.2 < 7.5 < bus_at_4  # (5.8 V is met: the fixed-power branch)
    kernel, python = _both(lambda: _wheels(1, 0.03, command, brownout_voltage=7.2), 0.2, method="RK45")
    _same_with_modes(kernel, python)
    r = kernel[0]
    recoveries = [(e.t, e.mode_after) for e in r.events if e.name == "brownout_recovery"]
    # the recovery at 0.1 s is located before that tick's write: it still restores 5.8 V
    assert [t for t, _ in recoveries] == pytest.approx([0.02, 0.04, 0.06, 0.08, 0.1, 0.12], abs=1e-12)
    assert all(m != "normal" for _, m in recoveries[:-1]) and recoveries[-1][1] == "normal"
    at_back = (r.t == recoveries[-1][0]) & (r["battery.brownout"] == 0.0)
    assert r["battery.voltage"][at_back][0] == pytest.approx(bus_at_4, rel=1e-9)
    np.testing.assert_array_equal(r["wheel0.applied_voltage"][r.t > 0.12], 4.0)


def test_writes_during_the_brownout_take_effect_at_the_recovery():
    # Browned out by the first writes; the code writes 2 V on wheel0 at 30 ms, and 0.0 (its own stop, not the
    # marker) on wheel1 at 70 ms: while wheel1 asks 12 V a recovery is refused (each restarts the 20 ms); at the
    # 80 ms one both come back, each with the last value written to it.
    def code(t, s):
        if t < 0.03 - 1e-9:
            return {"wheel0.voltage": 12.0, "wheel1.voltage": 12.0}
        if t < 0.07 - 1e-9:
            return {"wheel0.voltage": 2.0, "wheel1.voltage": 12.0}
        return {"wheel1.voltage": 0.0}

    def make():
        wheels = [models.Flywheel(NEO, 1.0, moi=0.004, n_motors=4, name=f"wheel{i}") for i in range(2)]
        return wheels + [models.Battery(resistance=0.03, brownout_behaviour="disable")], \
            [simcore.PeriodicController(0.01, code, name="code")]

    kernel, python = _both(make, 0.15, method="RK45")
    _same_with_modes(kernel, python)
    r = kernel[0]
    recoveries = [(e.t, e.mode_after) for e in r.events if e.name == "brownout_recovery"]
    # at 0.02, 0.04, 0.06 wheel1's 12 V would stall the bus (refused); at 0.08 wheel1 is at 0 V, wheel0 at 2 V
    assert [t for t, _ in recoveries] == pytest.approx([0.02, 0.04, 0.06, 0.08], abs=1e-12)
    assert recoveries[-1][1] == "normal"
    back = r.t > 0.08
    np.testing.assert_array_equal(r["wheel0.applied_voltage"][back], 2.0)
    np.testing.assert_array_equal(r["wheel1.applied_voltage"][back], 0.0)
    assert not np.any(np.signbit(r["wheel1.voltage"][back]))  # the code's 0.0, not the marker
    at_back = (r.t == recoveries[-1][0]) & (r["battery.brownout"] == 0.0)  # both wheels still at rest there
    assert r["battery.voltage"][at_back][0] == pytest.approx(_fixed_power_bus(12.0, 0.03, 1, 2.0), rel=1e-9)


def test_a_battery_browned_out_at_the_start_equals_the_python_path():
    # The inputs given at the start stall the bus before any tick: the outputs are off from t0 = 0.5 s.
    def make():
        wheel = models.Flywheel(NEO, 1.0, moi=0.004, n_motors=4, name="wheel")
        return [wheel, models.Battery(resistance=0.1, brownout_behaviour="disable")], []

    kernel, python = _both(make, 0.57, method="RK45", t0=0.5, inputs={"wheel.voltage": 12.0})
    _same_with_modes(kernel, python)
    r = kernel[0]
    assert r.modes["battery"][0] == ("browned_out", 0.5)
    assert [e.t for e in r.events] == pytest.approx([0.5 + RECOVERY_TIME * k for k in (1, 2, 3)], abs=1e-12)
    np.testing.assert_array_equal(r["wheel.velocity"], 0.0)  # never let on


def _several_motors():
    """An arm with stops and friction, an elevator and a flywheel on one weak battery, under robot code that
    quarters its outputs while the battery reports a brownout (so the outputs it restores let the bus recover)."""
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2,
                     efficiency=0.8)
    elevator = models.Elevator(VEX_775PRO, 20.0, carriage_mass=6.0, drum_radius=0.02, min_height=0.0,
                               max_height=1.0, static_friction=5.0)
    flywheel = models.Flywheel(NEO, 1.0, moi=0.004, n_motors=2)
    battery = models.Battery(resistance=0.02, brownout_behaviour="disable", brownout_voltage=7.0)

    def code(t, s):
        scale = 0.25 if s["battery.brownout"] else 1.0
        clip = lambda v: scale * min(12.0, max(-12.0, v))  # noqa: E731
        return {"arm.voltage": clip(80.0 * (1.4 - s["arm.angle"]) - s["arm.velocity"]),
                "elevator.voltage": clip(200.0 * (0.8 - s["elevator.position"])),
                "flywheel.voltage": clip(0.05 * (500.0 - s["flywheel.velocity"]))}

    return [arm, elevator, flywheel, battery], [simcore.PeriodicController(0.01, code, name="code")]


@pytest.mark.parametrize("method", ["RK45", "auto"])
def test_several_motors_on_a_disabling_battery_equal_the_python_path(method):
    kernel, python = _both(_several_motors, 0.5, method=method)
    _same_with_modes(kernel, python)
    r = kernel[0]
    names = [e.name for e in r.events if e.system == "battery"]
    assert names.count("brownout") >= 1 and names.count("brownout_recovery") >= 2
    off = r["battery.brownout"] == 1.0
    for name in ("arm", "elevator", "flywheel"):  # every motor at neutral while the outputs are off
        assert np.all(r[f"{name}.applied_voltage"][off] == 0.0), name
    np.testing.assert_array_equal(r["battery.voltage"][off], 12.0)
    # With the outputs on the bus is at or above the threshold, but at the instant of a brownout (located to
    # 1e-13 s, or at a tick whose writes pulled the bus below it)
    at_brownout = np.isin(r.t, [e.t for e in r.events if e.name == "brownout"])
    assert r["battery.voltage"][~off & ~at_brownout].min() >= 7.0 - 1e-6


def test_advancing_in_pieces_equals_one_run_through_brownouts():
    command = lambda t: 12.0 if t < 0.1 - 1e-9 else 4.0  # noqa: E731
    systems, controllers = _wheels(2, 0.03, command)
    whole = simcore.simulate(systems, 0.2, controllers, method="RK45")
    systems, controllers = _wheels(2, 0.03, command)
    sim = simcore.Simulator(systems, controllers, method="RK45")
    assert sim._compiled is not None
    for _ in range(20):
        sim.advance(0.01)
    pieces = sim.result()
    assert np.array_equal(pieces.t, whole.t)
    for name in whole.names:
        assert np.array_equal(pieces[name], whole[name], equal_nan=True), name
    assert pieces.modes == whole.modes


def _arm_on_a_weak_battery():
    """bench/brownout.py's scenario: two NEOs on an arm, a 50 Hz PD (the recovery time is its period: a recovery
    comes before the next write) that quarters its output while browned out; the setpoint steps each second."""
    path = Path(__file__).resolve().parents[2] / "bench" / "brownout.py"
    spec = importlib.util.spec_from_file_location("bench_brownout", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.scenario()


@pytest.mark.parametrize("method", ["RK45", "auto"])
def test_brownouts_at_ticks_hold_the_written_command_as_the_python_path(method):
    # A write that browns the bus out at a tick is the command held back: the recovery 20 ms later restores it
    # (and is refused when it would brown the bus out again), before the code writes again.
    kernel, python = _both(_arm_on_a_weak_battery, 1.5, method=method)
    _same_with_modes(kernel, python)
    r = kernel[0]
    at_tick = [e for e in r.events if e.name == "brownout" and e.at_tick]
    refused = [e for e in r.events if e.name == "brownout_recovery" and e.mode_after != "normal"]
    assert at_tick and refused


def test_a_stiff_run_handed_to_radau_while_browned_out_equals_the_python_path():
    # A flywheel whose viscous friction makes it stiff (30 N m s/rad on 0.002 kg m^2), plugged from 200 rad/s
    # on a weak battery with energy tracked: browned out from the first writes (four NEOs driven at -12 V hold
    # the bus below 4.4 V, their stalled value, at any forward speed: every recovery is refused), "auto" hands
    # the run to Radau in Python with the battery's state (browned out since when, the command held back).
    def make():
        fw = models.Flywheel(NEO, 2.0, moi=0.002, viscous_friction=30.0, n_motors=4, start_velocity=200.0,
                             track_energy=True)
        loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                            command="flywheel.voltage", setpoint=-100.0, output_limits=(-12.0, 12.0))
        return [fw, models.Battery(resistance=0.05, brownout_behaviour="disable")], [loop]

    kernel, python = _both(make, 0.3, method="auto")
    _same_with_modes(kernel, python)
    r = kernel[0]
    assert r.stats["intervals_by_method"].get("Radau")
    recoveries = [e for e in r.events if e.name == "brownout_recovery"]
    assert len(recoveries) == 14 and all(e.mode_after == ("browned_out", e.t) for e in recoveries)  # 0.02 ... 0.28
    assert np.all(r["flywheel.applied_voltage"][1:] == 0.0)
