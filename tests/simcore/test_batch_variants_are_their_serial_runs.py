"""Each variant of a batch is its own serial run, to the bit (the property the one engine guarantees).

Random mechanisms (arms with mass, gains and static friction varied, stops hit; elevators; flywheels),
random batch sizes and positions, each sampled variant compared with its own
``simulate(..., method="RK45")`` of the model built with that variant's parameters: every row, every
signal at every tick, every event, every mode, the step count.
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore import simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO
import simcore.models as models


def _arm(mass, static):
    return models.Arm(NEO, 40.0, mass=mass, com_distance=0.3, min_angle=-0.6, max_angle=1.2,
                      static_friction=static)


def _loop(kp, kd):
    return control_loop(PIDController(kp, 0.0, kd, period=0.01), measure="arm.angle", command="arm.voltage",
                        setpoint=lambda t: np.where(t < 0.6, 2.0, -1.0), output_limits=(-12.0, 12.0), name="pid")


@pytest.mark.parametrize("seed", range(4))
def test_each_variant_is_its_own_serial_run_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    mass = rng.uniform(0.5, 4.0, n)
    kp = rng.uniform(10.0, 200.0, n)
    kd = rng.uniform(0.0, 3.0, n)
    static = float(rng.choice([0.0, 0.3]))
    batch = simulate_batch(_arm(2.0, static), 1.2, [_loop(50.0, 1.0)],
                           params={"arm.mass": mass, "pid.kp": kp, "pid.kd": kd})
    assert batch.event_counts().min() >= 1  # every variant hits a stop
    for j in rng.permutation(n)[:3]:
        serial = simulate(_arm(float(mass[j]), static), 1.2, [_loop(float(kp[j]), float(kd[j]))], method="RK45")
        variant = batch[int(j)]
        assert np.array_equal(variant.t, serial.t)
        for name in ("arm.angle", "arm.velocity", "arm.voltage"):
            assert np.array_equal(variant[name], serial[name]), name
        assert [(e.t, e.name, e.mode_after) for e in variant.events] == \
            [(e.t, e.name, e.mode_after) for e in serial.events]
        assert variant.stats["n_steps"] == serial.stats["n_steps"]


def test_a_variant_is_the_same_in_any_batch_size_and_position():
    mass = np.array([0.7, 1.9, 3.3, 2.2, 1.1])
    kp = np.array([40.0, 120.0, 80.0, 190.0, 15.0])
    whole = simulate_batch(_arm(2.0, 0.3), 1.2, [_loop(50.0, 1.0)], params={"arm.mass": mass, "pid.kp": kp})
    order = [3, 0, 4]
    part = simulate_batch(_arm(2.0, 0.3), 1.2, [_loop(50.0, 1.0)],
                          params={"arm.mass": mass[order], "pid.kp": kp[order]})
    for i, j in enumerate(order):
        assert np.array_equal(part[i].t, whole[j].t)
        assert np.array_equal(part[i]["arm.angle"], whole[j]["arm.angle"])


def _assert_is_its_serial_run(variant, serial, names, ticks=None):
    assert np.array_equal(variant.t, serial.t)
    for name in names:
        assert np.array_equal(variant[name], serial[name]), name
    assert [(e.t, e.name, e.mode_after) for e in variant.events] == \
        [(e.t, e.name, e.mode_after) for e in serial.events]
    assert variant.stats["n_steps"] == serial.stats["n_steps"]


@pytest.mark.filterwarnings("ignore::simcore.StiffnessWarning")  # some elevators are stiff, serially too
@pytest.mark.parametrize("seed", range(3))
def test_elevators_and_flywheels_at_any_position_are_their_serial_runs(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 12))
    carriage = rng.uniform(2.0, 12.0, n)
    gearing = rng.uniform(5.0, 20.0, n)
    static = rng.uniform(0.0, 8.0, n)

    def elevator(m=6.0, g=10.0, fs=0.0):
        return models.Elevator(NEO, g, carriage_mass=m, drum_radius=0.02, min_height=0.0, max_height=1.0,
                               static_friction=fs)

    def lift(kp=80.0):
        return control_loop(PIDController(kp, 0.0, 2.0, period=0.02), measure="elevator.position",
                            command="elevator.voltage", setpoint=lambda t: np.where(t < 0.5, 1.2, 0.3),
                            output_limits=(-12.0, 12.0), name="lift")

    kp = rng.uniform(20.0, 300.0, n)
    batch = simulate_batch(elevator(), 1.0, [lift()], params={"elevator.carriage_mass": carriage,
                                                             "elevator.gearing": gearing,
                                                             "elevator.static_friction": static, "lift.kp": kp})
    for j in rng.permutation(n)[:3]:
        serial = simulate(elevator(float(carriage[j]), float(gearing[j]), float(static[j])), 1.0,
                          [lift(float(kp[j]))], method="RK45")
        _assert_is_its_serial_run(batch[int(j)], serial, ("elevator.position", "elevator.velocity",
                                                          "elevator.supply_current", "elevator.voltage"))

    moi = rng.uniform(1e-3, 1e-2, n)
    friction = rng.uniform(0.0, 0.05, n)

    def flywheel(j=4e-3, b=0.0):
        return models.Flywheel(NEO, 1.5, moi=j, viscous_friction=b)

    def spin(kp=0.05):
        return control_loop(PIDController(kp, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                            command="flywheel.voltage", setpoint=300.0, output_limits=(-12.0, 12.0), name="spin")

    batch = simulate_batch(flywheel(), 0.5, [spin()], params={"flywheel.moi": moi,
                                                             "flywheel.viscous_friction": friction})
    for j in rng.permutation(n)[:3]:
        serial = simulate(flywheel(float(moi[j]), float(friction[j])), 0.5, [spin()], method="RK45")
        _assert_is_its_serial_run(batch[int(j)], serial, ("flywheel.velocity", "flywheel.stator_current"))



def test_variants_whose_rows_overflow_the_batch_buffer_pause_and_resume_as_their_serial_runs(monkeypatch):
    # With the smallest buffers a step and its events fit in, every variant pauses and resumes several times
    # within an interval: its rows, events and steps are still its own serial run's.
    from simcore import compiled_run

    monkeypatch.setattr(compiled_run, "BATCH_ROW_BUFFER", 1)
    mass = np.array([0.8, 2.5, 3.7])
    kp = np.array([190.0, 60.0, 120.0])
    batch = simulate_batch(_arm(2.0, 0.3), 1.2, [_loop(50.0, 1.0)], params={"arm.mass": mass, "pid.kp": kp})
    for j in range(3):
        serial = simulate(_arm(float(mass[j]), 0.3), 1.2, [_loop(float(kp[j]), 1.0)], method="RK45")
        _assert_is_its_serial_run(batch[j], serial, ("arm.angle", "arm.velocity", "arm.voltage"))
