"""Partial aggregation of mergeable states (issue 28 item 3): compiled == CPython.

Every partial plan of ``compiler/backend/partial.py`` (TopK as Spark's ``max_by(v, v, k)``,
Distinct's partial collect_set, the dict containers' partial sums) runs
on hypothesis data spread over several input partitions (so a scope key has several
partials to merge), with ties, duplicates, huge ints, scope keys whose rows add nothing
(empty states), global scopes over empty input and None (a guarded Optional field), and
compiled with ``Planner.partial_aggregation`` on and off. A user-defined state with
``@merge`` runs the Python partial/merge pair (``looplift.partials``), per scope key and
global. The plans are checked to hold the partial aggregates.
"""

from __future__ import annotations

import contextlib
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import import_path
from tests.spark.harness import (
    assert_same,
    collect,
    kind_of,
    result_of,
    row_types,
    run_reference,
    to_df,
)

pytestmark = pytest.mark.spark

SOURCE = '''
from typing import Optional

from looplift import RowStream, State, action, dataflow, group_by, merge
from looplift.states import Distinct, TopK


@dataflow(columns=("k", "top"))
def top3(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = TopK(3)
        for _k, v in g:
            if v % 4 != 0:
                t.add(v)
        yield k, t.values()


@dataflow
def top2_global(xs: RowStream[int]) -> list[int]:
    t = TopK(2)
    for (x,) in xs:
        t.add(x)
    return t.values()


@dataflow(columns=("k", "top"))
def top_words(rows: RowStream[int, str]):
    for k, g in group_by(0, rows):
        t = TopK(2)
        for _k, w in g:
            t.add(w)
        yield k, t.values()


@dataflow(columns=("k", "top"))
def top_present(rows: RowStream[int, Optional[int]]):
    for k, g in group_by(0, rows):
        t = TopK(2)
        for _k, v in g:
            if v is not None:
                t.add(v)
        yield k, t.values()


@dataflow(columns=("k", "n", "vals"))
def distinct_of(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        d = Distinct()
        for _k, v in g:
            if v != 0:
                d.add(v)
        yield k, d.count(), d.values()


@dataflow
def distinct_global(xs: RowStream[str]) -> int:
    d = Distinct()
    for (x,) in xs:
        d.add(x)
    return d.count()


@dataflow(columns=("k", "c", "s"))
def keyed(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        d = {}
        for _k, c, v in g:
            d[c] = d.get(c, 0) + v
        for c, s in d.items():
            yield k, c, s


class Span(State):
    """User-defined and mergeable: max - min of the values (0 when none)."""

    def __init__(self):
        self.seen = {}

    @action
    def add(self, x):
        self.seen[x] = self.seen.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.seen[x] -= 1
        if not self.seen[x]:
            del self.seen[x]

    @merge
    def merge(self, other):
        for x, n in other.seen.items():
            self.seen[x] = self.seen.get(x, 0) + n

    def width(self) -> int:
        return max(self.seen) - min(self.seen) if self.seen else 0


@dataflow(columns=("k", "width"))
def span_of(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        s = Span()
        for _k, v in g:
            if v != 3:
                s.add(v)
        yield k, s.width()


@dataflow
def span_global(xs: RowStream[int]) -> int:
    s = Span()
    for (x,) in xs:
        s.add(x)
    return s.width()
'''

#: generated inputs per test (CI runs 3; LOOPLIFT_PARTIAL_EXAMPLES=20 for a longer search)
FEW = settings(max_examples=int(os.environ.get("LOOPLIFT_PARTIAL_EXAMPLES", "3")), deadline=None, derandomize=True, database=None,
               suppress_health_check=list(HealthCheck))  # fmt: skip
KEYS = st.integers(0, 3)
SMALL = st.integers(-5, 9)  # ties and duplicates
HUGE = st.sampled_from([2**62, -(2**62), 2**63 - 1, -(2**63)])


@contextlib.contextmanager
def _no_partial() -> Any:
    from looplift.compiler.backend.plan import Planner

    Planner.partial_aggregation = False
    try:
        yield
    finally:
        Planner.partial_aggregation = True


def _load(tmp: Path, name: str) -> Any:
    path = tmp / f"{name}.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return import_path(path)


@pytest.fixture(scope="module")
def mods(tmp_path_factory: Any) -> tuple[Any, Any]:
    """The algorithms compiled with partial aggregation, and (another import, its own
    compiled plans) without."""
    tmp = tmp_path_factory.mktemp("partial")
    on, off = _load(tmp, "partial_on"), _load(tmp, "partial_off")
    with _no_partial():
        for name in ("top3", "top2_global", "top_words", "top_present", "distinct_of",
                     "distinct_global", "keyed", "span_of", "span_global"):  # fmt: skip
            getattr(off, name).backend()
    return on, off


def _check(spark: Any, mods: tuple[Any, Any], name: str, rows: list, parts: int = 3) -> None:
    """Both compiled forms equal CPython on ``rows`` spread over ``parts`` partitions."""
    for mod in mods:
        algo = getattr(mod, name)
        want = run_reference(algo, rows)
        df = to_df(spark, rows, row_types(algo)).repartition(parts)
        got = result_of(algo, collect(algo(df)))
        assert_same(kind_of(algo), got, want, f"{name} ({mod.__name__}) on {rows!r}")


def _plan(mod: Any, name: str, spark: Any, rows: list) -> str:
    algo = getattr(mod, name)
    return algo(to_df(spark, rows, row_types(algo)))._jdf.queryExecution().executedPlan().toString()


def test_explain_and_plans_show_partial_aggregates(spark: Any, mods: tuple[Any, Any]) -> None:
    on, off = mods
    expected = {
        "top3": "Spark's partial max_by(v, v, k)",
        "top2_global": "Spark's partial max_by(v, v, k)",
        "top_words": "Spark's partial max_by(v, v, k)",
        "distinct_of": "Spark's partial collect_set() per scope key",
        "distinct_global": "Spark's partial collect_set() per scope key",
        "keyed": "Spark's partial sum() per (scope key, dict key)",
    }
    for name, text in expected.items():
        assert f"partial aggregation: {text}" in getattr(on, name).explain(), name
    for name in ("span_of", "span_global"):
        assert (
            "partial aggregation: per input partition, a state per scope key folded in "
            "Python (mapInArrow)" in getattr(on, name).explain()
        )
    rows, rows3 = [(1, 5), (1, 6)], [(1, 5, 2), (1, 6, 3)]
    # TopK: Spark's max_by with k, partially aggregated before the shuffle
    plan = _plan(on, "top3", spark, rows)
    assert plan.index("partial_max_by") > plan.index("Exchange hashpartitioning"), plan
    plan_off = _plan(off, "top3", spark, rows)
    assert "max_by" not in plan_off and "collect_list" in plan_off, plan_off
    # Distinct: Spark's partial collect_set before the shuffle; without: a repartition first
    plan = _plan(on, "distinct_of", spark, rows)
    assert plan.index("partial_collect_set") > plan.index("Exchange hashpartitioning"), plan
    assert "REPARTITION_BY_COL" in _plan(off, "distinct_of", spark, rows)
    # keyed sums: Spark's partial sum before the first shuffle; without: a repartition first
    plan = _plan(on, "keyed", spark, rows3)
    assert plan.index("partial_sum") > plan.index("Exchange hashpartitioning"), plan
    plan_off = _plan(off, "keyed", spark, rows3)
    assert "REPARTITION_BY_COL" in plan_off, plan_off  # every row by key, summed after it
    assert "partial_sum" not in plan_off, plan_off
    # a user-defined @merge state: partial states per partition in Python, merged per key
    plan = _plan(on, "span_of", spark, rows)
    assert plan.index("MapInArrow") > plan.index("Exchange hashpartitioning"), plan
    assert "MapInArrow" not in _plan(off, "span_of", spark, rows)


@FEW
@given(rows=st.lists(st.tuples(KEYS, st.one_of(SMALL, SMALL, HUGE)), max_size=40))
def test_top3(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "top3", rows)


@FEW
@given(rows=st.lists(st.tuples(SMALL), max_size=30))
def test_top2_global(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "top2_global", rows)  # includes the empty input


@FEW
@given(rows=st.lists(st.tuples(KEYS, st.sampled_from(["", "a", "B", "ab", "é", "z", "Ω"])),
                     max_size=30))  # fmt: skip
def test_top_words(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "top_words", rows)


@FEW
@given(rows=st.lists(st.tuples(KEYS, st.one_of(st.none(), SMALL)), max_size=30))
def test_top_present_with_none(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "top_present", rows)


@FEW
@given(rows=st.lists(st.tuples(KEYS, st.one_of(SMALL, HUGE)), max_size=40))
def test_distinct(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "distinct_of", rows)


@FEW
@given(rows=st.lists(st.tuples(st.sampled_from(["", "a", "b", "ab", "é"])), max_size=30))
def test_distinct_global(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "distinct_global", rows)


@FEW
@given(
    rows=st.lists(
        st.tuples(KEYS, st.integers(0, 3), st.one_of(SMALL, st.integers(-(2**40), 2**40))),
        max_size=40,
    )
)  # (sums beyond 64 bits raise on Spark: not this test)
def test_keyed_sums(spark: Any, mods: Any, rows: list) -> None:
    _check(spark, mods, "keyed", rows)


@FEW
@given(rows=st.lists(st.tuples(KEYS, SMALL), max_size=30))
def test_user_defined_mergeable_state(spark: Any, mods: Any, rows: list) -> None:
    """The Python partial/merge pair (keys whose rows all skip the action: a fresh state)."""
    _check(spark, mods, "span_of", rows)
    _check(spark, mods, "span_global", [(v,) for _, v in rows])  # incl. the empty input


def test_one_big_key_over_many_partitions(spark: Any, mods: Any) -> None:
    """The skew shape, small: one key holds most rows, spread over 8 partitions, so its
    partials are merged from every partition (ties at the k-th place included)."""
    rows = [(7, (i * 37) % 50) for i in range(400)] + [(k, k * 3 + 1) for k in range(20)]
    for name in ("top3", "distinct_of", "span_of"):
        _check(spark, mods, name, rows, parts=8)
    _check(spark, mods, "keyed", [(7, i % 5, i) for i in range(300)] + [(1, 2, 3)], parts=8)
