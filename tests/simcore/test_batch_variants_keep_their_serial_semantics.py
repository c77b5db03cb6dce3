"""A batch variant keeps its serial run's semantics: events in any company, at-tick samples, units, bus, rod inertia, errors.

Expected values come from the serial engine (``simulate(..., method="RK45")`` on a model built
with the variant's parameters) or from the batch itself run in another company (a variant must
not depend on the variants beside it); never from the code under test's own arithmetic.
"""
from concurrent.futures import Executor

import numpy as np
import pytest

import simcore.models as models
from simcore import simulate, simulate_batch, sweep
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO, VEX_775PRO
from simcore.testing import step_info


def friction_arm(mass=6.0, gearing=200.0, kp=40.0, kd=2.0):
    # Static friction: velocity_zero and breakaway events in every variant that moves and settles.
    arm = models.Arm(VEX_775PRO, gearing, mass=mass, com_distance=0.381, moi=1.16, min_angle=-0.3,
                     max_angle=1.3, n_motors=2, static_friction=2.0)
    loop = control_loop(PIDController(kp, 0.0, kd, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.2, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def _signals(batch):
    return np.concatenate([batch.at_ticks(s, "pid") for s in ("arm.angle", "arm.velocity", "arm.stator_current")],
                          axis=1)


def test_d1_a_variant_with_events_does_not_depend_on_the_batch_it_shares():
    rng = np.random.default_rng(1)
    n = 300
    p = {"arm.mass": rng.uniform(2, 10, n), "arm.gearing": rng.uniform(120, 260, n),
         "pid.kp": rng.uniform(10, 120, n), "pid.kd": rng.uniform(0, 6, n)}
    arm, loop = friction_arm()
    whole = simulate_batch(arm, 0.5, [loop], params=p)
    assert sum(len(whole[k].events) for k in range(n)) > n  # events are located in this batch
    ref = _signals(whole)
    for idx in (np.arange(3, 5), np.arange(0, 10), rng.permutation(n)[:40]):
        part = simulate_batch(arm, 0.5, [loop], params={k: v[idx] for k, v in p.items()})
        np.testing.assert_array_equal(_signals(part), ref[idx])
        for j, k in enumerate(idx[:5]):
            assert [e.t for e in part[j].events] == [e.t for e in whole[int(k)].events]


def sweep_arm(kp, kd):
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.05, static_friction=1.0)
    loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return simulate_batch(arm, 0.6, [loop], params={"pid.kp": kp, "pid.kd": kd})


SWEEP_METRICS = {"iae": lambda r: step_info(r, "arm.angle", 1.0).iae, "final_v": lambda r: r.final("arm.velocity")}
SWEEP_GRID = {"kp": [20.0, 60.0, 120.0, 200.0], "kd": [0.0, 1.5, 3.0]}


def test_d1_a_sweep_table_with_events_does_not_depend_on_the_chunk_size():
    whole = sweep(sweep_arm, SWEEP_GRID, SWEEP_METRICS, executor="serial", batch=True, chunk_size=12)
    ones = sweep(sweep_arm, SWEEP_GRID, SWEEP_METRICS, executor="serial", batch=True, chunk_size=1)
    fives = sweep(sweep_arm, SWEEP_GRID, SWEEP_METRICS, executor="serial", batch=True, chunk_size=5)
    assert ones.rows == whole.rows
    assert fives.rows == whole.rows


def _open_loop():
    from simcore import PeriodicController
    from simcore.batch import elementwise

    # +6 V until the 0.1 s tick, then -6 V (element-wise: the batch runs it on (N,) arrays)
    return elementwise(PeriodicController(
        0.02, lambda t, s: {"elevator.voltage": (6.0 if t < 0.1 - 1e-12 else -6.0) + 0.0 * s["elevator.position"]},
        name="ol"))


def _free_elevator(carriage_mass, top):
    return models.Elevator(NEO, 10.0, carriage_mass=carriage_mass, drum_radius=0.03, min_height=0.0,
                           max_height=top, gravity=False)


def test_d3_at_ticks_after_an_event_at_the_tick_instant_equals_the_serial_sample():
    # The upper stop sits where the free elevator is at the 0.1 s tick: variants a hair heavier or
    # lighter hit it just before, at, or just after the tick instant.
    free = simulate(_free_elevator(5.0, 10.0), 0.2, [_open_loop()], method="RK45")
    top = float(free.sample("elevator.position", [0.1])[0])
    masses = 5.0 * (1 + np.array([0.0, 1e-13, -1e-13, 1e-11, -1e-11, 1e-9, -1e-9, 1e-6, -1e-6]))
    batch = simulate_batch(_free_elevator(5.0, top), 0.2, [_open_loop()], params={"elevator.carriage_mass": masses})
    serial = [simulate(_free_elevator(m, top), 0.2, [_open_loop()], method="RK45") for m in masses]
    ticks = serial[0].ticks("ol")
    at_tick_instant = 0
    for k, r in enumerate(serial):
        at_tick_instant += any(e.t == 0.1 and not e.at_tick for e in r.events)
    assert at_tick_instant >= 1  # the case of the review: an event the next interval locates at the tick
    for name in ("elevator.position", "elevator.velocity", "elevator.stator_current", "elevator.acceleration"):
        got = batch.at_ticks(name, "ol")
        ref = np.stack([r.sample(name, ticks) for r in serial])
        own = np.stack([batch[k].sample(name, ticks) for k in range(len(masses))])
        np.testing.assert_array_equal(got, own)
        scale = np.maximum(np.abs(ref), 1e-3 * np.max(np.abs(ref)))
        assert np.max(np.abs(got - ref) / scale) <= 1e-7, name


def _pint_arm(mass=4.0):
    return models.Arm(NEO, 100.0, mass=mass, com_distance=0.35, min_angle=-0.6, max_angle=1.9, moi=0.5)


def _pint_loop(setpoint=0.8):
    return control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=setpoint, name="pid")


def test_d2_quantities_in_params_x0_and_inputs_convert_as_simulate_does():
    from simcore import ConfigError, Q_

    batch = simulate_batch(_pint_arm(), 0.2, [_pint_loop()],
                           params={"arm.mass": Q_([4000.0, 8000.0], "g"), "pid.setpoint": Q_([10.0, 20.0], "deg")},
                           x0={"arm.angle": Q_([5.0, -5.0], "deg")})
    for k, (grams, deg, start) in enumerate(((4000.0, 10.0, 5.0), (8000.0, 20.0, -5.0))):
        serial = simulate(_pint_arm(Q_(grams, "g")), 0.2, [_pint_loop(Q_(deg, "deg"))], method="RK45",
                          x0={"arm.angle": Q_(start, "deg")})
        np.testing.assert_allclose(batch[k]["arm.angle"][0], np.deg2rad(start), rtol=1e-15)
        np.testing.assert_allclose(batch.final("arm.angle")[k], serial.final("arm.angle"), rtol=1e-9)
        np.testing.assert_allclose(batch.final("arm.voltage")[k], serial.final("arm.voltage"), rtol=1e-9)
    # an input given as a Quantity (no controller writes it here)
    held = simulate_batch(_pint_arm(), 0.05, params={"arm.mass": [4.0, 5.0]}, inputs={"arm.voltage": Q_(6000.0, "mV")})
    np.testing.assert_array_equal(held.final("arm.voltage"), [6.0, 6.0])
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]"):
        simulate_batch(_pint_arm(), 0.1, [_pint_loop()], params={"arm.mass": Q_([1.0, 2.0], "m")})
    with pytest.raises(ConfigError, match=r"x0\['arm.angle'\]"):
        simulate_batch(_pint_arm(), 0.1, [_pint_loop()], params={"arm.mass": [4.0, 5.0]},
                       x0={"arm.angle": Q_([1.0, 2.0], "m")})


def _heavy_elevator(carriage_mass=6.0, gearing=10.0, resistance=0.3, kp=60.0, kd=2.0, setpoint=1.0, voc=12.0, kg=0.3):
    from simcore.controllers import ElevatorFeedforward

    # Two NEOs with current limits on a sagging battery: the bus solve takes its bracketing fallback.
    elevator = models.Elevator(NEO, gearing, carriage_mass=carriage_mass, drum_radius=0.05, min_height=0.0,
                               max_height=1.2, static_friction=40.0, viscous_friction=0.5, stator_current_limit=40,
                               supply_current_limit=30, n_motors=2, neutral_mode="coast", start_height=0.5)
    battery = models.Battery(resistance=resistance, open_circuit_voltage=voc)
    loop = control_loop(PIDController(kp, 0.0, kd, period=0.02), measure="elevator.position",
                        command="elevator.voltage", setpoint=setpoint, output_limits=(-12.0, 12.0),
                        feedforward=ElevatorFeedforward(0.0, kg, 0.0), name="pid")
    return [elevator, battery], loop


def _rod_arm(mass=4.0, com_distance=0.35):
    return models.Arm(NEO, 100.0, mass=mass, com_distance=com_distance, min_angle=-0.6, max_angle=1.9)  # no moi


def test_d5_varying_the_mass_of_an_arm_built_without_moi_recomputes_its_rod_inertia():
    masses, coms = np.array([1.0, 4.0, 7.5]), np.array([0.2, 0.35, 0.5])
    loop = lambda: control_loop(PIDController(30.0, 0.0, 1.0, period=0.02), measure="arm.angle",  # noqa: E731
                                command="arm.voltage", setpoint=0.8, output_limits=(-12.0, 12.0), name="pid")
    batch = simulate_batch(_rod_arm(), 0.4, [loop()], params={"arm.mass": masses, "arm.com_distance": coms})
    only_mass = simulate_batch(_rod_arm(), 0.4, [loop()], params={"arm.mass": masses})
    for k in range(3):
        for got, arm in ((batch, _rod_arm(masses[k], coms[k])), (only_mass, _rod_arm(masses[k]))):
            serial = simulate(arm, 0.4, [loop()], method="RK45")
            ticks = serial.ticks("pid")
            for name in ("arm.angle", "arm.stator_current"):
                ref = serial.sample(name, ticks)
                np.testing.assert_allclose(got.at_ticks(name, "pid")[k], ref, rtol=1e-7,
                                           atol=1e-7 * np.max(np.abs(ref)))
    # an explicit moi stays the user's: varying the mass does not touch it
    fixed = simulate_batch(models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, moi=0.6, min_angle=-0.6,
                                      max_angle=1.9), 0.4, [loop()], params={"arm.mass": masses})
    serial = simulate(models.Arm(NEO, 100.0, mass=masses[0], com_distance=0.35, moi=0.6, min_angle=-0.6,
                                 max_angle=1.9), 0.4, [loop()], method="RK45")
    np.testing.assert_allclose(fixed.final("arm.angle")[0], serial.final("arm.angle"), rtol=1e-7)


def test_w3_w4_a_batch_iterates_like_a_sequence_and_its_step_info_summarises():
    arm, loop = _pint_arm(), _pint_loop()
    batch = simulate_batch(arm, 0.1, [loop], params={"pid.kp": [10.0, 20.0, 30.0]})
    results = list(batch)
    assert len(results) == 3
    assert [r.final("arm.angle") for r in results] == batch.final("arm.angle").tolist()
    with pytest.raises(IndexError, match="variant=3"):
        batch[3]
    with pytest.raises(TypeError, match="variant"):
        batch[1.0]
    info = step_info(batch, "arm.angle", 0.8)
    lines = info.summary().splitlines()
    assert len(lines) == 3
    for k, line in enumerate(lines):  # each line is the serial summary of that variant's own Result
        assert line == f"[{k}] " + step_info(batch[k], "arm.angle", 0.8).summary()


def test_w5_bad_params_name_the_key_the_variant_and_the_value():
    from simcore import ConfigError
    from simcore.controllers import ArmFeedforward, ElevatorFeedforward

    arm = _pint_arm()
    with pytest.raises(ConfigError, match=r"params\['pid.kp'\]\[2\]=-1.0.*variant 2"):
        simulate_batch(arm, 0.1, [_pint_loop()], params={"pid.kp": [1.0, 2.0, -1.0]})
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]=4.0"):
        simulate_batch(arm, 0.1, [_pint_loop()], params={"arm.mass": 4.0})
    with pytest.raises(TypeError, match=r"params\['pid.kp'\].*not True/False"):
        simulate_batch(arm, 0.1, [_pint_loop()], params={"pid.kp": [True, False]})
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]\[1\]=-2.0"):
        simulate_batch(arm, 0.1, [_pint_loop()], params={"arm.mass": [1.0, -2.0]})
    arm_ff = control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                          setpoint=0.8, feedforward=ArmFeedforward(0.0, 0.3, 0.0), name="pid")
    for gain in ("ks", "kv", "ka"):  # no effect at the setpoint at rest: refused rather than silently inert
        with pytest.raises(ConfigError, match=rf"params\['pid.{gain}'\].*only kg act"):
            simulate_batch(arm, 0.1, [arm_ff], params={f"pid.{gain}": [0.0, 1.0]})
    elevator = models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.03, min_height=0.0, max_height=1.0)
    elev_ff = control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="elevator.position",
                           command="elevator.voltage", setpoint=0.5, feedforward=ElevatorFeedforward(0.0, 0.3, 0.0),
                           name="pid")
    with pytest.raises(ConfigError, match=r"params\['pid.kv'\]"):
        simulate_batch(elevator, 0.1, [elev_ff], params={"pid.kv": [0.0, 50.0]})
    # kg does act: the batch gives each variant the serial run with that kg
    batch = simulate_batch(arm, 0.1, [arm_ff], params={"pid.kg": [0.0, 0.6]})
    for k, kg in enumerate((0.0, 0.6)):
        loop = control_loop(PIDController(20.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                            setpoint=0.8, feedforward=ArmFeedforward(0.0, kg, 0.0), name="pid")
        serial = simulate(_pint_arm(), 0.1, [loop], method="RK45")
        np.testing.assert_allclose(batch.final("arm.voltage")[k], serial.final("arm.voltage"), rtol=1e-9)


class _ClusterClient:
    """Stands in for a distributed.Client: its executor's cluster has 3 workers of 2 threads."""

    def nthreads(self):
        return {"tcp://a": 2, "tcp://b": 2, "tcp://c": 2}


class _InlineClusterExecutor(Executor):
    """An executor without _max_workers (as distributed's ClientExecutor), running tasks on one thread."""

    def __init__(self):
        from concurrent.futures import ThreadPoolExecutor

        self._client = _ClusterClient()
        self._pool = ThreadPoolExecutor(max_workers=1)
        self.tasks = 0

    def submit(self, fn, *args, **kwargs):
        self.tasks += 1
        return self._pool.submit(fn, *args, **kwargs)



def _tiny_batch(kp):
    return simulate_batch(_pint_arm(), 0.04, [_pint_loop()], params={"pid.kp": kp})


def test_w2_default_chunks_follow_a_dask_clusters_thread_count():
    executor = _InlineClusterExecutor()
    grid = {"kp": [float(k) for k in range(1, 13)]}
    table = sweep(_tiny_batch, grid, {"final": lambda r: r.final("arm.angle")}, executor=executor, batch=True,
                  progress=False)
    assert executor.tasks == 6  # 12 points over the cluster's 6 threads, not this machine's cpu count
    assert table.rows == sweep(_tiny_batch, grid, {"final": lambda r: r.final("arm.angle")}, executor="serial",
                               batch=True, progress=False).rows
    executor._pool.shutdown()


def test_a_lossy_gearbox_with_the_motors_own_friction_batches_as_its_serial_run():
    # The motors' own (free-current) friction acts on the rotors, before a lossy gearbox, in the
    # serial model; the batched kernel must put it in the same place (it once put it after the
    # gearbox: 2e-3 relative off at efficiency 0.8). Gearing varies, so the friction follows it.
    def parts(moi=0.01, gearing=2.0):
        fw = models.Flywheel(motor=NEO, gearing=gearing, moi=moi, efficiency=0.8, name="fw")
        loop = control_loop(PIDController(0.05, 0, 0, period=0.01), measure="fw.velocity", command="fw.voltage",
                            setpoint=300.0, name="pid")
        return fw, loop

    mois, gears = np.array([0.01, 0.02, 0.005]), np.array([2.0, 3.0, 1.5])
    fw0, loop0 = parts()
    batch = simulate_batch([fw0], 1.0, [loop0], params={"fw.moi": mois, "fw.gearing": gears})
    t = batch.tick_times("pid")
    for k in range(len(mois)):
        fw, loop = parts(mois[k], gears[k])
        serial = simulate([fw], 1.0, [loop], method="RK45")
        for s in ("fw.velocity", "fw.stator_current", "fw.torque"):
            want = np.array([serial.sample(s, tt) for tt in t]).ravel()
            np.testing.assert_allclose(batch.at_ticks(s, "pid")[k], want, rtol=1e-7, atol=1e-12)


def test_d4_limited_elevators_on_a_sagging_battery_equal_their_own_serial_runs():
    # In the regime where round-off is amplified (current limits, a sagging bus solved numerically): each
    # variant is its own serial run, to the bit (the batch runs the serial run's kernel).
    n, t_end = 30, 0.3
    rng = np.random.default_rng(7)
    draws = dict(carriage_mass=(1, 12), gearing=(5, 30), resistance=(0.0, 0.5), kp=(0, 200), kd=(0, 4),
                 setpoint=(0, 1.4), kg=(0, 1), voc=(11, 13))
    p = {key: rng.uniform(lo, hi, 60)[:n] for key, (lo, hi) in draws.items()}  # the first 30 of 60 draws
    systems, loop = _heavy_elevator()
    batch = simulate_batch(systems, t_end, [loop], params={
        "elevator.carriage_mass": p["carriage_mass"], "elevator.gearing": p["gearing"],
        "battery.resistance": p["resistance"], "battery.open_circuit_voltage": p["voc"], "pid.kp": p["kp"],
        "pid.kd": p["kd"], "pid.setpoint": p["setpoint"], "pid.kg": p["kg"]})
    serial = []
    for k in range(n):
        s, lp = _heavy_elevator(**{key: v[k] for key, v in p.items()})
        serial.append(simulate(s, t_end, [lp], method="RK45"))
    ticks = serial[0].ticks("pid")
    for name in ("elevator.position", "elevator.velocity", "elevator.acceleration", "elevator.stator_current",
                 "elevator.supply_current", "battery.voltage"):
        got = batch.at_ticks(name, "pid")
        ref = np.stack([r.sample(name, ticks) for r in serial])
        assert np.array_equal(got, ref), name
    assert [batch[k].stats["n_steps"] for k in range(n)] == [r.stats["n_steps"] for r in serial]
    for k, r in enumerate(serial):
        mine = batch[k].events
        assert [(e.name, e.mode_after) for e in mine] == [(e.name, e.mode_after) for e in r.events], k
        assert [a.t for a in mine] == [b.t for b in r.events], k
    assert np.min(batch.at_ticks("battery.voltage", "pid")) < 9.0  # the bus does sag: the regime meant


def test_a_controller_that_reuses_its_output_array_holds_what_it_wrote():
    # Review of batch3 finding 1: the batch kept a reference to the controller's array, so a controller
    # that writes one buffer on some ticks and changes it on others had later values leak into the held
    # input (and, with the cached view, only when a mode change rebuilt it).
    from simcore import PeriodicController
    from simcore.batch import elementwise

    n = 3
    buf = np.zeros(n)

    def reused(t, s):
        buf[:] = 8.0 * np.sin(7.0 * t + np.arange(n))
        return {"arm.voltage": buf} if int(round(t / 0.02)) // 5 % 2 == 0 else {}

    def fresh(t, s):
        v = 8.0 * np.sin(7.0 * t + np.arange(n))
        return {"arm.voltage": v} if int(round(t / 0.02)) // 5 % 2 == 0 else {}

    def arm(mass=4.0):
        return models.Arm(NEO, 100.0, mass=mass, com_distance=0.35, min_angle=-0.6, max_angle=1.05)

    runs = [simulate_batch(arm(), 1.0, [elementwise(PeriodicController(0.02, f, name="c"))],
                           params={"arm.mass": [3.0, 4.0, 5.0]}) for f in (reused, fresh)]
    np.testing.assert_array_equal(runs[0].at_ticks("arm.voltage", "c"), runs[1].at_ticks("arm.voltage", "c"))
    np.testing.assert_array_equal(runs[0].final("arm.angle"), runs[1].final("arm.angle"))

    def serial(t, s):
        return {"arm.voltage": 8.0 * np.sin(7.0 * t)} if int(round(t / 0.02)) // 5 % 2 == 0 else {}

    r = simulate(arm(3.0), 1.0, [PeriodicController(0.02, serial, name="c")], method="RK45")
    assert runs[0].final("arm.angle")[0] == pytest.approx(r.final("arm.angle"), rel=1e-7)
