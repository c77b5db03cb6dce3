"""simcore.golden: the pytest plugin, exercised in inner pytest runs (pytester)."""
import math

import numpy as np
import pytest

from simcore.errors import ConfigError
from simcore.golden import _resample, check_golden, read_golden, write_golden
from simcore.result import Result

# The inner test file: a "simulation" that is an analytic first-order step with a
# gain read from GAIN (edited between runs), plus a held input with a tick jump.
INNER = '''
import numpy as np
from simcore.result import Result

GAIN = {gain!r}

def make():
    t = np.concatenate((np.linspace(0.0, 1.0, 101), [1.0], np.linspace(1.01, 2.0, 100)))
    u = np.where(np.arange(t.size) > 101 - 1, 2.0, 1.0)   # jumps on the duplicated row t=1
    y = GAIN * (1.0 - np.exp(-t / 0.3))
    return Result.from_arrays(t, {{"m.w": y, "m.u": u}}, units={{"m.w": "rad/s", "m.u": "V"}},
                              input_names=["m.u"])

def test_step(golden):
    golden.check(make(), ["m.w", "m.u"], rtol=1e-9, atol=1e-12)

def test_two_files(golden):
    golden.check(make(), ["m.w"], name="speed")
    golden.check(make(), ["m.u"], name="volts")
'''


def write_inner(pytester, gain):
    return pytester.makepyfile(test_inner=INNER.format(gain=gain))


def test_plugin_is_loaded_by_entry_point(pytester):
    # No "-p": the installed pytest11 entry point must provide the option and fixture.
    res = pytester.runpytest("--help")
    res.stdout.fnmatch_lines(["*--update-golden*"])


def test_missing_then_update_then_pass(pytester):
    write_inner(pytester, 2.0)
    res = pytester.runpytest()
    res.assert_outcomes(failed=2)
    res.stdout.fnmatch_lines(["*does not exist; run pytest with --update-golden*"])
    assert not (pytester.path / "golden").exists()

    res = pytester.runpytest("--update-golden")
    res.assert_outcomes(passed=2)
    res.stdout.fnmatch_lines(["*simcore golden: 3 file(s) written*"])
    files = sorted(p.name for p in (pytester.path / "golden").iterdir())
    assert files == ["test_step.csv", "test_two_files-speed.csv", "test_two_files-volts.csv"]

    res = pytester.runpytest()
    res.assert_outcomes(passed=2)


def test_file_is_readable_and_exact(pytester):
    write_inner(pytester, 2.0)
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    text = (pytester.path / "golden" / "test_step.csv").read_text()
    lines = text.split("\n")
    assert lines[0].startswith("# simcore golden file")
    assert lines[2] == "t [s],m.w [rad/s],m.u [V]"
    assert '"test": "test_inner.py::test_step"' in lines[1]
    # repr floats round-trip exactly: compare with the analytic values
    back = read_golden(pytester.path / "golden" / "test_step.csv")
    t = back.t
    assert t.size == 202 and t[101] == t[100] == 1.0
    np.testing.assert_array_equal(back["m.w"], 2.0 * (1.0 - np.exp(-t / 0.3)))
    assert back["m.u"][100] == 1.0 and back["m.u"][101] == 2.0
    assert back.units == {"m.w": "rad/s", "m.u": "V"}
    # deterministic: rewriting gives identical bytes
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    assert (pytester.path / "golden" / "test_step.csv").read_text() == text


def test_gain_change_fails_with_report_and_plot(pytester):
    write_inner(pytester, 2.0)
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    write_inner(pytester, 2.5)
    res = pytester.runpytest("-k", "test_step")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    # worst deviation of GAIN*(1-exp(-t/0.3)) changing 2.0 -> 2.5 is at t=2: 0.5*(1-exp(-2/0.3))
    t_end = 2.0
    exp_v = 2.0 * (1 - math.exp(-t_end / 0.3))
    got_v = 2.5 * (1 - math.exp(-t_end / 0.3))
    assert "m.w:" in out and f"worst at t={t_end!r} s" in out
    assert f"expected {exp_v!r} rad/s" in out and f"got {got_v!r} rad/s" in out
    assert "m.u:" not in out.split("result differs")[1].split("overlay plot")[0]   # the input matches
    png = pytester.path / "golden" / "test_step-failed.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(png) in out.replace("\n", "")  or f"overlay plot: {png}" in out
    # update accepts the change, removes the stale plot, and passes from then on
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    assert not png.exists()
    pytester.runpytest().assert_outcomes(passed=2)


def test_tolerance_accepts_small_change(pytester):
    write_inner(pytester, 2.0)
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    # a relative change of 1e-10 in the gain is inside rtol=1e-9 -> passes; 1e-8 fails
    write_inner(pytester, 2.0 * (1 + 1e-10))
    pytester.runpytest("-k", "test_step").assert_outcomes(passed=1)
    write_inner(pytester, 2.0 * (1 + 1e-8))
    pytester.runpytest("-k", "test_step").assert_outcomes(failed=1)


def test_explicit_loading_by_entry_point_name(pytester, monkeypatch):
    # With autoload disabled the plugin is absent, and "-p simcore.golden" (the
    # entry-point name) loads it; with autoload on, "-p simcore.golden" is harmless.
    write_inner(pytester, 2.0)
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    pytester.runpytest_subprocess("-p", "simcore.golden", "-k", "test_step").assert_outcomes(passed=1)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.runpytest_subprocess("-k", "test_step").assert_outcomes(errors=1)   # fixture 'golden' not found
    pytester.runpytest_subprocess("-p", "simcore.golden", "-k", "test_step").assert_outcomes(passed=1)


# -- the comparison machinery, directly -------------------------------------------------------

def _ramp_result(scale=1.0):
    t = np.array([0.0, 0.5, 1.0, 1.0, 1.5, 2.0])
    return Result.from_arrays(t, {"a.x": scale * np.array([0.0, 1.0, 2.0, 5.0, 6.0, 7.0])}, units={"a.x": "m"})


def test_resample_matches_duplicates_and_left_limits():
    res = _ramp_result()
    # same multiplicity -> row for row (pre and post values of the jump)
    np.testing.assert_array_equal(_resample(res, "a.x", res.t), res["a.x"])
    # stored grid has the instant twice, the new one once -> no jump in new: left == right
    t2 = np.array([0.0, 1.0, 1.5, 2.0])
    res2 = Result.from_arrays(t2, {"a.x": np.array([0.0, 2.0, 6.0, 7.0])})
    np.testing.assert_array_equal(_resample(res2, "a.x", np.array([1.0, 1.0])), [2.0, 2.0])
    # stored once, new has it twice -> right-continuous (post value)
    np.testing.assert_array_equal(_resample(res, "a.x", np.array([1.0])), [5.0])
    # stored twice, new has it three times -> first = left limit, last = right limit
    t3 = np.array([0.0, 1.0, 1.0, 1.0, 2.0])
    res3 = Result.from_arrays(t3, {"a.x": np.array([0.0, 2.0, 3.0, 5.0, 7.0])})
    np.testing.assert_array_equal(_resample(res3, "a.x", np.array([1.0, 1.0])), [2.0, 5.0])
    # between rows: linear interpolation
    np.testing.assert_allclose(_resample(res, "a.x", np.array([0.25, 1.25])), [0.5, 5.5], rtol=0, atol=1e-15)


def test_check_golden_direct(tmp_path):
    p = tmp_path / "g" / "x.csv"
    check_golden(_ramp_result(), p, ["a.x"], update=True)
    check_golden(_ramp_result(), p, ["a.x"])
    with pytest.raises(AssertionError, match=r"worst at t=2.0 s: expected 7.0 m, got 7.7"):
        check_golden(_ramp_result(1.1), p, ["a.x"])
    # per-signal tolerance wide enough: 10 % relative
    check_golden(_ramp_result(1.1), p, ["a.x"], tolerances={"a.x": (0.11, 0.0)})
    with pytest.raises(AssertionError, match="holds signals"):
        r = _ramp_result()
        check_golden(Result.from_arrays(r.t, {"a.x": r["a.x"], "a.v": r["a.x"]}), p, ["a.v", "a.x"])


def test_stored_times_grid(tmp_path):
    t = np.linspace(0.0, 1.0, 1001)
    res = Result.from_arrays(t, {"a.x": t ** 2})
    p = tmp_path / "x.csv"
    write_golden(p, res, ["a.x"], times=[0.0, 0.5, 1.0])
    back = read_golden(p)
    np.testing.assert_allclose(back["a.x"], [0.0, 0.25, 1.0], atol=1e-15)
    check_golden(res, p, ["a.x"])


def test_bad_arguments(tmp_path):
    res = _ramp_result()
    with pytest.raises(ConfigError, match="signals"):
        check_golden(res, tmp_path / "x.csv", ["nope"], update=True)
    with pytest.raises(ConfigError, match="rtol"):
        check_golden(res, tmp_path / "x.csv", ["a.x"], rtol=-1, update=True)
    with pytest.raises(ConfigError, match="tolerances"):
        check_golden(res, tmp_path / "x.csv", ["a.x"], tolerances={"b.y": (0, 0)}, update=True)
    assert not (tmp_path / "x.csv").exists()


# An inner test file whose test has the same name in every file it is written to.
SAME_NAME = '''
import numpy as np
from simcore.result import Result
def test_same(golden):
    golden.check(Result.from_arrays(np.array([0.0, 1.0]), {{"a.x": np.array([0.0, {k!r}])}}))
'''


def test_shared_file_between_tests_is_reported(pytester):
    pytester.makepyfile(test_a=SAME_NAME.format(k=1.0), test_b=SAME_NAME.format(k=1.0))
    pytester.runpytest("test_a.py", "--update-golden").assert_outcomes(passed=1)
    res = pytester.runpytest("test_b.py")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*was recorded by test_a.py::test_same, not test_b.py::test_same*"])


def test_same_name_twice_in_one_test(pytester):
    pytester.makepyfile(test_twice='''
import numpy as np, pytest
from simcore.errors import ConfigError
from simcore.result import Result
def test_twice(golden):
    r = Result.from_arrays(np.array([0.0, 1.0]), {"a.x": np.array([0.0, 1.0])})
    golden.check(r, name="a")
    with pytest.raises(ConfigError, match="name"):
        golden.check(r, name="a")
''')
    pytester.runpytest("--update-golden").assert_outcomes(passed=1)


def test_a_run_that_got_longer_or_shorter_fails_even_with_stored_times(tmp_path):
    t = np.linspace(0.0, 1.0, 1001)
    p = tmp_path / "x.csv"
    write_golden(p, Result.from_arrays(t, {"a.x": t ** 2}), ["a.x"], times=[0.0, 0.5, 1.0])
    longer = np.linspace(0.0, 2.0, 2001)
    with pytest.raises(AssertionError, match=r"ending at 1.0 s; this run ends at 2.0 s"):
        check_golden(Result.from_arrays(longer, {"a.x": longer ** 2}), p, ["a.x"])


def test_nested_classes_get_their_own_files_and_a_shared_file_cannot_be_written_twice(pytester):
    pytester.makepyfile(test_nested='''
import numpy as np
from simcore.result import Result
def res(k):
    return Result.from_arrays(np.array([0.0, 1.0]), {"a.x": np.array([0.0, k])})
class TestFast:
    class TestTune:
        def test_step(self, golden):
            golden.check(res(2.0))
class TestSlow:
    class TestTune:
        def test_step(self, golden):
            golden.check(res(1.0))
''')
    pytester.runpytest("--update-golden").assert_outcomes(passed=2)
    pytester.runpytest().assert_outcomes(passed=2)
    assert sorted(p.name for p in (pytester.path / "golden").iterdir()) == [
        "TestFast.TestTune.test_step.csv", "TestSlow.TestTune.test_step.csv"]
    # Two files in one folder with the same test name map to one golden file: updating both in one
    # session is an error naming the first test, not a silent overwrite.
    pytester.makepyfile(test_c=SAME_NAME.format(k=1.0), test_d=SAME_NAME.format(k=3.0))
    res = pytester.runpytest("test_c.py", "test_d.py", "--update-golden")
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*already written in this session by test_c.py::test_same*distinct name=*"])
