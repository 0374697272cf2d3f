"""The Spark store's native bulk load (looplift.bulkload): a state-mode view whose states
all build natively (IntervalSequence, additive states) loads its first batch from Spark
aggregates and one Python call per key. Its records must be the ones a replay load
writes, key by key (live rows, pickled states, output rows), its result the CPython
reference's on the net table, and an apply after it must do what it does after a replay
load. Hypothesis draws the batches: few timestamps (ties between opens, closes and
inserts), exact duplicate rows, rows deleted again in the same batch (some netting to
zero, some keys losing every row)."""

from __future__ import annotations

import io
import itertools
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from looplift.deltarows import DeltaError
from looplift.sparkview import SparkView

from tests.helpers import import_path
from tests.incremental.common import case_named, multiset, reference_rows
from tests.incremental.test_views import as_fields, signed_df
from tests.spark.harness import Case, assert_same, cases_of, row_types

pytestmark = pytest.mark.spark

#: state-mode views with a native build: IntervalSequence (clickstream), Count + Sum
#: inlined (average), the same on one global key (mean), a user's additive state of four
#: guarded actions (pages::funnel), one of actions with arguments, nested guards and a
#: string field (ledger), Count next to an inlined float Sum with a datetime field
#: (branches_and_scopes::per_key)
NATIVE = ["clickstream", "average", "mean", "samples/pages::funnel",
          "valid/user_state_multi_actions::ledger", "valid/branches_and_scopes::per_key"]  # fmt: skip
CORPUS = Path(__file__).parents[1] / "corpus"
WORDS = ["deposit", "withdraw", "a", "b", "c", "d"]  # (str fields: ledger's actions too)


def _case(name: str) -> Case:
    """A sample's case, or ``valid/<file>::<algorithm>`` of tests/corpus."""
    if not name.startswith("valid/"):
        return case_named(name)
    file, _, algo = name.partition("::")
    path = CORPUS / f"{file}.py"
    return next(c for c in cases_of(path, import_path(path)) if c.algo.name == algo)


def _fields(ints: tuple, fts: tuple) -> tuple:
    """Small ints as the fields' values (:func:`as_fields`; strings from :data:`WORDS`)."""
    return tuple(WORDS[v] if ft.base is str else as_fields((v,), (ft,))[0]
                 for v, ft in zip(ints, fts, strict=True))  # fmt: skip


def _view(spark: Any, path: str, algo: Any, native: bool) -> Any:
    """A Spark-store view of ``algo`` (one module object for every view of a test:
    ``case_named`` imports the samples anew, and a state class of another import is
    another class)."""
    view = algo.incremental(spark, path, store="spark", buckets=3)
    sv = view._impl
    assert isinstance(sv, SparkView)
    sv.native_bulk = native
    return view


def _records(view: Any) -> dict[bytes, tuple]:
    """Every key's record: (live rows, pickled states, pickled output rows), tombstones out."""
    sv = view._impl
    recs = sv.records().values()
    return {r["k"]: (r["live"], r["states"], r["out"]) for r in recs if not r["gone"]}


def _same_records(native: Any, replay: Any) -> None:
    a, b = _records(native), _records(replay)
    assert a.keys() == b.keys()
    for k in a:
        key = pickle.loads(k)
        assert a[k][0] == b[k][0], f"live rows of key {key}"
        assert a[k][1] == b[k][1] or _contents(a[k][1]) == _contents(b[k][1]), (
            f"states of key {key}: {pickle.loads(a[k][1])!r} != {pickle.loads(b[k][1])!r}"
        )
        assert pickle.loads(a[k][2]) == pickle.loads(b[k][2]), f"output of key {key}"


def _contents(blob: bytes) -> list[tuple[str, bytes]]:
    """Each state's class name and pickled contents: a class the workers cannot import
    (a sample's own) is pickled by value, with an id that differs between processes."""
    return [(type(s).__qualname__, pickle.dumps(s.__getstate__())) for s in pickle.loads(blob)]


@st.composite
def batches(draw: Any, width: int) -> tuple[list[tuple], list[int], list[tuple], list[int]]:
    """(the first batch's rows and signs, a later delta's rows and signs), small ints."""
    row = st.tuples(st.integers(1, 4), *[st.integers(0, 5)] * (width - 1))
    inserts = draw(st.lists(row, min_size=1, max_size=40))
    inserts += draw(st.lists(st.sampled_from(inserts), max_size=8))  # exact duplicates
    deletes = draw(st.lists(st.sampled_from(inserts), max_size=12, unique=True))
    if draw(st.booleans()):  # one key loses every row
        gone = inserts[0][0]
        deletes = list(dict.fromkeys(deletes + [r for r in inserts if r[0] == gone]))
    rows = inserts + deletes
    signs = [1] * len(inserts) + [-1] * len(deletes)
    net = Counter(inserts) - Counter(deletes)
    later = draw(st.lists(row, max_size=6))
    taken = draw(st.lists(st.sampled_from(sorted(net)), max_size=4, unique=True)) if net else []
    return rows, signs, later + taken, [1] * len(later) + [-1] * len(taken)


@pytest.mark.parametrize("name", NATIVE)
def test_native_load_equals_replay_load(spark: Any, tmp_path: Any, name: str) -> None:
    case = _case(name)
    fts = row_types(case.algo)
    kind = "table" if case.kind == "table" else "aggregate"
    counter = itertools.count()

    def body(data: Any) -> None:
        rows, signs, delta, dsigns = data.draw(batches(len(fts)))
        rows = [_fields(r, fts) for r in rows]
        delta = [_fields(r, fts) for r in delta]
        n = next(counter)
        native = _view(spark, str(tmp_path / f"n{n}"), case.algo, native=True)
        replay = _view(spark, str(tmp_path / f"r{n}"), case.algo, native=False)
        assert native._impl.bulk_form == ("native", "")
        df = signed_df(spark, fts, rows, signs)
        got = native.apply(df).collect()
        want = replay.apply(df).collect()
        assert multiset(got) == multiset(want)
        _same_records(native, replay)
        net = list(_net(rows, signs).elements())
        ref = reference_rows(case.algo, net)
        assert_same(kind, native.result_rows(), ref, f"{name} native load")
        # the next apply works alike on both
        assert multiset(native.apply_rows(delta, dsigns)) == multiset(
            replay.apply_rows(delta, dsigns))  # fmt: skip
        _same_records(native, replay)
        after = list(_net(rows + delta, signs + dsigns).elements())
        assert_same(kind, native.result_rows(), reference_rows(case.algo, after),
                    f"{name} after an apply")  # fmt: skip

    examples = 3 if name == "clickstream" else 2  # (the suite's time: ~25 s in all)
    config = settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    body._hypothesis_internal_add_digest = f"{name}/native-bulk".encode()  # type: ignore[attr-defined]
    config(given(st.data())(body))()
    assert next(counter) == examples


def _net(rows: list[tuple], signs: list[int]) -> Counter:
    out: Counter = Counter()
    for r, s in zip(rows, signs, strict=True):
        out[r] += s
    return +out


def test_a_bad_delete_refuses_the_native_load(spark: Any, tmp_path: Any) -> None:
    """A delete with no live row to take back (never inserted, or once too often) fails
    the load, names the row, and commits nothing; the view then loads as usual."""
    algo = case_named("clickstream").algo
    fts = row_types(algo)
    view = _view(spark, str(tmp_path / "v"), algo, native=True)
    good = [(1, 0, 1), (1, 2, 2), (1, 1, 3), (2, 0, 1)]
    for bad in [(2, 3, 9), (1, 2, 2)]:
        rows = [*good, bad] + ([bad] if bad in good else [])
        signs = [1] * len(good) + [-1] * (len(rows) - len(good))
        with pytest.raises(DeltaError, match="not live") as info:
            view.apply(signed_df(spark, fts, rows, signs))
        assert repr(bad) in str(info.value)
        assert view.version == 0 and view.result_rows() == []
    view.apply(signed_df(spark, fts, good, [1] * len(good)))
    assert_same("table", view.result_rows(), reference_rows(algo, good))


@pytest.mark.parametrize(("name", "why"), [
    ("price_stats", "state `buyers` (Distinct) has no native build"),
    ("sessions", "the view recomputes keys from their rows"),
])  # fmt: skip
def test_other_views_load_by_replay_and_say_why(spark: Any, tmp_path: Any, name: str,
                                                why: str) -> None:  # fmt: skip
    case = case_named(name)
    fts = row_types(case.algo)
    view = case.algo.incremental(spark, str(tmp_path / "v"), store="spark")
    form, reason = view._impl.bulk_form
    assert form == "replay" and why in reason
    assert why in case.algo.explain(file=io.StringIO())
    rows = [as_fields(r, fts) for r in [(1, 2, 3, 4, 5)[: len(fts)], (2, 1, 1, 1, 1)[: len(fts)]]]
    view.apply(signed_df(spark, fts, rows, [1, 1]))
    assert_same("table", view.result_rows(), reference_rows(case.algo, rows))


def test_big_arguments_and_deletes_load_alike(spark: Any, tmp_path: Any) -> None:
    """Action arguments too large to pack with the action code (beyond ±2**61 for
    IntervalSequence's three actions) and deleted rows' actions take the other way; the
    records are still the replay load's."""
    algo = case_named("clickstream").algo
    fts = row_types(algo)
    big = 2**62
    rows = [(1, 0, -big), (1, 2, 3), (1, 2, big - 1), (1, 1, big), (2, 0, 5), (2, 2, 6),
            (2, 1, 2**61), (2, 2, 2**61 - 1), (1, 2, 3)]  # fmt: skip
    signs = [1] * len(rows)
    rows, signs = [*rows, (1, 2, 3), (2, 2, 6)], [*signs, -1, -1]
    native = _view(spark, str(tmp_path / "n"), algo, native=True)
    replay = _view(spark, str(tmp_path / "r"), algo, native=False)
    for view in (native, replay):
        view.apply(signed_df(spark, fts, rows, signs))
    _same_records(native, replay)
    want = reference_rows(algo, list(_net(rows, signs).elements()))
    assert_same("table", native.result_rows(), want, "big arguments")


def test_states_the_code_does_not_construct_fall_back_to_replay(spark: Any, tmp_path: Any) -> None:
    """The per-key run of the code checks that it constructs exactly the built states, in
    order; where it does not (here: a bulk plan with average's Count and Sum swapped),
    the load runs again by replay, and the records are the replay load's."""
    import dataclasses

    from looplift import bulkload

    algo = case_named("average").algo
    fts = row_types(algo)
    plan, mod, why = bulkload._compiled(algo)
    assert [s[1].__name__ for s in plan.states] == ["Count", "Sum"] and not why
    swapped = dataclasses.replace(plan, states=plan.states[::-1])
    bulkload._PLANS[algo] = (swapped, mod, "")
    try:
        rows = [(1, 5), (1, 7), (2, 1)]
        native = _view(spark, str(tmp_path / "n"), algo, native=True)
        replay = _view(spark, str(tmp_path / "r"), algo, native=False)
        for view in (native, replay):
            view.apply(signed_df(spark, fts, rows, [1] * len(rows)))
        _same_records(native, replay)
        assert_same("table", native.result_rows(), reference_rows(algo, rows))
    finally:
        bulkload._PLANS[algo] = (plan, mod, why)
