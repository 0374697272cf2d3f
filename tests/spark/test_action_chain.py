"""``if``/``elif``/``else`` action chains on Spark (issue 27; ``chain_algos.py``): the
action code with each condition once and an ``ELSE``, against CPython on edge rows (None
categories, ties, duplicates) and hypothesis data."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.spark import chain_algos as algos
from tests.spark.harness import expect_same_or_both_raise, table_inputs

pytestmark = pytest.mark.spark

# fmt: off
EDGES = {
    "per_user": [[], [(1, 0, 5), (1, None, 6), (1, None, 6), (1, 1, 7), (2, None, 1), (2, 0, 1),
                      (2, 1, 1), (3, 1, 0), (3, 0, 2), (3, 7, 3), (3, 1, 4)]],
    "four_way": [[(0, 1), (6, 2), (3, 3), (1, 4), (0, 4), (2, 5), (1, 9)]],
}
# fmt: on
ALGOS = [algos.per_user, algos.four_way]


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_chain_algos_match_python(spark, algo) -> None:  # noqa: ANN001
    for rows in EDGES[algo.name]:
        expect_same_or_both_raise(spark, algo, rows, ())

    @settings(max_examples=4, deadline=None, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(table_inputs(algo, max_size=14))
    def run(inp) -> None:  # noqa: ANN001
        rows, scalars = inp
        expect_same_or_both_raise(spark, algo, rows, scalars)

    run()
