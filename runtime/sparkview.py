"""The Spark-backed view store: an incremental view whose state lives in Parquet files in
the checkpoint directory and whose work runs on Spark's executors.

``f.incremental(spark, checkpoint=DIR, store="spark")`` (or ``store="auto"`` with a large
first batch) keeps, per scope key, one *record*: the key's live rows (a multiset), its
states and its current output rows, each pickled; a view in state mode (signed replay,
whose live rows only check deletes) keeps its live rows as their 64-bit row hashes and
counts instead (:func:`encode_live`; the meta's ``live`` entry says which). Records live
under ``DIR/looplift-store``:

- ``data/b<bucket>-<id>.parquet``: records of one bucket (``hash(key) % buckets``),
  sorted by the key's 64-bit hash, in small row groups, so a read takes the row groups
  of the keys it needs and not the file (each process caches a file's ``h`` column);
- ``data/log-<id>.parquet``: the view's log, an apply's new records of every bucket in
  one file (sorted the same way);
- ``v<N>.json``: version N's manifest: the files of every bucket and the log's, oldest
  first. A key's record is the one in the newest log file that has it, else in the
  newest of its bucket's files that has it (a tombstone when the key's last row went);
- ``CURRENT`` (a local directory): the committed version, replaced atomically
  (``os.replace``).

**On an object store** (``checkpoint="s3://bucket/prefix"``, :mod:`looplift.viewstorage`)
there is no rename: the manifest ``v<N>.json`` is the commit, created with a conditional
write (``If-None-Match: *``), so exactly one writer publishes version N (another one
gets an error and nothing of its apply is committed), and the committed version is the
highest manifest. Record files are written whole (one PUT each) under names no other
write uses; a process killed before its manifest leaves files no manifest names, which
a later commit deletes once they are :data:`REMOTE_ORPHAN_SECONDS` old (younger ones
may be another writer's apply under way).

**Bulk load.** The first batch of an empty view (a DataFrame) is computed on the
executors: natively where every state has a native build (:mod:`looplift.bulkload`: per
scope key, Spark aggregates its rows' hashes and its states' inputs, and one Python call
builds the key's record), else by replay (each key's step over its rows). The tasks (one
per core) write the records bucket by bucket; the driver only writes the manifest.

**Apply.** A delta is collected (one query: typed, checked, each row's hash) and netted
on the driver (it is small). When it touches at most ``driver_keys`` keys it runs in
the driver process, which saves scheduling a job, sharing its keys with the view's
helper processes on the driver's other cores when there are at least
:data:`~looplift.viewpool.HELPER_KEYS` (:mod:`looplift.viewpool`); else as one Spark job whose tasks
take a group of buckets each. Either way :func:`apply_keys` reads the records of its
keys only (the log first, then each bucket's files), checks every delete, runs the
keys' steps (signed replay on the stored states, or recompute from the live rows, as
the SQLite store does), writes its keys' new records as one log file (one per process
or task) and returns the changes. The driver then writes the next manifest and replaces
``CURRENT``: a process killed before that leaves the previous version (the files it
wrote are orphans and are removed later). A log of more than
:data:`~looplift.viewfiles.MAX_LOG` files per applying process is flushed into the
buckets (a new file per bucket; a bucket of more than
:data:`~looplift.viewfiles.MAX_SEGMENTS` files merges its newest ones, size-tiered) by an
idle helper in the background, whose files a later commit takes in, else by the driver
process before the commit (:meth:`~looplift.viewpool.HelperPool.maintain`).
Versions older than ``keep_versions`` and unreferenced files are deleted after each
commit.

The records and their files (encoding, reads, writes, compaction) are
:mod:`looplift.viewfiles`; the tasks' work (an apply's part, a replay load's writer)
:mod:`looplift.viewtasks`; the bulk load's jobs :mod:`looplift.bulkload`; the helper
processes :mod:`looplift.viewpool` and :mod:`looplift.viewworker`; what the Spark and
the SQLite store share (the key's step, changes, pickles, DataFrames in and out)
:mod:`looplift.viewcore`. This module is the view: scheduling, commits, results.

The checkpoint must be reachable under the same path from the driver and every
executor: a local disk on one machine, a shared mount, or an object store
(``s3://...``, whose connection settings travel with the view's tasks).
"""

from __future__ import annotations

import json
import logging
import pickle
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from . import bulkload
from .deltarows import DeltaError, row_hash
from .errors import python_errors
from .fieldtypes import spark_cast
from .sessions import is_connect
from .spark import _arrow_schema, ship
from .viewcore import (
    bind_view,
    change_frame,
    check_ident,
    collect_delta,
    crash_point,
    diff_rows,
    dumps,
    net_changes,
    output_arrays,
    output_schema,
)
from .viewfiles import (
    LIVE_FORMATS,
    key_hash,
    live_format,
    output_rows,
    read_records,
    version_files,
)
from .viewpool import HelperPool
from .viewstorage import Location, age
from .viewtasks import apply_keys, merge_jobs, result_batch

__all__ = ["SparkView", "STORE_DIR", "store_exists"]

logger = logging.getLogger(__name__)

STORE_DIR = "looplift-store"
DEFAULT_BUCKETS = 32
DEFAULT_KEEP = 5
#: an apply touching at most this many keys runs in the driver process (reading and
#: writing the same files, with the same commit); larger ones run as a Spark job. (A
#: 1,000-key apply on local[2], clickstream at 2M / 20M rows: 0.73 / 0.86 s in the driver,
#: 0.81 / 0.95 s as a job, whose scheduling the second core's share does not yet repay.)
DEFAULT_DRIVER_KEYS = 2000
#: on an object store, a record file no kept manifest names is deleted once it is this
#: old (seconds): a younger one may be another writer's apply, not yet committed
REMOTE_ORPHAN_SECONDS = 3600.0
_MANIFEST = re.compile(r"v(\d+)\.json")


def store_exists(checkpoint: Any, options: dict | None = None) -> bool:
    """Whether ``checkpoint`` (a path or ``s3://`` URI) holds a Spark store."""
    root = Location.of(checkpoint, options).child(STORE_DIR)
    return root.exists("view.pickle" if root.remote else "CURRENT")


# -- jobs and files -----------------------------------------------------------------------------


def _chains(files: dict[int, list[str]], log: list[str], buckets: int
            ) -> list[tuple[int, list[str]]]:  # fmt: skip
    """(bucket, the files its keys are read from, oldest first: its own, then the log)
    of every bucket that has a file."""
    return [(b, [*files.get(b, []), *log]) for b in range(buckets) if files.get(b) or log]


def _spread(spark: Any, rows: list[tuple], schema: str) -> Any:
    """A DataFrame of driver-side ``rows`` in up to 2 x parallelism tasks, no shuffle on a
    classic session (a parallelized collection; Spark Connect's local data is one
    partition, which is repartitioned)."""
    tasks = max(1, min(len(rows), _parallelism(spark)))
    if is_connect(spark):
        return spark.createDataFrame(rows, schema).repartition(tasks)
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, tasks), schema)


def _parallelism(spark: Any) -> int:
    """Tasks for a view job: twice the default parallelism (a Connect client cannot read
    it: the shuffle partitions setting stands in)."""
    if is_connect(spark):
        return max(1, int(spark.conf.get("spark.sql.shuffle.partitions") or 4))
    return max(1, 2 * spark.sparkContext.defaultParallelism)


# -- the view -----------------------------------------------------------------------------------


class SparkView:
    """An incremental view kept in Parquet and maintained by Spark jobs (module docs)."""

    kind = "spark"
    #: False: the first batch loads by replay even where a native build exists (tests
    #: compare the two on one view's store)
    native_bulk = True

    def __init__(self, alg: Any, dataflow: Any, spark: Any, checkpoint: str, scalars: tuple,
                 keep_versions: int = DEFAULT_KEEP, buckets: int | None = None,
                 driver_keys: int = DEFAULT_DRIVER_KEYS,
                 storage_options: dict | None = None) -> None:  # fmt: skip
        if keep_versions < 1:
            raise ValueError("keep_versions must be at least 1")
        self.alg = alg
        bind_view(self, alg, dataflow, spark, scalars)
        self.keep = keep_versions
        self.driver_keys = driver_keys
        self.pool = HelperPool()  # (its processes start on the first apply that needs them)
        self.where = Location.of(checkpoint, storage_options)
        self.root = self.where.child(STORE_DIR)
        self.data = self.root.child("data")
        self.data.makedirs()
        self.buckets = self._init(alg, scalars, buckets or DEFAULT_BUCKETS)
        self.hashed = self.live_format == "hash"

    # -- storage -------------------------------------------------------------------------------
    def _init(self, alg: Any, scalars: tuple, buckets: int) -> int:
        ident = (alg.ref, alg.params, alg.output, self.shape, tuple(scalars))
        try:
            blob = self.root.read("view.pickle")
        except FileNotFoundError:
            # (the hash format needs a session to hash Python rows: without one, pickles)
            fmt = live_format(self.shape, self.fields) if self._has_session() else "pickle"
            self.live_format = fmt
            self._write_manifest(0, {})  # (on an object store: unless another created it)
            meta = dumps({"ident": ident, "buckets": buckets, "live": fmt})
            if self.root.create("view.pickle", meta):
                self._set_current(0)
                return buckets
            blob = self.root.read("view.pickle")  # (another process created the view first)
        stored = pickle.loads(blob)
        check_ident(stored["ident"], alg, scalars, str(self.where))
        self.live_format = stored.get("live", "pickle")  # (a store from before the hash format)
        if self.live_format not in LIVE_FORMATS:
            raise DeltaError(f"checkpoint {self.where} keeps live rows as "
                             f"{self.live_format!r}, which this looplift does not read")  # fmt: skip
        if not self.root.remote and not self.root.exists("CURRENT"):
            self._set_current(0)  # (created by a process killed before its first commit)
        return int(stored["buckets"])

    def _write_manifest(self, version: int, files: dict[int, list[str]],
                        log: list[str] = ()) -> bool:  # fmt: skip
        """Write version ``version``'s manifest. Locally it replaces an uncommitted one
        (``CURRENT`` commits it); on an object store it is the commit, created only if
        no writer created it first: False then."""
        body = json.dumps({"version": version,
                           "files": {str(b): f for b, f in sorted(files.items())},
                           "log": list(log)}).encode()  # fmt: skip
        if self.root.remote:
            return self.root.create(f"v{version}.json", body)
        self.root.write(f"v{version}.json", body)
        return True

    def _set_current(self, version: int) -> None:
        if not self.root.remote:  # (an object store's version is its newest manifest)
            self.root.write("CURRENT", str(version).encode())  # the commit

    def _files(self, version: int) -> dict[int, list[str]]:
        """Each bucket's files in ``version``, oldest first."""
        return self._manifest(version)[0]

    def _manifest(self, version: int) -> tuple[dict[int, list[str]], list[str]]:
        """(each bucket's files, the log's files), oldest first, of ``version``."""
        try:
            body = json.loads(self.root.read(f"v{version}.json"))
        except FileNotFoundError:
            raise DeltaError(
                f"the view in {self.where} has no version {version} (its manifest "
                f"{self.root.uri_of(f'v{version}.json')} is gone: a version older "
                "than keep_versions, removed after later commits)"
            ) from None
        return {int(b): f for b, f in body["files"].items()}, body.get("log", [])

    def records(self) -> dict[bytes, dict]:
        """Every key's current record (tombstones included), read from the files."""
        files, log = self._manifest(self.version)
        out: dict[bytes, dict] = {}
        for b, chain in _chains(files, log, self.buckets):
            out.update(read_records(self.data, chain, None, (b, self.buckets)))
        return out

    @property
    def version(self) -> int:
        """How many batches are committed."""
        if not self.root.remote:
            return int(self.root.read("CURRENT"))
        versions = [int(m.group(1)) for name in self.root.listdir()
                    if (m := _MANIFEST.fullmatch(name))]  # fmt: skip
        if not versions:
            raise DeltaError(f"the view in {self.where} has no manifest (v<N>.json) under "
                             f"{self.root}: was its store removed?")  # fmt: skip
        return max(versions)

    def _commit(self, base: int, files: dict[int, list[str]], log: list[str] = ()) -> int:
        version = base + 1
        crash_point("apply", version)  # (tests: files written, nothing committed)
        if self.version != base or not self._write_manifest(version, files, log):
            raise DeltaError(f"the view in {self.where} was changed by another writer during "
                             f"this apply (version {version} was committed by it); nothing was "
                             "applied: reopen the view and apply the batch again if it is "
                             "not in the view's newest version")  # fmt: skip
        crash_point("commit", version)
        self._set_current(version)
        self._cleanup(version)
        return version

    def _cleanup(self, version: int) -> None:
        """Delete manifests older than ``keep_versions`` and files no kept one names."""
        kept = set(range(max(0, version - self.keep + 1), version + 1))
        used: set[str] = set()
        for v in kept:
            try:
                files, log = self._manifest(v)
            except DeltaError:
                continue
            used.update(version_files(files, log))
        for name in self.root.listdir():
            m = _MANIFEST.fullmatch(name)
            if m and int(m.group(1)) not in kept:
                self.root.remove(name)
        if self.pool.upkeep is not None:
            return  # (a helper is writing files no manifest names yet)
        for name, (_size, modified) in self.data.listdir().items():
            if name.endswith(".parquet") and name not in used:
                if self.data.remote and age(modified) < REMOTE_ORPHAN_SECONDS:
                    continue  # (maybe another writer's apply, not committed yet)
                self.data.remove(name)

    # -- API -----------------------------------------------------------------------------------
    def apply(self, delta_df: Any) -> Any:
        """Apply a batch of signed rows; returns the output changes (columns + ``_sign``)."""
        base = self.version
        files, log = self._manifest(base)
        if not log and not any(files.values()):
            return self._bulk(delta_df, base)
        start = time.perf_counter()
        if self.hashed:
            rows, signs, hashes = collect_delta(self, delta_df, hashes=True)
            changes = self._apply(rows, signs, dict(zip(rows, hashes, strict=True)))
        else:
            rows, signs = collect_delta(self, delta_df)
            changes = self._apply(rows, signs)
        logger.info("view %s: batch %d applied: %d rows in, %d changes out, %.2f s", self.name,
                 base + 1, len(rows), len(changes), time.perf_counter() - start)  # fmt: skip
        return self._frame(changes, with_sign=True, spark=delta_df.sparkSession)

    def apply_rows(self, rows: list[tuple], signs: list[int]) -> list[tuple]:
        """:meth:`apply` on Python rows; returns the change rows (values..., sign)."""
        rows, signs = self.rows.signed(rows, signs)
        return self._apply(rows, signs, self._row_hashes(rows) if self.hashed else None)

    def _row_hashes(self, rows: list[tuple]) -> dict[tuple, int]:
        """``{row: row_hash}`` of Python rows (as :meth:`DeltaRows.row` gives them),
        hashed by Spark with the same :func:`row_hash` as a delta DataFrame's rows."""
        import pyarrow as pa

        distinct = list(dict.fromkeys(rows))
        if not distinct:
            return {}
        names = [f"c{i}" for i in range(len(self.fields))]
        schema = _arrow_schema(", ".join(f"{n} {spark_cast(t)}"
                                         for n, t in zip(names, self.fields, strict=True)))  # fmt: skip
        table = pa.Table.from_pylist([dict(zip(names, r, strict=True)) for r in distinct], schema)
        df = self._session().createDataFrame(table)
        got = df.select(row_hash(names, self.fields).alias("h")).toArrow()
        return dict(zip(distinct, got.column(0).to_pylist(), strict=True))

    def _has_session(self) -> bool:
        try:
            self._session()
        except RuntimeError:
            return False
        return True

    def _apply(
        self, rows: list[tuple], signs: list[int], hashes: dict | None = None
    ) -> list[tuple]:
        """Apply checked rows; ``hashes`` (the hash live format): ``{row: row_hash}``."""
        base = self.version
        files, log = self._manifest(base)
        by_key: dict[bytes, tuple[Any, Counter]] = {}
        for r, s in zip(rows, signs, strict=True):
            k = tuple(r[i] for i in self.shape.key)
            kb = dumps(k)
            by_key.setdefault(kb, (k, Counter()))[1][r] += s
        jobs: dict[int, dict] = {}  # per bucket
        for kb, (k, d) in by_key.items():
            d = Counter({r: n for r, n in d.items() if n})
            if not d:
                continue
            b = key_hash(kb) % self.buckets
            job = jobs.setdefault(b, {"files": {b: files.get(b, [])}, "deltas": {}})
            job["deltas"][kb] = (k, d)
            if hashes is not None:
                job.setdefault("hashes", {}).update((r, hashes[r]) for r in d)
        changes: list[tuple] = []
        if jobs:
            touched = sum(len(j["deltas"]) for j in jobs.values())
            if touched <= self.driver_keys:  # a small delta: no Spark job to schedule
                results = self.pool.apply_here(self, list(jobs.values()), log, touched)
            else:
                results = self._run_jobs(jobs, log)
            for _b, kind, payload in results:
                if kind == "error":
                    raise DeltaError(payload.decode())
                if kind == "raise":
                    raise pickle.loads(payload)
            new_log = [*log]
            for _b, kind, payload in results:
                if kind == "log":
                    new_log.append(payload.decode())
                elif kind == "changes":
                    changes.extend(pickle.loads(payload))
            files, log = self.pool.maintain(self, files, new_log)
        self._commit(base, files, log)
        self.pool.warm(self, files, log)
        return net_changes(changes)

    def _run_jobs(self, jobs: dict[int, dict], log: list[str]) -> list[tuple[int, str, bytes]]:
        """The per-bucket jobs as one Spark job: a task takes a group of buckets and
        writes one log file."""

        ship(list(self.alg.refs))
        step, data, buckets, live = self.step, self.data, self.buckets, self.live_format

        def run(batches: Iterator[Any]) -> Iterator[Any]:
            parts = [pickle.loads(blob) for batch in batches
                     for blob in batch.column(1).to_pylist()]  # fmt: skip
            if parts:
                yield result_batch(apply_keys(step, data, merge_jobs(parts, log, buckets, live)))

        spark = self._session()
        rows = [(b, pickle.dumps(j, protocol=4)) for b, j in sorted(jobs.items())]
        df = _spread(spark, rows, "bucket int, job binary")
        with python_errors():  # a state's error raises as Python would
            out = df.mapInArrow(run, "bucket int, kind string, payload binary").toArrow()
        return list(zip(out.column(0).to_pylist(), out.column(1).to_pylist(),
                        out.column(2).to_pylist(), strict=True))  # fmt: skip

    def _session(self) -> Any:
        spark = self.spark
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
        if spark is None:
            raise RuntimeError("looplift: no SparkSession (pass one to incremental())")
        return spark

    # -- bulk load -------------------------------------------------------------------------------
    def _bulk(self, df: Any, base: int) -> Any:
        """The first batch of an empty view, written by the executors
        (:func:`looplift.bulkload.load`) and committed here."""
        self._commit(base, bulkload.load(self, df))
        if self.shape.key == ():  # one row, which retracts the value on no rows
            changes = diff_rows(self.step.initial_output(), self.result_rows())
            return self._frame(changes, with_sign=True, spark=df.sparkSession)
        return self._records_frame(base + 1, with_sign=True)

    @property
    def bulk_form(self) -> tuple[str, str]:
        """How the first batch loads: ("native", "") (each key's states built from native
        aggregates, :mod:`looplift.bulkload`) or ("replay", why) (the reference code per
        row). :attr:`native_bulk` False forces replay."""
        if not self.native_bulk:
            return "replay", "native_bulk is off"
        return bulkload.bulk_form(self)

    # -- results ---------------------------------------------------------------------------------
    def _records_frame(self, version: int, with_sign: bool) -> Any:
        """The output rows of ``version`` as a DataFrame computed by the executors."""
        import pyarrow as pa

        files, log = self._manifest(version)
        schema = output_schema(self.columns, self.types, with_sign)
        arrow = _arrow_schema(schema)
        data, types, buckets = self.data, self.types, self.buckets

        def rows(batches: Iterator[Any]) -> Iterator[Any]:
            for batch in batches:
                for b, blob in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(),
                                   strict=True):  # fmt: skip
                    out = output_rows(data, json.loads(blob), (b, buckets))
                    signs = [1] * len(out) if with_sign else None
                    yield pa.RecordBatch.from_arrays(output_arrays(out, types, arrow, signs),
                                                     schema=arrow)  # fmt: skip

        spark = self._session()
        parts = [(b, json.dumps(chain)) for b, chain in _chains(files, log, self.buckets)]
        return _spread(spark, parts, "bucket int, files string").mapInArrow(rows, schema)

    def result(self) -> Any:
        """The current full result as a DataFrame."""
        if self.shape.key == ():
            return self._frame(self.result_rows(), with_sign=False)
        return self._records_frame(self.version, with_sign=False)

    def result_rows(self) -> list[tuple]:
        """The current full result as Python rows (collected from the files)."""
        out: list[tuple] = []
        files, log = self._manifest(self.version)
        for b, chain in _chains(files, log, self.buckets):
            out.extend(output_rows(self.data, chain, (b, self.buckets)))
        if self.shape.key == () and not out:
            return self.step.fresh_output()
        return out

    def close(self) -> None:
        """End the view's helper processes (the files need no closing)."""
        self.pool.close()

    def _frame(self, rows: list[tuple], with_sign: bool, spark: Any = None) -> Any:
        return change_frame(self, rows, with_sign, spark)
