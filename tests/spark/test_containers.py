"""Local containers as accumulators (SPEC §2 "Containers"): compiled plans against CPython.

Each algorithm of ``container_algos.py`` runs on hypothesis data (derandomized,
two examples each, the first the empty input: ~12 Spark jobs in all) and must return CPython's rows, or raise
where Python raises (``max`` of an empty list, an index out of range, a zero
total).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.spark import container_algos as algos
from tests.spark.harness import expect_same_or_both_raise, table_inputs

pytestmark = pytest.mark.spark

ALGOS = [algos.key_stats, algos.spread, algos.top3, algos.top_pages, algos.running, algos.latest]


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_containers_match_python(spark, algo) -> None:  # noqa: ANN001
    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(table_inputs(algo, max_size=12))
    def run(inp) -> None:  # noqa: ANN001
        rows, scalars = inp
        expect_same_or_both_raise(spark, algo, rows, scalars)

    run()
