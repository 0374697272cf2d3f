"""Library sequence states read natively (issue 11): compiled == CPython on hypothesis data.

IntervalSequence (ints, floats, datetimes, dates; ties, duplicate opens and closes,
events before any open, huge ints that cannot be packed), Min, Max, Distinct, Median
and TopK (ints, floats, strings; empty groups, None results, k from a parameter) in
three forms: the DataFrame plan, ``f.agg`` in a grouped aggregate, and ``looplift.sql``.
Signed input (the netted form of :mod:`compiler.backend.sequence`) is checked against
``batch_apply`` of the Python state, including an undo of an event not in the state.

Each check is one Spark job; the examples are few and derandomized.
"""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path
from typing import Any

import looplift
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.frames import create_frame
from tests.helpers import import_path
from tests.spark.harness import assert_same, collect, expect_same_or_both_raise

pytestmark = pytest.mark.spark

SOURCE = '''
import datetime

from looplift import RowStream, State, action, dataflow, group_by
from looplift.states import Distinct, IntervalSequence, Max, Median, Min, TopK


@dataflow(columns=("u", "avg", "sizes", "intervals"))
def intervals_int(events: RowStream[int, int, int]):
    for u, g in group_by(0, events):
        seq = IntervalSequence()
        for _u, kind, ts in g:
            if kind == 0:
                seq.open(ts)
            elif kind == 1:
                seq.close(ts)
            elif kind == 2:
                seq.insert(ts)
        yield u, seq.average_closed_size(), seq.closed_sizes(), seq.closed_intervals()


@dataflow(columns=("u", "avg", "sizes", "intervals"))
def intervals_float(events: RowStream[int, int, float]):
    for u, g in group_by(0, events):
        seq = IntervalSequence()
        for _u, kind, ts in g:
            if kind == 0:
                seq.open(ts)
            elif kind == 1:
                seq.close(ts)
            else:
                seq.insert(ts)
        yield u, seq.average_closed_size(), seq.closed_sizes(), seq.closed_intervals()


@dataflow(columns=("u", "avg", "sizes"))
def intervals_datetime(events: RowStream[int, int, datetime.datetime]):
    for u, g in group_by(0, events):
        seq = IntervalSequence()
        for _u, kind, ts in g:
            if kind == 1:
                seq.close(ts)
            elif kind == 0:
                seq.open(ts)
            else:
                seq.insert(ts)
        yield u, seq.average_closed_size(), seq.closed_sizes()


@dataflow(columns=("u", "avg"))
def intervals_date(events: RowStream[int, int, datetime.date]):
    for u, g in group_by(0, events):
        seq = IntervalSequence()
        for _u, kind, day in g:
            if kind == 0:
                seq.open(day)
            elif kind == 1:
                seq.close(day)
            else:
                seq.insert(day)
        yield u, seq.average_closed_size()


@dataflow(columns=("k", "low", "high", "n", "distinct", "median", "top"))
def multisets_int(rows: RowStream[int, int], k: int):
    for key, g in group_by(0, rows):
        lo = Min()
        hi = Max()
        d = Distinct()
        med = Median()
        top = TopK(k)
        for _key, v in g:
            if v % 3 != 0:
                lo.add(v)
                hi.add(v)
                d.add(v)
                med.add(v)
                top.add(v)
        yield key, lo.value(), hi.value(), d.count(), d.values(), med.value(), top.values()


@dataflow(columns=("k", "low", "high", "distinct", "median", "top"))
def multisets_float(rows: RowStream[int, float]):
    for key, g in group_by(0, rows):
        lo = Min()
        hi = Max()
        d = Distinct()
        med = Median()
        top = TopK(2)
        for _key, v in g:
            lo.add(v)
            hi.add(v)
            d.add(v)
            med.add(v)
            top.add(v)
        yield key, lo.value(), hi.value(), d.values(), med.value(), top.values()


@dataflow(columns=("k", "low", "high", "n", "distinct", "top"))
def multisets_str(rows: RowStream[int, str]):
    for key, g in group_by(0, rows):
        lo = Min()
        hi = Max()
        d = Distinct()
        top = TopK(3)
        for _key, v in g:
            lo.add(v)
            hi.add(v)
            d.add(v)
            top.add(v)
        yield key, lo.value(), hi.value(), d.count(), d.values(), top.values()


@dataflow
def avg_path(clicks: RowStream[int, int]) -> float:
    seq = IntervalSequence()
    for kind, ts in clicks:
        if kind == 0:
            seq.open(ts)
        elif kind == 1:
            seq.close(ts)
        else:
            seq.insert(ts)
    return seq.average_closed_size()


@dataflow
def median_of(xs: RowStream[int]) -> float:
    m = Median()
    for (x,) in xs:
        m.add(x)
    return m.value()


@dataflow
def spread(xs: RowStream[int]) -> int:
    lo = Min()
    hi = Max()
    d = Distinct()
    for (x,) in xs:
        lo.add(x)
        hi.add(x)
        d.add(x)
    return (hi.value() - lo.value()) * 1000 + d.count() if d.count() else -1


class Last(State):
    """A user-defined state: the largest value's count (its reader runs Python)."""

    def __init__(self):
        self.counts = {}

    @action
    def add(self, x):
        self.counts[x] = self.counts.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.counts[x] -= 1

    def top_count(self) -> int:
        return self.counts[max(self.counts)] if self.counts else 0


@dataflow(columns=("k", "median", "top_count"))
def mixed(rows: RowStream[int, int]):
    for key, g in group_by(0, rows):
        med = Median()
        last = Last()
        for _key, v in g:
            med.add(v)
            last.add(v)
        yield key, med.value(), last.top_count()


@dataflow
def mixed_global(xs: RowStream[int]) -> tuple[float, int]:
    med = Median()
    last = Last()
    for (x,) in xs:
        med.add(x)
        last.add(x)
    return med.value(), last.top_count()


@dataflow
def top_two(xs: RowStream[int]) -> list[int]:
    t = TopK(2)
    for (x,) in xs:
        t.add(x)
    return t.values()
'''

FEW = settings(
    max_examples=4, deadline=None, derandomize=True, database=None,
    suppress_health_check=list(HealthCheck),
)  # fmt: skip

DT0 = datetime.datetime(2024, 2, 28, 22, 0)
D0 = datetime.date(2024, 2, 26)
HUGE = st.sampled_from([2**62, -(2**62), 2**63 - 1, -(2**63)])
USERS = st.integers(0, 3)
KINDS = st.integers(0, 3)  # 3: no action on that row
SMALL = st.integers(-6, 6)  # few timestamps: many ties and duplicates


def _events(ts: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(st.tuples(USERS, KINDS, ts), max_size=30)


@pytest.fixture(scope="module")
def mod(tmp_path_factory: Any) -> Any:
    path: Path = tmp_path_factory.mktemp("sequence_native") / "sequence_native_mod.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return import_path(path)


def test_explain_says_native(mod: Any) -> None:
    for name in ("intervals_int", "intervals_float", "intervals_datetime", "multisets_int",
                 "multisets_str", "avg_path", "median_of", "top_two"):  # fmt: skip
        text = getattr(mod, name).explain()
        assert "runs: fully native (no Python at run time)" in text, (name, text)
        assert "reduce part (native)" in text


# -- the DataFrame plan -----------------------------------------------------------------------


@FEW
@given(rows=_events(st.one_of(SMALL, SMALL, SMALL, HUGE)))
def test_intervals_int(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.intervals_int, rows)


@FEW
@given(rows=_events(st.sampled_from([-1.5, -0.0, 0.0, 0.5, 1.0, 2.25, 3.0, 1e6])))
def test_intervals_float(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.intervals_float, rows)


@FEW
@given(rows=_events(st.integers(0, 40).map(lambda m: DT0 + datetime.timedelta(minutes=m))))
def test_intervals_datetime(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.intervals_datetime, rows)


@FEW
@given(rows=_events(st.integers(-3, 5).map(lambda d: D0 + datetime.timedelta(days=d))))
def test_intervals_date(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.intervals_date, rows)


@FEW
@given(
    rows=st.lists(st.tuples(USERS, st.one_of(SMALL, HUGE)), max_size=25),
    k=st.sampled_from([0, 1, 3, 100]),
)
def test_multisets_int(spark: Any, mod: Any, rows: list, k: int) -> None:
    expect_same_or_both_raise(spark, mod.multisets_int, rows, (k,))


def test_multisets_int_negative_k_raises(spark: Any, mod: Any) -> None:
    assert expect_same_or_both_raise(spark, mod.multisets_int, [(1, 1)], (-1,)) == "both raised"


@FEW
@given(rows=st.lists(st.tuples(USERS, st.sampled_from([-2.5, -0.0, 0.0, 1.0, 1.5, 7.0])),
                     max_size=25))  # fmt: skip
def test_multisets_float(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.multisets_float, rows)


@FEW
@given(rows=st.lists(st.tuples(USERS, st.sampled_from(["", "a", "B", "ab", "é", "z", "Ω"])),
                     max_size=25))  # fmt: skip
def test_multisets_str(spark: Any, mod: Any, rows: list) -> None:
    expect_same_or_both_raise(spark, mod.multisets_str, rows)


@FEW
@given(rows=st.lists(st.tuples(USERS, SMALL), max_size=20))
def test_mixed_with_a_user_state(spark: Any, mod: Any, rows: list) -> None:
    """A library state next to a user-defined one in one scope: the native aggregate and
    the Python reducer are two aggregates joined on the scope key (or crossed, global)."""
    for algo in (mod.mixed, mod.mixed_global):
        text = algo.compile().explain()
        assert "Median (native sequence readers)" in text and "runs: native except" in text
        expect_same_or_both_raise(spark, algo, rows if algo is mod.mixed else [(v,) for _, v in rows])


# -- aggregate forms: f.agg in a grouped aggregate, and looplift.sql ------------------------


def _grouped(spark: Any, rows: list, width: int) -> Any:
    from pyspark.sql import types as T

    fields = [T.StructField("g", T.LongType())]
    fields += [T.StructField(f"c{i}", T.LongType()) for i in range(width)]
    return create_frame(spark, rows, T.StructType(fields))


def _per_group(algo: Any, rows: list) -> dict[int, Any]:
    groups: dict[int, list] = {}
    for g, *rest in rows:
        groups.setdefault(g, []).append(tuple(rest))
    return {g: algo(rs) for g, rs in groups.items()}


AGG_ROWS = st.lists(st.tuples(USERS, KINDS, st.one_of(SMALL, SMALL, HUGE)), max_size=30)


@FEW
@given(rows=AGG_ROWS)
def test_agg_forms(spark: Any, mod: Any, rows: list) -> None:
    """f.agg and looplift.sql (GROUP BY) of the aggregates equal Python per group."""
    from pyspark.sql import functions as F

    df = _grouped(spark, rows, 2)
    df.createOrReplaceTempView("seq_native_input")
    looplift.register(spark, seq_avg_path=mod.avg_path, seq_median=mod.median_of,
                      seq_spread=mod.spread, seq_top_two=mod.top_two)  # fmt: skip
    want_avg = _per_group(mod.avg_path, [(g, c, t) for g, c, t in rows])
    one = [(g, t) for g, _c, t in rows]
    wants = {
        "avg": want_avg,
        "median": _per_group(mod.median_of, one),
        "spread": _per_group(mod.spread, one),
        "top": _per_group(mod.top_two, one),
    }
    got_agg = df.groupBy("g").agg(
        mod.avg_path.agg("c0", "c1").alias("avg"),
        mod.median_of.agg("c1").alias("median"),
        mod.spread.agg("c1").alias("spread"),
        mod.top_two.agg("c1").alias("top"),
    )
    got_sql = looplift.sql(
        spark,
        "SELECT g, seq_avg_path(c0, c1) AS avg, seq_median(c1) AS median, "
        "seq_spread(c1) AS spread, seq_top_two(c1) AS top FROM seq_native_input GROUP BY g",
    )
    for got_df in (got_agg, got_sql):
        got = {r[0]: r[1:] for r in collect(got_df.select("g", "avg", "median", "spread", "top"))}
        assert set(got) == set(want_avg)
        for g, values in got.items():
            for i, name in enumerate(("avg", "median", "spread", "top")):
                assert_same("aggregate", values[i], wants[name][g], f"{name} of group {g}")
    # a global aggregate over no rows: one row, a fresh state's readers
    empty = df.where(F.lit(False))
    got = collect(empty.agg(mod.avg_path.agg("c0", "c1"), mod.top_two.agg("c1")))
    assert got == [(None, [])]


# -- signed input: the netted form --------------------------------------------------------


SIGNED = st.lists(st.tuples(USERS, st.integers(0, 2), st.integers(-3, 3), st.sampled_from([1, 1, -1])),
                  max_size=25)  # fmt: skip


def _signed_frame(spark: Any, rows: list) -> Any:
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField(n, T.LongType()) for n in ("k", "c", "a", "s")])
    return create_frame(spark, rows, schema)


def _run_netted(spark: Any, rows: list, cls_name: str, readers: list[str], types: list[str],
                k: int | None = None) -> dict[int, tuple]:  # fmt: skip
    from looplift.compiler.backend.sequence import NativeSequence, netted_events, reader_sql
    from looplift.compiler.ir.nodes import Lit
    from pyspark.sql import functions as F

    codes = (0, 1, 2) if cls_name == "IntervalSequence" else (0,)
    ns = NativeSequence(cls_name, "int", codes, Lit(k) if k is not None else None)
    df = _signed_frame(spark, rows)
    text = netted_events("df", ["k"], "`c`", "`a`", "`s`", cls_name)
    netted = eval(text, {"df": df, "E": F.expr, "F": F})  # noqa: S307 - our own generated text
    sqls = reader_sql(ns, "`_c`", "`_a`", readers, types, str(k) if k is not None else None, "`_n`")
    out = netted.groupBy("k").agg(*[F.expr(q).alias(f"r{i}") for i, q in enumerate(sqls)])
    return {r[0]: tuple(r[1:]) for r in collect(out)}


def _python_signed(rows: list, cls: Any, readers: list[str], ctor: tuple = ()) -> dict[int, Any]:
    """Per key, the Python state after the batch; a key whose net count goes negative
    raises (ValueError). Keys whose events all cancel out are absent on Spark (no row)."""
    groups: dict[int, list] = {}
    for k, c, a, s in rows:
        groups.setdefault(k, []).append((c, a, s))
    out = {}
    for k, evs in groups.items():
        state = cls.batch_apply([c for c, _, _ in evs], [a for _, a, _ in evs],
                                [s for _, _, s in evs], ctor_args=ctor)  # fmt: skip
        out[k] = tuple(getattr(state, r)() for r in readers)
    return out


def _check_signed(spark: Any, rows: list, cls: Any, readers: list[str], types: list[str],
                  k: int | None = None) -> None:  # fmt: skip
    if cls.__name__ != "IntervalSequence":
        rows = [(key, 0, a, s) for key, _c, a, s in rows]
    try:
        want = _python_signed(rows, cls, readers, (k,) if k is not None else ())
    except ValueError:
        with pytest.raises(Exception, match="cannot undo"):
            _run_netted(spark, rows, cls.__name__, readers, types, k)
        return
    got = _run_netted(spark, rows, cls.__name__, readers, types, k)
    fresh = tuple(getattr(cls(*((k,) if k is not None else ())), r)() for r in readers)
    for key, values in want.items():
        assert_same("aggregate", got.get(key, fresh), values, f"key {key}")


@FEW
@given(rows=SIGNED)
def test_signed_intervals(spark: Any, rows: list) -> None:
    from looplift.states import IntervalSequence

    _check_signed(spark, rows, IntervalSequence,
                  ["average_closed_size", "closed_sizes", "closed_intervals"],
                  ["double", "array<bigint>", "array<struct<_1: bigint, _2: bigint, _3: bigint>>"])  # fmt: skip


@FEW
@given(rows=SIGNED)
def test_signed_multisets(spark: Any, rows: list) -> None:
    from looplift.states import Distinct, Max, Median, Min, TopK

    _check_signed(spark, rows, Min, ["value"], ["bigint"])
    _check_signed(spark, rows, Max, ["value"], ["bigint"])
    _check_signed(spark, rows, Distinct, ["count", "values"], ["bigint", "array<bigint>"])
    _check_signed(spark, rows, Median, ["value"], ["double"])
    _check_signed(spark, rows, TopK, ["values"], ["array<bigint>"], k=3)


def test_signed_undo_of_missing_event_raises(spark: Any) -> None:
    from looplift.states import Median

    _check_signed(spark, [(1, 0, 5, 1), (1, 0, 5, -1), (1, 0, 5, -1)], Median, ["value"], ["double"])
