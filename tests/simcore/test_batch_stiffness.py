"""simulate_batch tells which variants are stiff, as each variant's own simulate(method="RK45") does.

The stiff variants are flywheels whose viscous friction b makes the velocity's time constant
J / b far shorter than the step the tolerance allows: at b = 30 N m s/rad on J = 0.002 kg m^2
the decay rate is about 1.5e4 1/s, so RK45 (stable to h * rate of about 3.3) is held to steps
near 2e-4 s while the velocity settles to its set point within a millisecond; at b = 0.01 the
rate is about 10 1/s and the steps are set by accuracy. Variants near the boundary (b = 1.25
and 1.5) are found stiff late or not at all, so that the batch's rule must match the serial
engine's count for count, not only in the clear cases.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import simcore.models as models
from simcore import StiffnessWarning, simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO

T_END = 0.2


def _parts(b=0.0, stiction=False):
    """A flywheel of viscous friction ``b`` under a velocity loop; with ``stiction``, spun down through
    zero from 200 rad/s (its static friction makes the crossing an event)."""
    extra = dict(static_friction=0.02, start_velocity=200.0) if stiction else {}
    fw = models.Flywheel(NEO, 2.0, moi=0.002, viscous_friction=b, **extra)
    loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                        command="flywheel.voltage", setpoint=-100.0 if stiction else 300.0,
                        output_limits=(-12.0, 12.0), name="pid")
    return fw, loop


def _batch(frictions, stiction=False):
    fw, loop = _parts(stiction=stiction)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = simulate_batch(fw, T_END, [loop], params={"flywheel.viscous_friction": frictions})
    return res, [w for w in caught if issubclass(w.category, StiffnessWarning)]


def _serial_stiff_time(b, stiction=False):
    """When the variant's own simulate(method="RK45") warns that it is stiff (nan: it does not), and
    the row of its result there (the step's end; None when it does not)."""
    fw, loop = _parts(b, stiction)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = simulate(fw, T_END, [loop], method="RK45")
    said = [str(w.message) for w in caught if issubclass(w.category, StiffnessWarning)]
    assert len(said) <= 1  # the serial engine warns once per run
    if not said:
        return np.nan, None
    t = float(re.match(r"at t=(\S+) s", said[0]).group(1))
    return t, _row(res.t, t)


def _row(times, t):
    """The index of the first recorded row at time ``t`` (a step's end; at a tick the row after the
    tick follows it), None if there is none (a step cut short by an event records the event instead)."""
    rows = np.flatnonzero(times == t)
    return int(rows[0]) if len(rows) else None


def _named(message):
    """The variant indices a batch's warning names, in order."""
    return [int(j) for j in re.findall(r"(\d+) \(t=", message)]


@pytest.mark.parametrize("stiction", [False, True], ids=["plain", "through a velocity-zero event"])
def test_batch_names_exactly_the_variants_its_serial_runs_find_stiff(stiction):
    frictions = [0.01, 1.0, 1.1, 1.2, 1.25, 1.3, 1.4, 1.5, 2.0, 30.0]
    res, said = _batch(frictions, stiction)
    serial, serial_rows = zip(*(_serial_stiff_time(b, stiction) for b in frictions))
    serial = np.array(serial)
    stiff = ~np.isnan(serial)
    assert stiff[-1] and not stiff[0]  # the clear cases are what the physics says
    assert len(said) == 1  # one warning for the batch
    message = str(said[0].message)
    assert _named(message) == list(np.flatnonzero(stiff))
    assert f"{int(stiff.sum())} of {len(frictions)} variants" in message
    assert "method='auto'" in message and "Radau" in message
    assert np.array_equal(np.isnan(res.stiff_at), ~stiff)
    # found stiff at the step its serial run warns at: the same row of its result, at the same time to
    # round-off (after an event, located by another root finder to the event tolerance, the steps
    # that follow end a little apart)
    for j in np.flatnonzero(stiff):
        assert _row(res[j].t, res.stiff_at[j]) == serial_rows[j]
    np.testing.assert_allclose(res.stiff_at[stiff], serial[stiff], rtol=1e-6 if stiction else 1e-12, atol=0.0)
    if stiction:
        assert (res.event_counts() >= 1).all()  # each variant restarted a segment at an event
    for j in np.flatnonzero(stiff):
        assert f"{j} (t={float(res.stiff_at[j])!r} s)" in message
    assert res.stiffness_message == message  # what a sweep reads to name its grid points instead


def test_non_stiff_batch_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", StiffnessWarning)
        fw, loop = _parts()
        res = simulate_batch(fw, T_END, [loop], params={"flywheel.viscous_friction": [0.0, 0.01, 0.5]})
    assert np.isnan(res.stiff_at).all()
    assert res.stiffness_message is None
