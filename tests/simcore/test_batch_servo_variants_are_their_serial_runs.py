"""A batch of servos: each variant (its load inertia, its friction) is its own serial run, to the bit.

Wrists of random load inertia and static friction, stepped between targets past their stops, in random
batch sizes and positions, beside an arm whose mass varies too; each sampled variant compared with its own
``simulate(..., method="RK45")`` of the servo built with that variant's values: every row, every signal,
every event, the step count. And a varied load slows the servo as its inertia says.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from simcore import PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigError
from simcore.models import Arm
from simcore.models.motors import NEO
from simcore.models.servo import GOBILDA_TORQUE_SERVO, ServoMechanism

from test_batch_variants_are_their_serial_runs import _assert_is_its_serial_run

pytestmark = pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")
NAMES = ("wrist.angle", "wrist.velocity", "wrist.stator_current", "wrist.loop_duty", "wrist.target_angle")


def _wrist(load_inertia=2e-4, static=0.0):
    return ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist", load_inertia=load_inertia, static_friction=static,
                          min_angle=-1.0, max_angle=1.1)


def _pulses():
    def write(t, s):
        pulse = np.where(t < 0.4, 2200.0, np.where(t < 0.8, 900.0, 1600.0))
        return {"wrist.pulse_width": pulse, "wrist.pwm_enabled": 1.0}
    return elementwise(PeriodicController(0.02, write, name="pulses"))


@pytest.mark.parametrize("seed", range(3))
def test_each_servo_variant_is_its_own_serial_run_to_the_bit(seed):
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(2, 10))
    inertia = rng.uniform(0.0, 2e-3, n)
    static = rng.choice([0.0, 0.05], n) * rng.uniform(0.5, 1.0, n)
    batch = simulate_batch(_wrist(), 1.2, [_pulses()],
                           params={"wrist.load_inertia": inertia, "wrist.static_friction": static})
    assert batch.event_counts().min() >= 2  # every variant reaches both stops
    for j in rng.permutation(n)[:3]:
        serial = simulate(_wrist(float(inertia[j]), float(static[j])), 1.2, [_pulses()], method="RK45")
        _assert_is_its_serial_run(batch[int(j)], serial, NAMES)


def test_wrists_lifting_claws_of_each_mass_are_their_serial_runs():
    # The claw's mass and centre distance varied; the load inertia not given, so each variant's is its own m d².
    mass = np.array([0.1, 0.45, 0.3, 0.8])
    com = np.array([0.12, 0.05, 0.15, 0.1])

    def wrist(m=0.2, d=0.1):
        return ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist", load_mass=m, load_com_distance=d,
                              min_angle=-1.0, max_angle=1.1)

    batch = simulate_batch(wrist(), 2.0, [_pulses()], params={"wrist.load_mass": mass, "wrist.load_com_distance": com})
    for j in (3, 0, 2):
        serial = simulate(wrist(float(mass[j]), float(com[j])), 2.0, [_pulses()], method="RK45")
        _assert_is_its_serial_run(batch[j], serial, NAMES + ("wrist.motor_torque",))
    # Held at 1600 us (15 degrees) each claw droops until the loop's torque, droop / band * T_stall(5 V), holds
    # its weight's m g d cos(15 degrees - droop): to first order in the droop (a few hundredths of a radian),
    # droop = band m g d cos(15 deg) / T_stall (the cosine's change, droop * tan(15 deg), under 1.5 %).
    st = GOBILDA_TORQUE_SERVO
    droop = math.radians(15.0) - np.array([batch[j]["wrist.angle"][-1] for j in range(len(mass))])
    expected = st.proportional_band * mass * 9.80665 * com * math.cos(math.radians(15.0)) / (
        st.stall_torque * 5.0 / st.nominal_voltage)
    np.testing.assert_allclose(droop, expected, rtol=0.015)


def test_servo_and_arm_variants_together_are_their_serial_runs_in_any_position():
    inertia = np.array([1e-4, 1.5e-3, 6e-4, 0.0])
    mass = np.array([1.0, 3.0, 2.0, 1.5])

    def arm(m=2.0):
        return Arm(NEO, 40.0, mass=m, com_distance=0.3, min_angle=-0.6, max_angle=1.2)

    def both():
        def write(t, s):
            return {"wrist.pulse_width": np.where(t < 0.5, 2200.0, 1000.0), "wrist.pwm_enabled": 1.0,
                    "arm.voltage": np.where(t < 0.5, 8.0, -6.0)}
        return elementwise(PeriodicController(0.02, write, name="drive"))

    order = [2, 0, 3]
    batch = simulate_batch([arm(), _wrist()], 1.0, [both()],
                           params={"wrist.load_inertia": inertia[order], "arm.mass": mass[order]})
    for i, j in enumerate(order):
        serial = simulate([arm(float(mass[j])), _wrist(float(inertia[j]))], 1.0, [both()], method="RK45")
        _assert_is_its_serial_run(batch[i], serial, NAMES + ("arm.angle", "arm.voltage"))


def test_a_heavier_load_slows_the_servo_by_its_inertia():
    # From rest at full duty the servo's speed rises as w(t) = w_free (1 - exp(-t / tau)) with
    # tau = J w_free / T_stall (a DC motor at constant voltage, friction aside): the time to reach half the
    # no-load speed, tau ln 2, grows with the load's inertia J = J_rotor + J_load.
    st = GOBILDA_TORQUE_SERVO
    v, w_free = 5.0, st.free_speed * 5.0 / st.nominal_voltage
    rotor = st.stall_torque * st.mechanical_time_constant / st.free_speed
    loads = np.array([0.0, 1e-3, 4e-3])
    batch = simulate_batch(ServoMechanism(st, name="wrist", start_angle=-2.5), 0.4,
                           inputs={"wrist.pulse_width": 2500.0, "wrist.pwm_enabled": 1.0},
                           params={"wrist.load_inertia": loads}, rtol=1e-10, atol=1e-12)
    for j, load in enumerate(loads):
        res = batch[j]
        w = res["wrist.velocity"]
        k = int(np.argmax(w >= 0.5 * w_free))
        t_half = res.t[k - 1] + (0.5 * w_free - w[k - 1]) * (res.t[k] - res.t[k - 1]) / (w[k] - w[k - 1])
        tau = (rotor + load) * w_free / (st.stall_torque * v / st.nominal_voltage)
        # the motors' own friction (their free current) lowers the final speed by under 10 %, so the half-speed
        # time sits within 10 % of the frictionless tau ln 2 (and above it)
        assert tau * math.log(2) <= t_half <= 1.1 * tau * math.log(2), j


def test_a_servo_batches_only_its_own_parameters():
    with pytest.raises(ConfigError, match=r"params\['wrist.gearing'\].*load_inertia"):
        simulate_batch(_wrist(), 0.1, [_pulses()], params={"wrist.gearing": [1.0, 2.0]})
    with pytest.raises(ConfigError, match=r"params\['wrist.load_inertia'\]"):
        simulate_batch(_wrist(), 0.1, [_pulses()], params={"wrist.load_inertia": [1e-4, -1e-4]})
