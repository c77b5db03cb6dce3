"""A run of built-in parts in the compiled kernel is the Python path's run to the bit: rows, events, modes, statistics.

The Python path (``simcore.engine.USE_KERNEL = False``) is the reference, independently
written: its steps are simcore.dopri5's, its guards the models' Python lambdas, its root finder
scipy's brentq. Random mechanisms, commands and settings; each pair of runs must agree exactly.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import simcore
import simcore.engine as engine
import simcore.models as models
from simcore import PeriodicController, simulate
from simcore.controllers import PIDController, control_loop
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.motors import NEO, VEX_775PRO


def _both(make, t_end, **kw):
    runs = []
    for flag in (True, False):
        old = engine.USE_KERNEL
        engine.USE_KERNEL = flag
        try:
            systems, controllers = make()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sim = simcore.Simulator(systems, controllers, **kw)
                assert (sim._compiled is not None) == flag
                sim.run_until(t_end)
            runs.append((sim.result(), [str(w.message) for w in caught]))
        finally:
            engine.USE_KERNEL = old
    return runs


def _assert_same(a, b):
    ra, wa = a
    rb, wb = b
    assert wa == wb
    assert np.array_equal(ra.t, rb.t)
    assert ra.names == rb.names
    for name in ra.names:  # states, inputs and the outputs computed from them
        assert np.array_equal(ra[name], rb[name], equal_nan=True), name
    assert ra.stats == rb.stats
    assert [(e.t, e.name, e.system, e.mode_before, e.mode_after) for e in ra.events] == \
        [(e.t, e.name, e.system, e.mode_before, e.mode_after) for e in rb.events]
    for ea, eb in zip(ra.events, rb.events):
        assert np.array_equal(ea.x_before, eb.x_before) and np.array_equal(ea.x_after, eb.x_after)


CASES = []
rng = np.random.default_rng(20261207)
for i in range(12):
    CASES.append(dict(
        seed=i,
        gearing=float(rng.uniform(20, 150)),
        mass=float(rng.uniform(0.5, 4.0)),
        kp=float(rng.uniform(5, 200)),
        kd=float(rng.uniform(0, 3)),
        static=float(rng.choice([0.0, rng.uniform(0.01, 0.5)])),
        efficiency=float(rng.choice([1.0, rng.uniform(0.6, 0.95)])),
        energy=bool(rng.integers(0, 2)),
        limit=None if rng.integers(0, 2) else float(rng.uniform(10, 60)),
        period=float(rng.choice([0.005, 0.01, 0.02])),
        method=str(rng.choice(["auto", "RK45"])),
    ))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"arm{c['seed']}")
def test_arm_with_stops_friction_and_limits_equals_the_python_path(case):
    def make():
        arm = models.Arm(NEO, case["gearing"], mass=case["mass"], com_distance=0.3, min_angle=-0.8, max_angle=1.6,
                         static_friction=case["static"], efficiency=case["efficiency"],
                         track_energy=case["energy"], stator_current_limit=case["limit"])
        pid = PIDController(case["kp"], 0.0, case["kd"], period=case["period"])
        loop = control_loop(pid, measure="arm.angle", command="arm.voltage",
                            setpoint=lambda t: 2.5 if t < 0.8 else (-1.5 if t < 1.6 else 0.3))
        return [arm], [loop]

    a, b = _both(make, 2.4, method=case["method"])
    _assert_same(a, b)
    for name in ("arm.angle", "arm.velocity", "arm.stator_current", "arm.voltage"):
        assert np.array_equal(a[0][name], b[0][name]), name
    assert a[0].events, "the case should reach a stop or stick"


def test_elevator_flywheel_and_hub_motor_together_equal_the_python_path():
    def make():
        elevator = models.Elevator(VEX_775PRO, 20, carriage_mass=5.0, drum_radius=0.02, min_height=0.0,
                                   max_height=1.2, n_motors=2, static_friction=2.0, command="duty")
        flywheel = models.Flywheel(NEO, 2.0, 0.01, efficiency=0.9, neutral_mode="coast")
        hub = models.HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="hub")

        def drive(t, s):
            return {"elevator.duty": 0.8 if t < 0.5 else (-0.6 if t < 1.0 else 0.0),
                    "flywheel.voltage": 12.0 if t < 0.7 else 0.0,
                    "hub.duty": math.sin(5 * t)}

        return [elevator, flywheel, hub], [PeriodicController(0.01, drive, name="drive")]

    a, b = _both(make, 1.5)
    _assert_same(a, b)
    for name in ("elevator.position", "flywheel.velocity", "hub.angle"):
        assert np.array_equal(a[0][name], b[0][name]), name


@pytest.mark.parametrize("record", ["ticks", "none", 0.25])
def test_what_record_keeps_is_the_python_paths(record):
    def make():
        arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
        loop = control_loop(PIDController(60.0, 0.0, 1.0, period=0.02), measure="arm.angle",
                            command="arm.voltage", setpoint=2.0)
        return [arm], [loop]

    a, b = _both(make, 1.0, record=record)
    _assert_same(a, b)
    assert a[0].dropped == b[0].dropped


def test_advance_in_pieces_equals_one_run():
    arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
    loop = control_loop(PIDController(60.0, 0.0, 1.0, period=0.02), measure="arm.angle", command="arm.voltage",
                        setpoint=2.0)
    whole = simulate(arm, 1.0, [loop])
    sim = simcore.Simulator(arm, [loop])
    assert sim._compiled is not None
    for _ in range(50):
        sim.advance(0.02)
    pieces = sim.result()
    assert np.array_equal(whole.t, pieces.t)
    assert np.array_equal(whole["arm.angle"], pieces["arm.angle"])


def test_a_user_subclass_changing_the_physics_takes_the_python_path():
    class Sprung(models.Arm):
        def load_force(self, q):
            return super().load_force(q) - 3.0 * q

    arm = Sprung(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
    assert arm.kernel_form() is None
    assert simcore.Simulator(arm)._compiled is None


def test_a_hub_motor_with_a_python_external_torque_takes_the_python_path():
    hub = models.HubMotor(GOBILDA_5203_312, load_inertia=0.01, external_torque=lambda q: -0.1 * q)
    assert hub.kernel_form() is None


def test_a_nonfinite_derivative_raises_the_python_paths_named_error():
    def make():
        fw = models.Flywheel(NEO, 2.0, 0.01)

        def drive(t, s):
            return {"flywheel.voltage": 12.0}
        return [fw], [PeriodicController(0.01, drive, name="drive")]

    errors = []
    for flag in (True, False):
        old = engine.USE_KERNEL
        engine.USE_KERNEL = flag
        try:
            systems, controllers = make()
            sim = simcore.Simulator(systems, controllers, x0={"flywheel.velocity": 1e308})
            with pytest.raises(simcore.SimError) as info:
                sim.run_until(0.1)
            errors.append((type(info.value), str(info.value)))
        finally:
            engine.USE_KERNEL = old
    assert errors[0] == errors[1]


def test_the_python_visible_constants_are_the_kernels():
    from simcore.kernel import motor_drive, segment
    from simcore.events import EVENT_TIME_TOLERANCE
    from simcore.models import drive

    assert drive.EFFICIENCY_SPEED_EPSILON == motor_drive.EFFICIENCY_SPEED_EPSILON
    assert segment.EVENT_TIME_TOLERANCE == EVENT_TIME_TOLERANCE


@pytest.mark.parametrize("method", ["RK45", "auto"])
@pytest.mark.parametrize("friction", [1.25, 30.0])
def test_stiffness_count_warning_and_switch_equal_the_python_path(method, friction):
    # A flywheel whose viscous friction makes its velocity stiff (30 N m s/rad on 0.002 kg m^2: a rate of
    # about 1.5e4 1/s): a forced RK45 warns at the same step, and "auto" hands over to Radau at the same step
    # and integrates on in Python; 1.25 is near the boundary.
    def make():
        fw = models.Flywheel(NEO, 2.0, moi=0.002, viscous_friction=friction, static_friction=0.02,
                             start_velocity=200.0)
        loop = control_loop(PIDController(0.05, 0.0, 0.0, period=0.02), measure="flywheel.velocity",
                            command="flywheel.voltage", setpoint=-100.0, output_limits=(-12.0, 12.0))
        return [fw], [loop]

    a, b = _both(make, 0.3, method=method)
    _assert_same(a, b)
    assert np.array_equal(a[0]["flywheel.velocity"], b[0]["flywheel.velocity"])
    if friction == 30.0:
        assert a[1] if method == "RK45" else a[0].stats["intervals_by_method"].get("Radau")


def test_small_buffers_pause_and_resume_the_kernel_without_changing_the_run(monkeypatch):
    # Buffers of 8 rows and 3 event records fill inside segments: the kernel pauses at a step boundary, hands
    # the rows over and resumes mid-segment; the run is the Python path's all the same.
    import simcore.compiled_run as compiled_run

    monkeypatch.setattr(compiled_run, "ROW_BUFFER", 8)
    monkeypatch.setattr(compiled_run, "EVENT_BUFFER", 3)

    def make():
        arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0, static_friction=0.2)
        loop = control_loop(PIDController(60.0, 0.0, 1.0, period=0.05), measure="arm.angle", command="arm.voltage",
                            setpoint=lambda t: 2.0 if t < 0.5 else -1.0)
        return [arm], [loop]

    a, b = _both(make, 1.5, rtol=1e-11, atol=1e-13)
    _assert_same(a, b)
    assert len(a[0].t) > 40 and len(a[0].events) >= 3


def test_many_parts_in_one_run_agree_with_the_python_path():
    # 25 arms with stops in one simulation: more events armed at once (75) than the default buffer of event
    # records holds, so the buffers are sized to the run (a fixed size would never make room: the kernel paused
    # for ever). With 50 states the Python path steps with scipy's RK45 (simcore.dopri5 serves up to 10), whose
    # stage sums BLAS orders: the two agree to the tolerance, event for event.
    def make():
        arms = [models.Arm(NEO, 40 + k, mass=1.0 + 0.1 * k, com_distance=0.3, min_angle=-0.4, max_angle=0.6,
                           name=f"arm{k}") for k in range(25)]
        drive = PeriodicController(0.02, lambda t, s: {f"arm{k}.voltage": 8.0 if t < 0.3 else -8.0
                                                       for k in range(25)}, name="drive")
        return arms, [drive]

    a, b = _both(make, 0.6)
    ra, rb = a[0], b[0]
    assert [(e.name, e.system) for e in ra.events] == [(e.name, e.system) for e in rb.events]
    assert len(ra.events) >= 25
    np.testing.assert_allclose([e.t for e in ra.events], [e.t for e in rb.events], rtol=1e-7)
    for k in range(25):
        np.testing.assert_allclose(ra.final(f"arm{k}.angle"), rb.final(f"arm{k}.angle"), rtol=1e-7, atol=1e-9)
