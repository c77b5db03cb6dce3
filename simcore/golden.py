"""Golden-file regression checks for simulation results, as a pytest plugin.

The contract
------------
A test records chosen signals of a :class:`simcore.result.Result` once, in a
readable CSV file next to the test, and from then on every run compares its
result with that file::

    def test_arm_step(golden):
        result = simulate(...)
        golden.check(result, ["arm.angle", "arm.stator_current"], rtol=1e-6, atol=1e-9)

- The file is ``<folder of the test file>/golden/<test name>[-<name>].csv``
  (``<test name>`` is ``Class.test`` for a method; parametrized ids are kept,
  characters unsafe in file names become ``_``). Pass ``name=`` to keep several
  records in one test.
- ``pytest --update-golden`` (re)writes the files of the tests that run and
  passes them; a summary lists the files written.
- Without it, a missing file fails, telling to run with ``--update-golden``.
- A run that now ends at another time than the recorded one fails (``"end"`` in
  the file's header).
- A file that is not exactly what was written fails, naming the file, the line and
  the column: the header records the number of rows, so a file cut at any row
  boundary (down to its header alone) fails; a cell must be a finite number or
  ``nan`` (an ``inf`` could never be compared); times must not go backwards.
  Files from simcore before this format (no row count) must be rewritten.
- ``--update-golden`` writes a new temporary file, created exclusively under a
  random name in the golden folder, and renames it over the golden file: nothing
  is ever written through an existing path or symlink.
- Otherwise the new result is resampled onto the stored time grid and each
  stored value must satisfy ``|got - expected| <= atol + rtol*|expected|``
  (both NaN counts as equal). Per-signal ``tolerances={"sig": (rtol, atol)}``
  override the defaults. On failure an ``AssertionError`` reports, per failing
  signal, the worst deviation (time, expected, got, allowed) and the first
  failing time, and an overlay plot is written next to the golden file
  (``<stem>-failed.png``; removed again when the check next passes).

Resampling. Where the stored grid and the new grid hold the same instant the
same number of times (ticks and events appear on two rows: before and after),
rows are matched one for one; otherwise the first row of a duplicated stored
instant takes the new result's left limit and the others its right limit; in
between, :meth:`Result.sample` interpolates linearly. An identical run
therefore compares exactly; a run whose solver steps moved differs by the
linear-interpolation error (about ``h**2 |y''| / 8`` for step ``h``), which
the tolerances must cover.

File format (deterministic: ``repr`` of every float, ``\\n`` line ends)::

    # simcore golden file; regenerate with: pytest --update-golden
    # {"format": 2, "signals": {"arm.angle": "rad"}, "test": "test_arm.py::test_step", "end": 2.0, "rows": 2}
    t [s],arm.angle [rad]
    0.0,0.0
    0.001,1.2345678901234567e-05

The plugin is registered through the ``pytest11`` entry point, so it is loaded
by every pytest run: this module imports only the standard library and pytest
at import time; numpy and matplotlib are imported when a check runs. Outside
pytest, :func:`check_golden` and :func:`read_golden` do the same work.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from pathlib import Path

import pytest

__all__ = ["GoldenChecker", "GoldenFileError", "check_golden", "read_golden", "write_golden", "golden_path",
           "DEFAULT_RTOL", "DEFAULT_ATOL"]

#: Default relative tolerance of :meth:`GoldenChecker.check`.
DEFAULT_RTOL = 1e-6
#: Default absolute tolerance, in each signal's unit.
DEFAULT_ATOL = 1e-9

_FORMAT = 2
_FIRST_LINE = "# simcore golden file; regenerate with: pytest --update-golden"
_UNSAFE = re.compile(r"[^\w.\-\[\]=+,]")


# ---------------------------------------------------------------------------------------------
# pytest hooks and fixture
# ---------------------------------------------------------------------------------------------
_WRITTEN = pytest.StashKey[list]()


def pytest_addoption(parser):
    group = parser.getgroup("simcore", "simcore golden files")
    group.addoption("--update-golden", action="store_true", default=False, dest="update_golden",
                    help="(re)write the simcore golden files of the tests that run instead of "
                         "comparing against them")


def pytest_configure(config):
    config.stash[_WRITTEN] = []


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_sep("-", f"simcore golden: {len(written)} file(s) written")
        for p in written:
            terminalreporter.write_line(str(p))


@pytest.fixture
def golden(request) -> "GoldenChecker":
    """Compare results with this test's golden files (see :mod:`simcore.golden`)."""
    return GoldenChecker.from_request(request)


# ---------------------------------------------------------------------------------------------
# the checker
# ---------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)


def golden_path(folder, test_name: str, name: str | None = None) -> Path:
    """Path of a golden file: ``<folder>/golden/<test_name>[-<name>].csv`` (made file-name safe)."""
    stem = _safe(test_name) + (f"-{_safe(name)}" if name else "")
    return Path(folder) / "golden" / f"{stem}.csv"


class GoldenChecker:
    """What the ``golden`` fixture returns: checks results against one test's golden files.

    Parameters
    ----------
    folder : path
        Folder of the test file; files go to its ``golden/`` sub-folder.
    test_name : str
        File stem, normally the test's name.
    test_id : str
        Identity recorded in the file (``"test_file.py::test_name"``); a file
        recorded by another test is reported rather than silently shared.
    update : bool
        Write the files instead of comparing (``--update-golden``).
    written : list, optional
        Collects the paths written (for the session summary).
    """

    def __init__(self, folder, test_name: str, test_id: str, *, update: bool = False, written=None):
        self.folder = Path(folder)
        self.test_name = test_name
        self.test_id = test_id
        self.update = bool(update)
        self._written = written if written is not None else []
        self._used: set[Path] = set()

    @classmethod
    def from_request(cls, request) -> "GoldenChecker":
        path = Path(str(request.node.path if hasattr(request.node, "path") else request.node.fspath))
        name = request.node.name
        if request.cls is not None:  # the whole class path: TestFast.TestTune and TestSlow.TestTune differ
            name = f"{request.cls.__qualname__}.{name}"
        return cls(path.parent, name, f"{path.name}::{name}",
                   update=request.config.getoption("update_golden", default=False),
                   written=request.config.stash.get(_WRITTEN, None))

    def path(self, name: str | None = None) -> Path:
        """Golden file used by :meth:`check` with this ``name``."""
        return golden_path(self.folder, self.test_name, name)

    def check(self, result, signals=None, *, name: str | None = None, rtol: float = DEFAULT_RTOL,
              atol: float = DEFAULT_ATOL, tolerances=None, times=None) -> Path:
        """Compare ``signals`` of ``result`` with the golden file (or write it with ``--update-golden``).

        Parameters
        ----------
        result : simcore.result.Result
        signals : sequence of str, optional
            Signals to record and compare (default: every signal of ``result``).
        name : str, optional
            Distinguishes several golden files in one test (``<test>-<name>.csv``).
        rtol : float, optional
            Relative tolerance (dimensionless, >= 0). Default 1e-6.
        atol : float, optional
            Absolute tolerance in each signal's unit (>= 0). Default 1e-9.
        tolerances : mapping of str to (rtol, atol), optional
            Per-signal tolerances overriding ``rtol``/``atol``.
        times : array of float, optional
            Time grid to store, s (default: the result's own rows). Only used
            when writing; a coarse grid keeps long runs' files small.

        Returns
        -------
        pathlib.Path
            The golden file.

        Raises
        ------
        AssertionError
            The file is missing (and not updating), was recorded by another test
            or holds other signals, or a value is outside tolerance.
        ConfigError
            Bad arguments (unknown signal, negative tolerance, a ``name`` used
            twice in one test).
        """
        __tracebackhide__ = True
        from .errors import ConfigError

        if name is not None and (not isinstance(name, str) or not name):
            raise ConfigError("name", name, "a non-empty string or None")
        path = self.path(name)
        if path in self._used:
            raise ConfigError("name", name, "a name not used by another golden check in the same test")
        self._used.add(path)
        check_golden(result, path, signals, update=self.update, rtol=rtol, atol=atol,
                     tolerances=tolerances, times=times, test_id=self.test_id, written=self._written)
        return path

    def __repr__(self):
        return f"<GoldenChecker {self.test_id} -> {self.folder / 'golden'}{' (update)' if self.update else ''}>"


# ---------------------------------------------------------------------------------------------
# reading and writing
# ---------------------------------------------------------------------------------------------
class GoldenFileError(AssertionError):
    """A golden file that is not what :func:`write_golden` writes: malformed, cut or edited.

    An ``AssertionError``, so the test using the file fails (rather than erroring); the
    message names the file, the line and, for a bad cell, the column.

    Attributes
    ----------
    path : pathlib.Path
    line : int or None
        1-based line number.
    column : int or None
        1-based column (cell) number.
    """

    def __init__(self, path, message: str, line: int | None = None, column: int | None = None):
        self.path, self.line, self.column = Path(path), line, column
        where = str(path) + (f", line {line}" if line is not None else "") + \
            (f", column {column}" if column is not None else "")
        super().__init__(f"golden file {where}: {message}; rewrite it with pytest --update-golden "
                         f"(and review the change)")


# A cell as write_golden writes it: repr of a finite float, or nan (never inf).
_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan)\Z")


def write_golden(path, result, signals, *, times=None, test_id: str = "") -> None:
    """Write ``signals`` of ``result`` to a golden file at ``path``, atomically.

    The rows go to a new temporary file created exclusively (``O_EXCL``, a random
    name) in the destination folder, which then replaces ``path`` in one rename: an
    interrupted write leaves the old file, and no existing path or symlink (a planted
    ``<name>.tmp``, or ``path`` itself as a link) is ever written through: a symlink
    at ``path`` is replaced by the new file, its target untouched.

    Raises
    ------
    ConfigError
        A value to store is infinite (it could not be compared), or there is no row.
    """
    import tempfile

    import numpy as np

    from .errors import ConfigError

    t = np.asarray(result.t, dtype=float) if times is None else np.asarray(times, dtype=float)
    cols = [_resample(result, s, t) if times is not None else np.asarray(result[s], dtype=float)
            for s in signals]
    if t.size == 0:
        raise ConfigError("times" if times is not None else "result", t, "at least one row to record")
    for name, col in zip(["t"] + list(signals), [t] + cols):
        if np.isinf(col).any() or (name == "t" and np.isnan(col).any()):
            raise ConfigError("signals" if name != "t" else "times", name,
                              "values that are finite (or NaN for a signal) to record in a golden file")
    units = {s: result.units.get(s, "") for s in signals}
    buf = io.StringIO()
    buf.write(_FIRST_LINE + "\n")
    # "end": the recorded run's final time, so a run that got longer or shorter fails even when the
    # stored rows (times=) lie inside it; "rows": so that a file cut at a row boundary fails.
    buf.write("# " + json.dumps({"format": _FORMAT, "signals": units, "test": test_id,
                                 "end": float(result.t[-1]), "rows": int(t.size)}, ensure_ascii=False) + "\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["t [s]"] + [f"{s} [{units[s]}]" for s in signals])
    for row in zip(t, *cols):
        w.writerow([repr(float(v)) for v in row])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            f.write(buf.getvalue())
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def _read(path):
    """(header dict, times, {signal: values}) of a golden file, every line checked (GoldenFileError)."""
    __tracebackhide__ = True
    import numpy as np

    path = Path(path)
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if lines[-1] != "" and len(lines) > 3:
        # write_golden ends every line with "\n": a last line without one was cut, perhaps inside a number
        raise GoldenFileError(path, "the last line has no line end: the file was cut", len(lines))
    if lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != _FIRST_LINE:
        raise GoldenFileError(path, f"not a simcore golden file (line 1 is not {_FIRST_LINE!r})", 1)
    if len(lines) < 2 or not lines[1].startswith("# {"):
        raise GoldenFileError(path, "no JSON header", 2)
    try:
        meta = json.loads(lines[1][2:])
    except json.JSONDecodeError as exc:
        raise GoldenFileError(path, f"the JSON header does not parse ({exc.msg})", 2, exc.colno + 2) from None
    if not isinstance(meta, dict) or not isinstance(meta.get("signals"), dict):
        raise GoldenFileError(path, "the JSON header has no signals", 2)
    rows = meta.get("rows")
    if meta.get("format") != _FORMAT or isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise GoldenFileError(path, f"format {meta.get('format')!r} without a row count (written by an older "
                                    f"simcore, or edited)", 2)
    signals = list(meta["signals"])
    names = ["t [s]"] + [f"{s} [{u}]" for s, u in meta["signals"].items()]
    if len(lines) < 3 or next(csv.reader([lines[2]])) != names:
        raise GoldenFileError(path, f"the column header is not {','.join(names)}", 3)
    body = lines[3:]
    data = np.empty((len(body), len(names)))
    for k, cells in enumerate(csv.reader(body)):
        line = 4 + k
        if len(cells) != len(names):
            raise GoldenFileError(path, f"{len(cells)} cells where there are {len(names)} columns", line)
        for j, cell in enumerate(cells):
            if not _NUMBER.match(cell):
                what = "an infinite value (not comparable)" if cell.lstrip("-") == "inf" else f"{cell!r}"
                raise GoldenFileError(path, f"{what} in column {names[j]!r} is not a finite number or nan",
                                      line, j + 1)
            data[k, j] = float(cell)
    if len(body) != rows:
        raise GoldenFileError(path, f"{len(body)} data rows where the header records {rows}: the file was "
                                    f"cut or edited", 3 + min(len(body), rows) + (len(body) < rows))
    t = data[:, 0]
    if np.isnan(t).any():
        raise GoldenFileError(path, "a time that is nan", 4 + int(np.flatnonzero(np.isnan(t))[0]), 1)
    back = np.flatnonzero(np.diff(t) < 0)
    if back.size:
        raise GoldenFileError(path, f"time {float(t[back[0] + 1])!r} s after {float(t[back[0]])!r} s (rows out of "
                                    f"order)",
                              5 + int(back[0]), 1)
    return meta, t, {s: data[:, k + 1] for k, s in enumerate(signals)}


def read_golden(path):
    """Read a golden file back as a :class:`simcore.result.Result` (for plotting or inspection).

    Raises
    ------
    GoldenFileError
        The file is malformed, cut or edited (see :func:`write_golden`).
    """
    from .result import Result

    meta, t, data = _read(path)
    return Result.from_arrays(t, data, units=meta.get("signals", {}))


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------
def _resample(result, name, times):
    """Values of ``name`` at the stored ``times``, rows matched at duplicated instants.

    See the module docstring: equal multiplicity -> row for row; otherwise the
    first of a duplicated stored instant takes the left limit, others the right
    limit (:meth:`Result.sample`).
    """
    import numpy as np

    times = np.asarray(times, dtype=float)
    tn = np.asarray(result.t, dtype=float)
    y = np.asarray(result[name], dtype=float)
    out = np.asarray(result.sample(name, times), dtype=float).copy()
    if times.size == 0:
        return out
    # group rank and size of every stored row
    new_group = np.concatenate(([True], times[1:] != times[:-1]))
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.concatenate((starts, [times.size])))
    gid = np.cumsum(new_group) - 1
    rank = np.arange(times.size) - starts[gid]
    size = sizes[gid]
    lo = np.searchsorted(tn, times, side="left")
    hi = np.searchsorted(tn, times, side="right")
    m = hi - lo
    same = (m == size) & (m > 0)
    out[same] = y[(lo + rank)[same]]
    # duplicated stored instant, different multiplicity in the new result: first row = left limit
    first_dup = (~same) & (size > 1) & (rank == 0)
    if first_dup.any():
        idx = np.flatnonzero(first_dup)
        has_row = m[idx] > 0
        # an exact row exists: its first occurrence is the left limit
        out[idx[has_row]] = y[lo[idx[has_row]]]
        # otherwise the signal is continuous there (no row): interpolation already is the limit
    return out


def _check_tol(parameter, value):
    from .errors import ConfigError

    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(parameter, value, "a non-negative number") from None
    if not (math.isfinite(v) and v >= 0.0):
        raise ConfigError(parameter, value, "a finite non-negative number")
    return v


def check_golden(result, path, signals=None, *, update: bool = False, rtol: float = DEFAULT_RTOL,
                 atol: float = DEFAULT_ATOL, tolerances=None, times=None, test_id: str = "",
                 written: list | None = None) -> None:
    """Compare ``result`` with the golden file at ``path``, or write it when ``update``.

    The parameters and the comparison are those of :meth:`GoldenChecker.check`;
    ``test_id`` is recorded in the file and, when both are non-empty, must match
    on comparison (two tests sharing one file is an error).
    """
    __tracebackhide__ = True
    import numpy as np

    from .errors import ConfigError

    path = Path(path)
    if signals is None:
        signals = list(result.names)
    elif isinstance(signals, str):
        signals = [signals]
    else:
        try:
            signals = list(signals)
        except TypeError:
            raise ConfigError("signals", signals, "a sequence of signal names") from None
    if not signals:
        raise ConfigError("signals", signals, "at least one signal name")
    for s in signals:
        if not isinstance(s, str) or s not in result:
            raise ConfigError("signals", s, f"a recorded signal name, one of {', '.join(result.names)}")
    if len(set(signals)) != len(signals):
        raise ConfigError("signals", signals, "distinct signal names")
    rtol = _check_tol("rtol", rtol)
    atol = _check_tol("atol", atol)
    tol = {s: (rtol, atol) for s in signals}
    for s, pair in dict(tolerances or {}).items():
        if s not in tol:
            raise ConfigError("tolerances", s, f"one of the checked signals {signals}")
        try:
            r, a = pair
        except (TypeError, ValueError):
            raise ConfigError(f"tolerances[{s!r}]", pair, "a pair (rtol, atol)") from None
        tol[s] = (_check_tol(f"tolerances[{s!r}] rtol", r), _check_tol(f"tolerances[{s!r}] atol", a))
    fail_png = path.with_name(path.stem + "-failed.png")

    if update:
        if written is not None and any(Path(p).resolve() == path.resolve() for p in written):
            # Two tests of this session map to one file: the second would silently overwrite the
            # first, and each later comparison would fail whatever is rerun.
            try:
                other = _read(path)[0].get("test", "") if path.exists() else ""
            except GoldenFileError:
                other = ""
            raise AssertionError(f"golden file {path} was already written in this session"
                                 f"{f' by {other}' if other else ''}; two tests share one file name: give "
                                 f"one of them a distinct name= (golden.check(..., name='...'))")
        write_golden(path, result, signals, times=times, test_id=test_id)
        if written is not None:
            written.append(path)
        if fail_png.exists():
            fail_png.unlink()
        return

    if not path.exists():
        raise AssertionError(f"golden file {path} does not exist; run pytest with --update-golden "
                             f"to record it (then review and commit it)")
    meta, t_ref, ref = _read(path)
    recorded_by = meta.get("test", "")
    if test_id and recorded_by and recorded_by != test_id:
        raise AssertionError(f"golden file {path} was recorded by {recorded_by}, not {test_id}: two tests "
                             f"share one file name; give one of them a distinct name= (or rerun with "
                             f"--update-golden if the test was moved)")
    if list(ref) != signals:
        raise AssertionError(f"golden file {path} holds signals {list(ref)}, the check asks for {signals}; "
                             f"if the change is intended, rerun with --update-golden")
    units_ref = meta.get("signals", {})
    bad_units = [f"{s}: golden {units_ref.get(s, '')!r}, now {result.units.get(s, '')!r}"
                 for s in signals if units_ref.get(s, "") != result.units.get(s, "")]
    if bad_units:
        raise AssertionError(f"golden file {path}: units changed ({'; '.join(bad_units)}); "
                             f"rerun with --update-golden if intended")
    tn = np.asarray(result.t, dtype=float)
    end = meta.get("end")  # absent in files written before it was recorded
    if end is not None and float(end) != float(tn[-1]):
        raise AssertionError(f"golden file {path} was recorded from a run ending at {end!r} s; this run ends "
                             f"at {float(tn[-1])!r} s; if the change is intended, rerun with --update-golden")
    if t_ref.size and (t_ref[0] < tn[0] or t_ref[-1] > tn[-1]):
        raise AssertionError(f"golden file {path} spans [{t_ref[0]!r}, {t_ref[-1]!r}] s but the result "
                             f"spans [{tn[0]!r}, {tn[-1]!r}] s")

    report = []
    got_all = {}
    for s in signals:
        got = _resample(result, s, t_ref)
        exp = ref[s]
        got_all[s] = got
        r, a = tol[s]
        allowed = a + r * np.abs(exp)
        with np.errstate(invalid="ignore"):
            dev = np.abs(got - exp)
            both_nan = np.isnan(got) & np.isnan(exp)
            bad = ~both_nan & ~(dev <= allowed)
        if bad.any():
            idx = np.flatnonzero(bad)
            devs = np.where(np.isnan(dev[idx]), np.inf, dev[idx])
            w = int(idx[int(np.argmax(devs))])
            u = units_ref.get(s, "")
            us = f" {u}" if u else ""
            tw, ew, gw, dw, aw = (float(v) for v in (t_ref[w], exp[w], got[w], dev[w], allowed[w]))
            report.append(
                f"  {s}: {idx.size} of {t_ref.size} points outside |got-expected| <= {a!r} + {r!r}*|expected|;"
                f" worst at t={tw!r} s: expected {ew!r}{us}, got {gw!r}{us} "
                f"(deviation {dw!r}{us}, allowed {aw!r}{us}); first at t={float(t_ref[idx[0]])!r} s")
    if report:
        png = _plot_failure(fail_png, result, t_ref, ref, signals, units_ref)
        where = f"\n  overlay plot: {png}" if png else ""
        raise AssertionError(f"result differs from golden file {path}:\n" + "\n".join(report) + where +
                             "\n  if the change is intended, rerun with --update-golden")
    if fail_png.exists():
        fail_png.unlink()


def _plot_failure(png: Path, result, t_ref, ref, signals, units):
    """Overlay golden vs new for each signal; return the path, or a note if it could not be drawn."""
    try:
        import numpy as np
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        n = len(signals)
        fig = Figure(figsize=(8.0, 2.4 * n + 0.6), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
        tn = np.asarray(result.t, dtype=float)
        for ax, s in zip(axes, signals):
            ax.plot(t_ref, ref[s], color="0.2", lw=2.2, alpha=0.55, label="golden")
            ax.plot(tn, result[s], color="tab:red", lw=1.0, ls="--", label="this run")
            u = units.get(s, "")
            ax.set_ylabel(f"{s}\n[{u}]" if u else s)
            ax.grid(True, alpha=0.3)
        axes[0].legend(loc="best")
        axes[-1].set_xlabel("t [s]")
        fig.suptitle(f"{png.stem.removesuffix('-failed')}: golden vs this run")
        png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(png, dpi=100)
        return png
    except Exception as exc:  # a plot failure must not hide the deviation report
        return f"(not written: {type(exc).__name__}: {exc})"
