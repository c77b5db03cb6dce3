"""BangBangController runs simcore.kernel.bangbang's law: on random call sequences (numbers and arrays) its
output is WPILib's documented rule (1 below the setpoint, 0 at or above it), ``at_setpoint`` is
``|setpoint - measurement| < tolerance`` on the last call's values, element-wise for arrays; the kernel reads
the vectors at offsets. CI runs this file with NUMBA_DISABLE_JIT=1 too.
"""
from __future__ import annotations

import math
import random

import numpy as np

from simcore.controllers import BangBangController


def _value(rng, n):
    if n and rng.random() < 0.5:
        return np.array([rng.choice([rng.uniform(-3, 3), 1.0]) for _ in range(n)])
    return rng.choice([rng.uniform(-3, 3), 1.0])  # now and then exactly the setpoint below: output 0


def test_random_call_sequences_follow_wpilibs_rule_element_wise():
    rng = random.Random(4)
    for _ in range(100):
        n = rng.choice([0, 3])
        tolerance = rng.choice([math.inf, rng.uniform(0.0, 1.5)])
        controller = BangBangController(tolerance)
        setpoint, measurement = 0.0, 0.0
        for _ in range(40):
            m = _value(rng, n)
            if rng.random() < 0.5:
                setpoint = _value(rng, n)
                out = controller.calculate(m, setpoint)
            else:
                out = controller.calculate(m)
            measurement = m
            below = np.less(measurement, setpoint)  # WPILib: measurement < setpoint gives 1
            if np.ndim(below) == 0:
                assert type(out) is float and out == (1.0 if below else 0.0)
                assert controller.at_setpoint() is (abs(setpoint - measurement) < tolerance)
            else:
                assert out.tolist() == [1.0 if b else 0.0 for b in below.tolist()]
                assert controller.at_setpoint().tolist() == (np.abs(setpoint - measurement) < tolerance).tolist()
            assert np.array_equal(controller.error, np.subtract(setpoint, measurement))


def test_the_kernel_reads_the_vectors_at_offsets():
    from simcore.kernel import bangbang as k

    controller = BangBangController(0.5)
    p = np.concatenate([np.full(2, np.nan), controller.kernel_vectors()[0]])
    s = np.concatenate([np.full(3, np.nan), controller.kernel_vectors()[1], np.full(1, np.nan)])
    assert k.calculate(s, 3, 9.0, 10.0, True) == 1.0 and not k.at_setpoint(p, 2, s, 3)
    assert k.calculate(s, 3, 10.0, 0.0, False) == 0.0 and k.at_setpoint(p, 2, s, 3)  # the setpoint kept
    assert np.isnan(s[:3]).all() and np.isnan(s[-1]) and s[3 + k.Z_SETPOINT] == 10.0
    assert controller.calculate(9.6, 10.0) == 1.0 and controller.at_setpoint()
