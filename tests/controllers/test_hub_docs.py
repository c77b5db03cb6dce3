"""The examples in the hub package's docstrings run (as doctests), so the documented way of writing an op mode
cannot silently stop working."""
import doctest

import pytest

import simcore.controllers.hub as hub


@pytest.mark.parametrize("module", [hub], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.attempted >= 5 and result.failed == 0
