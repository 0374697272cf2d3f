"""The Spark store's live rows as row hashes (issue 13): a view in state mode keeps, per
key, the hashes and counts of its live rows (``viewfiles.encode_live``), hashed by
Spark wherever rows enter (the bulk load, a delta DataFrame, Python rows); other views
and stores written before the format keep a pickled ``{row: count}``."""

from __future__ import annotations

import datetime
import pickle
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from looplift.deltarows import DeltaError
from looplift.incremental import collect_delta
from looplift.sparkview import SparkView
from looplift.viewfiles import decode_live
from pyspark.sql import types as T

from tests.incremental.common import case_named, multiset, reference_rows
from tests.incremental.test_views import signed_df
from tests.spark.harness import assert_same, row_types

pytestmark = pytest.mark.spark

CLICKS = [(u, p, t) for u in range(1, 6) for p, t in [(0, 1), (2, 2), (1, 3), (3, 4), (2, 2)]]


def _spark_view(spark: Any, path: Any, name: str = "clickstream", **opts: Any) -> Any:
    opts = {"store": "spark", "buckets": 2, "keep_versions": 2, **opts}
    return case_named(name).algo.incremental(spark, str(path), **opts)


def _live_blobs(view: Any) -> list[bytes]:
    sv = _inner(view)
    return [r["live"] for r in sv.records().values() if not r["gone"]]


def _inner(view: Any) -> SparkView:
    sv = view._impl  # (the facade's store)
    assert isinstance(sv, SparkView)
    return sv


@pytest.mark.parametrize("driver_keys", [0, 10_000], ids=["job", "driver"])
def test_bogus_deletes_refused_in_the_hash_format(spark: Any, tmp_path: Any,
                                                  driver_keys: int) -> None:  # fmt: skip
    """A delete of a row never inserted, or of a row already deleted, refuses the whole
    batch and names the row; nothing is applied, in memory or in the checkpoint."""
    algo, fts = case_named("clickstream").algo, row_types(case_named("clickstream").algo)
    view = _spark_view(spark, tmp_path / "v", driver_keys=driver_keys)
    assert _inner(view).live_format == "hash"
    view.apply(signed_df(spark, fts, CLICKS, [1] * len(CLICKS)))  # the bulk load
    view.apply_rows([CLICKS[0]], [-1])  # CLICKS[0] is live once: now gone
    before, version = multiset(view.result_rows()), view.version
    never = (3, 9, 99)
    for rows, signs, bad in [
        ([(7, 1, 5), never], [1, -1], never),  # never inserted (a new row is valid)
        ([CLICKS[1], CLICKS[0]], [-1, -1], CLICKS[0]),  # deleted twice
        ([CLICKS[2]] * 2, [-1, -1], CLICKS[2]),  # two copies of a row live once
    ]:
        with pytest.raises(DeltaError, match="not live") as info:
            view.apply_rows(rows, signs)
        assert repr(bad) in str(info.value)
        with pytest.raises(DeltaError, match="not live") as info:
            view.apply(signed_df(spark, fts, rows, signs))
        assert repr(bad) in str(info.value)
    assert view.version == version
    assert multiset(view.result_rows()) == before
    view.close()
    view = _spark_view(spark, tmp_path / "v")  # nothing of it reached the checkpoint
    assert view.version == version and multiset(view.result_rows()) == before
    view.apply_rows([CLICKS[4]], [-1])  # a row live twice goes twice
    view.apply(signed_df(spark, fts, [CLICKS[4]], [-1]))
    live = Counter(CLICKS)
    live.subtract([CLICKS[0], CLICKS[4], CLICKS[4]])
    assert_same("table", view.result_rows(), reference_rows(algo, list((+live).elements())))
    for blob in _live_blobs(view):  # hashes ascending, counts positive
        hs, ns = decode_live(blob)
        assert list(hs) == sorted(set(hs)) and all(n > 0 for n in ns)
    view.close()


def test_old_pickled_store_still_applies(spark: Any, tmp_path: Any) -> None:
    """A store written before the hash format (no ``live`` entry in its meta) keeps its
    pickled live rows, and applies as before."""
    case = case_named("clickstream")
    fts = row_types(case.algo)
    view = _spark_view(spark, tmp_path / "v")
    view.close()
    meta = tmp_path / "v" / "looplift-store" / "view.pickle"
    stored = pickle.loads(meta.read_bytes())
    assert stored.pop("live") == "hash"
    meta.write_bytes(pickle.dumps(stored))  # as written before the format existed
    view = _spark_view(spark, tmp_path / "v", driver_keys=0)
    assert _inner(view).live_format == "pickle"
    view.apply(signed_df(spark, fts, CLICKS, [1] * len(CLICKS)))
    assert all(isinstance(pickle.loads(b), dict) for b in _live_blobs(view))
    view.close()
    view = _spark_view(spark, tmp_path / "v")  # reopened: still pickles, on the driver path
    view.apply_rows([CLICKS[0], (2, 4, 9)], [-1, 1])
    with pytest.raises(DeltaError, match="not live"):
        view.apply_rows([CLICKS[0]], [-1])
    live = Counter(CLICKS)
    live.subtract([CLICKS[0]])
    live[(2, 4, 9)] += 1
    assert_same("table", view.result_rows(), reference_rows(case.algo, list((+live).elements())))
    assert all(isinstance(pickle.loads(b), dict) for b in _live_blobs(view))
    view.close()


def test_rows_mode_keeps_pickles(spark: Any, tmp_path: Any) -> None:
    """A view that recomputes from its rows (rows mode) needs them: pickled."""
    view = _spark_view(spark, tmp_path / "v", name="sessions")
    assert _inner(view).live_format == "pickle"
    view.close()


def test_signed_zero_is_one_row_in_the_hash_format(spark: Any, tmp_path: Any) -> None:
    """-0.0 == 0.0: a DataFrame's -0.0 and a Python row's 0.0 are one live row."""
    case = case_named("price_stats")
    fts = row_types(case.algo)
    view = _spark_view(spark, tmp_path / "v", name="price_stats")
    assert _inner(view).live_format == "hash"
    view.apply(signed_df(spark, fts, [(1, 2, -0.0), (1, 3, 1.5)], [1, 1]))
    view.apply_rows([(1, 2, 0.0)], [1])
    view.apply(signed_df(spark, fts, [(1, 2, 0.0)], [-1]))
    view.apply_rows([(1, 2, -0.0)], [-1])
    assert_same("table", view.result_rows(), reference_rows(case.algo, [(1, 3, 1.5)]))
    view.close()


UTC = datetime.UTC
EDGE_ROWS = [
    (0, 0.0, "", False, datetime.datetime(1970, 1, 1), datetime.date(1970, 1, 1), None),
    (-1, -0.0, "\u00e9\U0001f642", True, datetime.datetime(2024, 3, 10, 6, 30), datetime.date(2024, 2, 29), 1),
    (2**63 - 1, float("inf"), "a\x00b", True, datetime.datetime(1900, 1, 1, 0, 0, 0, 1),
     datetime.date(1, 1, 1), -(2**63)),
    (-(2**63), -1e-300, "x" * 100, False, datetime.datetime(9999, 12, 31, 23, 59, 59),
     datetime.date(9999, 12, 31), 0),
]  # fmt: skip
EDGE_FIELDS = ("int", "float", "str", "bool", "datetime", "date", "Optional[int]")


def test_python_rows_hash_as_a_delta_frame_does(spark: Any, monkeypatch: Any) -> None:
    """``apply_rows``' hashes (Python rows hashed by Spark) equal a delta DataFrame's
    (``collect_delta``), for every field type, whatever the driver's time zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    fake = SimpleNamespace(fields=EDGE_FIELDS, name="edge", row_fields=None, _session=lambda: spark)
    rows = [*EDGE_ROWS, *[(i, i / 7, str(i), i % 2 == 0, datetime.datetime(2020, 1, 1 + i),
                           datetime.date(2000, 1, 1 + i), i or None) for i in range(20)]]  # fmt: skip
    by_python = SparkView._row_hashes(fake, rows)  # type: ignore[arg-type]
    schema = T.StructType([
        T.StructField("a", T.LongType()), T.StructField("b", T.DoubleType()),
        T.StructField("c", T.StringType()), T.StructField("d", T.BooleanType()),
        T.StructField("e", T.TimestampType()), T.StructField("f", T.DateType()),
        T.StructField("g", T.LongType()), T.StructField("_sign", T.IntegerType()),
    ])  # fmt: skip
    data = [(*r[:4], r[4].replace(tzinfo=UTC), *r[5:], 1) for r in rows]
    got_rows, _signs, hashes = collect_delta(fake, spark.createDataFrame(data, schema), True)
    assert got_rows == rows
    assert dict(zip(got_rows, hashes, strict=True)) == by_python
    assert by_python[EDGE_ROWS[1]] != by_python[EDGE_ROWS[0]]
    monkeypatch.undo()
    time.tzset()


def test_compaction_keeps_the_newest_records(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Each apply writes a log file; a log of more than MAX_LOG files is flushed into the
    buckets, and size-tiered compaction (a bucket of more than MAX_SEGMENTS files merges
    its newest ones) keeps each key's newest record and drops tombstones only in a whole
    merge."""
    import looplift.viewfiles as vf

    monkeypatch.setattr(vf, "MAX_SEGMENTS", 2)
    monkeypatch.setattr(vf, "MAX_LOG", 2)
    flushed = 0
    algo = case_named("clickstream").algo
    view = _spark_view(spark, tmp_path / "v", driver_keys=10_000)
    _inner(view).pool.size = 0  # (one log file per apply)
    live: Counter = Counter()
    for i in range(12):  # user 1 comes and goes (a tombstone), the others grow
        rows = [(1 + (i + j) % 4, j % 4, 10 * i + j) for j in range(3)]
        signs = [1, 1, 1]
        gone = [r for r in live if r[0] == 1] if i % 5 == 4 else []
        view.apply_rows(rows + gone, signs + [-1] * len(gone))
        live.update(rows)
        live.subtract(gone)
        live = +live
        inner = _inner(view)
        files, log = inner._manifest(inner.version)
        assert all(len(fs) <= 3 for fs in files.values())
        assert len(log) == (i + 1) % 3
        flushed += not log
        assert_same("table", view.result_rows(), reference_rows(algo, list(live.elements())))
        recs = inner.records()
        assert {pickle.loads(k)[0] for k, r in recs.items() if not r["gone"]} == {
            r[0] for r in live
        }
    assert flushed == 4
    view.close()
