"""record=: what a run keeps ("all", "ticks", "none", a window), what it says it dropped, flat memory."""
import gc
import math
import tracemalloc

import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, PeriodicController, Simulator, simulate
from simcore.models.motors import VEX_775PRO


def _arm():
    """bench/arm.py's arm with narrow stops, so that a push rests it on the upper one."""
    return models.Arm.from_wpilib(VEX_775PRO.gearbox(2), 200.0, 1.16, 0.762, -0.5, 1.0, True, 0.0)


def _pid():
    def pid(t, s):  # 50 Hz: towards 1.3 rad (beyond the stop at 1.0) for 1 s of every 4, else 0.2 rad
        target = 1.3 if t % 4.0 < 1.0 else 0.2
        return {"arm.voltage": max(-12.0, min(12.0, 40.0 * (target - s["arm.angle"]) - 2.0 * s["arm.velocity"]))}
    return PeriodicController(0.02, pid, name="pid")


def test_ticks_keeps_the_tick_and_event_rows_of_a_full_record():
    full = simulate(_arm(), 2.0, [_pid()])
    ticks = simulate(_arm(), 2.0, [_pid()], record="ticks")
    assert ticks.events and len(ticks.events) == len(full.events)
    # Every kept row is a row of the full record, bit for bit, in the same order.
    names = ("arm.angle", "arm.velocity", "arm.voltage", "arm.stator_current")
    full_rows = list(zip(full.t, *(full[n] for n in names)))
    j = 0
    for row in zip(ticks.t, *(ticks[n] for n in names)):
        while full_rows[j] != row:
            j += 1
        j += 1
    np.testing.assert_array_equal(ticks.ticks("pid"), full.ticks("pid"))
    assert ticks.dropped["rows"] == len(full.t) - len(ticks.t) > 0
    assert ticks.stats["record"] == "ticks" and "not kept" in repr(ticks)
    assert full.dropped == {"rows": 0, "ticks": 0, "events": 0}


def test_150_s_of_20_ms_advances_with_ticks_keeps_at_most_two_rows_per_tick_plus_events():
    sim = Simulator(_arm(), [_pid()], record="ticks")
    for _ in range(7500):
        sim.advance(0.02)
    r = sim.result()
    n_ticks = len(r.ticks("pid"))
    assert n_ticks == 7501 and r.t[-1] == 150.0
    assert len(r.t) <= 2 * n_ticks + 2 * len(r.events)
    assert np.all(np.diff(r.t) >= 0)


def _robot_loop_memory(record, seconds):
    """Traced memory growth, bytes, over ``seconds`` of 20 ms advances driven from outside (robotpy-style:
    ``set_inputs`` then ``advance``, 50 times a second)."""
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(2), 200.0, 1.16, 0.762, -1.6, 4.4, True, 0.0)
    sim = Simulator(arm, record=record)

    def run(n):
        for _ in range(n):  # a push that lifts the arm onto its upper stop (at t = 5.1 s) and holds it there
            sim.set_inputs({"arm.voltage": 1.0 + 0.5 * math.sin(0.5 * sim.t)})
            sim.advance(0.02)

    run(300)  # warm up: caches, the impact on the stop
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run(int(round(seconds / 0.02)))
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before, sim


def test_none_keeps_memory_flat_over_a_150_s_match():
    grown, sim = _robot_loop_memory("none", 150.0)
    r = sim.result()
    assert [e.name for e in r.events] == ["upper_stop"]
    assert grown < 16 * 1024  # the 15,000 rows "all" keeps here take about 2 MB
    assert len(r.t) == 1 and r.t[0] == sim.t == 156.0
    assert r.final("arm.angle") == sim.signals["arm.angle"]
    assert r.dropped["rows"] > 15_000
    # The same loop keeping every row grows (the measurement can see it).
    grown_all, _ = _robot_loop_memory("all", 5.0)
    assert grown_all > 4 * 16 * 1024



def test_none_keeps_memory_flat_with_a_50_hz_controller():
    # Review finding 4: "none" kept every tick time and tick log entry, about 15 KiB per simulated
    # second of a 50 Hz controller. Now only each controller's latest tick is kept.
    arm = models.Arm.from_wpilib(VEX_775PRO.gearbox(2), 200.0, 1.16, 0.762, -1.6, 4.4, True, 0.0)
    sim = Simulator(arm, [_pid()], record="none")
    for _ in range(50):  # warm up: caches, the first events
        sim.advance(0.02)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(500):  # 10 s, 500 ticks
            sim.advance(0.02)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 16 * 1024  # 500 kept tick log entries alone would take about 100 KiB
    r = sim.result()
    assert list(r.ticks("pid")) == [11.0] and len(r.tick_log("pid")) == 1 and r.tick_log("pid")[0][0] == 11.0
    assert r.dropped["ticks"] == 550  # ticks at 0, 0.02, ..., 11.0: 551, the latest kept


def test_a_window_keeps_the_last_seconds_bit_identical_to_a_full_record():
    full = simulate(_arm(), 6.0, [_pid()])
    win = simulate(_arm(), 6.0, [_pid()], record=1.5)
    assert win.t[0] >= 6.0 - 1.5 and win.t[-1] == 6.0
    tail = full.t >= win.t[0]
    np.testing.assert_array_equal(win.t, full.t[tail])
    np.testing.assert_array_equal(win["arm.angle"], full["arm.angle"][tail])
    assert win.ticks("pid")[0] >= 4.5 and len(win.ticks("pid")) == len(win.tick_log("pid"))
    assert all(e.t >= 4.5 for e in win.events)
    assert win.dropped["rows"] == len(full.t) - len(win.t)
    assert win.dropped["ticks"] == len(full.ticks("pid")) - len(win.ticks("pid"))


@pytest.mark.parametrize("record", ["some", 0.0, -1.0, float("nan"), True, [1]])
def test_bad_record_values_name_the_parameter(record):
    with pytest.raises(ConfigError) as ei:
        simulate(_arm(), 0.1, record=record)
    assert ei.value.parameter == "record"
