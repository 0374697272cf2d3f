"""A running total with reset (issue 27) as window functions, on Spark against CPython.

An int carry set where a condition holds and then summed on every row, read on every
row, compiles to the ``reset`` window form (a count of the resets before each row names
its segment, ``last`` gives the value after the last reset, a running ``sum`` per
segment adds the rows since): checked on the recorded strategy, so a test here cannot
pass on the aggregate fold. Data made to break it: ties and exact duplicates in the
order key (which of two equal rows resets first), a reset on the first row or never,
keys with one row, empty input, Unicode keys, a reset read before the update (the
previous segment's value), and ints near ±2**62 where balances leave 64 bits (the plan
raises, never wraps).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import strategies as st
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import ROOT, import_path
from tests.spark.harness import (
    expect_same_batch,
    expect_same_or_both_raise,
    tied_inputs,
)

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("LOOPLIFT_ORDERED_EXAMPLES", "3"))
ALGOS = import_path(ROOT / "tests" / "perf" / "algos.py")
S = import_path(ROOT / "tests" / "spark" / "reset_shapes.py")

KEYS = st.integers(-1, 2)
UKEYS = st.sampled_from(["a", "é", "日本", ""])
TIES = st.integers(0, 5)  # few distinct times: ties and equal neighbours
SMALL = st.integers(-5, 5)
MARK = st.sampled_from([0, 0, 1])

# algorithm -> (algorithm, field strategies)
SPECS: dict[str, tuple[Any, tuple]] = {
    "reset_balances": (ALGOS.reset_balances, (KEYS, TIES, MARK, SMALL)),
    "read_before": (S.read_before, (UKEYS, TIES, MARK, SMALL)),
    "reset_to_lag": (S.reset_to_lag, (KEYS, TIES, st.sampled_from([0, 0, 2, -1]), SMALL)),
    "global_reset": (S.global_reset, (TIES, MARK, SMALL)),
}


@pytest.mark.parametrize("name", list(SPECS))
def test_compiles_to_windows(name: str) -> None:
    graph = compile_dataflow(SPECS[name][0]).graph
    got = {n.strategy.strategy for n in graph.nodes() if n.id.startswith("state:")}
    assert got == {Strategy.NATIVE_WINDOW}, got


# inputs Python's loop gets wrong answers from a careless lowering: no rows; one row,
# reset or not; every row a reset; resets between tied rows; balances near 2**63 that
# a reset brings back (every value fits, the segments' sums alone would not)
EDGES = [
    ([], ()),
    ([(1, 0, 1, 4)], ()),
    ([(1, 0, 0, 4)], ()),
    ([(1, 0, 1, 1), (1, 1, 1, 2), (1, 2, 1, 3)], ()),
    ([(1, 0, 0, 1), (1, 0, 1, 2), (1, 0, 0, 3), (1, 0, 1, 3), (2, 0, 1, -7)], ()),
    ([(1, 0, 0, 2**62), (1, 1, 0, 2**62 - 1), (1, 2, 1, -(2**62)), (1, 3, 0, -(2**62))], ()),
]


def drawn(strategy: Any, n: int, digest: str) -> list[tuple[list, tuple]]:
    """``n`` inputs of ``strategy``, derandomized by ``digest``."""
    from hypothesis import HealthCheck, Phase, given, settings

    out: list[tuple[list, tuple]] = []
    config = settings(max_examples=n, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    body = out.append
    fn = given(strategy)(lambda x: body(x))
    fn._hypothesis_internal_add_digest = digest.encode()  # type: ignore[attr-defined]
    config(fn)()
    return out


@pytest.mark.parametrize("name", list(SPECS))
def test_same_as_cpython(spark: Any, name: str) -> None:
    """Ties, duplicates, small ints (and the edges for ``reset_balances``): one batch."""
    algo, fields = SPECS[name]
    inputs = drawn(tied_inputs(fields, (), max_size=24), EXAMPLES + 2, f"reset/{name}")
    inputs += EDGES if name == "reset_balances" else []
    expect_same_batch(spark, algo, inputs, allow_overflow=False)


def test_int64_overflow(spark: Any) -> None:
    """A balance beyond 64 bits raises (the reference's >64-bit int counts as raising)."""
    rows = [(1, 0, 0, 2**62), (1, 1, 0, 2**62), (1, 2, 1, 1)]
    verdict = expect_same_or_both_raise(spark, ALGOS.reset_balances, rows, (), allow_overflow=False)
    assert verdict == "both raised", verdict
