"""sweep(..., batch=True): chunks of the grid as batches, on any executor, a Dask cluster included (issue 13)."""
import ast
import importlib.util
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, simulate, simulate_batch, sweep
from simcore import Q_
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO
from simcore.testing import step_info

T_END = 0.6


def parts(kp=40.0, kd=1.0):
    # Static friction and a reachable upper stop: events are located in most points, so the exact
    # equalities below also hold where a root's last bits could depend on the batch (review-13 D1).
    arm = models.Arm(NEO, 100.0, mass=4.0, com_distance=0.35, min_angle=-0.6, max_angle=1.05, static_friction=1.0)
    loop = control_loop(PIDController(kp, 0.0, kd, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def one_run(kp, kd):
    arm, loop = parts(kp, kd)
    return simulate(arm, T_END, [loop], method="RK45")


def batch_run(kp, kd):
    arm, loop = parts()
    return simulate_batch(arm, T_END, [loop], params={"pid.kp": kp, "pid.kd": kd})


def overshoot(result):
    return step_info(result, "arm.angle", 1.0).overshoot


def final_angle(result):
    return result.final("arm.angle")


METRICS = {"overshoot": overshoot, "final": final_angle}
GRID = {"kp": [20.0, 60.0, 120.0], "kd": [0.0, 1.5, 3.0]}


@pytest.fixture(scope="module")
def serial_tables():
    # sweep returns a SweepTable whatever is installed
    return (sweep(one_run, GRID, METRICS, executor="serial"),
            sweep(batch_run, GRID, METRICS, executor="serial", batch=True))


def test_batched_sweep_equals_the_plain_one(serial_tables):
    plain, batched = serial_tables
    assert batched.columns == plain.columns
    assert [(r["kp"], r["kd"]) for r in batched.rows] == [(r["kp"], r["kd"]) for r in plain.rows]
    for name in METRICS:
        np.testing.assert_allclose(batched[name], plain[name], rtol=1e-6, atol=1e-9)


def test_chunks_on_a_process_pool_give_the_same_table(serial_tables):
    _, batched = serial_tables
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = sweep(batch_run, GRID, METRICS, executor=pool, batch=True, chunk_size=4)
    assert pooled.rows == batched.rows  # bit-identical: a variant does not depend on its batch


def test_batched_sweep_errors_name_the_metric_and_the_chunk():
    with pytest.raises(ConfigError, match=r"metrics\['scalar'\]"):
        sweep(batch_run, GRID, {"scalar": lambda r: 1.0}, executor="serial", batch=True)
    with pytest.raises(ConfigError, match="chunk_size"):
        sweep(batch_run, GRID, METRICS, executor="serial", batch=True, chunk_size=0)


_ON_DASK = """
import ast, sys
sys.path.insert(0, {folder!r})
import distributed
import simcore.sweeping as sweep_mod
import test_sweep_batch as t
with distributed.LocalCluster(n_workers=2, threads_per_worker={threads}, processes=True, dashboard_address=None,
                              silence_logs=40) as cluster, distributed.Client(cluster) as client:
    executor = client.get_executor()
    plain = sweep_mod.sweep(t.one_run, t.GRID, t.METRICS, executor=executor, progress=False)
    batched = sweep_mod.sweep(t.batch_run, t.GRID, t.METRICS, executor=executor, batch=True, chunk_size=3,
                              progress=False)
print(repr([plain.rows, batched.rows]))
"""


@pytest.mark.parametrize("threads", [1, 2], ids=["a thread per worker", "threaded workers"])
def test_dask_local_cluster_gives_the_serial_tables(serial_tables, threads):
    # In a child process: importing distributed changes how exceptions pickle in the process that
    # imports it (tblib), which the other sweep tests must not see; and the cluster dies with it.
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("distributed is not installed (pip install simcore[dask])")
    plain, batched = serial_tables
    code = _ON_DASK.format(folder=str(Path(__file__).resolve().parent), threads=threads)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    on_dask, on_dask_batched = ast.literal_eval(run.stdout.strip().splitlines()[-1])
    assert on_dask == plain.rows
    assert on_dask_batched == batched.rows


def test_batches_run_at_once_on_several_python_threads_give_their_results_alone(serial_tables):
    # The kernel runs a batch's chunks of variants on threads of its own, the GIL released; batches started
    # from several Python threads at once (a threaded Dask worker, an op-mode thread) neither abort nor
    # change a bit of each other's results.
    from concurrent.futures import ThreadPoolExecutor

    _, batched = serial_tables
    with ThreadPoolExecutor(max_workers=3) as pool:
        tables = list(pool.map(lambda chunk: sweep(batch_run, GRID, METRICS, executor="serial", batch=True,
                                                   chunk_size=chunk, progress=False), [2, 3, 5, 2]))
    for table in tables:
        assert table.rows == batched.rows
    # Batches large enough for the kernel to spread their variants over its own threads, two at once.
    rng = np.random.default_rng(7)
    kp, kd = rng.uniform(20.0, 120.0, 700), rng.uniform(0.0, 3.0, 700)
    alone = batch_run(kp, kd).at_ticks("arm.angle", "pid")
    with ThreadPoolExecutor(max_workers=2) as pool:
        both = list(pool.map(lambda _: batch_run(kp, kd).at_ticks("arm.angle", "pid"), range(2)))
    for angles in both:
        assert np.array_equal(angles, alone)


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("make_value", [
    lambda n: Q_(np.full(n, 162.5), "mrad*s") if n else Q_(162.5, "mrad*s"),  # the unit was dropped in a batch
    lambda n: Q_(np.full(n, 5.0), "percent") if n else Q_(5.0, "percent"),  # float() made it 0.05
    lambda n: [Q_(1.0, "m")] * n if n else Q_(1.0, "m"),
    lambda n: ["1.5"] * n if n else "1.5",  # float("1.5") read text as a number
    lambda n: [np.array(["1.5"])] * n if n else np.array(["1.5"]),
    lambda n: __import__("pandas").Series(["1.5"] * n) if n else __import__("pandas").Series(["1.5"]),
])
def test_a_metric_returning_a_quantity_or_text_is_refused_naming_it(batch, make_value):
    from simcore.errors import ConfigTypeError

    def make(b):
        arm = models.Arm(NEO, 100.0, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)
        if batch:
            return simulate_batch(arm, 0.0, params={"arm.mass": np.full(len(b), 2.0)})
        return simulate(arm, 0.0)

    metric = (lambda r: make_value(r.n)) if batch else (lambda r: make_value(0))
    with pytest.raises(ConfigTypeError) as ei:
        sweep(make, {"b": [1.0, 2.0]}, {"iae": metric}, executor="serial", batch=batch)
    assert ei.value.parameter == "metrics['iae']"


def _height_batch(setpoint):
    elevator = models.Elevator(NEO, 10.0, carriage_mass=5.0, drum_radius=0.03, min_height=0.0, max_height=1.5)
    loop = control_loop(PIDController(40.0, 0.0, 2.0), measure="elevator.position", command="elevator.voltage",
                        setpoint=0.0, name="height")
    return simulate_batch(elevator, 0.3, [loop], params={"height.setpoint": setpoint})


def test_a_batched_sweep_passes_a_grid_of_quantities_as_quantities():
    # numpy stacked [Q_(1, "ft"), Q_(2, "ft")] by dimensionless magnitudes: degrees became whole radians
    got = sweep(_height_batch, {"setpoint": [Q_(1, "ft"), Q_(50, "cm")]},
                {"final": lambda b: b.final("elevator.position")}, executor="serial", batch=True)
    ref = sweep(_height_batch, {"setpoint": [0.3048, 0.5]}, {"final": lambda b: b.final("elevator.position")},
                executor="serial", batch=True)
    np.testing.assert_allclose(got["final"], ref["final"], rtol=1e-12)
    with pytest.raises(ConfigError):  # degrees on a height, refused as simulate refuses them
        sweep(_height_batch, {"setpoint": [Q_(30, "deg"), Q_(60, "deg")]},
              {"final": lambda b: b.final("elevator.position")}, executor="serial", batch=True)


def test_batches_share_one_thread_per_core_however_they_end():
    # The kernel spreads a large batch over threads shared by all batches, one per usable core: failing batches
    # leave no more threads behind than that.
    import threading
    import time

    from simcore.batch import elementwise
    from simcore.controller import PeriodicController

    def failing(t, s):
        if t >= 0.05:
            raise RuntimeError("robot code failed")
        return {"arm.voltage": np.zeros(len(s["arm.angle"]))}

    before = threading.active_count()
    arm, _ = parts()
    for _ in range(3):
        with pytest.raises(RuntimeError, match="robot code failed"):
            simulate_batch(arm, 0.2, [elementwise(PeriodicController(0.02, failing, name="failing"))],
                           params={"arm.mass": np.linspace(3.0, 5.0, 600)})
    from simcore.compiled_run import usable_cores

    deadline = time.monotonic() + 5.0
    while threading.active_count() > before + usable_cores() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before + usable_cores()
    assert sum(t.name.startswith("simcore-kernel") for t in threading.enumerate()) <= usable_cores()
