"""sweep delivers the warnings of its points in the calling process, whatever runs them.

The stiff system is test_batch_stiffness's flywheel: at viscous friction b = 30 or 40 N m s/rad its
velocity's time constant is far shorter than the step the tolerance allows, so its own
``simulate(..., method="RK45")`` warns (StiffnessWarning); at b = 0.01 or 0.5 it does not. What each
point's own run says is found here by running it in this process, and the sweep's warning must
say the same, followed by the point.
"""
import ast
import importlib.util
import re
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from simcore import ConfigError, StiffnessWarning, simulate, simulate_batch, sweep
from simcore.result import Result
from test_batch_stiffness import T_END, _parts

# -- top-level (picklable) simulations and metrics --------------------------------------------


def stiff_run(b):
    """One flywheel of viscous friction ``b`` under its velocity loop, by RK45 (warns when stiff)."""
    fw, loop = _parts(b)
    return simulate(fw, T_END, [loop], method="RK45")


def stiff_batch(b):
    """The chunk's flywheels in one simulate_batch (one StiffnessWarning naming its stiff variants)."""
    fw, loop = _parts()
    return simulate_batch(fw, T_END, [loop], params={"flywheel.viscous_friction": b})


def stiff_batch_and_a_note(b):
    """stiff_batch, and a warning of the whole chunk."""
    warnings.warn("a note from make_result", UserWarning)
    return stiff_batch(b)


def final_velocity(result):
    return result.final("flywheel.velocity")


def says(i, delay=0.0, repeat=1):
    """A constant result; warns ``repeat`` times "point <i> says hello (k of repeat)", ``delay`` s apart."""
    for k in range(repeat):
        time.sleep(delay)
        warnings.warn(f"point {i} says hello" + (f" ({k + 1} of {repeat})" if repeat > 1 else ""), UserWarning)
    return Result.from_arrays([0.0, 1.0], {"x": [float(i), float(i)]})


def over_limit(kp):
    """Warns the same text at every kp above 2 (a duplicate across points)."""
    if kp > 2:
        warnings.warn("gain above the motor's limit", RuntimeWarning)
    return Result.from_arrays([0.0, 1.0], {"x": [kp, kp]})


def local_category(i):
    """Warns in a category defined here, in a function: a class that does not pickle."""
    class LocalWarning(UserWarning):
        pass

    warnings.warn(f"local {i}", LocalWarning)
    return Result.from_arrays([0.0, 1.0], {"x": [float(i), float(i)]})


def warn_then_fail(i):
    if i == 1:
        raise ConfigError("i", i, "a point other than 1")
    warnings.warn(f"point {i} warned", UserWarning)
    return Result.from_arrays([0.0, 1.0], {"x": [float(i), float(i)]})


def final_x(result):
    return result.final("x")


STIFF = {"velocity": final_velocity}
GRID = {"b": [0.01, 30.0, 0.5, 40.0]}


def caught_by(fn, *args, **kwargs):
    """Every warning ``fn(*args, **kwargs)`` issues in this process: (category, text, filename, lineno)."""
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        fn(*args, **kwargs)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in log]


@pytest.fixture(params=["serial", "threads", "processes"])
def executor(request):
    if request.param == "serial":
        yield "serial"
        return
    pool = ThreadPoolExecutor(max_workers=4) if request.param == "threads" else ProcessPoolExecutor(max_workers=2)
    with pool:
        yield pool


# -- tests ------------------------------------------------------------------------------------


def test_a_stiff_points_own_warning_reaches_the_caller_naming_the_point(executor):
    expected = []
    for i, b in enumerate(GRID["b"]):
        for category, text, filename, lineno in caught_by(stiff_run, b):  # the point's own run, here
            expected.append((category, f"{text} [sweep point {i} (b={b!r})]", filename, lineno))
    assert [c for c, *_ in expected] == [StiffnessWarning, StiffnessWarning]  # b = 30 and 40 only
    said = caught_by(sweep, stiff_run, GRID, STIFF, executor=executor, progress=False)
    assert said == expected


def test_the_filters_of_the_calling_process_act_on_them():
    with ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.warns(StiffnessWarning) as record:
            sweep(stiff_run, GRID, STIFF, executor=pool, progress=False)
        assert [str(w.message).rsplit(" [", 1)[1] for w in record] == ["sweep point 1 (b=30.0)]",
                                                                       "sweep point 3 (b=40.0)]"]
        with warnings.catch_warnings():
            warnings.simplefilter("error", StiffnessWarning)
            with pytest.raises(StiffnessWarning, match=r"^at t=.* \[sweep point 1 \(b=30\.0\)\]$"):
                sweep(stiff_run, GRID, STIFF, executor=pool, progress=False)


def test_a_grid_of_non_stiff_points_gives_no_warning(executor):
    said = caught_by(sweep, stiff_run, {"b": [0.01, 0.5]}, STIFF, executor=executor, progress=False)
    assert said == []


def test_warnings_come_in_grid_order_whichever_point_finishes_first(executor):
    # the later points sleep less, so that on a pool they tend to finish first
    points = [{"i": i, "delay": 0.02 * (5 - i)} for i in range(6)]
    said = caught_by(sweep, says, points, {"x": final_x}, executor=executor, progress=False)
    assert [text for _, text, _, _ in said] == [
        f"point {i} says hello [sweep point {i} (i={i}, delay={0.02 * (5 - i)!r})]" for i in range(6)]
    assert {c for c, *_ in said} == {UserWarning}


def test_points_running_at_once_on_threads_keep_their_own_warnings():
    # four points at a time, each warning three times while the others do: every warning must be
    # named after the point whose thread issued it, none lost
    before = (list(warnings.filters), warnings.showwarning)
    points = [{"i": i, "delay": 0.01, "repeat": 3} for i in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        said = caught_by(sweep, says, points, {"x": final_x}, executor=pool, progress=False)
    assert [text for _, text, _, _ in said] == [
        f"point {i} says hello ({k} of 3) [sweep point {i} (i={i}, delay=0.01, repeat=3)]"
        for i in range(8) for k in (1, 2, 3)]
    assert (list(warnings.filters), warnings.showwarning) == before  # the recorder is gone


def test_a_warning_issued_at_several_points_is_issued_once_naming_them(executor):
    said = caught_by(sweep, over_limit, {"kp": [1.0, 2.0, 3.0, 4.0]}, {"x": final_x}, executor=executor,
                     progress=False)
    assert [(c, text) for c, text, _, _ in said] == [
        (RuntimeWarning, "gain above the motor's limit [sweep points 2 (kp=3.0), 3 (kp=4.0)]")]
    many = caught_by(sweep, over_limit, {"kp": [float(k) for k in range(3, 29)]}, {"x": final_x},
                     executor=executor, progress=False)
    assert len(many) == 1
    named = ", ".join(f"{i} (kp={float(i + 3)!r})" for i in range(20))
    assert many[0][1] == f"gain above the motor's limit [sweep points {named} and 6 more (20-25)]"


def test_a_category_that_does_not_pickle_comes_back_as_a_user_warning(executor):
    said = caught_by(sweep, local_category, {"i": [0, 1]}, {"x": final_x}, executor=executor, progress=False)
    if executor == "serial" or isinstance(executor, ThreadPoolExecutor):  # no process boundary: kept
        assert [(c.__name__, text) for c, text, _, _ in said] == [
            ("LocalWarning", "local 0 [sweep point 0 (i=0)]"), ("LocalWarning", "local 1 [sweep point 1 (i=1)]")]
        return
    name = f"{__name__}.local_category.<locals>.LocalWarning"
    assert [(c, text) for c, text, _, _ in said] == [
        (UserWarning, f"{name} (a warning category that does not pickle, re-issued as UserWarning): local {i} "
                      f"[sweep point {i} (i={i})]") for i in (0, 1)]


def test_a_sweep_that_raises_issues_no_warning():
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        with pytest.raises(ConfigError, match="a point other than 1"):
            sweep(warn_then_fail, {"i": [0, 1, 2]}, {"x": final_x}, executor="serial", progress=False)
    assert log == []


# -- batches ------------------------------------------------------------------------------------

BATCH_GRID = {"b": [0.01, 1.0, 1.1, 1.2, 1.25, 1.3, 1.4, 1.5, 2.0, 30.0, 0.5, 40.0]}


def serial_stiff_points():
    """The points whose own simulate(method="RK45") warns, and the time each says."""
    out = {}
    for i, b in enumerate(BATCH_GRID["b"]):
        for category, text, _, _ in caught_by(stiff_run, b):
            if category is StiffnessWarning:
                out[i] = float(re.match(r"at t=(\S+) s", text).group(1))
    return out


def test_a_batched_sweep_names_the_stiff_grid_points_whatever_the_chunks():
    runs = {}
    for chunk_size in (1, 5, 12):
        runs[chunk_size] = caught_by(sweep, stiff_batch, BATCH_GRID, STIFF, executor="serial", batch=True,
                                     chunk_size=chunk_size, progress=False)
    with ProcessPoolExecutor(max_workers=2) as pool:
        runs["processes"] = caught_by(sweep, stiff_batch, BATCH_GRID, STIFF, executor=pool, batch=True,
                                      chunk_size=5, progress=False)
    assert runs[1] == runs[12] == runs[5] == runs["processes"]
    said = runs[12]
    assert len(said) == 1 and said[0][0] is StiffnessWarning
    text = said[0][1]
    assert "variant" not in text  # no chunk-local numbering
    named = re.findall(r"(\d+) \(b=(\S+); found stiff at t=(\S+) s\)", text)
    serial = serial_stiff_points()
    assert [int(i) for i, _, _ in named] == sorted(serial)  # exactly the points whose own runs warn
    assert sorted(serial) and 0 not in serial and 9 in serial and 11 in serial
    for i, b, t in named:
        assert float(b) == BATCH_GRID["b"][int(i)]
        assert float(t) == pytest.approx(serial[int(i)], rel=1e-9)  # found at the step its own run warns at
    assert text.startswith("in simcore.simulate_batch, RK45's steps are limited by stability, not accuracy, "
                           "from the time given on (a stiff system); the serial simcore.simulate(..., "
                           "method='auto') or method='Radau' integrates such a point with far fewer evaluations. "
                           "[sweep points ")


def test_a_batched_sweep_of_non_stiff_points_gives_no_warning():
    said = caught_by(sweep, stiff_batch, {"b": [0.01, 0.5, 0.02]}, STIFF, executor="serial", batch=True,
                     chunk_size=2, progress=False)
    assert said == []


def test_another_warning_of_a_chunk_names_the_chunks_points():
    said = caught_by(sweep, stiff_batch_and_a_note, {"b": [0.01, 0.5, 30.0, 0.02, 0.03]}, STIFF,
                     executor="serial", batch=True, chunk_size=3, progress=False)
    notes = [text for c, text, _, _ in said if c is UserWarning]
    assert notes == ["a note from make_result [sweep points 0-2 (evaluated as one batch), 3-4 (evaluated as one "
                     "batch)]"]
    stiff = [text for c, text, _, _ in said if c is StiffnessWarning]
    assert len(stiff) == 1 and " [sweep point 2 (b=30.0; found stiff at t=" in stiff[0]
    one = caught_by(sweep, stiff_batch_and_a_note, {"b": [0.01]}, STIFF, executor="serial", batch=True,
                    chunk_size=1, progress=False)
    assert [text for _, text, _, _ in one] == ["a note from make_result [sweep point 0 (b=0.01)]"]


# -- a Dask cluster -------------------------------------------------------------------------------

_ON_DASK = """
import sys, warnings
sys.path.insert(0, {folder!r})
import distributed
import test_sweep_warnings as t
from simcore import sweep
# one worker process running two points at once on its threads
with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                              silence_logs=40) as cluster, distributed.Client(cluster) as client:
    executor = client.get_executor()
    plain = t.caught_by(sweep, t.stiff_run, t.GRID, t.STIFF, executor=executor, progress=False)
    batched = t.caught_by(sweep, t.stiff_batch, t.BATCH_GRID, t.STIFF, executor=executor, batch=True,
                          chunk_size=5, progress=False)
    hello = t.caught_by(sweep, t.says, [dict(i=i, delay=0.01, repeat=3) for i in range(6)],
                        dict(x=t.final_x), executor=executor, progress=False)
print(repr([[(c.__name__, text) for c, text, _, _ in said] for said in (plain, batched, hello)]))
"""


def test_a_dask_cluster_delivers_the_same_warnings():
    # In a child process, as test_sweep_batch's Dask test (distributed changes how exceptions pickle in
    # the process that imports it); the worker runs two points at once on its threads.
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("distributed is not installed (pip install simcore[dask])")
    code = _ON_DASK.format(folder=str(Path(__file__).resolve().parent))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    plain, batched, hello = ast.literal_eval(run.stdout.strip().splitlines()[-1])

    def named(said):
        return [(c.__name__, text) for c, text, _, _ in said]

    assert plain == named(caught_by(sweep, stiff_run, GRID, STIFF, executor="serial", progress=False))
    assert batched == named(caught_by(sweep, stiff_batch, BATCH_GRID, STIFF, executor="serial", batch=True,
                                      progress=False))
    assert hello == [("UserWarning",
                      f"point {i} says hello ({k} of 3) [sweep point {i} (i={i}, delay=0.01, repeat=3)]")
                     for i in range(6) for k in (1, 2, 3)]


def test_a_filter_on_the_message_acts_on_a_reissued_warning():
    """A filter's message pattern is matched from the start of the text: the sweep names the point after it."""
    with ProcessPoolExecutor(max_workers=2) as pool:
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", message="point 1 says hello", category=UserWarning)
            sweep(says, {"i": [0, 1, 2]}, {"x": final_x}, executor=pool, progress=False)
        assert [str(w.message) for w in log] == ["point 0 says hello [sweep point 0 (i=0)]",
                                                 "point 2 says hello [sweep point 2 (i=2)]"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.filterwarnings("error", message="point 2 says", category=UserWarning)
            with pytest.raises(UserWarning, match=r"^point 2 says hello \[sweep point 2"):
                sweep(says, {"i": [0, 1, 2]}, {"x": final_x}, executor=pool, progress=False)
