"""The feedforwards run simcore.kernel.feedforward's law: ``calculate`` equals, to the bit, WPILib's documented
formulas on Python floats (``ks sign(v) [+ kg | + kg cos(angle)] + kv v + ka a``, ``sign(0) = 0``);
``calculate_with_velocities`` reaches the next velocity on the analytic solution of the held first-order model;
a batch's elements (array gains and inputs) equal single feedforwards on floats to the bit; the kernel's
functions read a feedforward's vector at an offset. CI runs this file with NUMBA_DISABLE_JIT=1 too.
"""
from __future__ import annotations

import copy
import math
import pickle
import random
import struct

import numpy as np
import pytest

from simcore.controllers import ArmFeedforward, ElevatorFeedforward, SimpleMotorFeedforward
from simcore.errors import ConfigError


def bits(x) -> bytes:
    return struct.pack("<d", float(x))


def signum(x):
    """Java's Math.signum on a finite float: 1.0, -1.0, or 0.0 (both zeros give +0.0 here: ks * 0.0)."""
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0


def wpilib(kind, ks, kg, kv, ka, angle, v, a):
    """WPILib's feedforward formulas, summed left to right as its javadoc writes them."""
    if kind == "simple":
        return ks * signum(v) + kv * v + ka * a
    if kind == "elevator":
        return ks * signum(v) + kg + kv * v + ka * a
    return ks * signum(v) + kg * math.cos(angle) + kv * v + ka * a


def make(kind, ks, kg, kv, ka, period=0.02):
    if kind == "simple":
        return SimpleMotorFeedforward(ks, kv, ka, period=period)
    if kind == "elevator":
        return ElevatorFeedforward(ks, kg, kv, ka, period=period)
    return ArmFeedforward(ks, kg, kv, ka, period=period)


def call(ff, kind, angle, v, a):
    return ff.calculate(angle, v, a) if kind == "arm" else ff.calculate(v, a)


def _gains(rng):
    return (rng.choice([0.0, rng.uniform(-1, 1)]), rng.uniform(-2, 2), rng.choice([0.0, rng.uniform(0, 3)]),
            rng.choice([0.0, rng.uniform(0, 1)]))


def _value(rng, scale):
    return rng.choice([0.0, -0.0, rng.uniform(-scale, scale), rng.uniform(-1e-3, 1e-3)])


@pytest.mark.parametrize("kind", ["simple", "elevator", "arm"])
@pytest.mark.parametrize("seed", range(5))
def test_calculate_equals_wpilibs_formula_on_python_floats_to_the_bit(kind, seed):
    rng = random.Random(seed)
    for _ in range(200):
        ks, kg, kv, ka = _gains(rng)
        ff = make(kind, ks, kg, kv, ka)
        angle, v, a = _value(rng, 4.0), _value(rng, 5.0), _value(rng, 3.0)
        out = call(ff, kind, angle, v, a)
        assert type(out) is float
        assert bits(out) == bits(wpilib(kind, ks, kg, kv, ka, angle, v, a))


@pytest.mark.parametrize("kind", ["simple", "elevator"])
@pytest.mark.parametrize("seed", range(4))
def test_calculate_with_velocities_reaches_the_next_velocity_on_the_analytic_solution(kind, seed):
    # ka dv/dt = u - ks sign(v0) - kg - kv v with u held for T: v(T) = v_ss + (v0 - v_ss) exp(-kv T / ka),
    # v_ss = (u - ks sign(v0) - kg) / kv; with kv = 0, v(T) = v0 + (u - ks sign(v0) - kg) T / ka.
    rng = random.Random(100 + seed)
    for _ in range(100):
        ks, kg, kv, _ = _gains(rng)
        ka = rng.uniform(0.05, 1.0)
        period = rng.choice([0.02, rng.uniform(0.001, 0.1)])
        ff = make(kind, ks, kg, kv, ka, period)
        v0, v1 = rng.uniform(-5, 5), rng.uniform(-5, 5)
        u = ff.calculate_with_velocities(v0, v1)
        drive = u - ks * signum(v0) - (kg if kind == "elevator" else 0.0)
        if kv == 0.0:
            v_end = v0 + drive / ka * period
        else:
            v_end = drive / kv + (v0 - drive / kv) * math.exp(-kv / ka * period)
        assert v_end == pytest.approx(v1, rel=1e-9, abs=1e-9)


def test_calculate_with_velocities_without_inertia_is_the_next_velocitys_steady_output():
    # WPILib: ka below 1e-9 means no inertia; the output is the steady one at the next velocity.
    for ka in (0.0, 0.5e-9):
        ff = ElevatorFeedforward(0.3, 0.7, 2.0, ka)
        assert bits(ff.calculate_with_velocities(4.0, -1.5)) == bits(0.3 * -1.0 + 0.7 + 2.0 * -1.5)


@pytest.mark.parametrize("kind", ["simple", "elevator", "arm"])
@pytest.mark.parametrize("seed", range(4))
def test_a_batchs_elements_equal_single_feedforwards_on_floats_to_the_bit(kind, seed):
    rng = random.Random(200 + seed)
    n = rng.choice([1, 4, 9])
    gains = [_gains(rng) for _ in range(n)]
    ks, kg, kv, ka = (np.array(column) for column in zip(*gains))
    batch = make(kind, ks, kg, kv, ka)
    singles = [make(kind, *map(float, g)) for g in gains]
    for _ in range(30):
        angle = np.array([_value(rng, 4.0) for _ in range(n)])
        v = rng.choice([_value(rng, 5.0), np.array([_value(rng, 5.0) for _ in range(n)])])
        a = np.array([_value(rng, 3.0) for _ in range(n)])
        out = call(batch, kind, angle, v, a)
        assert type(out) is np.ndarray and out.shape == (n,)
        expected = [call(c, kind, float(x), float(y), float(z))
                    for c, x, y, z in zip(singles, angle, np.broadcast_to(v, n), a)]
        assert out.tobytes() == np.array(expected).tobytes()
    if kind != "arm":
        inert = make(kind, ks, kg, kv, ka + 0.1)
        inert_singles = [make(kind, float(s), float(g), float(c), float(m) + 0.1)
                         for s, g, c, m in zip(ks, kg, kv, ka)]
        v0, v1 = np.linspace(-3, 3, n), np.linspace(2, -1, n)
        out = inert.calculate_with_velocities(v0, v1)
        expected = [c.calculate_with_velocities(float(x), float(y)) for c, x, y in zip(inert_singles, v0, v1)]
        assert out.tobytes() == np.array(expected).tobytes()


def test_array_inputs_on_float_gains_make_one_output_per_element():
    ff = ArmFeedforward(0.1, 1.5, 2.0, 0.3)
    angles = np.array([[0.0, math.pi / 3], [math.pi / 2, -1.0]])
    out = ff.calculate(angles, 1.0, 2.0)
    assert out.shape == (2, 2)
    assert out.tobytes() == np.array([[wpilib("arm", 0.1, 1.5, 2.0, 0.3, x, 1.0, 2.0) for x in row]
                                      for row in angles.tolist()]).tobytes()
    assert ff.kernel_vector() is not None and ff.ks == 0.1 and type(ff.ks) is float


def test_the_kernel_reads_a_feedforwards_vector_at_an_offset():
    from simcore.kernel import feedforward as k

    ff = ElevatorFeedforward(0.2, 0.9, 3.0, 0.5, period=0.01)
    p = np.full(3 + k.N_FEEDFORWARD_PARAMETERS + 2, np.nan)  # neighbours' slots: NaN, never read
    p[3:3 + k.N_FEEDFORWARD_PARAMETERS] = ff.kernel_vector()
    assert bits(k.calculate(p, 3, 0.0, -1.25, 0.5)) == bits(wpilib("elevator", 0.2, 0.9, 3.0, 0.5, 0.0, -1.25, 0.5))
    assert bits(k.with_velocities(p, 3, 1.0, 1.3)) == bits(ff.calculate_with_velocities(1.0, 1.3))
    ff.kg = 1.1  # a setter writes the vector the kernel reads
    assert ff.kernel_vector()[k.Q_KG] == 1.1 and ff.kg == 1.1


def test_gains_set_later_are_checked_and_shapes_must_broadcast():
    ff = SimpleMotorFeedforward(0.1, np.array([1.0, 2.0, 3.0]), 0.0)
    with pytest.raises(ConfigError) as info:
        ff.kv = -1.0
    assert info.value.parameter == "kv"
    with pytest.raises(ConfigError) as info:
        ff.ka = np.array([0.1, 0.2])
    assert info.value.parameter == "ka"
    with pytest.raises(ConfigError) as info:
        ff.calculate(np.array([1.0, 2.0]))
    assert info.value.parameter == "velocity"
    with pytest.raises(ConfigError) as info:
        ff.period = 0.0
    assert info.value.parameter == "period"
    ff.kv = 2.0  # back to one feedforward
    assert type(ff.calculate(1.0)) is float and ff.kernel_vector() is not None


def test_copies_and_pickles_compute_as_the_original():
    ff = ArmFeedforward(0.1, np.array([1.0, 1.5]), 2.0, 0.3)
    for twin in (copy.deepcopy(ff), pickle.loads(pickle.dumps(ff))):
        assert twin.calculate(0.4, 1.0).tobytes() == ff.calculate(0.4, 1.0).tobytes()
        twin.kg = 0.0
        assert ff.kg.tolist() == [1.0, 1.5]
