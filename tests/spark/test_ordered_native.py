"""Ordered loops (issue 11) on Spark against CPython, on data made to break them.

The samples' ordered algorithms (``ledger``, ``stock``, ``clicks``, ``visits``,
``addresses``, ``trips``) and the small shapes of ``ordered_shapes.py`` run on
hypothesis data drawn per field so that what ordered plans get wrong first shows
up in every input:

- ties in the order key: order fields take 3-4 distinct values (whole minutes for
  timestamps), so most groups hold rows with equal keys, and exact duplicate rows
  are appended (ties go to the remaining fields, ascending, as in the reference);
- few group keys, so groups are long; groups whose rows all carry ``None`` in an
  Optional field (a vehicle without a usable fix);
- ``None`` in Optional fields a third of the time;
- float values with awkward decimals, so a sum in another order differs (compared
  to 1e-9 relative);
- ``test_int64_overflow``: ints near ±2**62, so running sums leave 64 bits: the plan
  must raise OverflowError where Python's result needs more than 64 bits, never
  give a wrapped value.

Each example is one plan over all its groups, and a test's examples run together in
one Spark action (``expect_same_batch``): ``LOOPLIFT_ORDERED_EXAMPLES`` (default 3)
per algorithm, the first the empty input for the shapes here (the samples' empty
input is run by tests/spark/test_differential.py, so theirs have rows).
"""

from __future__ import annotations

import datetime
import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import strategies as st

from tests.helpers import SAMPLES, import_path
from tests.spark import ordered_shapes as S
from tests.spark.harness import (
    VERDICTS,
    expect_same_or_both_raise,
    run_in_one_batch,
    tied_inputs,
)

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("LOOPLIFT_ORDERED_EXAMPLES", "3"))


def _sample(stem: str, name: str) -> Any:
    return getattr(import_path(SAMPLES / f"{stem}.py"), name)


# -- field strategies ---------------------------------------------------------------

INT_KEYS = st.integers(0, 2)
STR_KEYS = st.sampled_from(["a", "b", "é"])
TIES = st.integers(0, 3)  # order keys: mostly tied
SMALL = st.integers(-5, 5)
FLOATS = st.one_of(
    st.integers(-8, 8).map(lambda k: k / 4),
    st.sampled_from([0.1, 0.2, 1 / 3, 2.675, -0.0, 1e-7, 123456.789, -0.3]),
)
NOON = datetime.datetime(2024, 2, 28, 12, 0)
MINUTES = st.sampled_from([0, 0, 10, 30, 31, 45, 90]).map(
    lambda m: NOON + datetime.timedelta(minutes=m)
)
GAPS = st.sampled_from([0, 600, 1800, 1860])
BIG = st.sampled_from([2**62, -(2**62), 2**62 + 7, 3 * 2**61, -3 * 2**61, 1, -1])


def opt(s: st.SearchStrategy) -> st.SearchStrategy:
    """None a third of the time."""
    return st.one_of(s, s, st.none())


# algorithm -> (field strategies, scalar strategies)
SPECS: dict[str, tuple[Any, tuple, tuple]] = {
    "running_balance": (
        _sample("ledger", "running_balance"),
        (STR_KEYS, TIES, st.integers(0, 1), opt(SMALL)),
        (),
    ),
    "stock_levels": (_sample("stock", "stock_levels"), (STR_KEYS, TIES, FLOATS), ()),
    "session_ids": (
        _sample("clicks", "session_ids"),
        (INT_KEYS, MINUTES, st.sampled_from(["/", "/a", "/cart"])),
        (GAPS,),
    ),
    "visit_summary": (
        _sample("visits", "visit_summary"),
        (
            INT_KEYS,
            st.sampled_from([0, 0, 600, 2400, 4200, 4201, 9000]),
            st.sampled_from(["buy", "view"]),
        ),
        (),
    ),  # fmt: skip
    "address_history": (
        _sample("addresses", "address_history"),
        (INT_KEYS, TIES, opt(st.sampled_from(["Oslo", "Rome"])), st.integers(1, 2)),
        (),
    ),
    "trip_length": (
        _sample("trips", "trip_length"),
        (STR_KEYS, TIES, opt(FLOATS), opt(FLOATS)),
        (),
    ),
    "prev_next": (S.prev_next, (INT_KEYS, TIES, SMALL), ()),
    "branch_sums": (S.branch_sums, (STR_KEYS, TIES, opt(FLOATS)), ()),
    "before_after": (S.before_after, (INT_KEYS, TIES, SMALL), ()),
    "label_path": (S.label_path, (INT_KEYS, TIES, st.sampled_from(["", "a", "b", "é"])), ()),
    "idle_gaps": (S.idle_gaps, (INT_KEYS, MINUTES), (GAPS,)),
    "longest_run": (S.longest_run, (TIES, st.integers(0, 1)), ()),
    "skip_and_stop": (S.skip_and_stop, (INT_KEYS, TIES, opt(SMALL)), (st.sampled_from([-1, 3, 8]),)),
    "numbered": (S.numbered, (STR_KEYS, TIES, SMALL), ()),
}

# algorithm -> (field strategies with ints near ±2**62, whether Spark may raise on an
# overflow Python does not have: only where an intermediate is not an output)
OVERFLOW: dict[str, tuple[tuple, bool]] = {
    "running_balance": ((STR_KEYS, TIES, st.integers(0, 1), opt(BIG)), False),
    "prev_next": ((INT_KEYS, TIES, BIG), False),
    "before_after": ((INT_KEYS, TIES, BIG), True),
}
# a first input per algorithm that overflows in Python (an int64 balance of 2**63)
OVERFLOWING = {
    "running_balance": [("a", 0, 0, 2**62), ("a", 1, 0, 2**62), ("b", 0, 0, 1)],
    "prev_next": [(1, 0, -(2**62)), (1, 1, 3 * 2**61), (2, 0, 5)],
    "before_after": [(1, 1, 2**62), (1, 0, 1), (2, 0, 5)],
}


def inputs(fields: tuple, scalars: tuple, min_size: int = 0) -> Any:
    return tied_inputs(fields, scalars, min_size=min_size, max_size=20)


def _run(spark: Any, algo: Any, strategy: Any, n: int, salt: str, allow_overflow: bool) -> None:
    run_in_one_batch(spark, algo, strategy, n, f"ordered/{algo.name}/{salt}", allow_overflow)


@pytest.mark.parametrize("name", list(SPECS))
def test_ties_nulls_and_empty_groups(spark: Any, name: str) -> None:
    algo, fields, scalars = SPECS[name]
    sample = algo.fn.__module__ != S.__name__
    strategy = inputs(fields, scalars, min_size=1 if sample else 0)
    n = max(1, EXAMPLES - 1) if sample else EXAMPLES
    _run(spark, algo, strategy, n, "ties", allow_overflow=False)


@pytest.mark.parametrize("name", list(OVERFLOW))
def test_int64_overflow(spark: Any, name: str) -> None:
    """A running value beyond 64 bits raises OverflowError on Spark, as the reference's
    >64-bit int counts as raising; an input that fits gives Python's exact ints."""
    algo, _fields, _scalars = SPECS[name]
    fields, may_raise = OVERFLOW[name]
    before = Counter(VERDICTS)
    verdict = expect_same_or_both_raise(spark, algo, OVERFLOWING[name], allow_overflow=False)
    assert verdict == "both raised", verdict
    _run(spark, algo, inputs(fields, ()), max(1, EXAMPLES - 1), "overflow", may_raise)
    seen = Counter(VERDICTS) - before
    assert set(seen) <= {"same", "both raised", "overflow allowed"}, seen


def test_specs_cover_the_issue_shapes() -> None:
    """Every ordered sample of issue 11 is here (a new one belongs in SPECS too)."""
    stems = {SPECS[n][0].fn.__module__.rsplit(".", 1)[-1] for n in SPECS}
    assert {"ledger", "stock", "clicks", "visits", "addresses", "trips"} <= stems, stems
