"""The boundary-position fold (issue 27 item 1) on Spark against CPython.

Loops whose carries reset at boundaries — the sessionization benchmarks' algorithms,
the clicks sample and the shapes of ``boundary_shapes.py`` — compile to the
boundary-position fold (checked on the recorded strategy, so a test here cannot pass
on another lowering), and their results equal CPython's on hypothesis data made to
break it: ties and exact duplicates in the order key (the boundary between equal
timestamps), gaps of 0, keys with one row, ``None`` in summed fields, the first row
a boundary or not, Unicode keys, and ints near ±2**62 where running values leave 64
bits (the plan raises, never wraps).
"""

from __future__ import annotations

import datetime
import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import strategies as st
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import ROOT, SAMPLES, import_path
from tests.spark import boundary_shapes as S
from tests.spark.harness import (
    VERDICTS,
    expect_same_batch,
    expect_same_or_both_raise,
    run_in_one_batch,
    tied_inputs,
)

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("LOOPLIFT_ORDERED_EXAMPLES", "3"))
ALGOS = import_path(ROOT / "tests" / "perf" / "algos.py")
CLICKS = import_path(SAMPLES / "clicks.py")

KEYS = st.integers(-1, 2)
UKEYS = st.sampled_from(["a", "é", "日本", ""])
TIES = st.integers(0, 6)  # few distinct times: ties and equal neighbours
GAPS = st.sampled_from([0, 1, 2, 5])
SMALL = st.integers(-5, 5)
BIG = st.sampled_from([2**62, -(2**62), 3 * 2**61, 1, -1, 2**63 - 1])
MARK = st.sampled_from([0, 0, 1])
NOON = datetime.datetime(2024, 2, 28, 12, 0)
MINUTES = st.sampled_from([0, 0, 10, 30, 31, 45, 90]).map(
    lambda m: NOON + datetime.timedelta(minutes=m)
)


def opt(s: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(s, s, st.none())


# algorithm -> (field strategies, scalar strategies)
SPECS: dict[str, tuple[Any, tuple, tuple]] = {
    "session_ids": (ALGOS.session_ids, (KEYS, TIES), (GAPS,)),
    "session_summaries": (ALGOS.session_summaries, (KEYS, TIES), (GAPS,)),
    "clicks.session_ids": (
        CLICKS.session_ids,
        (KEYS, MINUTES, st.sampled_from(["/", "/a", "é"])),
        (st.sampled_from([0, 600, 1800, 1860]),),
    ),
    "runs_per_row": (S.runs_per_row, (KEYS, TIES, SMALL), (GAPS,)),
    "run_totals": (S.run_totals, (KEYS, TIES, opt(SMALL)), (GAPS,)),
    "reset_counts": (S.reset_counts, (UKEYS, TIES, MARK), ()),
    "marked_totals": (S.marked_totals, (UKEYS, TIES, MARK, SMALL), ()),
}
# the ints near ±2**62: running sums leave 64 bits (Python's result does not fit)
OVERFLOW = {
    "session_summaries": (KEYS, BIG),
    "marked_totals": (UKEYS, TIES, MARK, BIG),
    "run_totals": (KEYS, TIES, opt(BIG)),
}
# (input, verdict): a run's total of 2**63 is Python's result beyond 64 bits (both
# raise); ``ts - prev`` beyond 64 bits is an intermediate only, where the plan may raise
# (as the aggregate fold does, SPEC §4) though Python's outputs fit
OVERFLOWING = {
    "session_summaries": (([(1, 2**63 - 1), (1, -(2**62)), (2, 0)], (1,)), "overflow allowed"),
    "run_totals": (([(1, 0, 2**62), (1, 1, 2**62), (2, 0, 1)], (5,)), "both raised"),
    "marked_totals": (([("a", 0, 0, 2**62), ("a", 1, 0, 2**62), ("a", 2, 1, 1)], ()), "both raised"),
}


def _strategy_of(algo: Any) -> set[Strategy]:
    graph = compile_dataflow(algo).graph
    return {n.strategy.strategy for n in graph.nodes() if n.id.startswith("state:")}


@pytest.mark.parametrize("name", list(SPECS))
def test_compiles_to_the_boundary_fold(name: str) -> None:
    assert Strategy.NATIVE_BOUNDARY in _strategy_of(SPECS[name][0]), name


def test_a_reset_sum_per_row_is_not_one() -> None:
    """A balance summing row values since a marker, read on every row, would need a sum
    per row over its segment: it stays the aggregate fold (or a window)."""
    got = _strategy_of(S.reset_balance)
    assert Strategy.NATIVE_BOUNDARY not in got and got & {
        Strategy.NATIVE_FOLD,
        Strategy.NATIVE_WINDOW,
    }


def inputs(fields: tuple, scalars: tuple, min_size: int = 0) -> Any:
    return tied_inputs(fields, scalars, min_size=min_size, max_size=24)


def _run(spark: Any, algo: Any, strategy: Any, n: int, salt: str, allow_overflow: bool) -> None:
    run_in_one_batch(spark, algo, strategy, n, f"boundary/{algo.name}/{salt}", allow_overflow)


@pytest.mark.parametrize("name", list(SPECS))
def test_same_as_cpython(spark: Any, name: str) -> None:
    algo, fields, scalars = SPECS[name]
    _run(spark, algo, inputs(fields, scalars), EXAMPLES + 2, "ties", allow_overflow=False)


@pytest.mark.parametrize("name", list(OVERFLOW))
def test_int64_overflow(spark: Any, name: str) -> None:
    """A value beyond 64 bits raises on Spark as the reference's >64-bit int counts as
    raising; inputs that fit give Python's exact ints."""
    algo, _fields, scalars = SPECS[name]
    (rows, sc), want = OVERFLOWING[name]
    before = Counter(VERDICTS)
    verdict = expect_same_or_both_raise(spark, algo, rows, sc, allow_overflow=True)
    assert verdict == want, verdict
    _run(spark, algo, inputs(OVERFLOW[name], scalars), EXAMPLES, "overflow", True)
    seen = Counter(VERDICTS) - before
    assert set(seen) <= {"same", "both raised", "overflow allowed"}, seen


def test_one_key_many_segments(spark: Any) -> None:
    """One key of 3,000 rows and ~1,000 sessions (positions past 2**10, segments of
    every length), against CPython."""
    rows = [(7, (i * 7919) % 4001) for i in range(3000)]
    for algo in (ALGOS.session_ids, ALGOS.session_summaries):
        expect_same_batch(spark, algo, [(rows, (2,)), (rows[:1], (2,))], allow_overflow=False)
