"""How a state's undo decides the forms it runs in (issue 10 items 8, 9, 10).

- item 9: an explicit ``@add.undo`` that is exactly the negation of an additive
  action keeps the state additive (native sums), any other undo keeps it a Python
  reducer;
- item 10: a state without undo (Flink's Top2) compiles for batch and SQL, and only
  incremental views and streams refuse it, naming the action and ``@add.undo``;
- item 8: an unannotated host function returning an int runs on Spark (it was
  assumed to return ``str`` and failed at run time); one whose source does not say
  its type gets it, in a DataFrame call, from the first rows, with a warning.

Each differential check runs a few hypothesis examples (one Spark job each).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import import_path
from tests.spark.harness import expect_same_or_both_raise

STATES = '''
from typing import Optional

from looplift import RowStream, State, action, dataflow, group_by


class Moments(State):
    """Count, sum and sum of squares, with the undo written out."""

    def __init__(self):
        self.n = 0
        self.total = 0
        self.squares = 0

    @action
    def add(self, x):
        self.n += 1
        self.total += x
        self.squares += x * x

    @add.undo
    def add(self, value):
        self.squares -= (value * value)
        self.n -= 1
        self.total -= value

    def mean(self):
        return self.total / self.n if self.n else 0.0

    def spread(self):
        return self.squares - self.total * self.total / self.n if self.n else 0.0


class Skewed(State):
    """An undo that is not the negation (it also counts undos): a Python reducer."""

    def __init__(self):
        self.total = 0
        self.undone = 0

    @action
    def add(self, x):
        self.total += x

    @add.undo
    def add(self, x):
        self.total -= x
        self.undone += 1

    def value(self):
        return self.total


class Top2(State):
    def __init__(self):
        self.first = None
        self.second = None

    @action
    def add(self, value):
        if self.first is None or value > self.first:
            self.second = self.first
            self.first = value
        elif self.second is None or value > self.second:
            self.second = value

    def largest(self) -> Optional[int]:
        return self.first

    def runner_up(self) -> Optional[int]:
        return self.second


def bucket(n):
    if n < 0:
        return None
    return n // 10


@dataflow(columns=("k", "mean", "spread"))
def moments(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        m = Moments()
        for _k, x in g:
            m.add(x)
        yield k, m.mean(), m.spread()


@dataflow
def skewed(rows: RowStream[int, int]) -> int:
    s = Skewed()
    for _k, x in rows:
        s.add(x)
    return s.value()


@dataflow(columns=("k", "first", "second"))
def top_two(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = Top2()
        for _k, x in g:
            t.add(x)
        yield k, t.largest(), t.runner_up()


def signed(n):
    return [n, -n][n % 2]


@dataflow(columns=("k", "signed"))
def alternating(rows: RowStream[int, int]):
    for k, x in rows:
        yield k, signed(x) * 3


class Favourite(State):
    """The most frequent value (largest on ties); its reader's source says no type."""

    def __init__(self):
        self.counts = {}

    @action
    def add(self, x):
        self.counts[x] = self.counts.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.counts[x] -= 1
        if not self.counts[x]:
            del self.counts[x]

    def value(self):
        return max(self.counts, key=lambda v: (self.counts[v], v))


@dataflow(columns=("k", "favourite"))
def favourites(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        f = Favourite()
        for _k, x in g:
            f.add(x)
        yield k, f.value()


@dataflow(columns=("k", "bucket"))
def buckets(rows: RowStream[int, int]):
    for k, x in rows:
        b = bucket(x)
        yield k, (b + 1 if b is not None else -1)
'''

ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(-50, 50)), max_size=12)
FEW = settings(
    max_examples=2, deadline=None, derandomize=True, database=None,
    suppress_health_check=list(HealthCheck),
)  # fmt: skip


@pytest.fixture(scope="module")
def mod(tmp_path_factory: Any) -> Any:
    path: Path = tmp_path_factory.mktemp("state_forms") / "state_forms_mod.py"
    path.write_text(textwrap.dedent(STATES), encoding="utf-8")
    return import_path(path)


def _kinds(algo: Any) -> set[str]:
    return {op.kind for op in algo.compile().program.operators}


# -- item 9: an explicit undo that negates an additive action ----------------------------------


def test_exact_negation_undo_is_additive(mod: Any) -> None:
    from looplift.compiler.state_classes import classify_state_class

    info = classify_state_class(mod.Moments)
    assert info.additive and info.undo == (("add", "explicit"),), info.why
    assert _kinds(mod.moments) == {"additive"}
    assert "ActionReducer" not in mod.moments.backend().source  # no Python reducer


def test_undo_that_is_not_the_negation_stays_a_reducer(mod: Any) -> None:
    from looplift.compiler.state_classes import classify_state_class

    info = classify_state_class(mod.Skewed)
    assert not info.additive and "not its exact negation" in info.why
    assert _kinds(mod.skewed) == {"action"}


@pytest.mark.spark
def test_exact_negation_undo_matches_python(spark: Any, mod: Any) -> None:
    @FEW
    @given(ROWS)
    def check(rows: list) -> None:
        expect_same_or_both_raise(spark, mod.moments, rows)

    check()


# -- item 10: a state without undo ------------------------------------------------------------


@pytest.mark.spark
def test_state_without_undo_runs_in_batch(spark: Any, mod: Any) -> None:
    assert _kinds(mod.top_two) == {"action"}

    @FEW
    @given(ROWS)
    def check(rows: list) -> None:
        expect_same_or_both_raise(spark, mod.top_two, rows)

    check()


@pytest.mark.spark
def test_views_and_streams_refuse_a_state_without_undo(
    spark: Any, mod: Any, tmp_path: Path
) -> None:
    with pytest.raises(TypeError) as view:
        mod.top_two.incremental(spark, str(tmp_path / "v"))
    msg = str(view.value)
    assert msg.startswith("`top_two` cannot be maintained incrementally: action `Top2.add`")
    assert "state_forms_mod.py:" in msg and "of state `t` has no undo" in msg
    assert "add `@add.undo` to `Top2`" in msg
    stream = spark.readStream.format("rate").load().selectExpr("0 AS k", "value AS x", "1 AS _sign")
    with pytest.raises(TypeError) as streamed:
        mod.top_two.stream(stream)
    assert str(streamed.value) == msg
    assert not any(q.isActive for q in spark.streams.active)


# -- item 8: an unannotated host function returning int ----------------------------------------


@pytest.mark.spark
def test_unannotated_host_function_returning_int(spark: Any, mod: Any) -> None:
    (call,) = mod.buckets.backend().pycalls
    assert call.return_type == "bigint"

    @FEW
    @given(ROWS)
    def check(rows: list) -> None:
        expect_same_or_both_raise(spark, mod.buckets, rows)

    check()


@pytest.mark.spark
def test_dataframe_call_learns_an_unreadable_host_type(spark: Any, mod: Any) -> None:
    from looplift.compiler.backend import BackendError

    with pytest.raises(BackendError, match="host function `signed`"):
        mod.alternating.algorithm()  # SQL registration has no rows to learn from
    df = spark.createDataFrame([(1, 4), (2, 7)], "k long, x long")
    with pytest.warns(UserWarning, match=r"`state_forms_mod:signed`.* types its result int"):
        got = sorted(tuple(r) for r in mod.alternating(df).collect())
    assert got == sorted(mod.alternating([(1, 4), (2, 7)]))
    assert mod.alternating.backend().pycalls[0].return_type == "bigint"

    @FEW
    @given(ROWS)
    def check(rows: list) -> None:
        expect_same_or_both_raise(spark, mod.alternating, rows)

    check()


@pytest.mark.spark
def test_dataframe_call_learns_an_unreadable_reader_type(spark: Any, mod: Any) -> None:
    """A user state's reader typed by neither annotation nor source: a DataFrame call
    types its column from the values it returns on the first rows (ints stay ints)."""
    from looplift.compiler.backend.reader_types import infer_state_reader

    assert infer_state_reader(mod.Favourite, "value", {"add": ["int"]}, []) is None
    df = spark.createDataFrame([(1, 4), (1, 4), (1, 7), (2, 7)], "k long, x long")
    with pytest.warns(UserWarning, match=r"state reader `state_forms_mod:Favourite.value`.* int"):
        got = sorted(tuple(r) for r in mod.favourites(df).collect())
    want = sorted(mod.favourites([(1, 4), (1, 4), (1, 7), (2, 7)]))
    assert got == want
    assert all(type(v) is int for _k, v in got)  # not 4.0: the column is a bigint
