"""The examples in the states' docstrings run and hold."""

from __future__ import annotations

import doctest

import looplift.states
import pytest
from looplift.states import _base, additive, interval, laws, multiset

MODULES = [looplift.states, _base, additive, interval, laws, multiset]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
