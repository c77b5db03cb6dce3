"""A kernel function compiled without numba's reference counting (``jit`` without ``allocates=True``) must not
return an array, not even one it was passed: its caller, counting references, would take the returned array as
a new reference the function never took, and free it twice (a review found that a two-line function returning
its argument, called five times from a counting caller, corrupted the heap: ``malloc(): unsorted double linked
list corrupted``). The kernel's dispatcher refuses to compile such a function, naming it and the declaration."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from simcore.kernel.jit import jit

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="a compile-time check: nothing is compiled")


@jit(cache=False)
def _returns_its_argument(a):
    return a


@jit(cache=False)
def _returns_it_in_a_tuple(a, x):
    return x, a


@jit(allocates=True, cache=False)
def _calls(a):
    return _returns_its_argument(a).sum()


@jit(allocates=True, cache=False)
def _calls_for_the_tuple(a):
    return _returns_it_in_a_tuple(a, 1.0)[1].sum()


@jit(allocates=True, cache=False)
def _returns_declared(a):
    return a


@pytest.mark.parametrize("caller", [_calls, _calls_for_the_tuple])
def test_a_function_returning_an_array_without_reference_counting_is_refused(caller):
    with pytest.raises(Exception, match=r"returns .*array.* compiled without reference counting: declare it "
                                        r"jit\(allocates=True\)"):
        caller(np.arange(3.0))


def test_declared_it_returns_the_array():
    a = np.arange(3.0)
    assert _returns_declared(a) is not None and _returns_declared(a).sum() == 3.0
