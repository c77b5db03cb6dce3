"""Golden files that cannot pass by accident: cut, truncated, edited or planted files fail (pytester runs)."""
import json
import os

import numpy as np
import pytest

from simcore.errors import ConfigError
from simcore.golden import GoldenFileError, read_golden, write_golden
from simcore.result import Result

# An inner test whose result is a fixed analytic ramp of 11 rows.
INNER = '''
import numpy as np
from simcore.result import Result

def test_ramp(golden):
    t = np.linspace(0.0, 1.0, 11)
    golden.check(Result.from_arrays(t, {"a.x": 3.0 * t}, units={"a.x": "m"}), ["a.x"])
'''


@pytest.fixture
def recorded(pytester):
    """The inner test, its golden file written by --update-golden, and the file's lines."""
    pytester.makepyfile(test_inner=INNER)
    pytester.runpytest("--update-golden").assert_outcomes(passed=1)
    path = pytester.path / "golden" / "test_ramp.csv"
    lines = path.read_text().split("\n")
    assert len(lines) == 3 + 11 + 1 and lines[-1] == ""  # marker, header, columns, 11 rows, final newline
    return path, lines


@pytest.fixture
def written(tmp_path):
    """The same golden file written directly (for the checks that need no pytest run)."""
    t = np.linspace(0.0, 1.0, 11)
    path = tmp_path / "test_ramp.csv"
    write_golden(path, Result.from_arrays(t, {"a.x": 3.0 * t}, units={"a.x": "m"}), ["a.x"], test_id="x")
    return path, path.read_text().split("\n")


def fails_with(pytester, *patterns):
    res = pytester.runpytest()
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(list(patterns))


def test_a_header_only_file_fails(pytester, recorded):
    path, lines = recorded
    path.write_text("\n".join(lines[:3]) + "\n")
    fails_with(pytester, "*test_ramp.csv, line 4: 0 data rows where the header records 11: the file was cut*")


@pytest.mark.parametrize("keep", [1, 10])
def test_a_file_cut_at_any_row_boundary_fails(pytester, recorded, keep):
    path, lines = recorded
    path.write_text("\n".join(lines[:3 + keep]) + "\n")
    fails_with(pytester, f"*{keep} data rows where the header records 11*")


def test_a_file_cut_inside_a_row_fails_naming_the_line(pytester, recorded):
    path, lines = recorded
    text = "\n".join(lines[:3 + 11])
    path.write_text(text[:text.rindex(",") + 2])  # the last row's value cut to its first digit
    fails_with(pytester, "*test_ramp.csv, line 14*")
    path.write_text("\n".join(lines[:3 + 10]) + "\n" + lines[13].split(",")[0] + "\n")  # the last cell missing
    fails_with(pytester, "*test_ramp.csv, line 14: 1 cells where there are 2 columns*")


def test_an_inf_cell_is_refused_naming_line_and_column(pytester, recorded):
    path, lines = recorded
    lines[3 + 4] = lines[3 + 4].split(",")[0] + ",inf"
    path.write_text("\n".join(lines))
    fails_with(pytester, "*test_ramp.csv, line 8, column 2: an infinite value (not comparable) in column "
                         "'a.x [[]m]' is not a finite number*")


@pytest.mark.parametrize("edit, where", [
    (lambda ls: ls.__setitem__(5, ls[5].replace(",", ",x")), "line 6, column 2"),      # not a number
    (lambda ls: ls.__setitem__(5, "1_0," + ls[5].split(",")[1]), "line 6, column 1"),  # float() would take it
    (lambda ls: ls.__setitem__(1, ls[1][:-3]), "line 2"),                             # broken JSON
    (lambda ls: ls.__setitem__(2, "t [s],a.x [mm]"), "line 3"),                       # column header
    (lambda ls: ls.insert(6, ls.pop(5)), "line 7, column 1: time 0.2 s after 0.3"),   # rows swapped
    (lambda ls: ls.insert(6, ""), "line 7: 0 cells"),                                 # a blank line
])
def test_a_malformed_file_names_file_line_and_column(written, edit, where):
    path, lines = written
    edit(lines)
    path.write_text("\n".join(lines))
    with pytest.raises(GoldenFileError, match=rf"test_ramp.csv, {where}"):
        read_golden(path)


def test_a_file_without_a_row_count_must_be_rewritten(written):
    path, lines = written
    header = json.loads(lines[1][2:])
    del header["rows"]
    header["format"] = 1
    lines[1] = "# " + json.dumps(header)
    path.write_text("\n".join(lines))
    with pytest.raises(GoldenFileError, match=r"line 2: format 1 without a row count.*--update-golden"):
        read_golden(path)


def test_a_planted_symlink_is_never_written_through(pytester, recorded):
    path, lines = recorded
    victim = pytester.path / "victim.txt"
    victim.write_text("precious")
    # the name the previous writer used for its temporary file, and the golden file itself, as links
    (path.parent / (path.name + ".tmp")).symlink_to(victim)
    other = path.parent / "test_other.csv"
    other.symlink_to(victim)
    pytester.makepyfile(test_other='''
import numpy as np
from simcore.result import Result
def test_other(golden):
    golden.check(Result.from_arrays(np.array([0.0, 1.0]), {"a.x": np.array([0.0, 1.0])}))
''')
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    assert victim.read_text() == "precious"
    assert not other.is_symlink() and read_golden(other)["a.x"].tolist() == [0.0, 1.0]
    assert (path.parent / (path.name + ".tmp")).is_symlink()  # left alone, not followed
    leftovers = [p.name for p in path.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # the temporary files were renamed into place
    pytester.runpytest().assert_outcomes(passed=2)


def test_write_refuses_infinite_values_and_read_refuses_what_it_did_not_write(tmp_path):
    t = np.array([0.0, 1.0])
    with pytest.raises(ConfigError, match="finite"):
        write_golden(tmp_path / "x.csv", Result.from_arrays(t, {"a.x": np.array([0.0, np.inf])}), ["a.x"])
    assert not (tmp_path / "x.csv").exists()
    write_golden(tmp_path / "x.csv", Result.from_arrays(t, {"a.x": np.array([0.0, np.nan])}), ["a.x"])
    assert np.isnan(read_golden(tmp_path / "x.csv")["a.x"][1])  # a recorded NaN reads back
    (tmp_path / "y.csv").write_text("t,a.x\n0.0,1.0\n")
    with pytest.raises(GoldenFileError, match=r"y.csv, line 1: not a simcore golden file") as ei:
        read_golden(tmp_path / "y.csv")
    assert (ei.value.line, ei.value.column) == (1, None) and isinstance(ei.value, AssertionError)


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    t = np.linspace(0.0, 1.0, 3)
    path = tmp_path / "x.csv"
    write_golden(path, Result.from_arrays(t, {"a.x": t}), ["a.x"])
    before = path.read_bytes()

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_golden(path, Result.from_arrays(t, {"a.x": 2 * t}), ["a.x"])
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]
