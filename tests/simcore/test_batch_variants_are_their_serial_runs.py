"""Each variant of a batch is its own serial run, to the bit (the property the one engine guarantees).

Random mechanisms (arms with mass, gains and static friction varied, stops hit; elevators; flywheels),
random batch sizes and positions, each sampled variant compared with its own
``simulate(..., method="RK45")`` of the model built with that variant's parameters: every row, every
signal at every tick, every event, every mode, the step count.
"""
from __future__ import annotations

import numpy as np
import pytest

import simcore
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


# -- loops ticking in the kernel ------------------------------------------------------------------------------
# A batch whose controllers are all control_loop(PIDController) loops with constant setpoints measuring a state
# ticks them inside the kernel, per variant (after each loop's first tick, in Python, which starts it). Each
# variant must still be its own serial run, ticks, tick log and the state right after each tick included.

def _count_python_ticks(monkeypatch):
    """Count the calls of the batched loops' Python tick (one per tick instant when the loops tick in Python)."""
    from simcore.controllers.batched import BatchedControlLoop

    calls = []
    tick = BatchedControlLoop.tick

    def counted(self, t, signals):
        calls.append(t)
        return tick(self, t, signals)

    monkeypatch.setattr(BatchedControlLoop, "tick", counted)
    return calls


def _kernel_loop(kp, ki, kd, setpoint, kg=None, period=0.01, name="pid"):
    from simcore.controllers import ArmFeedforward

    ff = None if kg is None else ArmFeedforward(0.0, kg, 0.0)
    return control_loop(PIDController(kp, ki, kd, period=period), measure="arm.angle", command="arm.voltage",
                        setpoint=setpoint, output_limits=(-12.0, 12.0), feedforward=ff, name=name)


def _assert_is_its_serial_run_with_ticks(batch, j, serial, names, loops):
    variant = batch[j]
    _assert_is_its_serial_run(variant, serial, names)
    for e, s in zip(variant.events, serial.events):
        assert np.array_equal(e.x_before, s.x_before) and np.array_equal(e.x_after, s.x_after)
        assert (e.mode_before, e.at_tick) == (s.mode_before, s.at_tick)
    assert variant.stats["n_ticks"] == serial.stats["n_ticks"]
    for loop in loops:
        assert np.array_equal(variant.ticks(loop), serial.ticks(loop))
        assert variant.tick_log(loop) == serial.tick_log(loop)
        # the state right after each tick (the last row at the tick), as the serial run samples it
        for name in names:
            assert np.array_equal(batch.at_ticks(name, loop)[j], serial.sample(name, serial.ticks(loop))), name
    for name in names:
        assert batch.final(name)[j] == serial[name][-1], name


@pytest.mark.parametrize("seed", range(5))
def test_loops_ticking_in_the_kernel_give_each_variant_its_serial_run(seed, monkeypatch):
    calls = _count_python_ticks(monkeypatch)
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(1, 10))
    mass = rng.uniform(0.5, 4.0, n)
    kp = rng.uniform(10.0, 200.0, n)
    ki = rng.uniform(0.0, 5.0, n)
    kd = rng.uniform(0.0, 3.0, n)
    setpoint = rng.uniform(0.8, 1.6, n)  # beyond the upper stop (1.2 rad) for some: they rest on it
    kg = rng.uniform(0.0, 1.0, n)
    static = float(rng.choice([0.0, 0.3]))
    record = str(rng.choice(["all", "ticks"]))
    batch = simulate_batch(_arm(2.0, static), 1.0, [_kernel_loop(50.0, 0.0, 1.0, 1.0, kg=0.5)],
                           params={"arm.mass": mass, "pid.kp": kp, "pid.ki": ki, "pid.kd": kd,
                                   "pid.setpoint": setpoint, "pid.kg": kg}, record=record)
    assert len(calls) == 1  # the first tick ran in Python (it starts the loop); the other 100 in the kernel
    for j in rng.permutation(n)[:3]:
        j = int(j)
        serial = simulate(_arm(float(mass[j]), static), 1.0,
                          [_kernel_loop(float(kp[j]), float(ki[j]), float(kd[j]), float(setpoint[j]),
                                        kg=float(kg[j]))], method="RK45", record=record)
        _assert_is_its_serial_run_with_ticks(batch, j, serial, ("arm.angle", "arm.velocity", "arm.voltage",
                                                                "arm.supply_current"), ["pid"])


def test_loops_with_a_function_setpoint_still_tick_in_python(monkeypatch):
    calls = _count_python_ticks(monkeypatch)
    simulate_batch(_arm(2.0, 0.3), 0.5, [_loop(50.0, 1.0)], params={"pid.kp": [40.0, 90.0]})
    assert len(calls) == 51  # every tick from 0 to 0.5 s at 100 Hz


def test_kernel_ticked_variants_are_the_same_on_any_number_of_threads_and_buffer_size(monkeypatch):
    from simcore import batch as batch_module, compiled_run

    mass = np.array([0.7, 1.9, 3.3, 2.2, 1.1, 2.9, 0.9])
    kp = np.array([40.0, 120.0, 80.0, 190.0, 15.0, 60.0, 150.0])

    def run():
        return simulate_batch(_arm(2.0, 0.3), 0.8, [_kernel_loop(50.0, 0.0, 1.0, 1.5)],
                              params={"arm.mass": mass, "pid.kp": kp})

    monkeypatch.setattr(compiled_run, "usable_cores", lambda: 1)
    alone = run()
    monkeypatch.setattr(compiled_run, "usable_cores", lambda: 2)
    monkeypatch.setattr(compiled_run, "CHUNK", 2)  # four chunks on two threads
    monkeypatch.setattr(compiled_run, "BATCH_ROW_BUFFER", 1)  # the smallest buffers: every variant pauses often
    monkeypatch.setattr(batch_module, "_GATHER_PIECE_VARIANTS", 1)  # the rows gathered in pieces on the threads too
    threaded = run()
    for j in (0, 3, 6):
        serial = simulate(_arm(float(mass[j]), 0.3), 0.8, [_kernel_loop(float(kp[j]), 0.0, 1.0, 1.5)],
                          method="RK45")
        for batch in (alone, threaded):
            _assert_is_its_serial_run_with_ticks(batch, j, serial, ("arm.angle", "arm.velocity", "arm.voltage"),
                                                 ["pid"])


def test_two_loops_at_their_own_rates_beside_a_battery_tick_in_the_kernel(monkeypatch):
    # Two mechanisms on one battery (its bus solved continuously): an arm at 100 Hz and an elevator at 50 Hz,
    # offset by 5 ms; the loops tick in the kernel, each variant its own serial run, the bus included.
    calls = _count_python_ticks(monkeypatch)

    def systems(mass=2.0, carriage=6.0, resistance=0.02):
        return [_arm(mass, 0.3), models.Elevator(NEO, 10.0, carriage_mass=carriage, drum_radius=0.02,
                                                 min_height=0.0, max_height=1.0, static_friction=2.0),
                models.Battery(resistance=resistance)]

    def loops(kp=50.0, lift_kp=80.0):
        return [_kernel_loop(kp, 0.0, 1.0, 1.1),
                control_loop(PIDController(lift_kp, 0.0, 2.0, period=0.02), measure="elevator.position",
                             command="elevator.voltage", setpoint=0.7, output_limits=(-12.0, 12.0), name="lift",
                             offset=0.005)]

    mass, carriage = np.array([1.0, 3.0, 2.0]), np.array([4.0, 9.0, 6.5])
    kp, lift_kp, resistance = np.array([60.0, 150.0, 30.0]), np.array([40.0, 250.0, 120.0]), np.array([0.01, 0.05, 0.03])
    batch = simulate_batch(systems(), 0.6, loops(), params={"arm.mass": mass, "elevator.carriage_mass": carriage,
                                                            "battery.resistance": resistance, "pid.kp": kp,
                                                            "lift.kp": lift_kp})
    assert len(calls) == 2  # each loop's first tick
    for j in range(3):
        serial = simulate(systems(float(mass[j]), float(carriage[j]), float(resistance[j])), 0.6,
                          loops(float(kp[j]), float(lift_kp[j])), method="RK45")
        _assert_is_its_serial_run_with_ticks(batch, j, serial, ("arm.angle", "elevator.position", "arm.voltage",
                                                                "elevator.voltage", "battery.voltage"),
                                             ["pid", "lift"])


def test_a_write_refused_in_the_kernel_raises_the_error_of_the_first_variant_to_meet_it(monkeypatch):
    # A loop on the arm's brake (accepted range [0, 1]) whose output goes negative once the arm moves faster than
    # its setpoint: each variant's serial run raises where that happens; the batch raises the first one's.
    def brake(kp, setpoint):
        return control_loop(PIDController(kp, 0.0, 0.0, period=0.01), measure="arm.velocity",
                            command="arm.brake", setpoint=setpoint, name="brake")

    setpoint = np.array([3.0, 1.5, 0.8, 1.5])
    kp = np.array([0.1, 0.2, 0.05, 0.1])
    errors = []
    for j in range(4):
        with pytest.raises(simcore.ConfigError) as serial:
            simulate(_arm(2.0, 0.0), 1.0, [_kernel_loop(50.0, 0.0, 1.0, 1.1), brake(float(kp[j]), float(setpoint[j]))],
                     method="RK45")
        errors.append(serial.value)
    times = [float(str(e).split("t=")[1].split(" s")[0]) for e in errors]
    first = min(range(4), key=lambda j: (times[j], j))
    calls = _count_python_ticks(monkeypatch)
    with pytest.raises(simcore.ConfigError) as batched:
        simulate_batch(_arm(2.0, 0.0), 1.0, [_kernel_loop(50.0, 0.0, 1.0, 1.1), brake(0.1, 1.0)],
                       params={"brake.setpoint": setpoint, "brake.kp": kp})
    assert f"variant {first}" in str(batched.value) and f"t={times[first]!r} s" in str(batched.value)
    assert len(calls) > 2  # the kernel's run stopped, and the Python ticks ran again to the error


def test_a_breakaway_a_kernel_tick_fires_is_seen_right_after_that_tick():
    # A flywheel held by static friction (0.12 N m: a NEO breaks it away at about 0.45 V) under a velocity loop
    # whose integral ramps the voltage up tick by tick: the write that crosses the breakaway fires the event at
    # the tick itself (stuck -> slipping), so the last row at that tick is after the event (accelerating).
    def flywheel():
        return models.Flywheel(NEO, 1.0, moi=0.004, static_friction=0.12)

    def spin(ki):
        return control_loop(PIDController(0.0, ki, 0.0, period=0.02), measure="flywheel.velocity",
                            command="flywheel.voltage", setpoint=100.0, name="spin")

    ki = np.array([0.03, 0.05, 0.08])
    batch = simulate_batch(flywheel(), 0.3, [spin(0.05)], params={"spin.ki": ki})
    for j in range(3):
        serial = simulate(flywheel(), 0.3, [spin(float(ki[j]))], method="RK45")
        assert any(e.at_tick for e in serial.events)  # the breakaway fired at a tick
        _assert_is_its_serial_run_with_ticks(batch, j, serial, ("flywheel.velocity", "flywheel.acceleration",
                                                                "flywheel.voltage"), ["spin"])
