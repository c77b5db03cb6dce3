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

import simcore
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


def test_the_stiffness_estimate_of_a_column_is_the_serial_runs_to_the_bit():
    """batch_rk.stiffness_ratio over columns against DormandPrince.stiffness_ratio of each column's run."""
    from simcore import batch_rk
    from simcore.dopri5 import DormandPrince
    from simcore.batch_rk import stiffness_weights

    lam = np.array([3.0, 40.0, 2e4])
    s, w = stiffness_weights(batch_rk.RK45)
    K = []
    ratios = []
    for rate in lam:
        def f(t, y, rate=rate):
            return np.array([-rate * y[0] + np.sin(t), y[0] - rate * y[1]])
        # a loose tolerance accepts the first step of 0.01 s, so h * rho is about 0.01 * rate
        solver = DormandPrince(f, 0.0, np.array([1.0, -0.5]), 1.0, rtol=1e3, atol=1e3, first_step=0.01)
        solver.step()
        assert solver.t == 0.01
        K.append(np.array(solver.K))
        ratios.append(solver.stiffness_ratio())
    batched = batch_rk.stiffness_ratio(np.stack(K, axis=-1), s, w)
    assert batched.tolist() == ratios
    assert ratios[-1] > simcore.solvers.STABILITY_BOUNDARY["RK45"] > ratios[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zero = batch_rk.stiffness_ratio(np.zeros((7, 2, 2)), s, w)  # coinciding states: zero, without a warning
    assert zero.tolist() == [0.0, 0.0]


def _smooth_ratio(velocity, acceleration):
    """A made-up h * rho from the step's end: stiff (above RK45's 2.5) where sin(37 v) > -0.5."""
    return 3.0 + np.sin(37.0 * velocity)


def _bits_ratio(velocity, acceleration):
    """A made-up h * rho from the last bits of the acceleration at the step's end: 2.0, 2.3, 2.6 or 2.9
    (stiff on about every other step, in runs that both the clearing of the count after six non-stiff
    steps in a row and the count of fifteen act on)."""
    return 2.0 + 0.3 * ((np.asarray(acceleration, dtype=float).view(np.int64) >> 3) % 4)


@pytest.mark.parametrize("stiction, script", [(False, _bits_ratio), (True, _smooth_ratio)],
                         ids=["plain", "through a velocity-zero event"])
def test_the_count_of_stiff_steps_is_the_serial_engines_step_for_step(stiction, script, monkeypatch):
    """Both engines given the same estimate of each step (a function of the derivatives at the step's
    end, the same in both): every variant is found stiff at the step its serial run warns at, or
    neither is. This holds the rule itself (the steps skipped at each segment's start, the count, its
    clearing, a variant found once) to the serial one. After an event the two runs' steps agree to
    round-off only, so the script there is a smooth function of the state."""
    from simcore import batch_rk
    from simcore.dopri5 import DormandPrince

    # The serial runs on the Python path, whose Dormand-Prince's estimate is patched here (the compiled
    # kernel's count is held to the Python path's, warning for warning, by tests/kernel).
    monkeypatch.setattr(simcore.engine, "USE_KERNEL", False)
    monkeypatch.setattr(DormandPrince, "stiffness_ratio", lambda self: float(script(*self.K[-1])))
    monkeypatch.setattr(batch_rk, "stiffness_ratio", lambda K, s, w, xp=np: script(*K[-1]))
    frictions = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
    res, said = _batch(frictions, stiction)
    serial = np.array([_serial_stiff_time(b, stiction)[0] for b in frictions])
    assert 0 < np.isnan(serial).sum() < len(frictions)  # the script finds some stiff and not others
    assert np.array_equal(np.isnan(res.stiff_at), np.isnan(serial))
    found = ~np.isnan(serial)
    np.testing.assert_allclose(res.stiff_at[found], serial[found], rtol=1e-6 if stiction else 0.0, atol=0.0)
