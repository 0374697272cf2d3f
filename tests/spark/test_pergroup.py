"""Group values used per row through windows, not aggregate + join (issue 27, item 2;
``pergroup_algos.py``): compiled plans against CPython on Spark.

Each algorithm runs on hand-picked edge rows (ties, one-row and empty groups, ``None``
values and keys, sums past 64 bits, a zero total, Unicode and NaN keys) and on hypothesis
data, and must return CPython's rows or raise where Python raises. The plan tests check
the form: a window and no join where the group's values are read only per row, the
aggregate + join where they are not.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from looplift.groupform import CONF

from tests.spark import pergroup_algos as algos
from tests.spark.harness import compiled_frame, expect_same_or_both_raise, table_inputs

pytestmark = pytest.mark.spark

NAN = float("nan")
BIG = 2**62
# fmt: off
EDGES = {
    "centered": [[], [(1, 1, 1.0)], [(1, 1, 1.0), (1, 2, 1.0), (2, 3, -0.0), (2, 4, 1e300),
                                     (2, 5, 1e300), (3, 6, float("inf")), (3, 7, NAN)]],
    "share": [[(1, 1, 3), (1, 2, 3), (2, 3, 0), (2, 4, 5)],
              [(1, 1, 2), (1, 2, -2)],  # a zero total: ZeroDivisionError
              [(1, 1, BIG), (1, 2, BIG), (1, 3, BIG)],  # past 64 bits: Spark must fail
              [(1, 1, BIG), (1, 2, BIG), (1, 3, -BIG)]],
    "centered_avg": [[("é", 1, 1.5), ("é", 2, 2.5), ("e\u0301", 3, 4.0), (None, 4, 1.0),
                      (None, 5, 3.0), ("", 6, 0.0), ("日本", 7, -1.0)],
                     [("a", 1, 1.0), ("a", 2, None)]],  # None added: TypeError
    "guarded": [[("a", 1, 2), ("a", 2, 2), ("a", 3, -1), ("b", 4, -5), ("ü", 5, 0)],
                [("a", 1, 1), ("a", 2, 3), ("a", 3, 2)]],  # a tie: v * n == total
    "nested": [[(1, "x", 1, 1.0), (1, "x", 2, 3.0), (1, "y", 3, 2.0), (2, "x", 4, 0.5)],
               [(1, None, 1, 1.0), (1, None, 2, 2.0), (1, "", 3, 4.0)]],
    # distinct NaN objects (rows from Spark are): a group each, as the aggregate form
    "float_keys": [[(float("nan"), 1, 1.0), (float("nan"), 2, 2.0), (0.0, 3, 1.0), (-0.0, 4, 3.0),
                    (float("inf"), 5, 2.0), (1.5, 6, 7.0)]],
    "with_max": [[(1, 1, 3), (1, 2, 3), (2, 3, -1)], [(1, 1, BIG), (1, 2, BIG), (1, 3, 1)]],
    "spread": [[("a", 3, "é"), ("a", -2, "e"), ("a", 3, "z"), ("b", 7, ""), ("ü", BIG, "日"),
                ("ü", -BIG, "日本")],
               [("a", 2**63 - 1, "x"), ("a", -(2**63), "y")]],  # a distance past 64 bits
    "per_key_too": [[(1, 1, 3), (1, 2, 3), (2, 3, -1)]],
    "rank_share": [[(1, 1, 3), (1, 2, 3), (1, 3, -1), (2, 4, 7)],  # a tie on the order field
                   [(1, 1, 1), (1, 2, -1)]],  # a zero total
    "rank_then_last": [[(1, 1, 3), (1, 2, 3), (1, 3, -1), (2, 4, 7)]],
    "big_groups_only": [[(1, 1, 1.0), (1, 2, 2.0), (2, 3, 5.0), (3, 4, 0.5), (3, 5, 0.5)]],
}
# fmt: on
ALGOS = [
    algos.centered,
    algos.share,
    algos.centered_avg,
    algos.guarded,
    algos.nested,
    algos.float_keys,
    algos.with_max,
    algos.per_key_too,
    algos.rank_share,
    algos.rank_then_last,
    algos.big_groups_only,
    algos.spread,
]  # fmt: skip
#: the algorithms whose group values are windows over the rows (the rest: aggregate + join)
WINDOWED = {
    "centered",
    "share",
    "centered_avg",
    "guarded",
    "float_keys",
    "rank_share",
    "big_groups_only",
    "with_max",
    "spread",
}

#: the algorithms whose plan also holds the aggregate joined back, built where Spark's
#: statistics show few large groups (not rank_share: its ordered loop sorts the rows by
#: key anyway; nested: its inner scope is windowed)
JOINED_TOO = WINDOWED - {"rank_share"} | {"nested"}


def match_python(spark, algo, examples: int) -> None:  # noqa: ANN001
    """The algorithm's edge rows and ``examples`` hypothesis tables: CPython's rows, or
    an error where Python raises."""
    for rows in EDGES.get(algo.name, []):
        expect_same_or_both_raise(spark, algo, rows, ())

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(table_inputs(algo, max_size=12))
    def run(inp) -> None:  # noqa: ANN001
        rows, scalars = inp
        expect_same_or_both_raise(spark, algo, rows, scalars)

    run()


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_pergroup_algos_match_python(spark, algo) -> None:  # noqa: ANN001
    match_python(spark, algo, 3)


@contextlib.contextmanager
def group_values(spark, form: str):  # noqa: ANN001, ANN201
    """Plans built here take the group values' ``form`` (``spark.looplift.groupValues``)."""
    spark.conf.set(CONF, form)
    try:
        yield
    finally:
        spark.conf.unset(CONF)


@pytest.mark.parametrize("algo", [a for a in ALGOS if a.name in JOINED_TOO], ids=lambda a: a.name)
def test_joined_form_matches_python(spark, algo) -> None:  # noqa: ANN001
    """The other form of a windowed plan (the aggregate per key, broadcast and joined
    back), which a plan builds where Spark's statistics show few large groups."""
    with group_values(spark, "join"):
        match_python(spark, algo, 2)


def _plan(out) -> str:  # noqa: ANN001
    return out._jdf.queryExecution().executedPlan().toString()


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_group_values_per_row_form(spark, algo) -> None:  # noqa: ANN001
    """Windowed: a ``Window`` and no join in the physical plan; else the join stays."""
    plan = _plan(compiled_frame(spark, algo, next(r for r in EDGES[algo.name] if r)))
    if algo.name in WINDOWED:
        assert "Window" in plan and "Join" not in plan, plan
    else:
        assert "Join" in plan, plan
    if algo.name in JOINED_TOO:
        with group_values(spark, "join"):
            joined = _plan(compiled_frame(spark, algo, next(r for r in EDGES[algo.name] if r)))
        assert "BroadcastHashJoin" in joined and "Window" not in joined, joined
