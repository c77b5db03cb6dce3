"""A swerve's 1 kHz module loops tick in the kernel between the chassis loop's ticks, and the run is the Python
ticks' run to the bit.

``swerve_module_controllers`` gives a chassis loop (Python: it calls the team's ``command_fn``) and one loop per
module. The module loops tick inside the compiled kernel (:mod:`simcore.kernel.ticks`, kind
``LOOP_SWERVE_MODULE``) from one chassis tick to the next; at a chassis tick every loop due ticks in Python. The
references are the same loops ticking in Python, once on the kernel's integration (their ``kernel_loop``
removed) and once on the Python path (``USE_KERNEL = False``): rows, signals, statistics, events, tick logs and
the modules' ``targets`` must agree exactly.

The module law (:mod:`simcore.kernel.swerve_module`) is checked against the documented semantics it replaces:
``SwerveModuleState.optimize``, ``geometry.wrap_angle``, the cosine scaling, the steer PD and the drive
feedforward plus P, written out here in Python.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.engine as engine
import simcore.solvers as solvers
from simcore.controllers.drive_control import swerve_module_controllers
from simcore.controllers.geometry import wrap_angle
from simcore.controllers.kinematics import ChassisSpeeds, SwerveKinematics, SwerveModuleState
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError
from simcore.kernel import swerve_module as sm
from simcore.models.battery import Battery
from simcore.models.motors import FALCON_500, KRAKEN_X60
from simcore.models.swerve import SwerveDrive
from both_paths import compiled_only
from test_loops_tick_in_the_kernel import _counting, interrupt_stretch, same_results

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]
PI = math.pi


# -- the law ------------------------------------------------------------------------------------------------
def _edge_angles():
    base = [0.0, -0.0, PI, -PI, PI / 2, -PI / 2, 2 * PI, -2 * PI, 3 * PI, -3 * PI, 1.5 * PI, -1.5 * PI,
            math.nextafter(PI, 0.0), math.nextafter(PI, 4.0), math.nextafter(-PI, 0.0), math.nextafter(-PI, -4.0),
            math.nextafter(PI / 2, 0.0), math.nextafter(PI / 2, 4.0), 1e-300, -1e-300, 5e-324, 1e-17, 1e6, -1e6,
            1e15, -1e15, 1e300, -1e300, 0.3, -2.9, 7.0]
    rng = np.random.default_rng(11)
    return base + (rng.normal(size=400) * 10.0 ** rng.uniform(-3, 3, 400)).tolist()


def _kernel_wrap(a):
    """The kernel's wrap of ``a``: the steer command of a module at angle 0 asked for angle ``a``, not optimized,
    with ``kp = 1`` (``1 * e`` is ``e`` exactly) and no damping."""
    return sm.module_commands(0.0, a, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, False, False)[3]


def _kernel_optimized(speed, angle, current):
    """The kernel's optimized target: what a module tick drives to, without cosine scaling."""
    return sm.module_commands(speed, angle, current, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, True, False)[:2]


def test_the_kernels_wrap_is_geometry_wrap_angle_to_the_bit():
    for a in _edge_angles():
        got, want = _kernel_wrap(a), wrap_angle(a)
        assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want), a


def test_the_kernels_optimize_is_swerve_module_state_optimize_to_the_bit():
    angles = _edge_angles()[:40] + [0.25, -0.25]
    pairs = [(a, c) for a in angles[:31] for c in angles[:31]]
    # Requested angles exactly a quarter turn away, either side, and just past it: left alone, then reversed.
    pairs += [(c + PI / 2, c) for c in (0.0, 0.4, -1.1, 3.0)] + [(c - PI / 2, c) for c in (0.0, 0.4, -1.1, 3.0)]
    pairs += [(math.nextafter(PI / 2, 4.0), 0.0), (-math.nextafter(PI / 2, 4.0), 0.0), (PI, 0.0), (-PI, 0.0)]
    rng = np.random.default_rng(3)
    pairs += list(zip(rng.uniform(-4 * PI, 4 * PI, 500).tolist(), rng.uniform(-4 * PI, 4 * PI, 500).tolist()))
    reversed_ = 0
    for angle, current in pairs:
        if abs(angle) > 1e200 or abs(current) > 1e200:
            continue  # (their difference overflows: SwerveModuleState refuses an infinite angle)
        for speed in (2.5, -1.75, 0.0):
            want = SwerveModuleState(speed, angle).optimize(current)
            got = _kernel_optimized(speed, angle, current)
            assert got == tuple(want), (speed, angle, current)
            reversed_ += got[0] != speed
    assert reversed_ > 100  # both branches ran
    # Exactly a quarter turn is left alone (WPILib); the next float past it reverses.
    assert _kernel_optimized(1.0, PI / 2, 0.0) == (1.0, PI / 2)
    assert _kernel_optimized(1.0, math.nextafter(PI / 2, 4.0), 0.0)[0] == -1.0


def _module_law(requested, angle, rate, wheel_speed, gains, optimize, cosine_scale):
    """The module loop's documented tick, in Python: optimize, wrap, cosine scale, steer PD, drive FF + P, scales."""
    steer_kp, steer_kd, drive_kv, drive_kp, drive_scale, steer_scale = gains
    target = requested.optimize(angle) if optimize else requested
    error = wrap_angle(target.angle - angle)
    speed = target.speed * math.cos(error) if cosine_scale else target.speed
    return (speed, target.angle, (drive_kv * speed + drive_kp * (speed - wheel_speed)) * drive_scale,
            (steer_kp * error - steer_kd * rate) * steer_scale)


def test_the_module_law_is_the_documented_tick_to_the_bit():
    rng = np.random.default_rng(17)
    for _ in range(3000):
        requested = SwerveModuleState(float(rng.normal() * 3), float(rng.uniform(-PI, PI)))
        angle = float(rng.choice([rng.uniform(-8, 8), rng.choice([PI / 2, -PI / 2, PI, -PI, 0.0])]))
        rate, wheel_speed = float(rng.normal() * 20), float(rng.normal() * 4)
        gains = (float(rng.uniform(0, 200)), float(rng.uniform(0, 2)), float(rng.uniform(0, 3)),
                 float(rng.uniform(0, 6)), float(rng.choice([1.0, 1 / 12])), float(rng.choice([1.0, 1 / 12])))
        optimize, cosine_scale = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        got = sm.module_commands(requested.speed, requested.angle, angle, rate, wheel_speed, *gains, optimize,
                                 cosine_scale)
        assert got == _module_law(requested, angle, rate, wheel_speed, gains, optimize, cosine_scale)


@pytest.mark.parametrize("optimize,parameter", [(True, "current_angle"), (False, "angle")])
def test_a_nan_steer_angle_is_refused_by_the_module_tick_naming_it(optimize, parameter):
    sw = _swerve()
    loops = swerve_module_controllers(sw, SwerveKinematics(POS), lambda t, s: (1.0, 0.0, 0.0), optimize=optimize)
    signals = {f"swerve.steer_angle_0": math.nan, "swerve.steer_rate_0": 0.0, "swerve.wheel_speed_0": 0.0}
    with pytest.raises(ConfigError, match=parameter):
        loops[1].fn(0.0, signals)


# -- runs ---------------------------------------------------------------------------------------------------
def _swerve(**kw):
    args = dict(module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0,
                moi=6.0)
    args.update(kw)
    return SwerveDrive(KRAKEN_X60, FALCON_500, **args)


def _figure(t, s):
    # drive, strafe while turning, reverse: the modules turn and reverse
    if t < 0.3:
        return ChassisSpeeds(3.0, 0.0, 0.0)
    if t < 0.6:
        return ChassisSpeeds(1.0, 2.0, 1.5)
    return ChassisSpeeds(-2.5, -0.5, -1.0)


def _maker(battery=True, swerve=None, **loop_options):
    def make():
        sw = _swerve(**(swerve or {}))
        loops = swerve_module_controllers(sw, SwerveKinematics(POS), _figure, **loop_options)
        return [sw, Battery()] if battery else [sw], loops
    return make


def _run(how, make, pieces, **options):
    """``make()`` run through ``pieces`` (advance steps, s) with the module loops ticking in the kernel
    (``"kernel"``), in Python on the kernel's integration (``"python ticks"``) or on the Python path; returns
    (result, loops, the times Python ticks ran, the targets after each piece)."""
    old, small = engine.USE_KERNEL, solvers.SMALL
    engine.USE_KERNEL = how != "python path"
    solvers.SMALL = 10_000  # (the Python path steps with simcore.dopri5, whose stage sums are the kernel's)
    try:
        systems, loops = make()
        if how == "python ticks":
            for c in loops:
                c.kernel_loop = None
        sim = simcore.Simulator(systems, loops, **options)
        assert (sim._compiled is not None) == (how != "python path")
        calls = _counting(sim)
        targets = []
        for dt in pieces:
            sim.advance(dt)
            targets.append(list(loops[0].command.targets))
        return sim.result(), loops, calls, targets
    finally:
        engine.USE_KERNEL, solvers.SMALL = old, small


def _check(make, pieces=(1.0,), chassis_period=0.02, **options):
    kernel, ticks, path = (_run(how, make, pieces, **options) for how in ("kernel", "python ticks", "python path"))
    for other in (ticks, path):
        same_results(kernel[0], other[0])
        assert kernel[3] == other[3]  # the targets after each piece
        assert kernel[1][0].targets == other[1][0].targets
    # In the kernel, Python ran the ticks at the chassis loop's instants alone (the module loops in the kernel).
    period_ns = round(chassis_period * 1e9)
    chassis = [k * period_ns / 1e9 for k in range(round(sum(pieces) * 1e9) // period_ns + 1)]
    assert kernel[2] == chassis and len(ticks[2]) > 2 * len(chassis)
    assert kernel[0].stats["n_ticks"] > 10 * len(chassis)
    return kernel[0]


def test_a_swerve_figure_with_its_module_loops_in_the_kernel_equals_python_ticks():
    res = _check(_maker(), pieces=(0.9,))
    # the figure turns and reverses the modules: the steer commands move, the drive reverses
    steer = np.array([w["swerve.steer_voltage_0"] for _, w in res.tick_log("swerve_module_0")])
    assert steer.max() > 1.0 and steer.min() < -1.0
    assert min(res["swerve.wheel_speed_0"]) < -0.5 < 0.5 < max(res["swerve.wheel_speed_0"])


@compiled_only
@pytest.mark.parametrize("options", [
    dict(optimize=False),
    dict(cosine_scale=True),
    dict(optimize=False, cosine_scale=True, max_speed=2.0),
    dict(field_relative=True, steer_kp=30.0, steer_kd=0.2, drive_kp=1.0, drive_kv=2.5),
], ids=["no_optimize", "cosine", "no_optimize_cosine_max_speed", "field_relative_gains"])
def test_module_loop_options_equal_python_ticks(options):
    _check(_maker(**options), pieces=(0.8,))


@compiled_only
@pytest.mark.parametrize("options", [dict(record="ticks"), dict(record="none"), dict(record=0.05, method="RK45")],
                         ids=["ticks", "none", "every_50ms_rk45"])
def test_what_record_keeps_equals_python_ticks(options):
    _check(_maker(), pieces=(0.25, 0.3), **options)


@compiled_only
def test_a_pid_loop_sharing_a_steer_input_with_a_module_loop_holds_the_last_write():
    """A ``control_loop`` (also ticking in the kernel) commands module 1's steer input every 3 ms after the module
    loops: at the instants both tick, the held input is the PID's write, between them whichever wrote last."""
    from simcore.controllers import PIDController, control_loop

    def make():
        systems, loops = _maker()()
        pid = control_loop(PIDController(5.0, 0.0, 0.0, period=0.003), measure="swerve.steer_angle_1",
                           command="swerve.steer_voltage_1", setpoint=0.4, name="steer_pid")
        return systems, loops + [pid]

    res = _check(make, pieces=(0.3,))
    shared = res.ticks("steer_pid")[1:4]
    pid_writes = [w["swerve.steer_voltage_1"] for _, w in res.tick_log("steer_pid")[1:4]]
    module = dict((t, w["swerve.steer_voltage_1"]) for t, w in res.tick_log("swerve_module_1"))
    assert pid_writes != [module[t] for t in shared]  # the two loops write different values...
    assert res.sample("swerve.steer_voltage_1", shared).tolist() == pid_writes  # ...the last in the order holds


@compiled_only
def test_duty_commanded_motors_without_a_battery_equal_python_ticks():
    _check(_maker(battery=False, swerve=dict(command="duty")), pieces=(0.7,))


@compiled_only
def test_a_module_rate_that_does_not_divide_the_chassis_period_equals_python_ticks():
    # 300 Hz modules (period 3333333 ns) under a 50 Hz chassis: a module tick meets a chassis tick every 60 ms only
    # (at 0, 60 ms, ... the instants are shared; between them the chassis ticks alone in Python)
    res = _check(_maker(rate=300.0), pieces=(0.5,))
    module_ticks = res.ticks("swerve_module_0")
    assert len(module_ticks) == 150 + 1 and module_ticks[1] == 0.003333333


@compiled_only
def test_advancing_in_pieces_equals_python_ticks_and_one_run():
    pieces = (0.0137, 0.02, 0.0, 0.1, 0.2333, 0.001, 0.3)
    res = _check(_maker(), pieces=pieces)
    whole = _run("kernel", _maker(), (sum(pieces),))[0]
    # Pieces ending between ticks end integration intervals there: the same ticks and tick logs, the same states
    # at the ticks to the integration's accuracy.
    for c in ("swerve_chassis", "swerve_module_2"):
        assert np.array_equal(res.ticks(c), whole.ticks(c))
    at = whole.ticks("swerve_chassis")
    np.testing.assert_allclose(res.sample("swerve.x", at), whole.sample("swerve.x", at), rtol=0, atol=1e-6)


def test_a_refused_write_raises_as_python_ticks_do():
    """A huge steer damping gain makes a module's steer command overflow to -infinity once the module turns faster
    than 1.8 rad/s (after the figure's turn at 0.3 s): the kernel refuses the write and leaves the tick to Python,
    which raises naming the input, at the same time."""
    outcomes = []
    for how in ("kernel", "python ticks"):
        make = _maker(steer_kd=1e308)
        systems, loops = make()
        if how == "python ticks":
            for c in loops:
                c.kernel_loop = None
        sim = simcore.Simulator(systems, loops)
        calls = _counting(sim)
        with pytest.raises(NonFiniteError) as info:
            sim.run_until(1.0)
        r = sim.result()
        outcomes.append((str(info.value), sim.t, r.t[-1].item(), r.tick_log("swerve_module_0"),
                         list(loops[0].targets)))
        if how == "kernel":  # refused between two chassis ticks: the kernel left that tick to Python
            assert 0.3 < sim.t < 0.32 and calls[-2:] == [0.3, sim.t]
    assert outcomes[0] == outcomes[1]
    assert "'swerve.steer_voltage_0' is -inf" in outcomes[0][0]


@compiled_only
def test_an_interrupted_stretch_goes_on_as_one_run():
    make = _maker()
    systems, loops = make()
    sim = simcore.Simulator(systems, loops)
    real = interrupt_stretch(sim, 3)
    with pytest.raises(KeyboardInterrupt):
        sim.run_until(0.5)
    t_stop, targets = sim.t, list(loops[0].targets)
    sim._ticking_sink = real
    sim.run_until(0.5)
    reference = _run("python ticks", make, (0.5,))
    same_results(sim.result(), reference[0])
    assert loops[0].targets == reference[1][0].targets
    assert 0.0 < t_stop < 0.5 and targets != loops[0].targets


def test_a_wrapped_module_loop_ticks_in_python_and_the_run_is_python_ticks():
    def make():
        systems, loops = _maker()()
        own = loops[2].fn
        loops[2].fn = lambda t, s: {k: 0.9 * v for k, v in own(t, s).items()}  # a team's wrapper, run at every tick
        return systems, loops

    runs = [_run(how, make, (0.2,)) for how in ("kernel", "python ticks")]
    same_results(runs[0][0], runs[1][0])
    assert runs[0][2] == runs[1][2] and len(runs[0][2]) == 201  # every instant in Python: the wrapper's module


def test_a_batch_refuses_the_module_loops_naming_them():
    systems, loops = _maker()()
    with pytest.raises(ConfigTypeError, match="swerve_module_0"):
        simcore.simulate_batch(systems, 0.1, loops[1:], params={"swerve.mass": np.array([50.0, 55.0])})
