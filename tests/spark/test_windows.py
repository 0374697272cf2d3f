"""Issue 28, item 1: windows in the language, batch. ``tumble`` / ``hop`` of
``looplift.windows`` compiled natively (``--explain`` says so) and differential against
CPython on Spark (``window_algos.py`` and ``samples/windows.py``): hypothesis-generated
rows with timestamps before 1970, equal timestamps and times on window edges (and a
microsecond either side), ints near the 64-bit limits, None (TypeError with Python's
message), and starts before ``datetime.min`` (OverflowError)."""

from __future__ import annotations

import datetime
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift.compiler.pipeline import compile_dataflow

from tests.spark import window_algos as A
from tests.spark.harness import (
    batch_of,
    check_scalar_batch,
    expect_same_batch,
    expect_same_or_both_raise,
    run_compiled,
    run_compiled_scalar,
)
from tests.test_samples_reference import sample

pytestmark = pytest.mark.spark

S = sample("windows")
T = datetime.datetime
US = datetime.timedelta(microseconds=1)
EPOCH = T(1970, 1, 1)

NATIVE = [A.start5, A.starts, A.week_text, A.maybe_start, A.int_starts, A.maybe_int,
          A.hop_summary, A.int_hop_summary, A.row_per_window, A.int_sliding, A.keyed_sliding,
          A.int_tumbling, A.named_per_window, S.clicks_per_window, S.sliding_counts,
          S.session_summary, A.session_rows, A.int_sessions, A.shifted_sessions,
          sample("eventtime").sessions_per_user]  # fmt: skip


@pytest.mark.parametrize("algo", NATIVE, ids=lambda a: a.name)
def test_explain_says_native(algo: Any) -> None:
    """(No Spark.) Window starts, loops over windows and window keys are native."""
    assert "runs: fully native (no Python at run time)" in compile_dataflow(algo).explain()


def test_explain_names_the_window() -> None:
    """(No Spark.) ``--explain`` spells the call as the user does, durations in microseconds."""
    text = compile_dataflow(A.start5).explain()
    assert "native: tumble(ts, size=timedelta(microseconds=300000000))" in text


# -- data: edges, before the epoch, equal times ---------------------------------------------

EDGES = [EPOCH + k * datetime.timedelta(minutes=5) + d
         for k in (-100_000, -12, -1, 0, 1, 7, 5_000_000)
         for d in (-US, datetime.timedelta(0), US)]  # fmt: skip
EDGES += [T(1900, 3, 1), T(1969, 12, 31, 23, 59, 59, 999_999), T(2000, 2, 29, 12),
          T(2024, 5, 1, 9, 59, 59, 999_999), T(9999, 12, 31, 23, 59, 59, 999_999)]  # fmt: skip
times = st.one_of(
    st.sampled_from(EDGES),
    st.datetimes(min_value=T(1900, 1, 1), max_value=T(2100, 1, 1)),
    st.integers(-3 * 10**6, 3 * 10**6).map(lambda s: EPOCH + datetime.timedelta(seconds=s)),
)
int_times = st.one_of(
    st.integers(-100, 100),
    st.sampled_from([-(2**63), -(2**63) + 1, -(2**63) + 9, 2**63 - 1, 2**62, -(2**62)]),
    st.integers(-(2**63), 2**63 - 1),
)


# -- scalars ----------------------------------------------------------------------------------


def test_starts_at_edges(spark: Any) -> None:
    rows = [(t,) for t in EDGES if t.year < 9999]
    for algo in (A.start5, A.starts, A.hop_summary):
        check_scalar_batch(spark, algo, rows, max_raise_checks=0)


def test_generated_times(spark: Any) -> None:
    @batch_of(times, 60)
    def check(ts: list) -> None:
        for algo in (A.start5, A.starts, A.hop_summary, A.week_text):
            check_scalar_batch(spark, algo, [(t,) for t in ts], max_raise_checks=0)

    check()


def test_before_the_first_week(spark: Any) -> None:
    """Weeks start on Thursdays (the epoch's day): 0001-01-01 (a Monday) is in a week that
    starts before ``datetime.min``, OverflowError as in Python; 0001-01-04 starts one."""
    rows = [(T(1, 1, 4),), (T(1, 1, 10, 23, 59),), (T(9999, 12, 31, 23, 59, 59, 999_999),)]
    check_scalar_batch(spark, A.week_text, rows + [(T(1, 1, 1),)], max_raise_checks=1)
    assert expect_same_or_both_raise(spark, A.week_text, [(T(1, 1, 3, 23, 59),)]) == "both raised"


def test_none_is_pythons_type_error(spark: Any) -> None:
    msg = "tumble() timestamp must be datetime.datetime or int, not NoneType"
    for algo, good in ((A.maybe_start, (T(2024, 1, 1, 0, 7),)), (A.maybe_int, (-3,))):
        check_scalar_batch(spark, algo, [good, (None,)], max_raise_checks=1)
        with pytest.raises(Exception, match=r"TypeError.*" + msg.replace("(", r"\(").replace(")", r"\)")):
            run_compiled_scalar(spark, algo, [(None,)])


def test_ints(spark: Any) -> None:
    """Floors below zero; a start below -2**63 is OverflowError (SPEC §4), as the harness
    counts a Python int beyond 64 bits."""

    @batch_of(int_times, 60)
    def check(ts: list) -> None:
        for algo in (A.int_starts, A.int_hop_summary):
            check_scalar_batch(spark, algo, [(t,) for t in ts], max_raise_checks=1)

    check()
    assert expect_same_or_both_raise(spark, A.int_starts, [(-(2**63),)]) == "both raised"


# -- tables: a row per window, window keys, sessions ------------------------------------------

rows_dt = st.lists(st.tuples(st.integers(1, 3), times), min_size=0, max_size=25)
rows_int = st.lists(st.tuples(st.integers(1, 3), st.integers(-40, 40)), min_size=0, max_size=25)


def test_tables_on_generated_rows(spark: Any) -> None:
    @settings(max_examples=int(os.environ.get("LOOPLIFT_WINDOW_EXAMPLES", "2")), derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.lists(rows_dt, min_size=3, max_size=3), st.lists(rows_int, min_size=3, max_size=3))
    def check(dts: list, ints: list) -> None:
        dts = [*dts, [(1, t) for t in EDGES[:12]], [(2, EPOCH)] * 3]
        for algo in (A.row_per_window, A.keyed_sliding, S.clicks_per_window, S.sliding_counts,
                     S.session_summary):
            expect_same_batch(spark, algo, [(r, ()) for r in dts])
        for algo in (A.int_sliding, A.int_tumbling):
            expect_same_batch(spark, algo, [(r, ()) for r in ints])

    check()


def test_sessions_at_the_gap(spark: Any) -> None:
    """A click exactly GAP after the previous starts a session (windows are half-open), a
    microsecond less does not; equal times stay in one session."""
    gap = datetime.timedelta(minutes=30)
    t = T(1969, 12, 31, 23, 50)
    rows = [(1, t), (1, t), (1, t + gap - US), (1, t + 2 * gap - US), (2, t), (2, t + gap)]
    assert expect_same_or_both_raise(spark, S.session_summary, rows) == "same"


def test_session_keys(spark: Any) -> None:
    """``session(...)`` as a group key part (issue 28): generated rows with equal times, times
    exactly a gap apart (a new session) and a microsecond less, before 1970; int times near
    the 64-bit limits; None (TypeError); a NaN key part (a group per row, as in Python)."""
    gap = datetime.timedelta(minutes=30)
    t = T(1969, 12, 31, 23, 50)
    edge = [(1, t, 0), (1, t, 1), (1, t + gap - US, 2), (1, t + 2 * gap - US, 3), (2, t, 4),
            (2, t + gap, 5), (3, t + 3 * gap, 6), (3, t + 2 * gap, 7), (3, t + 4 * gap, 8)]  # fmt: skip
    lo, hi = -(2**63), 2**63 - 1
    ints = [(0, lo), (0, lo + 4), (0, lo + 5), (0, hi), (0, hi - 4), (0, hi - 5), (0, -2), (0, 2)]
    near = [t + k * gap + d for k in range(4) for d in (-US, US * 0, US)]

    @settings(max_examples=int(__import__("os").environ.get("LOOPLIFT_SESSION_EXAMPLES", "1")),
              derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.integers(0, 2**32))  # a seed: the simplest example is diverse data too
    def check(seed: int) -> None:
        rnd = random.Random(seed)
        pick = [lambda: rnd.choice(near), lambda: rnd.choice(EDGES[:-1]),
                lambda: T(2024, 5, 1) + rnd.randrange(0, 4 * 3600) * datetime.timedelta(seconds=1)]
        dts = [(rnd.randint(1, 3), rnd.choice(pick)()) for _ in range(25)]
        its = [(rnd.randint(0, 2), rnd.randint(-40, 40)) for _ in range(25)]
        rows = [(u, ts, i) for i, (u, ts) in enumerate(dts)]
        expect_same_batch(spark, A.session_rows, [(rows, ()), (edge, ())])
        expect_same_batch(spark, A.int_sessions, [(its, ()), (ints, ())])

    check()
    nans = [float("nan") for _ in range(2)]  # distinct objects: a group each (as from Spark)
    floats = [(nans[0], 1), (nans[1], 2), (1.0, 1), (1.0, 8), (1.0, 7), (-0.0, 3), (0.0, 9)]
    assert expect_same_or_both_raise(spark, A.shifted_sessions, floats) == "same"
    with pytest.raises(Exception, match=r"TypeError.*session\(\) timestamp must be datetime.datetime or int, not NoneType"):
        run_compiled(spark, A.shifted_sessions, [*floats, (1.0, None)], ())


def test_calls_run_in_python_where_not_native(spark: Any) -> None:
    """A computed duration runs as a Python island; durations of the wrong kind raise
    Python's TypeError (the reference, called from the plan)."""
    rows = [(T(1969, 12, 31, 23, 59), 7), (T(2024, 5, 1, 9, 7), 1), (EPOCH, 60)]
    check_scalar_batch(spark, A.computed_size, rows + [(EPOCH, 0)], max_raise_checks=1)
    check_scalar_batch(spark, A.wrong_kind, [(5,)], max_raise_checks=1)
    with pytest.raises(Exception, match=r"TypeError.*durations must be int for an int timestamp"):
        run_compiled_scalar(spark, A.wrong_kind, [(5,)])


def test_named_rows_by_column_name(spark: Any) -> None:
    """The issue's form: ``tumble(c.ts, minutes=5)`` and ``hop(c.ts, ...)`` of named rows,
    bound to the DataFrame's columns by name (an extra column, another order), with
    ``order_by="ts"`` inside the window groups."""
    from tests.spark.harness import FieldType, assert_same, collect, to_df

    @settings(max_examples=3, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(rows_dt)
    def check(rows: list) -> None:
        rows = [*rows, (1, EDGES[0]), (1, EDGES[1]), (2, EDGES[1])]
        df = to_df(spark, [(t, "x", u) for u, t in rows],
                   [FieldType(datetime.datetime), FieldType(str), FieldType(int)],
                   ["ts", "page", "user_id"])  # fmt: skip
        clicks = [A.Click(u, t) for u, t in rows]
        for algo in (A.named_per_window, A.named_sliding, A.windows_seen):
            assert_same("table", collect(algo(df)), algo(clicks), algo.name)

    check()
