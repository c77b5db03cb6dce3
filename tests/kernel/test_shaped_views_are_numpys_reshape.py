"""simcore.kernel.borrowed.shaped views a 1-D C-contiguous slice with a shape, as numpy's reshape does (C order: the
last axis contiguous), without the runtime's stride helper: the same elements at the same indices, writes through
it landing in the array it views."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from simcore.kernel.borrowed import shaped

COLUMNS = 3  # (a module constant: numba types it as a literal inside the shape tuple)


@njit
def _view(x, start, rows):
    return shaped(x[start:start + 2 * rows * COLUMNS], (rows, 2, COLUMNS)).copy()


@njit
def _write(x, rows):
    v = shaped(x[1:1 + rows * COLUMNS], (rows, COLUMNS))
    v[rows - 1, COLUMNS - 1] = -1.0
    v[0, 0] = -2.0


@pytest.mark.parametrize("start,rows", [(0, 1), (4, 2), (1, 3)])
def test_shaped_gives_the_elements_numpys_reshape_gives(start, rows):
    x = np.arange(40.0)
    expected = x[start:start + 2 * rows * COLUMNS].reshape((rows, 2, COLUMNS))
    got = _view(x, start, rows)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected)


def test_a_write_through_a_shaped_view_lands_in_the_array_it_views():
    x = np.zeros(12)
    _write(x, 3)
    assert x[1] == -2.0 and x[1 + 3 * COLUMNS - 1] == -1.0
    assert np.count_nonzero(x) == 2
