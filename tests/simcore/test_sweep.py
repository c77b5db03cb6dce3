"""simcore.sweep (module simcore.sweeping): process pool vs serial, grid order, grids, fallbacks, errors."""
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import simcore.sweeping as sweep_mod
from simcore.errors import ConfigError
from simcore.result import Result
from simcore.sweeping import SweepPointError, SweepTable, grid_points, pivot, sweep
from simcore.testing import step_info

# -- top-level (picklable) simulation and metrics -----------------------------------------------


def pd_step(kp, kd):
    """Unit step of 1/s^2 under PD with a prefilter: wn = sqrt(kp), zeta = kd / (2 sqrt(kp))."""
    wn = math.sqrt(kp)
    zeta = kd / (2 * wn)
    wd = wn * math.sqrt(1 - zeta ** 2)
    t = np.linspace(0.0, 10.0, 20001)
    y = 1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    return Result.from_arrays(t, {"arm.angle": y}, units={"arm.angle": "rad"})


def overshoot(result):
    return step_info(result, "arm.angle", 1.0).overshoot


def peak_time(result):
    return step_info(result, "arm.angle", 1.0).peak_time


METRICS = {"overshoot": overshoot, "peak_time": peak_time}
KP = [4.0, 9.0, 16.0, 25.0]
KD = [0.8, 1.2, 1.6, 2.0]


def slow_identity(i, delay):
    time.sleep(delay)
    return Result.from_arrays([0.0, 1.0], {"x": [float(i), float(i)]})


def final_x(result):
    return result.final("x")


def raises_config_error(kp):
    raise ConfigError("kp", kp, "a positive gain")


def not_a_number(result):
    return "fast"


# -- tests ------------------------------------------------------------------------------------

def analytic_row(kp, kd):
    wn, zeta = math.sqrt(kp), kd / (2 * math.sqrt(kp))
    return (math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2)), math.pi / (wn * math.sqrt(1 - zeta ** 2)))


def check_against_analytic(table):
    assert isinstance(table, SweepTable)
    assert table.columns == ["kp", "kd", "overshoot", "peak_time"]
    assert len(table) == 16
    # first key varies slowest
    np.testing.assert_array_equal(table["kp"], np.repeat(KP, 4))
    np.testing.assert_array_equal(table["kd"], np.tile(KD, 4))
    for row in table.rows:
        os_, tp = analytic_row(row["kp"], row["kd"])
        assert row["overshoot"] == pytest.approx(os_, abs=1e-6)
        assert row["peak_time"] == pytest.approx(tp, abs=1e-6)


def test_process_pool_matches_serial_in_grid_order():
    grid = {"kp": KP, "kd": KD}
    serial = sweep(pd_step, grid, METRICS, executor="serial")
    pooled = sweep(pd_step, grid, METRICS)          # default: ProcessPoolExecutor, platform start method
    check_against_analytic(serial)
    assert pooled.rows == serial.rows               # same floats, same order


def test_spawn_context_pool():
    # Workers started by "spawn" import this test module by name (sys.path travels along).
    ctx = multiprocessing.get_context("spawn")
    grid = [{"kp": 4.0, "kd": 0.8}, {"kp": 25.0, "kd": 2.0}, {"kp": 9.0, "kd": 1.2}]
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as ex:
        table = sweep(pd_step, grid, METRICS, executor=ex)
    assert [r["kp"] for r in table.rows] == [4.0, 25.0, 9.0]
    for row in table.rows:
        assert row["overshoot"] == pytest.approx(analytic_row(row["kp"], row["kd"])[0], abs=1e-6)


def test_rows_in_grid_order_when_completion_is_reversed():
    # earlier points take longer, so they finish last
    grid = [{"i": i, "delay": 0.05 * (5 - i)} for i in range(6)]
    done = []

    def record(result):
        done.append(result.final("x"))
        return result.final("x")

    with ThreadPoolExecutor(max_workers=6) as ex:
        table = sweep(slow_identity, grid, {"x": record}, executor=ex)
    assert done != sorted(done)                        # completion really was out of order
    np.testing.assert_array_equal(table["x"], np.arange(6.0))
    np.testing.assert_array_equal(table["i"], np.arange(6.0))


def test_grid_points_orders_and_validates():
    pts = grid_points({"a": [1, 2], "b": (10, 20, 30)})
    assert pts == [{"a": 1, "b": 10}, {"a": 1, "b": 20}, {"a": 1, "b": 30},
                   {"a": 2, "b": 10}, {"a": 2, "b": 20}, {"a": 2, "b": 30}]
    assert grid_points({"a": np.array([0.5, 1.5])}) == [{"a": 0.5}, {"a": 1.5}]
    for bad in ({}, [], 3.0, "kp", {"kp": []}, {"kp": 3.0}, {"kp": "abc"}, [{"kp": 1}, {"kd": 2}], [1, 2],
                {"not an identifier": [1]}):
        with pytest.raises(ConfigError, match="grid") as ei:
            grid_points(bad)
        assert "grid" in ei.value.parameter


def test_sweep_bad_arguments_raise_config_error():
    with pytest.raises(ConfigError, match="grid"):
        sweep(pd_step, {}, METRICS, executor="serial")
    with pytest.raises(ConfigError, match="grid"):
        sweep(pd_step, 5, METRICS, executor="serial")
    with pytest.raises(ConfigError, match="metrics"):
        sweep(pd_step, {"kp": [4.0], "kd": [1.0]}, {}, executor="serial")
    with pytest.raises(ConfigError, match="metrics"):
        sweep(pd_step, {"kp": [4.0], "kd": [1.0]}, {"kp": overshoot}, executor="serial")
    with pytest.raises(ConfigError, match="executor"):
        sweep(pd_step, {"kp": [4.0], "kd": [1.0]}, METRICS, executor="threads")
    with pytest.raises(ConfigError, match=r"metrics\['fast'\]"):
        sweep(pd_step, {"kp": [4.0], "kd": [1.0]}, {"fast": not_a_number}, executor="serial")


def test_unpicklable_callables_rejected_for_process_pool_but_fine_serially():
    grid = {"kp": [4.0, 9.0], "kd": [1.0]}
    with pytest.raises(ConfigError, match=r"metrics\['os'\].*picklable.*executor='serial'"):
        sweep(pd_step, grid, {"os": lambda r: overshoot(r)})
    with pytest.raises(ConfigError, match=r"make_result.*picklable"):
        sweep(lambda kp, kd: pd_step(kp, kd), grid, METRICS)
    table = sweep(lambda kp, kd: pd_step(kp, kd), grid, {"os": lambda r: overshoot(r)}, executor="serial")
    np.testing.assert_allclose(table["os"], [analytic_row(4.0, 1.0)[0], analytic_row(9.0, 1.0)[0]], atol=1e-6)


class Unpicklable(Exception):
    def __init__(self, a, b):  # two required arguments: pickling cannot rebuild it
        super().__init__(f"{a}/{b}")


def raises_unpicklable(kp):
    raise Unpicklable("kp", kp)


def test_worker_exception_reported_with_point():
    # The project's errors pickle, so they come back from a worker as themselves.
    with pytest.raises(ConfigError, match=r"kp=-1.0") as ei:
        sweep(raises_config_error, {"kp": [-1.0]}, {"x": final_x})
    assert "sweep point {'kp': -1.0}" in "".join(getattr(ei.value, "__notes__", []))
    # Others that cannot travel are converted, keeping type, message and traceback in the text.
    with pytest.raises(SweepPointError, match=r"Unpicklable: kp/2.0") as ei:
        sweep(raises_unpicklable, {"kp": [2.0]}, {"x": final_x})
    assert "sweep point {'kp': 2.0}" in "".join(getattr(ei.value, "__notes__", []))
    with pytest.raises(ConfigError, match="kp=-1.0"):           # in-process: the original exception
        sweep(raises_config_error, {"kp": [-1.0]}, {"x": final_x}, executor="serial")


def test_plain_progress_line_without_tqdm(capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError("no tqdm")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    sweep(slow_identity, [{"i": i, "delay": 0.0} for i in range(3)], {"x": final_x}, executor="serial",
          progress=True)
    err = capsys.readouterr().err
    assert "sweep: 3/3 points" in err and err.endswith("\n")
    sweep(slow_identity, [{"i": i, "delay": 0.0} for i in range(30)], {"x": final_x}, executor="serial")
    assert capsys.readouterr().err == ""             # auto mode stays silent without tqdm


def test_table_csv_pivot_repr(tmp_path):
    table = sweep(pd_step, {"kp": [4.0, 9.0], "kd": [0.8, 1.2, 1.6]}, METRICS, executor="serial")
    kps, kds, z = pivot(table, "kp", "kd", "overshoot")
    np.testing.assert_array_equal(kps, [4.0, 9.0])
    np.testing.assert_array_equal(kds, [0.8, 1.2, 1.6])
    for i, kp in enumerate(kps):
        for j, kd in enumerate(kds):
            assert z[i, j] == pytest.approx(analytic_row(kp, kd)[0], abs=1e-6)
    k2, d2, z2 = table.pivot("kd", "kp", "overshoot")
    np.testing.assert_array_equal(z2, z.T)
    # missing combination -> NaN; duplicate pair -> ConfigError
    partial = SweepTable(["a", "b", "v"], [{"a": 1.0, "b": 1.0, "v": 3.0}, {"a": 2.0, "b": 2.0, "v": 4.0}])
    _, _, zp = pivot(partial, "a", "b", "v")
    assert zp[0, 0] == 3.0 and zp[1, 1] == 4.0 and math.isnan(zp[0, 1]) and math.isnan(zp[1, 0])
    dup = SweepTable(["a", "b", "c", "v"], [{"a": 1.0, "b": 1.0, "c": c, "v": c} for c in (0.0, 1.0)])
    with pytest.raises(ConfigError, match="index"):
        pivot(dup, "a", "b", "v")
    with pytest.raises(ConfigError, match="values"):
        pivot(table, "kp", "kd", "nope")
    p = tmp_path / "sweep.csv"
    table.to_csv(p)
    lines = p.read_text().splitlines()
    assert lines[0] == "kp,kd,overshoot,peak_time" and len(lines) == 7
    assert [float(x) for x in lines[1].split(",")] == [table.rows[0][c] for c in table.columns]
    text = repr(table)
    assert "6 rows x 4 columns" in text and "overshoot" in text and f"{table.rows[0]['overshoot']:.6g}" in text


def test_the_table_type_does_not_depend_on_pandas_and_to_pandas_gives_a_dataframe(monkeypatch):
    pd = pytest.importorskip("pandas")
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "pandas", None)  # pandas not installed
        without = sweep(pd_step, {"kp": [4.0, 9.0], "kd": [0.8, 1.2]}, METRICS, executor="serial")
        with pytest.raises(ImportError, match=r"simcore\[fast\]"):
            without.to_pandas()
    table = sweep(pd_step, {"kp": [4.0, 9.0], "kd": [0.8, 1.2]}, METRICS, executor="serial")
    assert type(table) is type(without) is SweepTable and table.rows == without.rows
    df = table.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["kp", "kd", "overshoot", "peak_time"]
    kps, kds, z = pivot(df, "kp", "kd", "overshoot")
    assert z[1, 0] == pytest.approx(analytic_row(9.0, 0.8)[0], abs=1e-6)
    np.testing.assert_array_equal(df["overshoot"].to_numpy(), table["overshoot"])
    assert "<table>" in table._repr_html_() and "overshoot" in table._repr_html_()


def test_a_function_of_an_interactive_main_is_refused_when_workers_are_spawned(monkeypatch):
    # A notebook's or stdin's function pickles by reference but cannot be imported by a spawned
    # worker: the pool used to break with "a process terminated abruptly", blaming a point.
    import sys
    import types

    main = types.ModuleType("__main__")  # interactive: no __file__
    exec("def mk(kp, kd):\n    return None\n", main.__dict__)
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "spawn")
    with pytest.raises(ConfigError, match=r"make_result.*interactive __main__.*'spawn'.*executor='serial'"):
        sweep(main.mk, {"kp": [1.0], "kd": [0.0]}, METRICS)
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "fork")
    sweep_mod._check_picklable(main.mk, METRICS)  # forked workers inherit __main__: accepted


def test_a_grid_takes_a_pandas_series_and_refuses_a_quantity_saying_why():
    pd = pytest.importorskip("pandas")
    from simcore import Q_
    from simcore.sweeping import grid_points

    assert grid_points({"kp": pd.Series([1.0, 2.0]), "kd": [0.5]}) == grid_points({"kp": [1.0, 2.0], "kd": [0.5]})
    with pytest.raises(ConfigError, match="plain values") as ei:
        grid_points({"mass": Q_([1.0, 2.0], "kg")})
    assert ei.value.parameter == "grid['mass']"


def test_a_dask_client_given_as_the_executor_gets_the_hint():
    class Client:  # what matters of distributed.Client here: it is no Executor, and has get_executor
        def get_executor(self):
            raise AssertionError("not called")

    with pytest.raises(ConfigError, match=r"client\.get_executor\(\)"):
        sweep(lambda **p: None, {"a": [1.0]}, {"m": lambda r: 0.0}, executor=Client())
