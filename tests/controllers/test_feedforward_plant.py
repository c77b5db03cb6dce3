"""Feedforwards with the true constants, derived from the datasheet, hold the simulated plant exactly."""
import math

import numpy as np
import pytest

import simcore.models as models
from simcore.controllers import ArmFeedforward, ElevatorFeedforward, SimpleMotorFeedforward, control_loop
from simcore.models.motors import FALCON_500, NEO
from simcore import PeriodicController, simulate

RPM = 2 * math.pi / 60
R_NEO, KT_NEO = 12.0 / 105.0, 2.6 / 105.0
KV_NEO = 5676 * RPM / (12.0 - R_NEO * 1.8)


def test_arm_feedforward_with_true_kg_holds_arm_horizontal():
    m, d, G, eta = 3.0, 0.35, 80.0, 0.9
    arm = models.Arm(NEO, G, mass=m, com_distance=d, min_angle=-1.5, max_angle=1.5, efficiency=eta)
    # Holding torque m g d at the pivot = G * eta * Kt * V / R at zero speed.
    kg = m * 9.80665 * d * R_NEO / (G * eta * KT_NEO)
    ff = ArmFeedforward(0.0, kg, 0.0)
    hold = PeriodicController(0.02, lambda t, s: {"arm.voltage": ff.calculate(s["arm.angle"], 0.0)}, name="ff")
    r = simulate(arm, 5.0, [hold], rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(r["arm.angle"])) <= 1e-6
    # With a kG 1 % off, it does not hold (the test can fail).
    ff_off = ArmFeedforward(0.0, 1.01 * kg, 0.0)
    arm2 = models.Arm(NEO, G, mass=m, com_distance=d, min_angle=-1.5, max_angle=1.5, efficiency=eta)
    r2 = simulate(arm2, 5.0, [PeriodicController(0.02, lambda t, s: {"arm.voltage": ff_off.calculate(
        s["arm.angle"], 0.0)}, name="ff")], rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(r2["arm.angle"])) > 1e-3


def test_simple_motor_feedforward_with_true_kv_ks_reaches_commanded_speed():
    G, J, eta, Fc, b = 2.0, 0.002, 0.95, 0.05, 1e-4
    fw = models.Flywheel(NEO, G, J, efficiency=eta, static_friction=Fc, viscous_friction=b)
    # Steady state: G eta Kt (V - G w / Kv) / R = Fc + b w  =>  V = kS + kV w.
    ks = Fc * R_NEO / (G * eta * KT_NEO)
    kv = G / KV_NEO + b * R_NEO / (G * eta * KT_NEO)
    ff = SimpleMotorFeedforward(ks, kv, 0.0)
    target = 200.0
    loop = control_loop(lambda meas, ref: 0.0, measure="flywheel.velocity", command="flywheel.voltage",
                        setpoint=target, feedforward=lambda t, ref, s: ff.calculate(ref), period=0.02)
    r = simulate(fw, 2.0, [loop], rtol=1e-11, atol=1e-12)
    assert r.final("flywheel.velocity") == pytest.approx(target, rel=1e-6)


def test_elevator_feedforward_with_true_kg_holds_carriage():
    m, r_d, G = 6.0, 0.025, 12.0
    R, Kt = 12.0 / 257.0, 4.69 / 257.0
    el = models.Elevator(FALCON_500, G, carriage_mass=m, drum_radius=r_d, min_height=0.0, max_height=1.5,
                         start_height=0.7)
    kg = m * 9.80665 * r_d * R / (G * Kt)
    ff = ElevatorFeedforward(0.0, kg, 0.0)
    r = simulate(el, 3.0, [PeriodicController(0.02, lambda t, s: {"elevator.voltage": ff.calculate(0.0)},
                                              name="ff")], rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(r["elevator.position"] - 0.7)) <= 1e-9
