"""A kernel function called from compiled code with a constant and with a variable is compiled once: numba
would otherwise compile a copy for each constant value (a literal specialization), which costs compile time and
nothing else (simcore.kernel.jit)."""
from __future__ import annotations

import numba
import pytest

from simcore.kernel.jit import jit

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="inspects compiled signatures")


@jit(cache=False)
def _scaled(x, n):
    return x * n


@jit(cache=False)
def _calls_with_constants_and_variables(x):
    n = 0  # a counter that starts at a constant
    for _ in range(3):
        n = n + 1
        x = _scaled(x, n)
    return _scaled(x, 2) + _scaled(x, n)


def test_a_constant_argument_compiles_no_second_copy():
    assert _calls_with_constants_and_variables(1.0) == 1.0 * 1 * 2 * 3 * 2 + 1.0 * 1 * 2 * 3 * 3
    assert [tuple(str(a) for a in sig) for sig in _scaled.signatures] == [("float64", "int64")]
