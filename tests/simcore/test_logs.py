"""WPILOG and AdvantageScope CSV files: round trips through wpiutil's own reader, robot logs read as Results."""
import json
import math

import numpy as np
import pytest

import simcore
import simcore.models as models
import simcore.sysid
from simcore import ConfigError
from simcore.controllers import PIDController, control_loop
from simcore.extras import MissingExtraError
from simcore.golden import check_golden, write_golden
from simcore.logs import TIME_ENTRY, entry_name, read_wpilog, signal_name
from simcore.models.motors import NEO
from simcore.testing import expect

wpilog = pytest.importorskip("wpiutil.log", reason="the wpilog extra (robotpy-wpiutil) is not installed")


@pytest.fixture(scope="module")
def arm_run():
    """An arm under PID on a battery, with a hard stop hit and stiction: ticks, events and modes."""
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-0.2, max_angle=0.8, static_friction=0.3,
                     start_angle=-0.2)
    loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0)
    return simcore.simulate([arm, models.Battery()], 0.6, [loop])


def _records(path):
    """{entry name: (type, metadata, [timestamps], [values])} through wpiutil's DataLogReader."""
    out, ids = {}, {}
    for rec in wpilog.DataLogReader(str(path)):
        if rec.isStart():
            d = rec.getStartData()
            ids[d.entry] = d.name
            out[d.name] = (d.type, d.metadata, [], [])
        elif not rec.isControl():
            typ, _, stamps, values = out[ids[rec.getEntry()]]
            stamps.append(rec.getTimestamp())
            values.append(rec.getString() if typ == "string" else rec.getDouble())
    return out


def test_wpilog_round_trip_keeps_every_row_value_unit_input_and_mode(arm_run, tmp_path):
    r = arm_run
    assert r.events and r.t[0] == 0.0 and np.any(np.diff(r.t) == 0.0)  # a run with events and tick rows
    path = tmp_path / "arm.wpilog"
    r.to_wpilog(path)
    back = read_wpilog(path)
    assert np.array_equal(back.t, r.t)
    assert sorted(back.names) == sorted(r.names)
    for n in r.names:
        np.testing.assert_allclose(back[n], r[n], rtol=1e-12, atol=1e-12, err_msg=n)
        assert back.units.get(n, "") == r.units.get(n, ""), n
    assert back.input_names == r.input_names
    assert back.modes == {s: [str(m) for m in modes] for s, modes in r.modes.items()}


def test_wpilog_entries_as_wpiutil_reads_them(arm_run, tmp_path):
    r = arm_run
    path = tmp_path / "arm.wpilog"
    r.to_wpilog(path, ["arm.angle", "arm.stator_current", "arm.torque", "arm.voltage", "arm.saturated"])
    rec = _records(path)
    assert set(rec) == {TIME_ENTRY, "/arm/angle", "/arm/stator_current", "/arm/torque", "/arm/voltage",
                        "/arm/saturated", "/arm/mode", "/battery/mode"}
    typ, meta, stamps, values = rec["/arm/angle"]
    assert typ == "double" and json.loads(meta) == {"unit": "radians"}
    # A zero timestamp means "now" to the writer: the t = 0 rows are stamped 1 us, every row shifted by 1 us.
    assert stamps[0] == 1 and len(stamps) == len(r.t)
    np.testing.assert_array_equal(stamps, np.rint(r.t * 1e6).astype(int) + 1)
    assert values == r["arm.angle"].tolist()
    assert json.loads(rec["/arm/stator_current"][1]) == {"unit": "amps"}
    assert json.loads(rec["/arm/torque"][1]) == {"unit": "N*m"}  # no AdvantageScope word: pint's string
    assert json.loads(rec["/arm/voltage"][1]) == {"unit": "volts", "input": True}
    assert json.loads(rec["/arm/saturated"][1]) == {}
    assert rec[TIME_ENTRY][3] == r.t.tolist()
    assert rec["/arm/mode"][0] == "string" and rec["/arm/mode"][3] == [str(m) for m in r.modes["arm"]]


def test_entry_names_and_their_inverse():
    assert entry_name("arm.angle") == "/arm/angle"
    assert signal_name("/arm/angle") == "arm.angle"
    assert signal_name("/Drive/Left/Velocity") == "Drive.Left/Velocity"
    assert signal_name(entry_name("drive.left_velocity")) == "drive.left_velocity"


def _advantagescope_rows(text):
    """AdvantageScope's CSV reader, as its source describes it: rows split on \\n, cells on ',', a first
    header cell starting with 'Timestamp', every row as many cells as the header, every cell parsed as JSON."""
    rows = text.split("\n")
    if not rows[0].startswith("Timestamp"):
        raise ValueError(f"Could not recognize columns: {rows[0]}")
    keys = rows[0].split(",")
    out = []
    for row in rows[1:]:
        if not row:
            continue
        cells = row.split(",")
        if len(cells) != len(keys):
            raise ValueError(f"Invalid number of columns (expected {len(keys)}): {len(cells)}")
        out.append([json.loads(c) for c in cells])
    return keys, out


def test_advantagescope_csv_is_accepted_by_its_reader(arm_run, tmp_path):
    r = arm_run
    path = tmp_path / "arm.csv"
    r.to_csv(path, ["arm.angle", "arm.voltage", "battery.voltage"], layout="advantagescope")
    keys, rows = _advantagescope_rows(path.read_text())
    assert keys == ["Timestamp", "/arm/angle", "/arm/voltage", "/battery/voltage"]
    values = np.array(rows)
    assert values.shape == (len(r.t), 4)
    np.testing.assert_array_equal(values[:, 0], r.t)
    np.testing.assert_array_equal(values[:, 1], r["arm.angle"])
    # the default layout keeps its own header, which AdvantageScope refuses
    r.to_csv(tmp_path / "plain.csv", ["arm.angle"])
    with pytest.raises(ValueError, match="Could not recognize columns"):
        _advantagescope_rows((tmp_path / "plain.csv").read_text())


def test_advantagescope_csv_refuses_what_its_reader_cannot_parse(tmp_path):
    r = simcore.Result([0.0, 1.0], {"a.x": [0.0, math.nan], "a,b.y": [1.0, 2.0]})
    with pytest.raises(ConfigError, match="a.x at row 1"):
        r.to_csv(tmp_path / "x.csv", ["a.x"], layout="advantagescope")
    with pytest.raises(ConfigError, match="commas"):
        r.to_csv(tmp_path / "x.csv", ["a,b.y"], layout="advantagescope")
    with pytest.raises(ConfigError, match="layout"):
        r.to_csv(tmp_path / "x.csv", layout="excel")


def _robot_log(path):
    """A log as a robot writes it: entries at their own rates, an int, a boolean, units in metadata or none."""
    import wpiutil

    w = wpiutil.DataLogWriter(str(path))
    pos = w.start("/Arm/PositionDeg", "double", "", 1)
    volts = w.start("/Arm/Volts", "double", json.dumps({"unit": "volts"}), 1)
    count = w.start("/Arm/Count", "int64", "", 1)
    flag = w.start("/Arm/AtGoal", "boolean", "", 1)
    text = w.start("/Arm/State", "string", "", 1)
    for k in range(5):  # 50 Hz from 20 ms
        w.appendDouble(pos, 10.0 * k, 20_000 * (k + 1))
    for k in range(3):  # 25 Hz from 30 ms
        w.appendDouble(volts, 1.5 * k, 30_000 + 40_000 * k)
    w.appendInteger(count, 7, 25_000)
    w.appendBoolean(flag, True, 90_000)
    w.appendString(text, "idle", 20_000)
    w.flush()
    w.stop()


def test_a_robot_log_reads_on_the_union_grid_with_each_signal_held(tmp_path):
    path = tmp_path / "robot.wpilog"
    _robot_log(path)
    r = read_wpilog(path, {"/Arm/PositionDeg": ("arm.angle", "deg"), "/Arm/Volts": "arm.voltage",
                           "/Arm/Count": "arm.count"})
    # the latest first record is /Arm/Volts at 30 ms; the grid is every stamp from there on
    np.testing.assert_array_equal(r.t, [0.03, 0.04, 0.06, 0.07, 0.08, 0.1, 0.11])
    np.testing.assert_allclose(r["arm.angle"], np.radians([0, 10, 20, 20, 30, 40, 40]), rtol=1e-15)
    np.testing.assert_array_equal(r["arm.voltage"], [0.0, 0.0, 0.0, 1.5, 1.5, 1.5, 3.0])
    np.testing.assert_array_equal(r["arm.count"], [7.0] * 7)
    assert r.units == {"arm.angle": "rad", "arm.voltage": "V"}
    default = read_wpilog(path)  # every numeric entry, named system.signal; the string is left out
    assert sorted(default.names) == ["Arm.AtGoal", "Arm.Count", "Arm.PositionDeg", "Arm.Volts"]
    assert default.t[0] == 0.09 and default.final("Arm.AtGoal") == 1.0


def test_read_wpilog_names_what_is_wrong(tmp_path):
    path = tmp_path / "robot.wpilog"
    _robot_log(path)
    with pytest.raises(ConfigError, match="an entry of the log"):
        read_wpilog(path, {"/Arm/Nope": "arm.x"})
    with pytest.raises(ConfigError, match="numeric"):
        read_wpilog(path, {"/Arm/State": "arm.state"})
    with pytest.raises(ConfigError, match="distinct"):
        read_wpilog(path, {"/Arm/Volts": "a.x", "/Arm/Count": "a.x"})
    with pytest.raises(ConfigError, match="unit pint understands"):
        read_wpilog(path, {"/Arm/Volts": ("a.x", "bogons")})
    for bad in ("", "arm angle", "arm.", ".angle", "arm"):
        with pytest.raises(ConfigError, match="system.signal"):
            read_wpilog(path, {"/Arm/Volts": bad})
    (tmp_path / "not.wpilog").write_bytes(b"nothing here")
    with pytest.raises(ConfigError, match="WPILOG"):
        read_wpilog(tmp_path / "not.wpilog")


def test_a_log_is_the_reference_of_a_golden_check_and_of_expect(arm_run, tmp_path):
    r = arm_run
    r.to_wpilog(tmp_path / "robot.wpilog", ["arm.angle", "arm.stator_current"])
    log = read_wpilog(tmp_path / "robot.wpilog")
    golden = tmp_path / "golden.csv"
    write_golden(golden, log, ["arm.angle", "arm.stator_current"])
    check_golden(r, golden, ["arm.angle", "arm.stator_current"], rtol=0, atol=0)
    arm = models.Arm(NEO, 100, mass=2.1, com_distance=0.3, min_angle=-0.2, max_angle=0.8, static_friction=0.3,
                     start_angle=-0.2)  # 5 % heavier: the log must tell
    loop = control_loop(PIDController(40.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=1.0)
    other = simcore.simulate([arm, models.Battery()], 0.6, [loop])
    with pytest.raises(AssertionError, match="arm.angle"):
        check_golden(other, golden, ["arm.angle", "arm.stator_current"], rtol=1e-6, atol=1e-9)
    expect(log, "arm.angle", 0.8, initial=-0.2).settles_within(0.6)


def test_without_wpiutil_the_error_names_the_extra(monkeypatch, arm_run, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "wpiutil", None)
    monkeypatch.setitem(sys.modules, "wpiutil.log", None)
    with pytest.raises(MissingExtraError, match=r"simcore\[wpilog\]") as info:
        arm_run.to_wpilog(tmp_path / "x.wpilog")
    assert isinstance(info.value, ImportError) and "Result.to_wpilog" in str(info.value)
    with pytest.raises(MissingExtraError, match="read_wpilog"):
        read_wpilog(tmp_path / "x.wpilog")
    with pytest.raises(MissingExtraError, match=r"sysid.fit.*pip install -e \"\.\[wpilog\]\""):
        simcore.sysid.fit(tmp_path / "x.wpilog")

    def no_simulation(*args):
        raise AssertionError("sysid.run simulated before it checked the extra its log needs")

    monkeypatch.setattr(simcore.Simulator, "advance", no_simulation)
    with pytest.raises(MissingExtraError, match=r"sysid.run\(log=...\)"):
        simcore.sysid.run(simcore.sysid.flywheel(0.2, 0.12, 0.01), log=tmp_path / "s.wpilog")


def test_a_log_of_several_megabytes_is_written_and_reads_back_through_wpiutil(tmp_path):
    """wpiutil 2026.2.2's writer deadlocks when its buffers fill before a flush (about 1 MB of records):
    a 60,000-row log of 4 signals and a mode string entry (about 5 MB) is written in a child process, so a
    hang fails the test at the timeout instead of hanging the suite."""
    import subprocess
    import sys

    n = 60_000
    path = tmp_path / "long.wpilog"
    code = (
        "import numpy as np, simcore\n"
        f"n = {n}\n"
        "i = np.arange(n)\n"
        "r = simcore.Result(i * 1e-3, {f's.x{k}': np.sin(i * (k + 1) * 1e-3) for k in range(4)},\n"
        "                   modes={'s': ['moving' if j % 3 else 'stuck' for j in range(n)]})\n"
        f"r.to_wpilog({str(path)!r})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=180, cwd=tmp_path)
    assert path.stat().st_size > 4_000_000
    recs = _records(path)
    i = np.arange(n)
    stamps = np.rint(i * 1e-3 * 1e6).astype(np.int64) + 1  # the module's documented stamp rule
    for k in range(4):
        typ, _, ts, values = recs[f"/s/x{k}"]
        assert typ == "double"
        assert np.array_equal(ts, stamps)
        assert np.array_equal(values, np.sin(i * (k + 1) * 1e-3))
    typ, _, ts, modes = recs["/s/mode"]
    assert typ == "string" and len(modes) == n
    assert modes[:4] == ["stuck", "moving", "moving", "stuck"] and modes[-1] == ("stuck" if (n - 1) % 3 == 0
                                                                                 else "moving")
