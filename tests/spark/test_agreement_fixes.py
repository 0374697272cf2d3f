"""The programs issue 24 (item 2) found passing ``--check`` and then failing to build or
running wrong, on Spark against CPython (``agreement_algos.py``): ``%`` formatting,
``str(k)`` of a group key in an ordered loop that yields, and containers filled in an
ordered loop and read after it (a list's order, a dict's last values and running
totals, a set's distinct elements and what its discards left).

Each table algorithm runs hand-picked rows (ties in the order field, a key that comes
back, a None-free mix of signs) and a batch of hypothesis inputs in one Spark action
(:func:`expect_same_batch`); each scalar one batch of values through one job: about 17
Spark jobs in all.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.spark import agreement_algos as A
from tests.spark.harness import check_scalar_batch, expect_same_batch, row_types, table_inputs

pytestmark = pytest.mark.spark

TABLES = [A.fmt_rows, A.tags, A.first_last, A.steps, A.latest_and_total, A.distinct_after,
          A.kept_members, A.whole_input]  # fmt: skip
HAND = {
    2: [(1, 5), (1, 2), (2, 9), (1, 7), (2, 9), (3, -1)],
    3: [(1, 3, 10), (1, 1, 30), (1, 2, 20), (2, 5, 7), (2, 4, 9), (1, 3, 31), (2, 4, -2),
        (3, 0, 0), (1, 1, 5)],  # fmt: skip
}


def _settings(n: int) -> Any:
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip


@pytest.mark.parametrize("algo", TABLES, ids=lambda a: a.name)
def test_tables_match_python(spark: Any, algo: Any) -> None:
    width = len(row_types(algo))
    inputs: list[tuple[list, tuple]] = [(HAND[width], ()), ([], ())]

    @_settings(6)
    @given(table_inputs(algo, max_size=10))
    def gather(inp: Any) -> None:
        rows, scalars = inp
        inputs.append((rows, scalars))

    gather()
    expect_same_batch(spark, algo, inputs)


def test_percent_formatting_matches_python(spark: Any) -> None:
    """``%d`` of ints, floats (truncated toward zero) and bools, ``%.2f`` / ``%f`` (Python's
    rounding), ``%s`` of str and None, ``%%``."""
    ints = [0, 7, -7, 2**40, -(2**62)]
    check_scalar_batch(spark, A.fmt, [(x,) for x in ints], max_raise_checks=0)
    floats = [0.0, 2.5, -2.5, 0.125, -0.005, 1e15 + 0.3, 123456.789, -0.0, 3.999999]
    check_scalar_batch(spark, A.fmt_mixed, [(x, s) for x in floats for s in ("", "é%s")],
                       max_raise_checks=0)  # fmt: skip

    @_settings(1)
    @given(st.lists(st.tuples(st.booleans(), st.one_of(st.none(), st.integers(-99, 99))),
                    min_size=20, max_size=20))  # fmt: skip
    def flags(rows: list) -> None:
        check_scalar_batch(spark, A.fmt_flags, rows, max_raise_checks=0)

    flags()
