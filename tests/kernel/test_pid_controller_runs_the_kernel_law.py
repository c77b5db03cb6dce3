"""PIDController runs simcore.kernel.pid's law: on random call sequences its outputs and state equal, to the
bit, an independent transcription of WPILib's documented law on Python floats (the steps listed in
simcore.controllers.pid's docstring); a batch's elements equal single controllers to the bit; the vectors
``kernel_vectors`` hands the engine are the controller's own. CI runs this file with NUMBA_DISABLE_JIT=1 too.
"""
from __future__ import annotations

import copy
import math
import pickle
import random
import struct

import numpy as np
import pytest

from simcore.controllers import PIDController, input_modulus
from simcore.errors import ConfigError


def bits(x) -> bytes:
    """A float's IEEE bits (so 0.0 and -0.0 differ)."""
    return struct.pack("<d", float(x))


class WPILibPID:
    """WPILib's ``PIDController`` law on Python floats, written from its documented steps: the error
    (wrapped the short way, into ``(-(hi - lo)/2, (hi - lo)/2]``, when the input is continuous); the previous
    error (the last error, as WPILib's, but the first error itself on a first call unless the derivative
    kicks); the finite-difference derivative; the integrator (reset beyond ``i_zone``; with ``ki != 0``
    clamped so that ``ki * total`` stays in the integrator range; untouched with ``ki == 0``); the output
    ``kp e + ki total + kd de/dt``."""

    def __init__(self, kp, ki, kd, period, kick):
        self.kp, self.ki, self.kd, self.period, self.kick = kp, ki, kd, period, kick
        self.i_zone, self.lo_integral, self.hi_integral = math.inf, -1.0, 1.0
        self.continuous, self.lo_input, self.hi_input = False, 0.0, 0.0
        self.tolerance, self.derivative_tolerance = 0.05, math.inf
        self.setpoint, self.measurement, self.have_setpoint, self.have_measurement = 0.0, 0.0, False, False
        self.error = self.previous = self.derivative = self.total = 0.0

    def wrapped(self, error):
        if not self.continuous:
            return error
        half = (self.hi_input - self.lo_input) / 2.0
        return half - (half - error) % (half - -half)  # floor-modulo into (-half, half]

    def calculate(self, measurement, setpoint=None):
        if setpoint is not None:
            self.setpoint, self.have_setpoint = setpoint, True
        error = self.wrapped(self.setpoint - measurement)
        # WPILib takes the last error as the previous one (0 after a reset, or what set_setpoint recomputed);
        # without the derivative kick a first call takes its own error
        self.previous = error if (not self.have_measurement and not self.kick) else self.error
        self.measurement, self.have_measurement, self.error = measurement, True, error
        self.derivative = (error - self.previous) / self.period
        if abs(error) > self.i_zone:
            self.total = 0.0
        elif self.ki != 0.0:
            self.total = min(max(self.total + error * self.period, self.lo_integral / self.ki),
                             self.hi_integral / self.ki)
        return self.kp * error + self.ki * self.total + self.kd * self.derivative

    def set_setpoint(self, setpoint):
        self.setpoint, self.have_setpoint = setpoint, True
        self.error = self.wrapped(setpoint - self.measurement)
        self.derivative = (self.error - self.previous) / self.period

    def reset(self):
        self.error = self.previous = self.derivative = self.total = 0.0
        self.have_measurement = False

    def at_setpoint(self):
        return (self.have_setpoint and self.have_measurement and abs(self.error) < self.tolerance
                and abs(self.derivative) < self.derivative_tolerance)


def _settings(rng):
    """Shared settings of a random controller: period, derivative kick, i_zone, integrator range, continuous
    input (bounds or None), tolerances."""
    return dict(
        period=rng.choice([0.02, 0.005, rng.uniform(0.001, 0.1)]),
        kick=rng.random() < 0.3,
        i_zone=rng.choice([math.inf, rng.uniform(0.1, 3.0)]),
        integral=rng.choice([(-1.0, 1.0), (-0.0, 0.0), (0.0, 0.0), (-math.inf, math.inf),
                             tuple(sorted((rng.uniform(-3, 3), rng.uniform(-3, 3))))]),
        continuous=rng.choice([None, None, (-math.pi, math.pi), (0.0, 360.0),
                               tuple(sorted((rng.uniform(-5, 5), rng.uniform(-5, 5))))]),
        tolerances=(rng.uniform(0.01, 1.0), rng.choice([math.inf, rng.uniform(1.0, 50.0)])),
    )


def _gains(rng):
    return rng.uniform(0, 5), rng.choice([0.0, 0.0, rng.uniform(0, 20)]), rng.choice([0.0, rng.uniform(0, 0.5)])


def _configure(pid, settings):
    pid.set_i_zone(settings["i_zone"])
    pid.set_integrator_range(*settings["integral"])
    if settings["continuous"] is not None:
        pid.enable_continuous_input(*settings["continuous"])
    pid.set_tolerance(*settings["tolerances"])


def _reference(kp, ki, kd, settings):
    ref = WPILibPID(kp, ki, kd, settings["period"], settings["kick"])
    ref.i_zone = settings["i_zone"]
    ref.lo_integral, ref.hi_integral = settings["integral"]
    if settings["continuous"] is not None:
        ref.continuous = True
        ref.lo_input, ref.hi_input = settings["continuous"]
    ref.tolerance, ref.derivative_tolerance = settings["tolerances"]
    return ref


def _measurement(rng, settings):
    """A measurement, now and then one that puts the error on a wrap boundary (half a period off)."""
    bounds = settings["continuous"]
    if bounds is not None and rng.random() < 0.1:
        return rng.choice([bounds[0], bounds[1], -(bounds[1] - bounds[0]) / 2.0, 0.0])
    return rng.choice([rng.uniform(-10.0, 10.0), rng.uniform(-1.0, 1.0), 0.0])


def _assert_same_state(pid, ref):
    assert bits(pid.error) == bits(ref.error)
    assert bits(pid.error_derivative) == bits(ref.derivative)
    assert bits(pid.accumulated_error) == bits(ref.total)
    assert bits(pid.setpoint) == bits(ref.setpoint)
    assert pid.at_setpoint() == ref.at_setpoint()


class KernelAtOffsets:
    """simcore.kernel.pid's functions called directly, on a controller's vectors placed at offsets inside
    larger arrays (as a run holding several controllers places them), with PIDController's surface."""

    def __init__(self, kp, ki, kd, period, kick, settings):
        from simcore.kernel import pid as k

        self.k, self.po, self.so = k, 5, 3
        self.p = np.full(self.po + k.N_PID_PARAMETERS + 4, np.nan)  # neighbours' slots: NaN, never read
        self.s = np.full(self.so + k.N_PID_STATE + 2, np.nan)
        self.s[self.so:self.so + k.N_PID_STATE] = 0.0
        lo_integral, hi_integral = settings["integral"]
        lo_input, hi_input = settings["continuous"] or (0.0, 0.0)
        for slot, value in ((k.Q_KP, kp), (k.Q_KI, ki), (k.Q_KD, kd), (k.Q_PERIOD, period),
                            (k.Q_I_ZONE, settings["i_zone"]), (k.Q_MIN_INTEGRAL, lo_integral),
                            (k.Q_MAX_INTEGRAL, hi_integral), (k.Q_CONTINUOUS, settings["continuous"] is not None),
                            (k.Q_MIN_INPUT, lo_input), (k.Q_MAX_INPUT, hi_input), (k.Q_DERIVATIVE_KICK, kick)):
            self.p[self.po + slot] = value
        self.tolerances = settings["tolerances"]

    def calculate(self, measurement, setpoint=None):
        return self.k.calculate(self.p, self.po, self.s, self.so, measurement,
                                0.0 if setpoint is None else setpoint, setpoint is not None)

    def set_setpoint(self, setpoint):
        self.k.set_setpoint(self.p, self.po, self.s, self.so, setpoint)

    def reset(self):
        self.k.reset(self.s, self.so)

    def at_setpoint(self):
        return bool(self.k.at_setpoint(self.s, self.so, *self.tolerances))

    ki = property(None, lambda self, v: self.p.__setitem__(self.po + self.k.Q_KI, v))
    error = property(lambda self: self.s[self.so + self.k.Z_ERROR])
    error_derivative = property(lambda self: self.s[self.so + self.k.Z_ERROR_DERIVATIVE])
    accumulated_error = property(lambda self: self.s[self.so + self.k.Z_TOTAL_ERROR])
    setpoint = property(lambda self: self.s[self.so + self.k.Z_SETPOINT])


def _controller(kp, ki, kd, settings):
    pid = PIDController(kp, ki, kd, period=settings["period"], derivative_kick=settings["kick"])
    _configure(pid, settings)
    return pid


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("form", ["PIDController", "kernel functions"])
def test_float_calls_equal_wpilibs_law_on_python_floats_to_the_bit(seed, form):
    rng = random.Random(seed)
    settings = _settings(rng)
    kp, ki, kd = _gains(rng)
    if form == "PIDController":
        pid = _controller(kp, ki, kd, settings)
    else:
        pid = KernelAtOffsets(kp, ki, kd, settings["period"], settings["kick"], settings)
    ref = _reference(kp, ki, kd, settings)
    for _ in range(150):
        action = rng.random()
        if action < 0.45:
            m = _measurement(rng, settings)
            assert bits(pid.calculate(m)) == bits(ref.calculate(m))
        elif action < 0.8:
            m, r = _measurement(rng, settings), rng.uniform(-10.0, 10.0)
            assert bits(pid.calculate(m, r)) == bits(ref.calculate(m, r))
        elif action < 0.9:
            r = rng.uniform(-10.0, 10.0)
            pid.set_setpoint(r)
            ref.set_setpoint(r)
        elif action < 0.95:
            pid.reset()
            ref.reset()
        else:  # retuned online: the integrator on or off (ki = 0 keeps the accumulator)
            ki = rng.choice([0.0, rng.uniform(0.0, 20.0)])
            pid.ki = ki
            ref.ki = ki
        _assert_same_state(pid, ref)
        if form == "PIDController":
            assert type(pid.error) is float and type(pid.accumulated_error) is float
    if form == "kernel functions":  # the neighbours' slots were left alone
        assert np.isnan(pid.p[:pid.po]).all() and np.isnan(pid.p[pid.po + pid.k.N_PID_PARAMETERS:]).all()
        assert np.isnan(pid.s[:pid.so]).all() and np.isnan(pid.s[pid.so + pid.k.N_PID_STATE:]).all()


@pytest.mark.parametrize("seed", range(20))
def test_a_batchs_elements_equal_single_controllers_on_floats_to_the_bit(seed):
    # Gains, measurements and setpoints vary per element; the settings are shared, as a batch's are.
    rng = random.Random(1000 + seed)
    settings = _settings(rng)
    n = rng.choice([1, 3, 7])
    gains = [_gains(rng) for _ in range(n)]
    kp, ki, kd = (np.array(g) for g in zip(*gains))
    batch = _controller(kp, ki, kd, settings)
    singles = [_controller(*g, settings) for g in gains]
    for _ in range(80):
        action = rng.random()
        ms = np.array([_measurement(rng, settings) for _ in range(n)])
        if action < 0.7:
            if rng.random() < 0.5:
                out, expected = batch.calculate(ms), [c.calculate(float(m)) for c, m in zip(singles, ms)]
            else:
                r = rng.choice([rng.uniform(-10, 10), np.array([rng.uniform(-10, 10) for _ in range(n)])])
                out = batch.calculate(ms, r)
                expected = [c.calculate(float(m), float(x)) for c, m, x in zip(singles, ms, np.broadcast_to(r, n))]
            assert type(out) is np.ndarray and out.shape == (n,)
            assert out.tobytes() == np.array(expected).tobytes()
        elif action < 0.82:
            r = rng.choice([rng.uniform(-10, 10), np.array([rng.uniform(-10, 10) for _ in range(n)])])
            batch.set_setpoint(r)
            for c, x in zip(singles, np.broadcast_to(r, n)):
                c.set_setpoint(float(x))
        elif action < 0.9:
            for c in [batch, *singles]:
                c.reset()
        else:  # ki per element, or 0 for all (a PD loop keeps each accumulator)
            ki = rng.choice([0.0, np.array([rng.choice([0.0, rng.uniform(0, 20)]) for _ in range(n)])])
            batch.ki = ki
            for c, k in zip(singles, np.broadcast_to(ki, n)):
                c.ki = float(k)
        for name in ("error", "error_derivative", "accumulated_error"):
            assert getattr(batch, name).tobytes() == np.array([getattr(c, name) for c in singles]).tobytes()
        at = batch.at_setpoint()
        if not any(c.at_setpoint() for c in singles) and at is False:
            continue  # before a setpoint and a measurement: False for the whole batch, as for each single
        assert list(at) == [c.at_setpoint() for c in singles]


def test_array_measurements_on_float_gains_make_a_batch_of_single_controllers():
    # A controller made with floats, handed (3,) measurements: each element is a controller on floats.
    batch = PIDController(1.5, 4.0, 0.2)
    singles = [PIDController(1.5, 4.0, 0.2) for _ in range(3)]
    for step in range(6):
        ms = np.array([0.1 * step, -0.3 * step, 0.05])
        out = batch.calculate(ms, 1.0)
        assert out.tobytes() == np.array([c.calculate(float(m), 1.0) for c, m in zip(singles, ms)]).tobytes()
    assert batch.kp == 1.5 and type(batch.kp) is float and batch.setpoint == 1.0
    assert batch.kernel_vectors() is None


def test_kernel_vectors_are_the_controllers_own_storage():
    from simcore.kernel import pid as kernel

    engine_side = PIDController(3.0, 2.0, 0.1)
    robot_side = PIDController(3.0, 2.0, 0.1)
    for c in (engine_side, robot_side):
        c.enable_continuous_input(-math.pi, math.pi)
    p, s = engine_side.kernel_vectors()
    assert p.shape == (kernel.N_PID_PARAMETERS,) and s.shape == (kernel.N_PID_STATE,)
    assert p[kernel.Q_KP] == 3.0 and p[kernel.Q_CONTINUOUS] == 1.0 and p[kernel.Q_MAX_INPUT] == math.pi
    # the engine ticks the controller on a copy of its vectors and writes the state back
    run_p, run_s = p.copy(), s.copy()
    for m in (3.0, -3.1, 0.5):
        assert bits(kernel.calculate(run_p, 0, run_s, 0, m, 2.5, True)) == bits(robot_side.calculate(m, 2.5))
    s[:] = run_s
    assert bits(engine_side.error) == bits(robot_side.error)
    assert bits(engine_side.accumulated_error) == bits(robot_side.accumulated_error)
    assert bits(engine_side.calculate(0.25)) == bits(robot_side.calculate(0.25))
    engine_side.kp = 5.0  # a setter writes the same vector
    assert p[kernel.Q_KP] == 5.0 and engine_side.kernel_vectors()[0] is p


def test_copies_and_pickles_carry_on_as_the_original():
    pid = PIDController(2.0, 1.0, 0.3, derivative_kick=True)
    pid.enable_continuous_input(0.0, 360.0)
    pid.set_i_zone(90.0)
    pid.calculate(10.0, 350.0)
    twins = [copy.deepcopy(pid), pickle.loads(pickle.dumps(pid))]
    for m in (20.0, 340.0, 5.0):
        out = pid.calculate(m)
        for t in twins:
            assert bits(t.calculate(m)) == bits(out)
    # a copy's vectors are its own
    twins[0].reset()
    assert pid.error != 0.0 and twins[0].error == 0.0


def test_input_modulus_is_floor_modulo_into_the_half_open_period_for_numbers_and_arrays():
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.uniform(-1e3, 1e3, 200), [-math.pi, math.pi, 0.0, -0.0, 3 * math.pi]])
    for lo, hi in ((-math.pi, math.pi), (0.0, 360.0), (-2.0, 5.5)):
        expected = np.array([hi - (hi - v) % (hi - lo) for v in values.tolist()])  # Python's float floor-modulo
        assert input_modulus(values, lo, hi).tobytes() == expected.tobytes()
        assert np.array([input_modulus(v, lo, hi) for v in values.tolist()]).tobytes() == expected.tobytes()
        assert input_modulus(values.reshape(5, 41), lo, hi).shape == (5, 41)
    with pytest.raises(ConfigError) as info:
        input_modulus(1.0, 2.0, 2.0)
    assert info.value.parameter == "maximum"


def test_gains_of_shapes_that_do_not_broadcast_are_refused_naming_the_gain():
    pid = PIDController(np.array([1.0, 2.0, 3.0]), 0.0, 0.0)
    with pytest.raises(ConfigError) as info:
        pid.kd = np.array([0.1, 0.2])
    assert info.value.parameter == "kd"
    assert pid.kd == 0.0  # unchanged
    with pytest.raises(ConfigError) as info:
        pid.calculate(np.array([0.0, 1.0]), 1.0)
    assert info.value.parameter == "measurement"
    with pytest.raises(ConfigError) as info:
        PIDController(np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0]), 0.0)
    assert info.value.parameter == "ki"
