"""Order forms on Spark (issue 10 items 3, 4, 7): each algorithm of ``order_algos.py``
once, on rows with ties, duplicates and negative numbers, against CPython (12 jobs).

Ties are what these forms get wrong first: ``order_by`` and ``sorted(g, key=...)``
break them by the remaining fields ascending, a top-N cut falls inside a tie, and
an arg-max keeps the first (``>``) or the last (``>=``) of equal keys.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.spark import order_algos as A
from tests.spark.harness import assert_same, kind_of, run_compiled, run_reference

pytestmark = pytest.mark.spark

ROWS = [
    (1, 3, "b"), (1, 3, "a"), (1, -2, "c"), (1, 3, "b"), (2, 0, "a"), (2, 7, "c"),
    (2, 7, "a"), (-1, 5, "b"), (-1, -4, "a"), (3, 3, "c"), (3, -1, "b"), (0, 2, "a"),
]  # fmt: skip

ALGOS = [A.desc_multi, A.field0_desc, A.whole_input, A.one_group, A.key_lambda, A.top2,
         A.newest, A.arg_min, A.computed, A.computed_text, A.whole_group]  # fmt: skip


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_same_as_cpython(spark: Any, algo: Any) -> None:
    assert_same(kind_of(algo), run_compiled(spark, algo, ROWS), run_reference(algo, ROWS))


def test_whole_input_order_over_no_rows(spark: Any) -> None:
    """A global ordered loop over no rows still returns its starting value."""
    assert run_reference(A.whole_input, []) == 0
    assert run_compiled(spark, A.whole_input, []) == 0


def test_one_group_of_no_rows_is_no_group(spark: Any) -> None:
    """``group_by((), rows)`` over no rows yields nothing, as in CPython."""
    assert run_reference(A.whole_group, []) == []
    assert run_compiled(spark, A.whole_group, []) == []
