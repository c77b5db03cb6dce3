"""simulate_batch at the controller ticks: what the batch keeps from tick to tick is dropped when what it
depends on changes (the full view's held inputs on a write, the tick guards of the live variants on a
terminal event), and the snapshot after each tick is the state the variants had there."""
import numpy as np

import simcore.models as models
from simcore import simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.batched import BatchEvent
from simcore.models.motors import VEX_775PRO

CUTOFF = 4.0  # V: the terminal event fires at the tick where a variant's commanded voltage crosses it


def cut_off_arm_parts():
    """An arm whose batched form has one more event, terminal, on its held input (it can only cross at a
    tick); the setpoint steps at 1 s, so that a stopped variant's frozen state would cross it again."""
    arm = models.Arm(VEX_775PRO, 200.0, mass=6.0, com_distance=0.381, moi=1.16, min_angle=-0.3, max_angle=1.3,
                     n_motors=2)
    make = arm.batched

    def batched(params, n, xp=np):
        b = make(params, n, xp)
        b.events = b.events + (BatchEvent("cutoff", 0, [True] * len(b.MODES),
                                          lambda s, t, x, u, mode: u[0] - CUTOFF, terminal=True),)
        return b
    arm.batched = batched
    loop = control_loop(PIDController(40.0, 0.0, 2.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=lambda t: 1.2 if t < 1.0 else 3.0, output_limits=(-12.0, 12.0), name="pid")
    return arm, loop


def test_a_variant_stopped_by_a_terminal_event_stays_stopped_while_the_others_run():
    kp = np.array([15.0, 40.0, 80.0, 120.0, 25.0])
    arm, loop = cut_off_arm_parts()
    batch = simulate_batch(arm, 2.0, [loop], params={"pid.kp": kp})
    ticks = batch.tick_times("pid")
    ends = []
    for k in range(batch.n):
        r = batch[k]
        events = [e for e in r.events if e.name == "cutoff"]
        assert len(events) == 1 and events[0].at_tick  # once: a stopped variant's guard is not watched again
        te = events[0].t
        assert r.t[-1] == te and np.isclose(ticks, te, rtol=0, atol=1e-12).any()
        # it fired at the first tick whose command is at most the cutoff (12 V clamped before it)
        volts = [(t, log["arm.voltage"]) for t, log in r.tick_log("pid")]
        before = [v for t, v in volts if t < te - 1e-12]
        assert all(v > CUTOFF for v in before) and [v for t, v in volts if abs(t - te) < 1e-12][0] <= CUTOFF
        ends.append(te)
        # the same variant alone in its own batch
        a, lp = cut_off_arm_parts()
        alone = simulate_batch(a, 2.0, [lp], params={"pid.kp": kp[k:k + 1]})[0]
        np.testing.assert_array_equal(alone.t, r.t)
        np.testing.assert_array_equal(alone["arm.angle"], r["arm.angle"])
    assert len(set(ends)) >= 3  # variants stop at different ticks: the batch runs on with the others
    np.testing.assert_array_equal(batch.event_counts("cutoff"), np.ones(batch.n))
