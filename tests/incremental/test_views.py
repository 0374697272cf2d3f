"""Incremental views (issue 5, SPEC §4 "Deltas", §5): ``f.incremental(spark, checkpoint)``.

For every table and aggregate algorithm of samples/, hypothesis draws a sequence of
signed batches: inserts (with exact duplicates, and re-inserts of live rows), deletes
drawn from the live multiset (some rows, every row of one scope key, everything), rows
inserted and deleted in the same batch, now and then a bogus delete of a row that is
not live. After every batch:

- ``view.result_rows()`` equals the CPython reference run from scratch on the net
  table (a multiset; floats to 1e-9);
- the emitted changes, summed onto the previous result, give the new result exactly
  (every retraction takes back a row exactly as it was emitted);
- ``view.version`` counts the committed batches; a refused batch changes nothing.

Most batches go through ``apply_rows`` (no Spark job); one batch goes through
``apply(df)`` with ``_sign`` and one with Delta Lake's ``_change_type`` (insert /
delete / update_preimage / update_postimage) for the samples of :func:`frame_cases`
(every input field type, output column type and kind of view at least once: ``apply``
is a typed collect of the delta, ``apply_rows``, and a typed change frame), for every
sample with ``LOOPLIFT_INC_FRAMES=all``. The view is closed and reopened on its
checkpoint in the middle of each sequence.

``LOOPLIFT_INC_EXAMPLES`` (default 3) sequences per algorithm, derandomized.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import math
import os
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from looplift.delta import shape_of
from looplift.incremental import DeltaError
from pyspark.sql import types as T

from tests.frames import create_frame
from tests.incremental.common import (
    add_changes,
    case_named,
    freeze,
    multiset,
    reference_rows,
    sample_cases,
)
from tests.spark.harness import (
    Case,
    FieldType,
    assert_same,
    coerce_rows,
    coerce_value,
    collect,
    row_lists,
    row_types,
    scalar_types,
    scalar_values,
    spark_schema,
    to_spark_value,
    values,
)

pytestmark = pytest.mark.spark

CASES = sample_cases()
EXAMPLES = int(os.environ.get("LOOPLIFT_INC_EXAMPLES", "3"))
BATCHES = 6
CDF_TS = datetime.datetime(2024, 6, 1, tzinfo=datetime.UTC)


@functools.cache
def frame_cases() -> frozenset[str]:
    """The first sample (in file order) of each input field type, output column type
    and (view mode, kind, keyed or global) not seen before. Computed on first use,
    not at collection: it compiles every sample, which a worker that runs none of this
    module's tests should not pay."""
    seen: set[tuple] = set()
    out = set()
    for c in CASES:
        shape = c.algo.algorithm().shape
        if shape.get("error"):
            continue
        view = shape_of(c.algo)
        facets = {("field", repr(ft)) for ft in row_types(c.algo)}
        facets |= {("column", t) for _, t in c.algo.algorithm().output}
        facets.add(("view", view.mode, c.kind, bool(view.key)))
        if facets - seen or os.environ.get("LOOPLIFT_INC_FRAMES") == "all":
            out.add(c.id)
            seen |= facets
    return frozenset(out)


def test_every_sample_is_covered() -> None:
    names = {c.algo.name for c in CASES}
    assert {"clickstream", "avg_path", "price_stats", "sessions", "sum"} <= names
    assert len(CASES) >= 20, len(CASES)
    assert {"samples/clickstream::clickstream", "samples/stats::price_stats"} & frame_cases()


# -- DataFrames of signed rows ------------------------------------------------------------


def signed_df(spark: Any, fts: tuple[FieldType, ...], rows: list, signs: list[int]) -> Any:
    """Input columns ``c0..`` plus ``_sign`` (an int column)."""
    schema = spark_schema(fts)
    schema = T.StructType([*schema.fields, T.StructField("_sign", T.IntegerType(), False)])
    data = [(*to_spark_value(tuple(r)), s) for r, s in zip(rows, signs, strict=True)]
    return create_frame(spark, data, schema)


def cdf_df(spark: Any, fts: tuple[FieldType, ...], rows: list, kinds: list[str]) -> Any:
    """Delta Lake change-data-feed shape: ``_change_type``, ``_commit_version``,
    ``_commit_timestamp`` after the input columns."""
    schema = spark_schema(fts)
    schema = T.StructType(
        [
            *schema.fields,
            T.StructField("_change_type", T.StringType(), False),
            T.StructField("_commit_version", T.LongType(), False),
            T.StructField("_commit_timestamp", T.TimestampType(), False),
        ]
    )
    data = [(*to_spark_value(tuple(r)), k, 7, CDF_TS) for r, k in zip(rows, kinds, strict=True)]
    return create_frame(spark, data, schema)


def as_cdf(inserts: list, deletes: list) -> tuple[list, list[str]]:
    """Pairs of a delete and an insert become an update (pre- and post-image)."""
    rows, kinds = [], []
    for old, new in zip(deletes, inserts, strict=False):
        rows += [old, new]
        kinds += ["update_preimage", "update_postimage"]
    n = min(len(deletes), len(inserts))
    rows += deletes[n:] + inserts[n:]
    kinds += ["delete"] * len(deletes[n:]) + ["insert"] * len(inserts[n:])
    return rows, kinds


def check_change_frame(view: Any, out: Any) -> list[tuple]:
    """The DataFrame ``apply`` returned: output columns + ``_sign``; collected."""
    assert list(out.columns) == [*view.columns, "_sign"], out.columns
    assert out.schema["_sign"].dataType in (T.IntegerType(), T.LongType())
    return collect(out)


# -- one sequence of batches --------------------------------------------------------------


def tame(rows: list[tuple], fts: tuple[FieldType, ...]) -> list[tuple]:
    """Floats below 1000 in magnitude, for the algorithms whose states are replayed.

    A state accumulates its float sums in arrival order, undoing deletes by
    subtraction: once 877404.94 has been added and taken back, a sum of quarters
    carries a rounding residue of ~1e-10 (of ~1e-5 in a sum of squares), which a
    from-scratch sum does not have. That is inherent to signed replay (Flink's
    retracting SUM(DOUBLE) is the same); below 1000 the residue stays within 1e-9.
    """
    return [
        tuple(
            math.fmod(v, 1000.0) if ft.base is float and isinstance(v, float) else v
            for v, ft in zip(r, fts, strict=True)
        )
        for r in rows
    ]


def draw_rows(data: Any, case: Case, max_size: int, label: str) -> list[tuple]:
    fts = row_types(case.algo)
    rows = coerce_rows(data.draw(row_lists(fts, case.pools, max_size=max_size), label), fts)
    return tame(rows, fts) if shape_of(case.algo).mode == "state" else rows


def draw_batch(data: Any, case: Case, key: tuple[int, ...], live: Counter) -> tuple[list, list]:
    """(inserts, deletes): deletes are live rows (so the batch is valid)."""
    inserts = draw_rows(data, case, 8, "inserts")
    elems = list(live.elements())
    deletes: list[tuple] = []
    if elems:
        how = data.draw(st.sampled_from(["none", "some", "some", "some", "key", "all"]), "how")
        if how == "some":
            picked = data.draw(
                st.lists(st.integers(0, len(elems) - 1), unique=True, max_size=6), "picked"
            )
            deletes = [elems[i] for i in picked]
        elif how == "key":
            one = data.draw(st.sampled_from(elems), "key row")
            deletes = [r for r in elems if all(r[i] == one[i] for i in key)]
        elif how == "all":
            deletes = elems
        if data.draw(st.booleans(), "reinsert"):  # a duplicate of a live row
            inserts.append(data.draw(st.sampled_from(elems), "duplicate"))
    if inserts and data.draw(st.integers(0, 3), "churn") == 0:
        deletes.append(inserts[0])  # inserted and deleted in the same batch
    return inserts, deletes


def bogus_row(data: Any, case: Case, live: Counter, also: list) -> tuple:
    """A row that is neither live nor in ``also`` (a delete of it must be refused)."""
    fts = row_types(case.algo)
    row = st.tuples(*[values(ft, case.pools) for ft in fts]).map(
        lambda r: tuple(coerce_value(v, ft) for v, ft in zip(r, fts, strict=True))
    )
    return data.draw(row.filter(lambda r: live[r] == 0 and r not in also), "bogus")


def apply_batch(spark: Any, view: Any, case: Case, inserts: list, deletes: list, how: str) -> list:
    """Apply through ``apply_rows`` or a DataFrame; returns the change rows."""
    fts = row_types(case.algo)
    if how == "rows":
        return view.apply_rows(inserts + deletes, [1] * len(inserts) + [-1] * len(deletes))
    if how == "sign":
        df = signed_df(spark, fts, inserts + deletes, [1] * len(inserts) + [-1] * len(deletes))
    else:
        df = cdf_df(spark, fts, *as_cdf(inserts, deletes))
    return check_change_frame(view, view.apply(df))


def snapshot(view: Any) -> Any:
    """The view's result as a multiset, or None when it raises (as the reference does)."""
    try:
        return multiset(view.result_rows())
    except (DeltaError, OSError):
        raise
    except Exception:  # noqa: BLE001
        return None


def run_sequence(spark: Any, case: Case, data: Any, checkpoint: str, first: bool,
                 store: str = "auto") -> None:  # fmt: skip
    algo = case.algo
    key = shape_of(algo).key or (0,)
    scalars = data.draw(st.tuples(*[scalar_values(ft, case.pools) for ft in scalar_types(algo)]))
    scalars = tuple(coerce_value(v, ft) for v, ft in zip(scalars, scalar_types(algo), strict=True))
    # the Spark store: 3 buckets, 2 versions kept (so compaction and cleanup run), the
    # first batch a DataFrame (the bulk load), the second Delta CDF (an apply job)
    opts: dict[str, Any] = {}
    if store == "spark":  # applies as Spark jobs, or in the driver process, by algorithm
        opts = {"store": "spark", "buckets": 3, "keep_versions": 2,
                "driver_keys": 0 if algo.name in SPARK_JOBS else 10_000}  # fmt: skip
    view = algo.incremental(spark, checkpoint, *scalars, **opts)
    assert view.store == ("spark" if store == "spark" else "local")
    try:
        live: Counter = Counter()
        try:
            empty = reference_rows(algo, [], scalars)
        except Exception:  # noqa: BLE001 - an aggregate that raises on no rows
            empty = None
        if empty is not None:
            assert_same("table", view.result_rows(), empty, f"{algo.name}: fresh view")
        else:  # the reference raises on no rows: so does the view, and changes start from none
            with pytest.raises(Exception):  # noqa: PT011, B017
                view.result_rows()
        prev = multiset(view.result_rows()) if empty is not None else Counter()
        raises = empty is None  # the result so far is the reference's error
        reopen_at = data.draw(st.integers(1, BATCHES - 1), "reopen at")
        for b in range(BATCHES):
            if store == "spark":
                how = {0: "sign", 2: "cdf"}.get(b, "rows")
            else:
                how = {1: "sign", 2: "cdf"}.get(b, "rows") if first else "rows"
            version = view.version
            if data.draw(st.integers(0, 5), "bogus?") == 0:
                ok_rows = draw_rows(data, case, 3, "ok rows")
                bad = bogus_row(data, case, live, ok_rows)
                with pytest.raises(DeltaError, match="not live"):
                    view.apply_rows([*ok_rows, bad], [1] * len(ok_rows) + [-1])
                assert view.version == version, "a refused batch was counted"
                assert snapshot(view) == (None if raises else prev), (
                    "a refused batch changed the result"
                )
            inserts, deletes = draw_batch(data, case, key, live)
            net = live + Counter(inserts)
            net.subtract(Counter(deletes))
            assert all(n >= 0 for n in net.values())
            net = +net
            ctx = (
                f"{algo.name}{scalars!r} batch {b} ({how}): +{inserts!r} -{deletes!r}\n"
                f"net table: {sorted(net.elements(), key=repr)!r}"
            )
            try:
                want = reference_rows(algo, list(net.elements()), scalars)
            except Exception as e:  # noqa: BLE001 - the reference raises: so must the view
                if net == live:  # (unless the batch changes nothing: it was raising before)
                    assert apply_batch(spark, view, case, inserts, deletes, "rows") == []
                    assert snapshot(view) is None and view.version == version + 1
                    continue
                with pytest.raises(Exception) as info:  # noqa: PT011
                    apply_batch(spark, view, case, inserts, deletes, "rows")
                assert not isinstance(info.value, DeltaError), f"{ctx}\n{info.value}"
                assert view.version == version, f"{ctx}\nrefused batch ({e!r}) was counted"
                assert snapshot(view) == (None if raises else prev), (
                    f"{ctx}\nrefused batch changed it"
                )
                continue
            changes = apply_batch(spark, view, case, inserts, deletes, how)
            live = net
            assert view.version == version + 1
            got = view.result_rows()
            assert_same("table", got, want, ctx)
            now = multiset(got)
            summed = add_changes(prev, changes)
            assert summed == now, f"{ctx}\nsummed changes {summed} != result {now}"
            retracted = {freeze(tuple(c[:-1])) for c in changes if c[-1] < 0}
            inserted = {freeze(tuple(c[:-1])) for c in changes if c[-1] > 0}
            assert not retracted & inserted, (
                f"{ctx}\nunchanged rows emitted: {retracted & inserted}"
            )
            prev, raises = now, False
            if b == reopen_at:  # a new view object on the same checkpoint resumes
                view.close()
                view = algo.incremental(spark, checkpoint, *scalars)  # (finds its store)
                assert view.store == ("spark" if store == "spark" else "local")
                assert view.version == version + 1
                assert multiset(view.result_rows()) == now
    finally:
        view.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_batches(spark: Any, case: Case, tmp_path: Any) -> None:
    refusal = case.algo.algorithm().shape.get("error")
    if refusal:  # an algorithm views cannot maintain (a state without undo): they say why
        assert "cannot be maintained incrementally" in refusal, refusal
        with pytest.raises(TypeError) as e:
            case.algo.incremental(spark, str(tmp_path / "refused"))
        assert str(e.value) == refusal
        return
    counter = itertools.count()

    def body(data: Any) -> None:
        n = next(counter)
        frames = n == 0 and case.id in frame_cases()
        run_sequence(spark, case, data, str(tmp_path / f"ex{n}"), first=frames)

    config = settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    body._hypothesis_internal_add_digest = f"{case.id}/incremental".encode()  # type: ignore[attr-defined]
    config(given(st.data())(body))()
    assert next(counter) >= 1


#: The Spark store (looplift.sparkview) on one algorithm of each view shape: signed replay
#: on a scope key, on the global key; recompute per key; keyed by several fields;
#: timestamps in and out, list and string outputs.
SPARK_STORE = ["clickstream", "avg_path", "sessions", "session_stats", "price_stats",
               "visits_by_pair"]  # fmt: skip
SPARK_JOBS = {"clickstream", "sessions", "visits_by_pair"}  # apply as a Spark job always


@pytest.mark.parametrize("name", SPARK_STORE)
def test_batches_spark_store(spark: Any, name: str, tmp_path: Any) -> None:
    """The same sequences on the Spark-backed store (two per algorithm: Hypothesis' first,
    derandomized example is the simplest, a sequence of empty batches; the second is
    generated)."""
    case = case_named(name)
    counter = itertools.count()

    def body(data: Any) -> None:
        run_sequence(spark, case, data, str(tmp_path / f"ex{next(counter)}"), True, "spark")

    config = settings(max_examples=2, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    body._hypothesis_internal_add_digest = f"{case.id}/spark-store".encode()  # type: ignore[attr-defined]
    config(given(st.data())(body))()
    assert next(counter) == 2


# -- refusals, reopening, types ------------------------------------------------------------


def _view(spark: Any, tmp_path: Any, name: str, *scalars: Any, sub: str = "v") -> Any:
    return case_named(name).algo.incremental(spark, str(tmp_path / sub), *scalars)


def as_fields(ints: Any, fts: tuple[FieldType, ...]) -> tuple:
    """Small ints as values of the field types (a datetime: so many minutes after noon)."""
    noon = datetime.datetime(2024, 5, 1, 12, 0)
    return tuple(
        noon + datetime.timedelta(minutes=v) if ft.base is datetime.datetime else ft.base(v)
        for v, ft in zip(ints, fts, strict=True)
    )


CLICKS = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 3, 2), (2, 3, 2), (2, 1, 5)]


@pytest.mark.parametrize("name", ["clickstream", "sessions", "avg_path", "size_buckets"])
def test_delete_of_a_row_never_inserted_is_refused(spark: Any, tmp_path: Any, name: str) -> None:
    """Flink's contract: only live rows are deleted; a bogus delete refuses the whole
    batch (the valid rows of it too), through either entry point."""
    case = case_named(name)
    fts = row_types(case.algo)
    rows = [as_fields(r[-len(fts) :], fts) for r in CLICKS]
    view = _view(spark, tmp_path, name)
    view.apply_rows(rows, [1] * len(rows))
    before, version = multiset(view.result_rows()), view.version
    never = as_fields([99] * len(fts), fts)
    with pytest.raises(DeltaError, match="not live") as info:
        view.apply_rows([rows[0], never], [-1, -1])
    assert repr(never) in str(info.value)
    dup = rows[4]  # live once (twice for the tables whose rows repeat): one more is too many
    with pytest.raises(DeltaError, match="not live"):
        view.apply_rows([dup] * (Counter(rows)[dup] + 1), [-1] * (Counter(rows)[dup] + 1))
    with pytest.raises(DeltaError, match="not live"):
        view.apply(signed_df(spark, fts, [rows[1], never], [1, -1]))
    assert view.version == version
    assert multiset(view.result_rows()) == before
    view.close()
    view = _view(spark, tmp_path, name)  # and nothing of it reached the checkpoint
    assert view.version == version
    assert multiset(view.result_rows()) == before
    view.apply_rows(rows, [-1] * len(rows))  # what is live can go
    assert_same("table", view.result_rows(), reference_rows(case.algo, []))
    view.close()


def test_reopen_resumes(spark: Any, tmp_path: Any) -> None:
    algo = case_named("clickstream").algo
    view = algo.incremental(spark, str(tmp_path / "v"))
    view.apply_rows(CLICKS[:3], [1, 1, 1])
    view.apply_rows(CLICKS[3:], [1] * 4)
    view.close()
    again = algo.incremental(spark, str(tmp_path / "v"))
    assert again.version == 2
    assert multiset(again.result_rows()) == multiset(algo(CLICKS))
    changes = again.apply_rows([CLICKS[2]], [-1])  # user 1 loses its end page
    assert multiset(changes) == multiset([(1, 1.0, -1), (1, None, 1)])
    assert multiset(again.result_rows()) == multiset(algo(CLICKS[:2] + CLICKS[3:]))
    assert again.version == 3
    again.close()


def test_checkpoint_of_another_algorithm_is_refused(spark: Any, tmp_path: Any) -> None:
    view = _view(spark, tmp_path, "clickstream")
    view.apply_rows(CLICKS, [1] * len(CLICKS))
    view.close()
    with pytest.raises(DeltaError, match="another algorithm") as info:
        _view(spark, tmp_path, "funnel")
    assert "clickstream" in str(info.value) and "funnel" in str(info.value)
    with pytest.raises(DeltaError, match="another algorithm"):
        _view(spark, tmp_path, "avg_path")


def test_checkpoint_with_other_scalars_is_refused(spark: Any, tmp_path: Any) -> None:
    """The stored results were computed with the scalars the view was made with."""
    t = datetime.datetime(2024, 5, 1, 12, 0)
    view = _view(spark, tmp_path, "order_report", 100)
    view.apply_rows([(1, t, 150), (1, t, 50)], [1, 1])
    view.close()
    with pytest.raises(DeltaError, match="100") as info:
        _view(spark, tmp_path, "order_report", 50)
    assert "50" in str(info.value)
    view = _view(spark, tmp_path, "order_report", 100)
    assert view.version == 1
    assert view.result_rows() == [(1, 2, 1, 0, "2.00")]
    view.close()


def test_delta_frame_errors_name_the_column(spark: Any, tmp_path: Any) -> None:
    view = _view(spark, tmp_path, "clickstream")
    schema = "user_id long, pagetype long, ts long"
    with pytest.raises(DeltaError, match="_sign"):  # no sign column
        view.apply(spark.createDataFrame([(1, 0, 10)], schema))
    with pytest.raises(Exception, match="pagetype"):  # a string where an int is
        view.apply(spark.createDataFrame([(1, "x", 10, 1)], "user_id long, pagetype string, "
                                         "ts long, _sign int"))  # fmt: skip
    with pytest.raises(Exception, match="ts"):  # a null in a field that is not Optional
        view.apply(spark.createDataFrame([(1, 0, None, 1)], f"{schema}, _sign int"))
    with pytest.raises(Exception, match="field"):  # a column too few
        view.apply(spark.createDataFrame([(1, 0, 1)], "user_id long, pagetype long, _sign int"))
    for bad in (0, 2, None):
        with pytest.raises(DeltaError, match="_sign"):
            view.apply(spark.createDataFrame([(1, 0, 10, bad)], f"{schema}, _sign int"))
    with pytest.raises(DeltaError, match="_change_type"):
        view.apply(spark.createDataFrame([(1, 0, 10, "upsert")], f"{schema}, _change_type string"))
    with pytest.raises(Exception, match="field|column"):  # Python rows of the wrong width
        view.apply_rows([(1, 0)], [1])
    with pytest.raises(DeltaError, match="sign"):
        view.apply_rows([(1, 0, 10)], [0])
    assert view.version == 0 and view.result_rows() == []
    # an int column may feed a float field; narrower int columns an int field
    out = view.apply(spark.createDataFrame([(1, 0, 10, 1)], "a int, b short, c int, _sign long"))
    assert collect(out) == [(1, None, 1)]
    view.close()
    stats = _view(spark, tmp_path, "price_stats", sub="stats")
    stats.apply_rows([(1, 2, 3)], [1])  # an int for a float field is the float
    stats.apply(spark.createDataFrame([(1, 2, 3, -1)], "a long, b long, c long, _sign int"))
    assert stats.result_rows() == [] and stats.version == 2
    stats.close()


def test_result_frame(spark: Any, tmp_path: Any) -> None:
    """``result()`` is a DataFrame of the output columns, equal to ``result_rows()``."""
    for name, rows in [
        ("price_stats", [(1, 7, 2.5), (1, 8, 4.0), (2, 7, 1.0)]),
        ("market", [(1, 7, 2.5), (1, 8, 4.0)]),
        ("session_stats", [(1, datetime.datetime(2024, 2, 29, 23, 59, 59, 5), 0)]),
    ]:
        case = case_named(name)
        fts = row_types(case.algo)
        rows = coerce_rows([r[: len(fts)] for r in rows], fts)
        scalars = (60,) if scalar_types(case.algo) else ()
        view = case.algo.incremental(spark, str(tmp_path / name), *scalars)
        view.apply_rows(rows, [1] * len(rows))
        df = view.result()
        assert list(df.columns) == view.columns
        assert_same("table", collect(df), reference_rows(case.algo, rows, scalars), name)
        view.close()


@pytest.fixture
def new_york_time(monkeypatch: Any) -> Any:
    """The driver's local time zone is not UTC (the session's is): naive datetimes are
    UTC (SPEC §2) whatever the machine's zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_datetimes_whatever_the_local_time_zone(
    spark: Any, tmp_path: Any, new_york_time: Any
) -> None:
    case = case_named("session_stats")
    algo, fts = case.algo, row_types(case.algo)
    t = datetime.datetime(2024, 3, 10, 6, 30)  # 1:30 in New York: a DST change follows
    rows = [(1, t), (1, t + datetime.timedelta(minutes=50)), (2, t + datetime.timedelta(hours=1))]
    view = algo.incremental(spark, str(tmp_path / "v"), 3600)
    view.apply(signed_df(spark, fts, rows, [1, 1, 1]))  # through Spark
    assert_same("table", view.result_rows(), reference_rows(algo, rows, (3600,)))
    view.apply_rows([rows[2]], [-1])  # Python rows: the same values
    changes = check_change_frame(view, view.apply(signed_df(spark, fts, [rows[0]], [-1])))
    assert multiset(changes) == multiset([(1, 1, 3000, t, -1), (1, 1, 0, rows[1][1], 1)])
    assert_same("table", view.result_rows(), reference_rows(algo, rows[1:2], (3600,)))
    assert_same("table", collect(view.result()), reference_rows(algo, rows[1:2], (3600,)))
    view.close()


def test_signed_zero_is_one_row(spark: Any, tmp_path: Any) -> None:
    """-0.0 == 0.0 in Python (and SQL): a delete of one takes back the other."""
    view = _view(spark, tmp_path, "price_stats")
    view.apply_rows([(1, 2, 0.0)], [1])
    view.apply_rows([(1, 2, -0.0)], [1])
    view.apply_rows([(1, 2, 0.0), (1, 2, 0.0)], [-1, -1])
    assert view.result_rows() == []
    view.close()


def test_work_is_proportional_to_the_delta(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Per apply, only the keys in the delta are stepped; with states, the replay sees
    the delta's rows only (never the key's history); an aggregate over states too."""
    import looplift.viewcore as core

    replayed: list[int] = []
    real = core.replay

    def spy(fn: Any, rows: list, *rest: Any, **kw: Any) -> Any:
        replayed.append(len(rows))
        return real(fn, rows, *rest, **kw)

    monkeypatch.setattr(core, "replay", spy)  # (the key step's)
    base = [(u, p, t) for u in range(50) for p, t in [(0, 1), (2, 2), (1, 3), (3, 4)]]
    for name, rows, delta in [
        ("clickstream", base, [(7, 2, 5), (9, 3, 5), (9, 0, 1)]),
        ("avg_path", [r[1:] for r in base], [(2, 5), (3, 5), (0, 1)]),
    ]:
        view = _view(spark, tmp_path, name, sub=name)
        view.apply_rows(rows, [1] * len(rows))
        replayed.clear()
        view.apply_rows(delta, [1, 1, -1])
        assert view.shape.mode == "state"
        assert sorted(replayed) == ([1, 2] if view.shape.key else [3]), replayed
        live = rows + delta[:2]
        live.remove(delta[2])
        assert_same("table", view.result_rows(), reference_rows(view.dataflow, live))
        view.close()
