"""What the batch's round of attempts may skip, and why it is safe.

A round checks the stage derivatives for non-finite values only when some column was rejected: a
non-finite stage makes that column's error norm non-finite, so it is never accepted. These tests
hold that up against planted NaNs and infinities at every stage, in both forms of an attempt, and
end to end: a derivative that turns NaN inside an attempt still raises the NonFiniteError naming
the variant (without the check the column would shrink its step until the step-size error).
"""
import numpy as np
import pytest

import simcore.models as models
from simcore import batch_rk, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.errors import IntegrationError, NonFiniteError
from simcore.models.batched import BatchedMechanism
from simcore.models.motors import NEO


@pytest.mark.parametrize("m", [3, batch_rk.IN_PLACE_FROM + 3])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("state", [0, 1])
def test_a_non_finite_stage_rejects_its_column_alone(m, bad, state):
    # y' = -y on two states; at stage s (1..6 of the attempt, and its end) one column's derivative is
    # replaced by ``bad``: that column is rejected, every other one accepted.
    for stage in range(1, 7):
        calls = [0]

        def rhs(t, Y, out):
            calls[0] += 1
            out[...] = -Y
            if calls[0] == stage:
                out[state, 1] = bad

        y0 = np.ones((2, m))
        with np.errstate(invalid="ignore", over="ignore"):
            acc, *_ = batch_rk.attempt(rhs, np.zeros(m), y0, -y0, np.full(m, 1e-3), 5.0, np.zeros(m, dtype=bool),
                                       rtol=1e-8, atol=1e-10, timed=False)
        assert calls[0] == 6
        assert not acc[1], (stage, bad)
        assert acc[0] and acc[2:].all(), stage


def test_a_derivative_turning_nan_within_an_attempt_raises_naming_the_variant(monkeypatch):
    # Only variant 2 (setpoint 1.0) moves past 0.6 rad, where the planted model's acceleration is NaN.
    own = BatchedMechanism.derivatives

    def planted(self, t, x, u, mode, out=None, pre=None):
        out = own(self, t, x, u, mode, out=out, pre=pre)
        out[1] = np.where(x[0] > 0.6, np.nan, out[1])
        return out

    monkeypatch.setattr(BatchedMechanism, "derivatives", planted)
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0)
    loop = control_loop(PIDController(30.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=0.0, output_limits=(-12.0, 12.0), name="pid")
    with pytest.raises(NonFiniteError, match=r"arm\.\w+ \(variant 2\)"):
        simulate_batch(arm, 2.0, [loop], params={"pid.setpoint": [0.3, 0.2, 1.0]})


@pytest.mark.parametrize("t0", [0.0, -3.0, 1e5])
def test_a_step_driven_below_the_minimum_step_raises_naming_the_variant(monkeypatch, t0):
    # Past 0.6 rad the planted acceleration jumps by 1e15 rad/s^2: no step across the jump passes the
    # error test, so variant 2's step shrinks to scipy's minimum (ten units in the last place of t)
    # and the batch raises scipy's step-size error for it (a round skips the clamp only while every
    # step is above the minimum step anywhere in the interval).
    own = BatchedMechanism.derivatives

    def planted(self, t, x, u, mode, out=None, pre=None):
        out = own(self, t, x, u, mode, out=out, pre=pre)
        out[1] = np.where(x[0] > 0.6, out[1] + 1e15, out[1])
        return out

    monkeypatch.setattr(BatchedMechanism, "derivatives", planted)
    arm = models.Arm(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0)
    loop = control_loop(PIDController(30.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=0.0, output_limits=(-12.0, 12.0), name="pid")
    with pytest.raises(IntegrationError, match=r"variant 2: Required step size is less than spacing") as info:
        simulate_batch(arm, t0 + 2.0, [loop], t0=t0, params={"pid.setpoint": [0.3, 0.2, 1.0]})
    assert t0 < info.value.t < t0 + 2.0
