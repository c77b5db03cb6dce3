"""A tick's writes in the kernel: a write that moves a guard reading the inputs across zero fires its event at the
tick, and writes that leave the inputs as they were fire nothing, exactly as on the Python path.

The mecanum's breakaway guards read the held duties: at rest with zero duty no wheel pushes (the rollers grip); the
first tick that writes a duty breaks them away at that instant, and the ticks before and after it write the same
duty again (the 500 Hz op mode of an FTC hub, whose firmware changes the duties at 100 Hz only).
"""
from __future__ import annotations

import numpy as np
import pytest

from both_paths import assert_same_runs, run_on_path
from simcore import PeriodicController
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.mecanum import WHEELS, MecanumDrive

PUSH_AT = 0.1  # s: a multiple of the tick period, so the push lands on a tick


def _pushed_mecanum(duty_steps):
    """A 12 kg goBILDA mecanum at rest, its four duties written at every 2 ms tick: zero before ``PUSH_AT``, then
    ``duty_steps(t)``."""
    def make():
        drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                             moi=0.35, field=None)

        def write(t, s):
            duty = 0.0 if t < PUSH_AT else duty_steps(t)
            return {f"{drive.name}.{w}_duty": duty for w in WHEELS}

        return [drive], [PeriodicController(0.002, write, name="opmode")]
    return make


HELD, REVERSED, FIRMWARE_RATE = (lambda t: 0.6,                                # held from the push on
                                 lambda t: 0.6 if t < 0.2 else -0.4,            # reversed once
                                 lambda t: 0.3 * (1 + int(t / 0.01) % 3))      # changed at 100 Hz


@pytest.mark.parametrize("duty_steps, record", [(HELD, "all"), (REVERSED, "all"), (FIRMWARE_RATE, "all"),
                                                (FIRMWARE_RATE, "ticks")],
                         ids=["held", "reversed", "firmware-rate", "firmware-rate-ticks"])
def test_the_push_breaks_the_rollers_away_at_its_tick_and_repeated_writes_are_the_python_path(duty_steps, record):
    make = _pushed_mecanum(duty_steps)
    kernel = run_on_path(True, make, 0.3, record=record)
    python = run_on_path(False, make, 0.3, record=record)
    assert_same_runs(kernel, python)
    assert kernel.tick_log("opmode") == python.tick_log("opmode")
    first = kernel.events[0]
    # Nothing pushes before the first nonzero duty: the breakaway is the write's, at its tick.
    assert (first.name, first.t, first.at_tick) == ("breakaway", PUSH_AT, True)
    assert kernel.stats["n_ticks"] == 151
    rows_at_push = kernel.t == PUSH_AT
    assert np.count_nonzero(rows_at_push) >= 3  # before the write, before and after the event
