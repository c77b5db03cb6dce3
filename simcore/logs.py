"""Robot log files: a simulation written as WPILOG or AdvantageScope CSV, a robot's WPILOG read as a Result.

The contract
------------
**Entry names.** Signal ``"<system>.<signal>"`` is the WPILOG entry (and the
AdvantageScope key) ``"/<system>/<signal>"``; AdvantageScope's key tree splits
names on ``/``, so each system is a folder. Reading a log back maps an entry
``"/a/b/c"`` to the signal ``"a.b/c"`` (the first path component is the system)
unless a ``mapping`` says otherwise.

**WPILOG** (:func:`write_wpilog`, ``Result.to_wpilog``), written with
robotpy-wpiutil's ``DataLogWriter`` (the ``wpilog`` extra):

* one ``double`` entry per signal, one record per row of the result (a tick's or
  an event's two rows are two records with one timestamp, in order);
* each entry's metadata is JSON: ``{"unit": ...}`` in words AdvantageScope
  recognises (``"radians per second"``, ``"volts"``, ``"amps"``; see
  :data:`ADVANTAGESCOPE_UNITS`), else the pint unit string (``"N*m"``), plus
  ``"input": true`` for held inputs;
* timestamps are integer microseconds: ``round(t * 1e6) + 1``. The writer reads a
  timestamp of 0 as "now", so the whole log is shifted by 1 µs to keep the
  t = 0 row (a run starting before t = 0 is shifted to start at 1 µs instead);
* the exact times, to the last bit, are the ``double`` entry ``/simcore/time``
  (metadata ``{"unit": "seconds", "simcore": "time"}``), and each system's
  discrete mode a ``string`` entry ``/<system>/mode`` (``"simcore": "mode"``).
  AdvantageScope shows them as ordinary fields.

Read back with :func:`read_wpilog`, such a log gives the same Result: the same
rows, every value bit for bit, the units, the input flags and the modes. Not
the event records (``Result.events``): WPILOG has no place for them, and the log
keeps only each event's rows before and after.

**A robot's WPILOG** (:func:`read_wpilog`): numeric entries (``double``,
``float``, ``int64``, ``boolean`` as 0/1) become signals (float64: an ``int64``
above 2**53 in magnitude is rounded). Their records come at
their own times, so the Result's grid is the union of the selected entries'
timestamps (s) from the latest first record on (before it some signal has no
value yet), and each signal holds its last logged value between its records, as
AdvantageScope draws it. A timestamp logged twice keeps its last record. Units
come from the metadata's ``"unit"``/``"units"`` (words mapped back through
:data:`ADVANTAGESCOPE_UNITS`); a ``mapping`` value ``(name, unit)`` instead
declares the unit the robot logged and converts the values to the matching SI
unit (``("arm.angle", "deg")`` becomes radians), so a robot log and a simulation
share names and units: overlay them in a plot, make the log the reference of a
golden file (:func:`simcore.golden.write_golden`), or run ``expect`` on it.

**AdvantageScope CSV** (:func:`write_csv` with ``layout="advantagescope"``):
AdvantageScope's CSV reader recognises a file whose first header cell is
``Timestamp`` (seconds) followed by one key per column, splits rows on ``\\n``
and cells on ``,`` (no quoting), and parses every cell as JSON. So: ``\\n`` line
ends, keys ``/<system>/<signal>`` (no commas), one row per result row, finite
values only (JSON has no NaN). The format carries no units; use WPILOG for those.
"""
from __future__ import annotations

import csv
import json
from typing import Mapping, Sequence

import numpy as np

from .errors import ConfigError, ConfigTypeError
from .extras import require

__all__ = ["write_wpilog", "read_wpilog", "write_csv", "entry_name", "signal_name", "ADVANTAGESCOPE_UNITS",
           "TIME_ENTRY", "LAYOUTS"]

#: simcore's unit strings and the words AdvantageScope's unit-aware graphs recognise in metadata.
ADVANTAGESCOPE_UNITS = {
    "rad": "radians", "rad/s": "radians per second", "rad/s**2": "radians per second squared",
    "m": "meters", "m/s": "meters per second", "m/s**2": "meters per second squared",
    "s": "seconds", "V": "volts", "A": "amps", "W": "watts", "J": "joules", "Hz": "hertz", "deg": "degrees",
}
_FROM_WORDS = {v: k for k, v in ADVANTAGESCOPE_UNITS.items()}

#: The entry holding a simulation's exact time grid.
TIME_ENTRY = "/simcore/time"
#: ``layout=`` values of :func:`write_csv`.
LAYOUTS = ("simcore", "advantagescope")

#: Written as the DataLog's extra header, so a reader can tell a simcore log.
_HEADER = json.dumps({"writer": "simcore", "format": 1})
_NUMERIC_TYPES = ("double", "float", "int64", "boolean")


def entry_name(signal: str) -> str:
    """The WPILOG entry / AdvantageScope key of ``"system.signal"``: ``"/system/signal"``."""
    system, dot, rest = signal.partition(".")
    return f"/{system}/{rest}" if dot else f"/{signal}"


def signal_name(entry: str) -> str:
    """The signal an entry ``"/a/b/c"`` reads back as: ``"a.b/c"`` (the first component is the system)."""
    path = entry[1:] if entry.startswith("/") else entry
    system, slash, rest = path.partition("/")
    return f"{system}.{rest}" if slash else path


def _metadata(unit: str, **extra) -> str:
    meta = {}
    if unit:
        meta["unit"] = ADVANTAGESCOPE_UNITS.get(unit, unit)
    meta.update(extra)
    return json.dumps(meta)


def _names(result, names, parameter="names") -> list:
    if names is None:
        return list(result.names)
    if isinstance(names, str):
        names = [names]
    try:
        names = list(names)
    except TypeError:
        raise ConfigTypeError(parameter, names, "a sequence of signal names") from None
    for n in names:
        if not isinstance(n, str) or n not in result:
            raise ConfigError(parameter, n, f"a recorded signal, one of {', '.join(result.names)}")
    return names


def _timestamps_us(t: np.ndarray) -> np.ndarray:
    """Integer microsecond stamps of times ``t`` (s): ``round(t * 1e6) + 1``, shifted to start >= 1."""
    us = np.rint(np.asarray(t, dtype=float) * 1e6).astype(np.int64)
    shift = 1 - min(0, int(us[0])) if us.size else 1
    return us + shift


# wpiutil 2026.2.2's DataLogWriter holds its records in a bounded pool of buffers (about
# 1 MB) and, when an append finds the pool full, deadlocks: its flush waits on the lock
# the append already holds, and the file stays empty. Measured: 984 KB of records
# without a flush are written, 1.05 MB hang; flushing every ~140 KB wrote 112 MB.
# So the writer flushes once _FLUSH_BYTES have been appended (less than 256 KiB pending).
_FLUSH_BYTES = 1 << 17
#: Largest record of one double: header byte, entry id, payload size and timestamp
#: (up to 4 + 4 + 8 bytes) and the 8-byte value.
_DOUBLE_RECORD_BYTES = 25


class _Writer:
    """A DataLogWriter with one method per entry kind (wpiutil imported on use), flushed as it fills."""

    def __init__(self, path, feature: str):
        wpiutil = require("wpiutil", "wpilog", feature)
        self._log = wpiutil.DataLogWriter(str(path), _HEADER)
        self._unflushed = 0  # bytes appended since the last flush (an upper bound)

    def _count(self, nbytes: int) -> None:
        self._unflushed += nbytes
        if self._unflushed >= _FLUSH_BYTES:
            self._log.flush()
            self._unflushed = 0

    def start(self, name: str, kind: str, metadata: str) -> int:
        self._count(_DOUBLE_RECORD_BYTES + len(name.encode()) + len(kind.encode()) + len(metadata.encode()))
        return self._log.start(name, kind, metadata, 1)

    def doubles(self, entry: int, values, stamps) -> None:
        append = self._log.appendDouble
        chunk = _FLUSH_BYTES // _DOUBLE_RECORD_BYTES
        values, stamps = values.tolist(), stamps.tolist()
        for i in range(0, len(values), chunk):
            for v, ts in zip(values[i:i + chunk], stamps[i:i + chunk]):
                append(entry, v, ts)
            self._count(_DOUBLE_RECORD_BYTES * len(values[i:i + chunk]))

    def strings(self, entry: int, values, stamps) -> None:
        append, count = self._log.appendString, self._count
        for v, ts in zip(values, stamps.tolist()):
            append(entry, v, ts)
            count(_DOUBLE_RECORD_BYTES + len(v.encode()))

    def close(self) -> None:
        self._log.flush()
        self._log.stop()
        del self._log


def write_wpilog(result, path, names: Sequence[str] | None = None) -> None:
    """Write ``names`` of ``result`` (all by default) to a WPILOG file (see the module docstring).

    Parameters
    ----------
    result : Result
    path : str or path-like
        File to write (overwritten).
    names : sequence of str, optional
        Signals to write, ``"system.signal"``; default every signal.

    Raises
    ------
    MissingExtraError
        robotpy-wpiutil is not installed (the ``wpilog`` extra).
    ConfigError
        An unknown signal name, or a signal that would collide with a mode entry.
    """
    names = _names(result, names)
    t = np.asarray(result.t, dtype=float)
    stamps = _timestamps_us(t)
    entries = [entry_name(n) for n in names]
    mode_entries = {entry_name(f"{s}.mode"): s for s in result.modes}
    for n, e in zip(names, entries):
        if e in mode_entries or e == TIME_ENTRY:
            raise ConfigError("names", n, f"a signal whose entry {e!r} is not simcore's own (modes, time)")
    w = _Writer(path, "Result.to_wpilog")
    try:
        w.doubles(w.start(TIME_ENTRY, "double", _metadata("s", simcore="time")), t, stamps)
        for n, e in zip(names, entries):
            extra = {"input": True} if n in result.input_names else {}
            column = np.asarray(result[n], dtype=float)
            w.doubles(w.start(e, "double", _metadata(result.units.get(n, ""), **extra)), column, stamps)
        for e, system in mode_entries.items():
            modes = [str(m) for m in result.modes[system]]
            if len(modes) == len(t):
                w.strings(w.start(e, "string", json.dumps({"simcore": "mode"})), modes, stamps)
    finally:
        w.close()


# ---------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------
class _Entry:
    __slots__ = ("name", "type", "metadata", "stamps", "values")

    def __init__(self, name, type_, metadata):
        self.name, self.type, self.metadata = name, type_, metadata
        self.stamps: list = []
        self.values: list = []


def _read_entries(path, feature: str = "simcore.logs.read_wpilog") -> dict:
    log = require("wpiutil.log", "wpilog", feature)
    reader = log.DataLogReader(str(path))
    if not reader.isValid():
        raise ConfigError("path", str(path), "a WPILOG file (WPILib DataLog)")
    by_id: dict[int, _Entry] = {}
    by_name: dict[str, _Entry] = {}
    getters = {"double": "getDouble", "float": "getFloat", "int64": "getInteger", "boolean": "getBoolean",
               "string": "getString"}
    for rec in reader:
        if rec.isStart():
            d = rec.getStartData()
            entry = by_name.get(d.name) or _Entry(d.name, d.type, d.metadata)
            by_id[d.entry] = by_name[d.name] = entry
        elif rec.isSetMetadata():
            d = rec.getSetMetadataData()
            if d.entry in by_id:
                by_id[d.entry].metadata = d.metadata
        elif not rec.isControl():
            entry = by_id.get(rec.getEntry())
            if entry is None or entry.type not in getters:
                continue
            entry.stamps.append(rec.getTimestamp())
            entry.values.append(getattr(rec, getters[entry.type])())
    return by_name


def _meta(entry) -> dict:
    try:
        meta = json.loads(entry.metadata) if entry.metadata else {}
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _unit_of(meta: dict) -> str:
    for key in ("unit", "units", "Unit", "Units"):
        unit = meta.get(key)
        if isinstance(unit, str):
            return _FROM_WORDS.get(unit, unit)
    return ""


#: The SI units a declared unit is converted to (first match of its dimension wins).
_SI = ("rad/s**2", "rad/s", "rad", "m/s**2", "m/s", "m", "s", "V", "A", "W", "J", "N*m", "N", "kg*m**2", "kg", "ohm")
#: Angles are dimensionless to pint; a unit naming one of these is an angle (else a ratio, left as given).
_ANGLE_WORDS = ("rad", "deg", "turn", "rev", "rot", "arcmin", "arcsec", "grad")


def _to_si(parameter, values: np.ndarray, unit: str):
    """``values`` in ``unit`` converted to the SI unit of the same dimension (angles to rad, rad/s, rad/s²)."""
    from .units import ureg

    try:
        given = ureg.Unit(unit)
    except Exception:
        raise ConfigError(parameter, unit, "a unit pint understands (\"deg\", \"rad/s\", \"inch\", ...)") from None
    angular = any(w in f"{given:D}" for w in _ANGLE_WORDS)
    for si in _SI:
        target = ureg.Unit(si)
        if target.dimensionality != given.dimensionality or (si.startswith("rad") != angular):
            continue
        return ureg.Quantity(values, given).to(target).magnitude, si
    return values, unit


def _parse_mapping(mapping, entries: dict) -> list:
    """[(entry, signal name, declared unit or None)] from ``mapping``."""
    if mapping is None:
        out = []
        for e in entries.values():
            if e.type in _NUMERIC_TYPES and _meta(e).get("simcore") is None:
                out.append((e, signal_name(e.name), None))
        return out
    if not isinstance(mapping, Mapping):
        raise ConfigTypeError("mapping", mapping, "a mapping of entry name to signal name (or (name, unit))")
    out = []
    for key, value in mapping.items():
        e = entries.get(key)
        if e is None:
            raise ConfigError("mapping", key, f"an entry of the log, one of {', '.join(entries)}")
        if e.type not in _NUMERIC_TYPES:
            raise ConfigError(f"mapping[{key!r}]", e.type, f"a numeric entry ({', '.join(_NUMERIC_TYPES)})")
        if isinstance(value, str):
            out.append((e, value, None))
        elif isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, str) for v in value):
            out.append((e, value[0], value[1]))
        else:
            raise ConfigTypeError(f"mapping[{key!r}]", value, "a signal name, or a (signal name, unit) pair")
        system, dot, signal = out[-1][1].partition(".")
        if not (system and dot and signal) or any(c.isspace() for c in out[-1][1]):
            raise ConfigError(f"mapping[{key!r}]", out[-1][1], "a signal name \"system.signal\" without spaces")
    names = [name for _, name, _ in out]
    if len(set(names)) != len(names):
        raise ConfigError("mapping", names, "distinct signal names")
    return out


def read_wpilog(path, mapping: Mapping | None = None):
    """A WPILOG file as a :class:`~simcore.result.Result` (see the module docstring).

    Parameters
    ----------
    path : str or path-like
    mapping : mapping, optional
        Entry name to signal name (``{"/Arm/Position": "arm.angle"}``), or to a
        pair ``(signal name, unit logged)`` to convert to SI; only the mapped
        entries are read. Default: every numeric entry, named by
        :func:`signal_name`.

    Returns
    -------
    Result

    Raises
    ------
    MissingExtraError
        robotpy-wpiutil is not installed (the ``wpilog`` extra).
    ConfigError
        Not a WPILOG file, an unknown or non-numeric entry in ``mapping``, or no
        numeric record to read.
    """
    from .result import Result

    entries = _read_entries(path)
    chosen = _parse_mapping(mapping, entries)
    chosen = [c for c in chosen if c[0].stamps] if mapping is None else chosen
    if not chosen:
        raise ConfigError("path", str(path), "a log with at least one numeric entry with records")
    for e, _, _ in chosen:
        if not e.stamps:
            raise ConfigError("mapping", e.name, "an entry with at least one record")
    time = next((e for e in entries.values() if _meta(e).get("simcore") == "time"), None)
    aligned = time is not None and all(len(e.values) == len(time.values) for e, _, _ in chosen)
    if aligned:
        t = np.asarray(time.values, dtype=float)
        columns = [np.asarray(e.values, dtype=float) for e, _, _ in chosen]
    else:
        t, columns = _union_grid([e for e, _, _ in chosen])
    data, units, inputs = {}, {}, []
    for (e, name, declared), column in zip(chosen, columns):
        meta = _meta(e)
        if declared is not None:
            column, unit = _to_si(f"mapping[{e.name!r}]", column, declared)
        else:
            unit = _unit_of(meta)
        data[name] = column
        if unit:
            units[name] = unit
        if meta.get("input") is True:
            inputs.append(name)
    modes = {}
    if aligned:
        for e in entries.values():
            if _meta(e).get("simcore") == "mode" and len(e.values) == len(t):
                modes[signal_name(e.name).rpartition(".")[0]] = list(e.values)
    return Result(t, data, units=units, input_names=inputs, modes=modes)


def _union_grid(entries) -> tuple:
    """Grid (s) of every entry's timestamps from the latest first record on; each column held between records."""
    start = max(e.stamps[0] for e in entries)
    stamps = np.unique(np.concatenate([np.asarray(e.stamps, dtype=np.int64) for e in entries]))
    stamps = stamps[stamps >= start]
    columns = []
    for e in entries:
        s = np.asarray(e.stamps, dtype=np.int64)
        v = np.asarray(e.values, dtype=float)
        order = np.argsort(s, kind="stable")  # records are usually in order; a stable sort keeps the last of a tie last
        s, v = s[order], v[order]
        columns.append(v[np.searchsorted(s, stamps, side="right") - 1])
    return stamps / 1e6, columns


# ---------------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------------
def write_csv(result, path, names: Sequence[str] | None = None, *, layout: str = "simcore") -> None:
    """Write the time grid and ``names`` of ``result`` (all by default) as CSV.

    Parameters
    ----------
    result : Result
    path : str or path-like
    names : sequence of str, optional
    layout : {"simcore", "advantagescope"}
        ``"simcore"``: header ``t [s]`` then ``name [unit]``, every float as its
        ``repr``. ``"advantagescope"``: header ``Timestamp`` then
        ``/system/signal`` keys, ``\\n`` line ends, finite values only (see the
        module docstring).

    Raises
    ------
    ConfigError
        An unknown ``layout`` or signal; for AdvantageScope a key with a comma or
        a non-finite value (its reader parses each cell as JSON).
    """
    if layout not in LAYOUTS:
        raise ConfigError("layout", layout, f"one of {', '.join(map(repr, LAYOUTS))}")
    names = _names(result, names)
    cols = [np.asarray(result.t, dtype=float)] + [np.asarray(result[n], dtype=float) for n in names]
    if layout == "simcore":
        header = ["t [s]"] + [f"{n} [{result.units.get(n, '')}]" for n in names]
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            for row in zip(*cols):
                w.writerow([repr(float(v)) for v in row])
        return
    keys = [entry_name(n) for n in names]
    for n, k in zip(names, keys):
        if "," in k or "\n" in k:
            raise ConfigError("names", n, "a name without commas or line breaks (AdvantageScope splits on them)")
    for n, c in zip(["t"] + names, cols):
        bad = ~np.isfinite(c)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ConfigError(f"{n} at row {i}", float(c[i]), "finite values (AdvantageScope parses cells as JSON)")
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(",".join(["Timestamp"] + keys) + "\n")
        for row in zip(*(c.tolist() for c in cols)):
            f.write(",".join(map(repr, row)) + "\n")
