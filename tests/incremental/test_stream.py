"""Structured Streaming (issue 5): ``f.stream(streaming_df, sign="_sign")``.

A parquet file source directory (schema given) holds signed rows; the query runs with
``trigger(availableNow=True)`` and a checkpoint location, and a ``foreachBatch`` sink
collects the signed output changes. After each run the changes summed so far equal
the reference on the net input. More files are then added and the query restarted
from the same checkpoint: only the new files are read, and the summed changes still
equal the reference (the per-key state came back from Spark's state store, RocksDB).

Algorithms: the clickstream (signed replay on states per user), ``session_stats``
(recompute per user from its stored rows; timestamps in and out, a scalar),
``avg_path`` (an aggregate over a state: one global key), and (``slow``)
``sensor_report`` (Optional[float], a float scalar) and ``reading_summary`` (a struct
value recomputed from all rows); these two check their values in the first run only
(the restart is the same for every algorithm of its mode), and a third run that finds
nothing new is checked for the clickstream only.
"""

from __future__ import annotations

import datetime
import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.incremental.common import add_changes, case_named, reference_rows
from tests.spark.harness import FieldType, assert_same, collect, row_types

pytestmark = pytest.mark.spark

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
T0 = datetime.datetime(2024, 3, 30, 23, 0)
PROVIDER = "spark.sql.streaming.stateStore.providerClass"

# name -> scalars, a value generator per field
CASES = {
    "clickstream": (
        (),
        lambda rnd: (rnd.randint(1, 4), rnd.choice([0, 1, 1, 2, 3]), rnd.randint(0, 60)),
    ),  # fmt: skip
    "session_stats": (
        (600,),
        lambda rnd: (
            rnd.randint(1, 4),
            T0 + datetime.timedelta(minutes=rnd.randint(0, 120), seconds=rnd.randint(0, 59)),
        ),
    ),  # fmt: skip
    "avg_path": ((), lambda rnd: (rnd.choice([0, 1, 1, 2, 3]), rnd.randint(0, 60))),
    "sensor_report": (
        (2.5,),
        lambda rnd: (rnd.randint(1, 4), rnd.choice([None, rnd.randint(-12, 12) / 4])),
    ),  # fmt: skip
    "reading_summary": (
        (),
        lambda rnd: (rnd.randint(1, 4), rnd.choice([None, rnd.randint(-12, 12) / 4])),
    ),  # fmt: skip
}


def arrow_type(ft: FieldType) -> Any:
    return {
        int: pa.int64(),
        float: pa.float64(),
        str: pa.string(),
        bool: pa.bool_(),
        datetime.datetime: pa.timestamp("us", tz="UTC"),
        datetime.date: pa.date32(),
    }[ft.base]


def spark_ddl(fts: tuple[FieldType, ...]) -> str:
    names = {int: "bigint", float: "double", str: "string", bool: "boolean",
             datetime.datetime: "timestamp", datetime.date: "date"}  # fmt: skip
    return ", ".join(f"c{i} {names[ft.base]}" for i, ft in enumerate(fts)) + ", _sign int"


def write_file(
    path: Path, fts: tuple[FieldType, ...], rows: list, signs: list, mtime: float
) -> None:
    """Signed rows (or, when the signs are strings, a change data feed) as a parquet file."""
    cols = {}
    for i, ft in enumerate(fts):
        vals = [r[i] for r in rows]
        if ft.base is datetime.datetime:
            vals = [v if v is None else v.replace(tzinfo=datetime.UTC) for v in vals]
        cols[f"c{i}"] = pa.array(vals, arrow_type(ft))
    if signs and isinstance(signs[0], str):
        cols["_change_type"] = pa.array(signs, pa.string())
        cols["_commit_version"] = pa.array([3] * len(signs), pa.int64())
        cols["_commit_timestamp"] = pa.array([T0] * len(signs), pa.timestamp("us", tz="UTC"))
    else:
        cols["_sign"] = pa.array(signs, pa.int32())
    tmp = path.with_name("." + path.name)  # (the source must not see a half-written file)
    pq.write_table(pa.table(cols), tmp)
    # the file source orders files by modification time (ties in listing order): a
    # delete must not reach the state before its insert (Flink's contract, refused)
    os.utime(tmp, (mtime, mtime))
    tmp.rename(path)


def batches(gen: Any, n: int, live: Counter, rnd: random.Random) -> list[tuple[list, list]]:
    """n files of signed rows: inserts (with duplicates) and deletes of the rows live
    after the files before (``live`` is updated)."""
    out = []
    for _ in range(n):
        rows = [gen(rnd) for _ in range(rnd.randint(3, 12))]
        if rnd.random() < 0.5:
            rows.append(rows[0])
        elems = list(live.elements())
        dels: list = []
        if elems and rnd.random() < 0.3:
            key = rnd.choice(elems)[0]
            dels = [r for r in elems if r[0] == key]
        elif elems:
            dels = rnd.sample(elems, min(len(elems), rnd.randint(1, 5)))
        live.update(rows)
        live.subtract(dels)
        for r in [r for r, k in live.items() if k == 0]:
            del live[r]
        out.append((rows + dels, [1] * len(rows) + [-1] * len(dels)))
    return out


class Run:
    """The streaming query of one algorithm, restartable from its checkpoint."""

    def __init__(self, spark: Any, name: str, root: Path, ddl: str = "") -> None:
        self.spark, self.case = spark, case_named(name)
        self.scalars, self.gen = CASES[name]
        self.fts = row_types(self.case.algo)
        self.src, self.ckpt = root / "src", root / "checkpoint"
        self.src.mkdir(parents=True)
        self.changes: list[list[tuple]] = []  # per micro-batch
        self.files = 0
        self.ddl = ddl or spark_ddl(self.fts)

    def add_files(self, files: list[tuple[list, list]]) -> None:
        for rows, signs in files:
            path = self.src / f"part-{self.files:04d}.parquet"
            write_file(path, self.fts, rows, signs, time.time() - 3600 + self.files)
            self.files += 1

    def run(self) -> Any:
        """One availableNow run; returns the query (stopped)."""
        sdf = self.spark.readStream.schema(self.ddl).option(
            "maxFilesPerTrigger", 2
        ).parquet(str(self.src))  # fmt: skip
        out = self.case.algo.stream(sdf, "_sign", *self.scalars)
        assert list(out.columns) == [n for n, _ in self.case.algo.algorithm().output] + ["_sign"]
        assert out.isStreaming

        def sink(df: Any, batch_id: int) -> None:
            self.changes.append(collect(df))

        query = (
            out.writeStream.foreachBatch(sink)
            .option("checkpointLocation", str(self.ckpt))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(300)
        assert not query.isActive
        if query.exception() is not None:
            raise query.exception()
        return query

    def summed(self) -> Counter:
        total: Counter = Counter()
        for changes in self.changes:
            total = add_changes(total, changes)
        return total


def net_rows(files: list[tuple[list, list]]) -> list[tuple]:
    live: Counter = Counter()
    for rows, signs in files:
        for r, s in zip(rows, signs, strict=True):
            live[r] += s
    assert all(n >= 0 for n in live.values())
    return list((+live).elements())


def input_rows(query: Any) -> int:
    return sum(p["numInputRows"] for p in query.recentProgress)


SLOW = {"sensor_report", "reading_summary"}  # Optional fields, a scalar, a struct value


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in CASES]
)
def test_stream_restarts_from_its_checkpoint(spark: Any, tmp_path: Path, name: str) -> None:
    run = Run(spark, name, tmp_path)
    algo, scalars = run.case.algo, run.scalars
    rnd = random.Random(name)
    live: Counter = Counter()
    first = batches(run.gen, 3, live, rnd)
    run.add_files(first)
    q1 = run.run()
    assert spark.conf.get(PROVIDER) == ROCKSDB
    assert input_rows(q1) == sum(len(r) for r, _ in first)
    want = reference_rows(algo, net_rows(first), scalars)
    assert_same("table", list(run.summed().elements()), want, f"{name}: first run")
    if name in SLOW:  # their types and values; the three others check the restart
        return

    second = batches(run.gen, 3, live, rnd)
    run.add_files(second)
    before = len(run.changes)
    q2 = run.run()  # a new query on the same checkpoint
    assert input_rows(q2) == sum(len(r) for r, _ in second), "old files were read again"
    assert len(run.changes) > before
    want = reference_rows(algo, net_rows(first + second), scalars)
    assert_same("table", list(run.summed().elements()), want, f"{name}: after the restart")

    if name == "clickstream":
        q3 = run.run()  # nothing new: nothing read, nothing emitted
        assert input_rows(q3) == 0
        assert_same("table", list(run.summed().elements()), want, f"{name}: third run")

    # the state lived in RocksDB (the checkpoint's offsets record the provider, the
    # state operator reports RocksDB's metrics)
    offsets = sorted((run.ckpt / "offsets").glob("[0-9]*"), key=lambda p: int(p.name))
    meta = json.loads(offsets[-1].read_text().splitlines()[1])
    assert meta["conf"][PROVIDER] == ROCKSDB
    ops = [op for p in q2.recentProgress for op in p["stateOperators"]]
    assert ops and any(k.startswith("rocksdb") for op in ops for k in op["customMetrics"])


def test_stream_refuses_a_delete_of_a_row_never_inserted(spark: Any, tmp_path: Path) -> None:
    run = Run(spark, "clickstream", tmp_path)
    run.add_files([([(1, 0, 10), (1, 1, 12)], [1, 1]), ([(1, 5, 11)], [-1])])
    with pytest.raises(Exception, match="not live") as info:  # noqa: PT011 (Spark wraps it)
        run.run()
    assert "(1, 5, 11)" in str(info.value)


def test_stream_needs_its_sign_column(spark: Any, tmp_path: Path) -> None:
    case = case_named("clickstream")
    sdf = spark.readStream.schema("a bigint, b bigint, c bigint, s int").parquet(str(tmp_path))
    with pytest.raises(Exception, match="_sign"):  # noqa: PT011
        case.algo.stream(sdf)
    with pytest.raises(Exception, match="3 fields"):  # noqa: PT011
        case.algo.stream(sdf.drop("c"), "s")
    with pytest.raises(Exception, match="'b'.*string"):  # noqa: PT011
        case.algo.stream(sdf.withColumn("b", sdf.b.cast("string")), "s")
    assert case.algo.stream(sdf, "s").isStreaming


def test_stream_of_a_change_data_feed(spark: Any, tmp_path: Path) -> None:
    """Delta Lake's ``_change_type`` (with its commit columns) instead of ``_sign``."""
    ddl = "c0 bigint, c1 bigint, c2 bigint, _change_type string, _commit_version bigint, " \
          "_commit_timestamp timestamp"  # fmt: skip
    run = Run(spark, "clickstream", tmp_path, ddl)
    first = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 1, 9)]
    run.add_files([(first, ["insert"] * 5)])
    # an update moves user 1's end page later (pre- and post-image), user 2 loses its end
    run.add_files([([(1, 1, 12), (1, 1, 20), (1, 7, 15), (2, 1, 9)],
                    ["update_preimage", "update_postimage", "insert", "delete"])])  # fmt: skip
    run.run()
    net = [(1, 0, 10), (1, 5, 11), (1, 1, 20), (1, 7, 15), (2, 0, 1)]
    assert_same("table", list(run.summed().elements()), reference_rows(run.case.algo, net))


# -- the native form: additive states as Spark's streaming aggregation (issue 13) -------------

# name -> scalars, a value generator per field (additive states only: the native form)
NATIVE = {
    "average": ((), lambda rnd: (rnd.randint(1, 4), rnd.randint(-50, 50))),
    "mean": ((), lambda rnd: (rnd.randint(1, 4), rnd.randint(-50, 50))),
}


class NativeRun(Run):
    """The native update stream of one algorithm: each micro-batch's rows upsert the
    table by ``_key`` (``_live = 0`` deletes the key's row)."""

    def __init__(self, spark: Any, name: str, root: Path, ddl: str = "") -> None:
        self.spark, self.case = spark, case_named(name)
        self.scalars, self.gen = NATIVE.get(name, ((), None))
        self.fts = row_types(self.case.algo)
        self.src, self.ckpt = root / "src", root / "checkpoint"
        self.src.mkdir(parents=True)
        self.files = 0
        self.ddl = ddl or spark_ddl(self.fts)
        self.table: dict[Any, tuple] = {}
        self.batches = 0

    def run(self, mode: str | None = None) -> Any:
        sdf = self.spark.readStream.schema(self.ddl).option(
            "maxFilesPerTrigger", 2
        ).parquet(str(self.src))  # fmt: skip
        algo = self.case.algo
        out = algo.stream(sdf, "_sign", *self.scalars)
        keyed = algo.algorithm().kind == "table"
        names = [n for n, _ in algo.algorithm().output]
        assert list(out.columns) == [*names, *(["_key"] if keyed else []), "_live"]
        assert out.isStreaming

        def sink(df: Any, batch_id: int) -> None:
            self.batches += 1
            for row in collect(df):
                if not keyed:
                    self.table[()] = tuple(row[:-1])
                elif row[-1] == 0:  # (a key inserted and deleted in one batch: never seen)
                    self.table.pop(row[-2], None)
                else:
                    assert row[-1] > 0
                    self.table[row[-2]] = tuple(row[:-2])

        writer = out.writeStream.foreachBatch(sink)
        if mode is not None:
            writer = writer.outputMode(mode)
        query = (
            writer.option("checkpointLocation", str(self.ckpt)).trigger(availableNow=True).start()
        )
        query.awaitTermination(300)
        assert not query.isActive
        if query.exception() is not None:
            raise query.exception()
        return query

    def result(self) -> list[tuple]:
        return list(self.table.values())


def executed_plan(query: Any) -> str:
    """Spark's plans (parsed, analysed, optimized, physical) of the query's last
    micro-batch, as ``query.explain(extended=True)`` prints them."""
    return str(query._jsq.explainInternal(True))


@pytest.mark.parametrize("name", list(NATIVE))
def test_native_stream_restarts_from_its_checkpoint(spark: Any, tmp_path: Path, name: str) -> None:
    """The thesis ``average`` (and the global ``mean``): no Python operator in the executed
    streaming plan; the upserted rows equal the reference on the net input after each run
    (keys emptied by deletes included) and after a restart from the checkpoint."""
    from looplift.physplan import _PYTHON_NODES

    run = NativeRun(spark, name, tmp_path)
    algo, scalars = run.case.algo, run.scalars
    rnd = random.Random(name)
    live: Counter = Counter()
    first = batches(run.gen, 3, live, rnd)
    run.add_files(first)
    q1 = run.run()
    plan = executed_plan(q1)
    assert "StateStoreSave" in plan and "HashAggregate" in plan, plan
    assert not [n for n in _PYTHON_NODES if n in plan], plan
    assert "Python" not in plan and "pandas" not in plan.lower(), plan
    assert input_rows(q1) == sum(len(r) for r, _ in first)
    want = reference_rows(algo, net_rows(first), scalars)
    assert_same("table", run.result(), want, f"{name}: first run")
    if name != "average":
        return

    second = batches(run.gen, 3, live, rnd)
    gone = [r for r in live.elements() if r[0] == 1]  # and key 1 loses all its rows
    second.append((gone, [-1] * len(gone)))
    live.subtract(gone)
    run.add_files(second)
    q2 = run.run("update")  # a new query on the same checkpoint
    assert input_rows(q2) == sum(len(r) for r, _ in second), "old files were read again"
    want = reference_rows(algo, net_rows(first + second), scalars)
    assert 1 not in run.table
    assert_same("table", run.result(), want, f"{name}: after the restart")
    ops = [op for p in q2.recentProgress for op in p["stateOperators"]]
    assert ops and any(k.startswith("rocksdb") for op in ops for k in op["customMetrics"])


def test_native_stream_of_a_change_data_feed(spark: Any, tmp_path: Path) -> None:
    ddl = "c0 bigint, c1 bigint, _change_type string, _commit_version bigint, " \
          "_commit_timestamp timestamp"  # fmt: skip
    run = NativeRun(spark, "average", tmp_path, ddl)
    first = [(1, 10), (1, -3), (2, 5), (3, 7)]
    run.add_files([(first, ["insert"] * 4)])
    # an update of key 1's value (pre- and post-image); key 3 loses its only row
    run.add_files([([(1, -3), (1, 4), (2, 6), (3, 7)],
                    ["update_preimage", "update_postimage", "insert", "delete"])])  # fmt: skip
    run.run()
    net = [(1, 10), (1, 4), (2, 5), (2, 6)]
    assert 3 not in run.table
    assert_same("table", run.result(), reference_rows(run.case.algo, net))


def test_native_stream_refuses_int_overflow(spark: Any, tmp_path: Path) -> None:
    """A sum beyond 64 bits raises (ANSI), as the reference does, never wraps."""
    run = NativeRun(spark, "sum", tmp_path)
    rows = [(1, 2**62), (1, 2**62), (2, 1)]
    run.add_files([(rows, [1, 1, 1])])
    with pytest.raises(Exception, match="64 bits"):  # noqa: PT011
        reference_rows(run.case.algo, rows)
    with pytest.raises(Exception, match="(?i)overflow"):  # noqa: PT011
        run.run()


def test_native_stream_modes_and_forms(spark: Any, tmp_path: Path) -> None:
    """Append mode is refused with a message; ``changes=True`` streams signed changes per
    key; ``changes=False`` says why an algorithm has no native form; a key deleted more
    than inserted raises."""
    from looplift.streaming import StreamModeError, stream_form

    avg = case_named("average").algo
    sdf = spark.readStream.schema("k bigint, v bigint, _sign int").parquet(str(tmp_path))
    with pytest.raises(StreamModeError, match=r"update stream.*changes=True"):
        avg.stream(sdf).writeStream.outputMode("append")
    with pytest.raises(StreamModeError, match="update stream"):
        avg.stream(sdf).writeStream.start(outputMode="Append")
    assert list(avg.stream(sdf, changes=True).columns) == ["k", "avg", "_sign"]
    assert stream_form(avg) == ("native", "")
    click = case_named("clickstream").algo
    form, why = stream_form(click)
    assert form == "python" and "not additive" in why
    with pytest.raises(Exception, match="no native stream.*not additive"):  # noqa: PT011
        click.stream(spark.readStream.schema("a bigint, b bigint, c bigint, _sign int")
                     .parquet(str(tmp_path)), changes=False)  # fmt: skip

    run = NativeRun(spark, "average", tmp_path / "deletes")
    run.add_files([([(1, 10)], [1]), ([(2, 5)], [-1])])
    with pytest.raises(Exception, match="more deletes than inserts"):  # noqa: PT011
        run.run()
