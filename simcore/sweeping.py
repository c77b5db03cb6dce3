"""Parameter sweeps: run a simulation at every point of a grid and tabulate metrics.

The contract
------------
``sweep(make_result, grid, metrics)`` evaluates, for every parameter point
``p`` of ``grid`` (in grid order)::

    result = make_result(**p)
    row = {**p, **{name: float(metric(result)) for name, metric in metrics.items()}}

Both the simulation and the metrics run in the worker, so only the floats of
``row`` travel back from a process. Rows come back in grid order whatever the
order in which the workers finish.

Grids
    A mapping ``{"kp": [..], "kd": [..]}`` is the cartesian product, the first
    key varying slowest (``itertools.product`` order); a sequence of dicts
    (all with the same keys) is taken as the list of points.

Executors
    Default: a :class:`concurrent.futures.ProcessPoolExecutor` with
    ``os.cpu_count()`` workers (at most one per point), created and shut down by
    the sweep. ``make_result`` and the metrics are sent to the workers by
    pickling, so they must be picklable: functions defined at the top level of
    an importable module (not lambdas, not nested functions). Under the "spawn"
    or "forkserver" start methods (macOS, Windows, Python >= 3.14 on Linux)
    that module must also be importable by the worker, which a function defined
    in a notebook or ``__main__`` is not; use ``executor="serial"`` there, or
    move the function to a module. Any :class:`concurrent.futures.Executor`
    may be passed (it is not shut down), e.g. a ``ThreadPoolExecutor`` for
    simulations that release the GIL. ``executor="serial"`` runs in this
    process, in order.

Batches
    ``batch=True`` evaluates chunks of points as batches (``simcore.simulate_batch``):
    ``make_result`` receives each parameter as a 1-D array of the chunk's values and
    the metrics return one number per point; each chunk is one task of the executor.
    A Dask cluster's executor works here unchanged, batched or not::

        from distributed import Client
        with Client("scheduler-address:8786") as client:   # or Client(LocalCluster(...))
            table = sweep(make_result, grid, metrics, executor=client.get_executor(), batch=True)

    (``pip install simcore[dask]``; the functions are sent by cloudpickle, so lambdas
    and notebook functions are fine there.)

Warnings
    Whatever runs the points, the warnings issued while evaluating them (a
    :class:`~simcore.StiffnessWarning` of ``simulate(..., method="RK45")``, a
    metric's ``RuntimeWarning``) are recorded where they run, every one of them
    (``"always"``), and issued again by the sweep in this process once every point
    is done, so that this process's filters act on them (``pytest.warns``, a
    filter's ``"error"`` or ``"ignore"``, by category, message or module). Each keeps
    its category, its text and its place of issue, and names the grid point it came
    from, index and parameter values, after the text: ``... [sweep point 3 (kp=4.0,
    kd=0.8)]``. A warning issued at several points
    (same category, text and place) is issued once, naming them all (the first 20
    with their values, the others by index). They come in grid order (of the
    first point each came from), whichever worker finished first. A category that
    does not pickle (a class defined in a function) comes back from a process as
    a UserWarning with its name in the text. A sweep that raises issues none (its
    exception names the point). With ``batch=True``, a chunk's own
    StiffnessWarning (it numbers variants within the chunk) is replaced by one
    naming the grid points found stiff and when (``BatchResult.stiff_at``), the
    same for every ``chunk_size``; any other warning of a chunk names its points
    as a range, ``[sweep points 0-11 (evaluated as one batch)]``.

    While points run in this process (serially or on threads), the warning
    filters are ``"always"`` for all its threads and one recorder serves them all,
    because ``warnings.catch_warnings`` swaps process-wide state and is not
    thread-safe (Python's documentation says so). The same limit applies to other
    threads: a ``catch_warnings`` inside ``make_result`` on a thread pool takes the
    other points' warnings while it is open, and one that another thread of yours
    opens before the sweep ends and closes after it puts the sweep's recorder back
    when it closes (its warnings are then shown, not filtered, until the filters are
    set again). A process pool or a Dask cluster does not share your process's
    filters.

Progress
    ``progress=None`` (default) shows a tqdm bar when tqdm is importable and the
    sweep has more than 20 points; ``progress=True`` always reports (tqdm, or a
    plain ``sweep: k/n`` line on stderr without it); ``progress=False`` never.

Table
    A :class:`SweepTable` (columns: the parameters, then the metrics), whatever
    is installed, so a notebook behaves the same with or without pandas;
    :meth:`SweepTable.to_pandas` gives a :class:`pandas.DataFrame` (pandas is the
    ``fast`` extra). :func:`pivot` turns a table or a DataFrame into the ``(index
    values, column values, 2-D array)`` of a heat map.
"""
from __future__ import annotations

import csv
import itertools
import os
import pickle
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, as_completed

import numpy as np

from .batch_params import as_sequence, is_quantity
from .batch_result import BatchResult
from .errors import ConfigError, ConfigTypeError, SimError
from .point_warnings import batch_stiffness, caught_in, crossing, here, recording, reissue

__all__ = ["sweep", "SweepTable", "pivot", "grid_points", "SweepPointError"]

_AUTO_PROGRESS_POINTS = 20


# ---------------------------------------------------------------------------------------------
# grid and metrics validation
# ---------------------------------------------------------------------------------------------
def _is_sequence(v) -> bool:
    return (isinstance(v, (Sequence, np.ndarray, range)) and not isinstance(v, (str, bytes))) \
        and not (isinstance(v, np.ndarray) and v.ndim != 1)


def grid_points(grid) -> list[dict]:
    """The parameter points of ``grid``, as a list of dicts in sweep order.

    Parameters
    ----------
    grid : mapping of str to sequence, or sequence of mappings
        Cartesian product (first key varies slowest) or explicit points.

    Raises
    ------
    ConfigError
        Naming ``grid`` when it is empty, not a mapping or sequence of
        mappings, a value is not a non-empty sequence, or points have different
        keys.
    """
    if isinstance(grid, Mapping):
        if not grid:
            raise ConfigError("grid", grid, "a non-empty mapping parameter -> sequence of values")
        keys = list(grid)
        values = []
        for k in keys:
            if not isinstance(k, str) or not k.isidentifier():
                raise ConfigError("grid", k, "parameter names that are valid Python identifiers "
                                             "(they are passed as keyword arguments)")
            v = grid[k]
            if not _is_sequence(v) and not is_quantity(v):
                v = as_sequence(v)  # a pandas Series or another 1-D array-like, as simulate_batch takes one
            if is_quantity(v):
                raise ConfigError(f"grid[{k!r}]", v, "a sequence of plain values (the grid's values are passed to "
                                                    "make_result and written to the table as they are: give "
                                                    "numbers, and let make_result attach the unit)")
            if not _is_sequence(v):
                raise ConfigError(f"grid[{k!r}]", v, "a sequence of values (list, tuple, 1-D array, range)")
            v = list(v.tolist() if isinstance(v, np.ndarray) else v)
            if not v:
                raise ConfigError(f"grid[{k!r}]", v, "at least one value")
            values.append(v)
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    if _is_sequence(grid) and not isinstance(grid, np.ndarray):
        points = list(grid)
        if not points:
            raise ConfigError("grid", grid, "at least one point (a non-empty sequence of dicts)")
        keys = None
        out = []
        for i, p in enumerate(points):
            if not isinstance(p, Mapping):
                raise ConfigError("grid", p, f"a dict of parameters at point {i} (grid is a sequence of dicts)")
            if keys is None:
                keys = list(p)
                for k in keys:
                    if not isinstance(k, str) or not k.isidentifier():
                        raise ConfigError("grid", k, "parameter names that are valid Python identifiers")
            elif set(p) != set(keys):
                raise ConfigError("grid", p, f"every point with the same keys as the first one {keys} "
                                             f"(point {i} differs)")
            out.append({k: p[k] for k in keys})
        return out
    raise ConfigTypeError("grid", grid, "a mapping parameter -> sequence of values, or a sequence of dicts")


def _check_metrics(metrics, params: list[str]) -> dict:
    if not isinstance(metrics, Mapping) or not metrics:
        raise ConfigError("metrics", metrics, "a non-empty mapping name -> callable(result) -> float")
    for name, fn in metrics.items():
        if not isinstance(name, str):
            raise ConfigTypeError("metrics", name, "metric names that are strings")
        if not callable(fn):
            raise ConfigTypeError(f"metrics[{name!r}]", fn, "a callable(result) -> float")
        if name in params:
            raise ConfigError("metrics", name, f"metric names distinct from the parameters {params}")
    return dict(metrics)


# ---------------------------------------------------------------------------------------------
# the worker (top level, so that it pickles by reference under every start method)
# ---------------------------------------------------------------------------------------------
def _plain(value):
    """A metric's value if it holds no unit and no text; TypeError otherwise. The table holds plain
    numbers: a Quantity would lose its unit (numpy strips it, ``float`` of a dimensionless one
    rescales it), and ``float("1.5")`` would read text as a number."""
    if _holds_units_or_text(value):
        raise TypeError("a Quantity or text")
    return value


def _holds_units_or_text(value) -> bool:
    if is_quantity(value) or isinstance(value, (str, bytes)):
        return True
    value = as_sequence(value)  # a pandas Series as the array it holds
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "US" or (value.dtype == object and any(map(_holds_units_or_text, value.ravel())))
    return isinstance(value, (list, tuple)) and any(map(_holds_units_or_text, value))


def _evaluate(make_result, metrics: dict, params: dict) -> tuple[list[float], list]:
    """Run one point: ``make_result(**params)`` then every metric; return the floats and the
    warnings issued meanwhile (``(None, Caught)`` pairs, see :func:`caught_in`)."""
    with recording() as log:
        result = make_result(**params)
        out = []
        for name, fn in metrics.items():
            value = fn(result)
            try:
                out.append(float(_plain(value)))
            except (TypeError, ValueError):
                raise ConfigTypeError(f"metrics[{name!r}]", value,
                                      "a callable returning a real number (a float)") from None
    return out, caught_in(log)


def _evaluate_batch(make_result, metrics: dict, columns: dict) -> tuple[list[list[float]], list]:
    """Run one chunk of points as one batch: ``make_result(**columns)`` with each parameter an
    array of the chunk's values, then every metric on the batch; return one row of floats per point,
    and the warnings issued meanwhile: ``(j, Caught)`` for the ``j``-th point of the chunk (a stiff
    variant, see :func:`batch_stiffness`), ``(None, Caught)`` for one of the whole chunk."""
    with recording() as log:
        rows, result = _batch_rows(make_result, metrics, columns)
    return rows, batch_stiffness(result, caught_in(log))


def _batch_rows(make_result, metrics: dict, columns: dict):
    """The body of :func:`_evaluate_batch`: the rows, and the BatchResult they came from."""
    n = len(next(iter(columns.values())))
    result = make_result(**columns)
    # Checked here, so that a wrong batch is blamed on make_result rather than on the first metric.
    if not isinstance(result, BatchResult):
        raise ConfigTypeError("make_result", make_result, f"a callable returning a BatchResult with batch=True "
                                                          f"(one simulate_batch over the chunk's {n} points); it "
                                                          f"returned a {type(result).__name__}")
    if result.n != n:
        raise ConfigError("make_result", make_result, f"a BatchResult of {n} variants, one per point of the chunk, "
                                                      f"in order; it returned one with .n={result.n}")
    out = []
    for name, fn in metrics.items():
        value = fn(result)
        try:
            arr = np.asarray(_plain(value), dtype=float)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.shape != (n,):
            raise ConfigTypeError(f"metrics[{name!r}]", value, f"a callable returning one real number per point "
                                                               f"of the batch (an array of shape ({n},))")
        out.append([float(v) for v in arr])
    return [list(row) for row in zip(*out)], result


class SweepPointError(SimError, RuntimeError):
    """An exception raised in a worker process that could not travel back as itself.

    Exceptions whose constructor takes several arguments do not survive pickling
    unless they define ``__reduce__`` (the project's own errors do); the worker
    converts the others to this one, whose message holds the original type,
    message and traceback.
    """


def _evaluate_remote(make_result, metrics: dict, arg, evaluate=_evaluate, home=None):
    """:func:`_evaluate` (or ``evaluate``) on an executor: exceptions are made picklable, and so are the
    warnings' categories when this is not the sweep's own process ``home`` (see :func:`here`)."""
    try:
        value, caught = evaluate(make_result, metrics, arg)
        return value, (caught if home == here() else crossing(caught))
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            import traceback

            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            raise SweepPointError(f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}\n"
                                  f"worker traceback:\n{tb}") from None
        raise


def _check_picklable(make_result, metrics: dict) -> None:
    hint = ("; pass executor='serial' to run in this process, or define it at the top level of an "
            "importable module (not a lambda, a nested function, or a notebook cell under spawn)")
    # A function of an interactive __main__ (a notebook, stdin) pickles by reference here but
    # cannot be imported by a worker that was spawned rather than forked: say so, before the
    # pool breaks with "a process terminated abruptly".
    import multiprocessing

    main = sys.modules.get("__main__")
    if multiprocessing.get_start_method() != "fork" and not getattr(main, "__file__", None):
        for parameter, fn in [("make_result", make_result)] + [(f"metrics[{n!r}]", f) for n, f in metrics.items()]:
            if getattr(fn, "__module__", None) == "__main__":
                raise ConfigError(parameter, fn, "a callable a worker process can import: it is defined in an "
                                                 f"interactive __main__ and workers start by "
                                                 f"{multiprocessing.get_start_method()!r}" + hint)
    try:
        pickle.dumps(make_result)
    except Exception as exc:
        raise ConfigError("make_result", make_result,
                          f"a picklable callable for a process pool ({type(exc).__name__}: {exc})" + hint) from None
    for name, fn in metrics.items():
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise ConfigError(f"metrics[{name!r}]", fn,
                              f"a picklable callable for a process pool ({type(exc).__name__}: {exc})"
                              + hint) from None


def _annotate(exc: BaseException, params: dict) -> BaseException:
    if hasattr(exc, "add_note"):
        exc.add_note(f"while evaluating sweep point {params!r}")
    return exc


# ---------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------
class _Progress:
    def __init__(self, total: int, progress):
        self.total = total
        self.done = 0
        self._bar = None
        self._text = False
        if progress is False:
            return
        try:
            if progress is True or (progress is None and total > _AUTO_PROGRESS_POINTS):
                from tqdm.auto import tqdm  # optional

                self._bar = tqdm(total=total, desc="sweep", unit="pt")
        except ImportError:
            self._text = progress is True

    def update(self, points: int = 1):
        """``points`` more points are done (a batched sweep reports a whole chunk at once)."""
        self.done += points
        if self._bar is not None:
            self._bar.update(points)
        elif self._text:
            sys.stderr.write(f"\rsweep: {self.done}/{self.total} points")
            sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()
        elif self._text:
            sys.stderr.write("\n")
            sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# sweep
# ---------------------------------------------------------------------------------------------
def _executor_workers(executor) -> int:
    """How many tasks ``executor`` runs at once: a pool's ``_max_workers``; a Dask client
    executor's cluster threads (``Client.nthreads()``, summed over its workers at this moment);
    else this machine's cpu count."""
    n = getattr(executor, "_max_workers", None)
    client = getattr(executor, "_client", None)
    if not n and client is not None and callable(getattr(client, "nthreads", None)):
        try:
            n = sum(client.nthreads().values())
        except Exception:  # a client that cannot say (closed, not connected): fall back below
            n = None
    return int(n) if n else (os.cpu_count() or 1)


def _chunks(points: list, chunk_size, executor) -> list[tuple[int, dict]]:
    """(first point index, columns) of each chunk of a batched sweep, in grid order."""
    if chunk_size is None:
        workers = 1 if executor == "serial" else _executor_workers(executor)
        chunk_size = max(1, -(-len(points) // workers))
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ConfigError("chunk_size", chunk_size, "None or a whole number of points >= 1")
    out = []
    for start in range(0, len(points), chunk_size):
        chunk = points[start:start + chunk_size]
        columns = {}
        for key in chunk[0]:
            values = [p[key] for p in chunk]
            # Quantities stay objects: numpy would stack them by their dimensionless magnitudes (30 deg -> 0)
            col = None if any(is_quantity(v) for v in values) else np.array(values)
            if col is None or col.dtype.kind not in "fiub":
                col = np.empty(len(values), dtype=object)
                col[:] = values
            columns[key] = col
        out.append((start, columns))
    return out


def sweep(make_result, grid, metrics, *, executor=None, progress=None, batch=False, chunk_size=None):
    """Simulate every point of ``grid`` and tabulate ``metrics`` of each result.

    Parameters
    ----------
    make_result : callable
        ``make_result(**params) -> Result`` (any object the metrics accept);
        with ``batch=True``, ``make_result(**columns) -> BatchResult`` of one
        variant per point of the chunk. Must be picklable for a process pool
        (see the module docstring).
    grid : mapping of str to sequence, or sequence of dicts
        Parameter values: cartesian product with the first key varying
        slowest, or the explicit list of points. Parameters carry whatever unit
        ``make_result`` expects (SI by the project's convention).
    metrics : mapping of str to callable
        ``name -> metric(result) -> float``; e.g.
        ``{"settle": settle_time}`` with a top-level ``settle_time(result)``.
    executor : concurrent.futures.Executor, "serial" or None, optional
        Where the points run. None: a new ``ProcessPoolExecutor`` with
        ``os.cpu_count()`` workers (shut down afterwards); "serial": in this
        process; an Executor: used as given (not shut down).
    progress : bool or None, optional
        None: a tqdm bar for more than 20 points when tqdm is installed; True:
        always (tqdm, else a line on stderr); False: never.
    batch : bool, optional
        Evaluate the grid in batches: ``make_result`` is called once per chunk
        of points with each parameter as a 1-D array of the chunk's values
        (typically returning ``simcore.simulate_batch(...)``), and each metric
        must return one number per point (the functions of
        :mod:`simcore.testing` do on a BatchResult). The chunks run on the
        executor, one task each; the progress bar advances by a chunk's
        points as each chunk completes.
    chunk_size : int, optional
        With ``batch=True`` only: points per batch (default: the points split
        evenly over the executor's workers, a Dask executor's cluster threads
        included; all of them with ``executor="serial"``). The
        table does not depend on it: a variant's result does not depend on
        the batch it shares.

    Returns
    -------
    SweepTable
        One row per point, in grid order; columns: parameters then metrics
        (``.to_pandas()`` for a DataFrame).

    Raises
    ------
    ConfigError
        Bad ``grid``, ``metrics``, ``executor`` or ``chunk_size`` (also one given
        without ``batch=True``), a batched ``make_result`` that returns no
        BatchResult or one of another length than its chunk, an unpicklable
        callable with a process pool (or one defined in an interactive
        ``__main__`` when the workers are spawned), or a metric returning
        something that is not a number.
    SweepPointError
        In a worker process, an exception that cannot be pickled back as
        itself (one whose constructor takes several arguments and defines no
        ``__reduce__``; the project's own errors do come back as themselves),
        with the original type, message and traceback in its message.

    Any other exception raised by ``make_result`` or a metric propagates with
    a note naming the sweep point (``exc.__notes__``).

    Warns
    -----
    Warning
        Every warning issued while evaluating the points (``simcore.StiffnessWarning``
        among them), in its own category, once the sweep is done, in grid order,
        its message prefixed with the grid point(s) it came from (see the module
        docstring, "Warnings").
    """
    if not callable(make_result):
        raise ConfigTypeError("make_result", make_result, "a callable make_result(**params) -> Result")
    points = grid_points(grid)
    params = list(points[0])
    metrics = _check_metrics(metrics, params)
    if not (executor is None or executor == "serial" or isinstance(executor, Executor)):
        hint = " (for a Dask Client, pass client.get_executor())" if hasattr(executor, "get_executor") else ""
        raise ConfigError("executor", executor,
                          f"None (process pool), 'serial', or a concurrent.futures.Executor{hint}")

    if not isinstance(batch, bool):
        raise ConfigTypeError("batch", batch, "True or False")
    if chunk_size is not None and not batch:
        raise ConfigError("chunk_size", chunk_size, "None without batch=True (it is the number of points per "
                                                    "batch, and applies only with batch=True)")
    values: list = [None] * len(points)
    caught: list = []  # ((first point, last point), Caught) of every warning, re-issued at the end
    bar = _Progress(len(points), progress)
    try:
        if batch:
            _sweep_batches(make_result, metrics, points, executor, chunk_size, values, caught, bar)
        elif executor == "serial":
            for i, p in enumerate(points):
                try:
                    values[i], point_caught = _evaluate(make_result, metrics, p)
                except Exception as exc:
                    raise _annotate(exc, p)
                caught.extend(((i, i), c) for _, c in point_caught)
                bar.update()
        else:
            def done(i, value):
                values[i], point_caught = value
                caught.extend(((i, i), c) for _, c in point_caught)
                bar.update()

            _on_executor(executor, make_result, metrics, list(enumerate(points)), _evaluate, done,
                         lambda exc, i: _annotate(exc, points[i]))
    finally:
        bar.close()
    reissue(caught, points)

    names = list(metrics)
    rows = [{**p, **dict(zip(names, v))} for p, v in zip(points, values)]
    return SweepTable(params + names, rows)


def _sweep_batches(make_result, metrics, points, executor, chunk_size, values, caught, bar) -> None:
    """The batched sweep: each chunk of points is one ``make_result`` call, on the executor; its
    warnings are added to ``caught`` under the grid points they name (the chunk's, by default)."""
    chunks = _chunks(points, chunk_size, executor)

    def store(start, value):
        rows, chunk_caught = value
        values[start:start + len(rows)] = rows
        caught.extend((((start, start + len(rows) - 1) if j is None else (start + j, start + j)), c)
                      for j, c in chunk_caught)
        bar.update(len(rows))  # one update per chunk: tqdm's rate and estimate then count points done

    def located(exc, start, columns):
        n = len(next(iter(columns.values())))
        if hasattr(exc, "add_note"):
            exc.add_note(f"while evaluating sweep points {start}..{start + n - 1} (grid order) as one batch")
        return exc

    if executor == "serial":
        for start, columns in chunks:
            try:
                store(start, _evaluate_batch(make_result, metrics, columns))
            except Exception as exc:
                raise located(exc, start, columns)
        return
    tasks = [(j, columns) for j, (_, columns) in enumerate(chunks)]
    _on_executor(executor, make_result, metrics, tasks, _evaluate_batch,
                 lambda j, rows: store(chunks[j][0], rows), lambda exc, j: located(exc, *chunks[j]))


def _on_executor(executor, make_result, metrics, tasks, evaluate, done, locate) -> None:
    """Run ``evaluate(make_result, metrics, arg)`` for every ``(key, arg)`` of ``tasks`` on ``executor``
    (None: a process pool of this sweep's own, shut down afterwards), calling ``done(key, value)``
    as each finishes, ``value`` being what ``evaluate`` returned, (result, warnings recorded); an
    exception comes back through ``locate(exc, key)``."""
    own = executor is None
    if own or isinstance(executor, ProcessPoolExecutor):
        _check_picklable(make_result, metrics)
    pool = ProcessPoolExecutor(max_workers=max(1, min(os.cpu_count() or 1, len(tasks)))) if own else executor
    try:
        home = here()
        futures = {pool.submit(_evaluate_remote, make_result, metrics, arg, evaluate, home): key
                   for key, arg in tasks}
        try:
            for fut in as_completed(futures):
                key = futures[fut]
                try:
                    value = fut.result()
                except BrokenExecutor as exc:
                    if hasattr(exc, "add_note"):  # the pool died: no point is known to be at fault
                        exc.add_note("the sweep's process pool broke (a worker died or could not "
                                     "start); try executor='serial' to see the cause")
                    raise
                except Exception as exc:
                    raise locate(exc, key)
                done(key, value)
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------
class SweepTable:
    """The rows of a sweep: what :func:`sweep` returns, with or without pandas.

    Parameters
    ----------
    columns : list of str
        Parameter names then metric names.
    rows : list of dict
        One dict per point, in grid order.

    Examples
    --------
    >>> table["kp"]                      # doctest: +SKIP
    array([1., 1., 2., 2.])
    >>> kps, kds, z = table.pivot("kp", "kd", "settle")   # doctest: +SKIP
    """

    def __init__(self, columns, rows):
        self.columns = list(columns)
        self.rows = [dict(r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, column: str) -> np.ndarray:
        """The column as a numpy array (float when every value is a number)."""
        if column not in self.columns:
            raise KeyError(f"no column {column!r}; columns: {', '.join(self.columns)}")
        vals = [r[column] for r in self.rows]
        try:
            return np.array(vals, dtype=float)
        except (TypeError, ValueError):
            return np.array(vals, dtype=object)

    def to_csv(self, path) -> None:
        """Write the table as CSV (header row of column names; floats as ``repr``)."""
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(self.columns)
            for r in self.rows:
                w.writerow([repr(v) if isinstance(v, float) else v for v in (r[c] for c in self.columns)])

    def pivot(self, index: str, columns: str, values: str):
        """Heat-map arrays: see :func:`pivot`."""
        return pivot(self, index, columns, values)

    def to_pandas(self):
        """The table as a :class:`pandas.DataFrame` (same columns, same order, one row per point).

        Raises
        ------
        simcore.extras.MissingExtraError
            pandas is not installed (``pip install "simcore[fast]"``); also an ImportError.
        """
        from .extras import require

        pd = require("pandas", "fast", "SweepTable.to_pandas()")
        return pd.DataFrame(self.rows, columns=self.columns)

    def _repr_html_(self) -> str:
        """An HTML table for notebooks (the first 10 and last 5 rows of a long table)."""
        import html

        def fmt(v):
            return html.escape(f"{v:.6g}" if isinstance(v, (float, np.floating)) else str(v))

        shown = self.rows if len(self.rows) <= 20 else self.rows[:10] + [None] + self.rows[-5:]
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{fmt(r[c]) if r is not None else '...'}</td>" for c in self.columns)
                       + "</tr>" for r in shown)
        return (f"<table><caption>SweepTable: {len(self.rows)} rows x {len(self.columns)} columns</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def __repr__(self) -> str:
        head = f"<SweepTable {len(self.rows)} rows x {len(self.columns)} columns>"
        if not self.rows:
            return head

        def fmt(v):
            return f"{v:.6g}" if isinstance(v, (float, np.floating)) else str(v)

        shown = self.rows if len(self.rows) <= 20 else self.rows[:10] + [None] + self.rows[-5:]
        cells = [[fmt(r[c]) for c in self.columns] if r is not None else ["..."] * len(self.columns)
                 for r in shown]
        widths = [max(len(c), *(len(row[k]) for row in cells)) for k, c in enumerate(self.columns)]
        lines = [head, "  ".join(c.rjust(w) for c, w in zip(self.columns, widths))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)


def _column(table, name: str) -> np.ndarray:
    if isinstance(table, SweepTable):
        return table[name]
    try:
        col = table[name]
    except KeyError:
        raise ConfigError("column", name, f"a column of the table: {list(getattr(table, 'columns', []))}") from None
    return np.asarray(col.to_numpy() if hasattr(col, "to_numpy") else col)


def pivot(table, index: str, columns: str, values: str):
    """Arrange one metric on a 2-D grid of two parameters (for heat maps).

    Parameters
    ----------
    table : SweepTable or pandas.DataFrame
        A :func:`sweep` result.
    index, columns : str
        Parameters along the rows and the columns of the output.
    values : str
        The metric (or any column) to place.

    Returns
    -------
    index_values : numpy.ndarray
        Sorted distinct values of ``index`` (rows of ``z``).
    column_values : numpy.ndarray
        Sorted distinct values of ``columns`` (columns of ``z``).
    z : numpy.ndarray of float, shape (len(index_values), len(column_values))
        ``z[i, j]`` is ``values`` where ``index == index_values[i]`` and
        ``columns == column_values[j]``; NaN where the sweep has no such point.

    Raises
    ------
    ConfigError
        A column is missing, or two rows share an (index, columns) pair (the
        sweep varied a third parameter: select a slice first).
    """
    for parameter, name in (("index", index), ("columns", columns), ("values", values)):
        cols = list(getattr(table, "columns", []))
        if name not in cols:
            raise ConfigError(parameter, name, f"a column of the table: {cols}")
    iv, jv, zv = _column(table, index), _column(table, columns), _column(table, values)
    ivals = np.unique(iv)
    jvals = np.unique(jv)
    z = np.full((ivals.size, jvals.size), np.nan)
    seen = np.zeros(z.shape, dtype=bool)
    ii = np.searchsorted(ivals, iv)
    jj = np.searchsorted(jvals, jv)
    for a, b, v in zip(ii, jj, zv):
        if seen[a, b]:
            raise ConfigError("index", index, f"(index, columns) pairs that are unique; ({ivals[a]!r}, "
                                              f"{jvals[b]!r}) appears twice: the sweep varies another "
                                              f"parameter too, select one slice first")
        seen[a, b] = True
        z[a, b] = float(v)
    return ivals, jvals, z
