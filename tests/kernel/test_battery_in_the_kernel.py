"""Geared mechanisms on a Battery run in the compiled kernel, and the run is the Python path's to the bit.

The Python path (``simcore.engine.USE_KERNEL = False``) solves the bus in the Battery's coupling, the
loads evaluated by their Python ``supply_current_at``; the kernel solves it in
:func:`simcore.kernel.parts.couple` from the parts' parameters. Every row's bus voltage must also satisfy
the bus equation ``V = V_oc - R sum(I_supply)`` written from the loads' recorded supply currents.
"""
from __future__ import annotations

import numpy as np
import pytest

import simcore
import simcore.models as models
import simcore.models.battery as battery_module
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO, VEX_775PRO
from test_kernel_equals_the_python_path import _assert_same, _both


def _bus_equation_holds(result, battery, loads):
    """``V = V_oc - R I`` on every row, with ``I`` the loads' own supply-current outputs (a live bus)."""
    v = result[f"{battery.name}.voltage"]
    current = sum(result[f"{name}.supply_current"] for name in loads)
    live = v > 0
    np.testing.assert_allclose(v[live], battery.open_circuit_voltage - battery.resistance * current[live],
                               rtol=0, atol=1e-9 * battery.open_circuit_voltage)
    np.testing.assert_array_equal(result[f"{battery.name}.current"][live], current[live])


def _arm_and_flywheel(resistance, limit):
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.8, max_angle=1.6, static_friction=0.2,
                     efficiency=0.8, stator_current_limit=limit)
    flywheel = models.Flywheel(NEO, 1.0, moi=0.002, n_motors=2, supply_current_limit=limit)
    battery = models.Battery(resistance=resistance)
    arm_loop = control_loop(PIDController(80.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                            setpoint=1.4, output_limits=(-12.0, 12.0), name="arm_pid")
    flywheel_loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.01), measure="flywheel.velocity",
                                 command="flywheel.voltage", setpoint=400.0, output_limits=(-12.0, 12.0),
                                 name="flywheel_pid")
    return [arm, flywheel, battery], [arm_loop, flywheel_loop]


@pytest.mark.parametrize("method", ["RK45", "auto"])
@pytest.mark.parametrize("resistance,limit", [(0.02, None), (0.05, None), (0.05, 40.0), (0.0, None)])
def test_an_arm_and_a_flywheel_on_one_battery_equal_the_python_path(method, resistance, limit):
    kernel, python = _both(lambda: _arm_and_flywheel(resistance, limit), 0.6, method=method)
    _assert_same(kernel, python)
    systems, _ = _arm_and_flywheel(resistance, limit)
    _bus_equation_holds(kernel[0], systems[2], ["arm", "flywheel"])
    assert kernel[0].events  # the arm's stiction and stops fired on the kernel's side too


def _spinning_up(n_flywheels):
    """Flywheels of four NEOs each from rest at full voltage: hundreds of amps, the bus far below 6.8 V at
    first, back above it as they spin up (the brownout flag both ways)."""
    wheels = [models.Flywheel(NEO, 1.0, moi=0.004, n_motors=4, name=f"wheel{i}") for i in range(n_flywheels)]
    battery = models.Battery(resistance=0.03)
    hold = simcore.PeriodicController(0.02, lambda t, s: {f"wheel{i}.voltage": 12.0 for i in range(n_flywheels)},
                                      name="full")
    return wheels + [battery], [hold]


@pytest.mark.parametrize("n_flywheels", [1, 3])
def test_the_brownout_flag_rises_and_falls_as_on_the_python_path(n_flywheels):
    kernel, python = _both(lambda: _spinning_up(n_flywheels), 0.8, method="RK45")
    _assert_same(kernel, python)
    r = kernel[0]
    flag, v = r["battery.brownout"], r["battery.voltage"]
    assert flag.max() == 1.0 and flag[-1] == 0.0
    np.testing.assert_array_equal(flag == 1.0, v < 6.8)
    systems, _ = _spinning_up(n_flywheels)
    _bus_equation_holds(r, systems[-1], [f"wheel{i}" for i in range(n_flywheels)])


def _heavy_elevator():
    """Current limits make the loads' supply current kinked in the bus voltage: the secant fails often and
    the grid walk and Brent's method find the bus."""
    elevator = models.Elevator(VEX_775PRO, 40.0, carriage_mass=30.0, drum_radius=0.05, min_height=0.0,
                               max_height=1.2, static_friction=40.0, viscous_friction=0.5, stator_current_limit=40,
                               supply_current_limit=30, n_motors=2, neutral_mode="coast", start_height=0.5)
    battery = models.Battery(resistance=0.3, open_circuit_voltage=12.5)
    loop = control_loop(PIDController(200.0, 0.0, 5.0, period=0.02), measure="elevator.position",
                        command="elevator.voltage", setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return [elevator, battery], [loop]


def test_current_limited_loads_take_the_numeric_fallback_to_the_same_bits(monkeypatch):
    calls = []
    brentq = battery_module.brentq
    monkeypatch.setattr(battery_module, "brentq", lambda *a, **k: calls.append(1) or brentq(*a, **k))
    kernel, python = _both(_heavy_elevator, 0.05, method="RK45")
    assert calls  # the Python path's bus needed Brent's method: the kernel's took the same bracket
    _assert_same(kernel, python)
    systems, _ = _heavy_elevator()
    _bus_equation_holds(kernel[0], systems[1], ["elevator"])
