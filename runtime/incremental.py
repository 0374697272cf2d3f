"""Incremental maintenance: ``f.incremental(spark, checkpoint=DIR)`` and ``f.stream(df)``.

A view keeps, per scope key (the fields of the algorithm's top-level ``group_by``, or
one global key), the key's live input rows with their multiplicities, its states
(state mode, :mod:`looplift.delta`) and its current output rows. ``apply(delta)``
touches only the keys present in the delta:

1. the delta is netted per row and checked: a delete must take back a live row
   (Flink's contract); otherwise the whole batch is refused and nothing changes;
2. per affected key the step runs (signed replay on the stored states, or the
   reference over the key's live rows), giving the key's new output rows;
3. the changes (old rows retracted, new rows inserted, ``_sign`` −1/+1), the new
   states and the batch number are committed in one SQLite transaction in the
   checkpoint directory, so a crash at any point leaves the previous batch or the
   new one, never half of it. ``version`` counts committed batches.

``f.stream(streaming_df, sign="_sign")`` runs additive algorithms as Spark's native
streaming aggregation over signed values (:mod:`looplift.streaming`), and the others with
the same step in Spark Structured Streaming (``applyInPandasWithState`` keyed by the
scope key), with the per-key state in Spark's state store (RocksDB), checkpointed by
Spark. Both take ``_sign`` or
Delta Lake's ``_change_type``; a batch's changes are netted over its keys.

This module is the view a user opens (:class:`IncrementalView`, which picks the store)
and the SQLite store (:class:`LocalView`); the Spark store is :mod:`looplift.sparkview`,
what both stores and the per-key stream share (the key's step, its changes, pickles,
DataFrames in and out) :mod:`looplift.viewcore`, and :func:`stream` here is the per-key
stream of :mod:`looplift.streaming` (:func:`~looplift.streaming.keyed_stream`).

Float sums in states are kept in arrival order and deletes are subtracted, so after
values of very different magnitudes were added and taken back a result may differ
from a from-scratch run by rounding (as Flink's retracting ``SUM(DOUBLE)``).
"""

from __future__ import annotations

import logging
import os
import pickle
import sqlite3
from collections import Counter, OrderedDict
from typing import Any

from .deltarows import DeltaError
from .sparkview import DEFAULT_DRIVER_KEYS, DEFAULT_KEEP, SparkView, store_exists
from .streaming import keyed_stream as stream
from .viewcore import (
    bind_view,
    change_frame,
    check_ident,
    collect_delta,
    crash_point,
    diff_rows,
    dumps,
    net_changes,
    resolve,
)
from .viewstorage import is_remote

__all__ = ["DeltaError", "IncrementalView", "stream"]

logger = logging.getLogger(__name__)

_CACHE_KEYS = 50_000  # unpickled states kept between batches (keys most recently changed)

#: A new view (``store="auto"``) moves to the Spark store when its first batch has at least
#: this many rows; smaller views stay in the embedded SQLite store.
AUTO_SPARK_ROWS = 1_000_000
STORES = ("auto", "local", "spark")


class IncrementalView:
    """The maintained result of one algorithm over signed batches (see module docs).

    ``store`` chooses where the view's state lives: ``"local"``, one SQLite file on the
    driver (:class:`LocalView`, for small views); ``"spark"``, Parquet files maintained by
    Spark jobs on the executors (:class:`looplift.sparkview.SparkView`, for views beyond
    one machine's memory or core); ``"auto"`` (default), the store an existing checkpoint
    has, else the local one, replaced by the Spark one when the first batch has at least
    :data:`AUTO_SPARK_ROWS` rows. ``keep_versions``, ``buckets`` and ``driver_keys``
    apply to the Spark store (versions kept for readers, hash buckets of the state files,
    the most keys an apply may touch to run in the driver process instead of as a Spark
    job; 0: always a Spark job).

    ``checkpoint`` may be an object store's URI (``s3://bucket/prefix``,
    :mod:`looplift.viewstorage`): the view then lives in the Spark store;
    ``storage_options`` gives its connection settings (else the standard AWS
    environment variables are read).
    """

    def __init__(self, dataflow: Any, spark: Any, checkpoint: str, *scalars: Any,
                 store: str = "auto", keep_versions: int | None = None,
                 buckets: int | None = None, driver_keys: int | None = None,
                 storage_options: dict | None = None) -> None:  # fmt: skip
        if store not in STORES:
            raise ValueError(f"store must be one of {', '.join(map(repr, STORES))}, not {store!r}")
        self._args = (dataflow, spark, checkpoint, scalars, keep_versions, buckets, driver_keys,
                      storage_options)  # fmt: skip
        self._auto = False
        if is_remote(checkpoint):  # (SQLite needs a local file: the Spark store)
            if store == "local":
                raise DeltaError(f"a view in {checkpoint} (an object store) cannot use the local "
                                 "(SQLite) store; use store='spark' or 'auto'")  # fmt: skip
            self._impl: Any = self._spark()
            return
        has_spark = store_exists(checkpoint)
        has_local = os.path.exists(os.path.join(checkpoint, LocalView.FILE))
        if has_spark or (store == "spark" and not has_local):
            self._impl = self._spark()
        else:
            self._impl = LocalView(dataflow, spark, checkpoint, *scalars)
            self._auto = store == "auto" and self._impl.version == 0
            if store == "spark":
                raise DeltaError(f"checkpoint {checkpoint} holds a local (SQLite) view; "
                                 "open it with store='local' or 'auto', or use a new checkpoint")  # fmt: skip

    def _spark(self) -> Any:
        dataflow, spark, checkpoint, scalars, keep, buckets, driver_keys, options = self._args
        alg, fn = resolve(dataflow)
        if driver_keys is None:
            driver_keys = DEFAULT_DRIVER_KEYS
        return SparkView(alg, fn, spark, checkpoint, scalars, keep or DEFAULT_KEEP, buckets,
                         driver_keys, options)  # fmt: skip

    def _maybe_spark(self, rows: int | Any) -> None:
        """Move a new, empty ``auto`` view to the Spark store for a large first batch."""
        if not self._auto:
            return
        self._auto = False
        n = rows if isinstance(rows, int) else rows.count()
        if n < AUTO_SPARK_ROWS or self._impl.version != 0:
            return
        path = self._impl.path
        logger.info("view %s: a first batch of %d rows: the view moves to the Spark store",
                 getattr(self._impl, "name", "?"), n)  # fmt: skip
        self._impl = self._spark()
        LocalView.remove(path)

    def __getattr__(self, name: str) -> Any:
        # the store's attributes (name, columns, types, fields, shape, ...)
        if name.startswith("__") or name == "_impl":
            raise AttributeError(name)
        return getattr(self._impl, name)

    @property
    def store(self) -> str:
        """Where the state lives: ``"local"`` (SQLite) or ``"spark"`` (Parquet)."""
        return self._impl.kind

    @property
    def version(self) -> int:
        """How many batches are committed."""
        return self._impl.version

    def apply(self, delta_df: Any) -> Any:
        """Apply a batch of signed rows; returns the output changes (columns + ``_sign``)."""
        self._maybe_spark(delta_df)
        return self._impl.apply(delta_df)

    def apply_rows(self, rows: list[tuple], signs: list[int]) -> list[tuple]:
        """:meth:`apply` on Python rows; returns the change rows (values..., sign)."""
        self._maybe_spark(len(rows))
        return self._impl.apply_rows(rows, signs)

    def result(self) -> Any:
        """The current full result as a DataFrame."""
        return self._impl.result()

    def result_rows(self) -> list[tuple]:
        """The current full result as Python rows."""
        return self._impl.result_rows()

    def close(self) -> None:
        self._impl.close()


class LocalView:
    """A view kept in one SQLite file in the checkpoint directory (see module docs)."""

    kind = "local"
    FILE = "looplift-view.sqlite"

    def __init__(self, dataflow: Any, spark: Any, checkpoint: str, *scalars: Any) -> None:
        alg, dataflow = resolve(dataflow)
        bind_view(self, alg, dataflow, spark, scalars)
        os.makedirs(checkpoint, exist_ok=True)
        self.path = os.path.join(checkpoint, self.FILE)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a commit survives the process being killed at any point (only a
        # power loss may lose the last committed batch)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._cache: OrderedDict[bytes, list] = OrderedDict()  # key -> states after the last commit
        self._cache_version = -1
        self._init(alg, scalars)

    # -- storage -----------------------------------------------------------------------
    def _init(self, alg: Any, scalars: tuple) -> None:
        db = self.db
        db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS live (k BLOB, r BLOB, n INTEGER, "
                   "PRIMARY KEY (k, r)) WITHOUT ROWID")  # fmt: skip
        db.execute("CREATE TABLE IF NOT EXISTS keys (k BLOB PRIMARY KEY, states BLOB, out BLOB)")
        ident = dumps((alg.ref, alg.params, alg.output, self.shape, tuple(scalars)))
        row = db.execute("SELECT value FROM meta WHERE name = 'ident'").fetchone()
        if row is None:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO meta VALUES ('ident', ?), ('version', 0)", (ident,))
            db.execute("COMMIT")
        else:
            check_ident(pickle.loads(row[0]), alg, scalars, os.path.dirname(self.path))

    @property
    def version(self) -> int:
        """How many batches are committed."""
        return int(self.db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()[0])

    # -- API -----------------------------------------------------------------------------
    def apply(self, delta_df: Any) -> Any:
        """Apply a batch of signed rows; returns the output changes (columns + ``_sign``)."""
        rows, signs = self._collect(delta_df)
        changes = self.apply_rows(rows, signs)
        return self._frame(changes, with_sign=True, spark=delta_df.sparkSession)

    def apply_rows(self, rows: list[tuple], signs: list[int]) -> list[tuple]:
        """:meth:`apply` on Python rows; returns the change rows (values..., sign)."""
        by_key: dict[Any, Counter] = {}
        key = self.shape.key
        rows, signs = self.rows.signed(rows, signs)
        for r, s in zip(rows, signs, strict=True):
            k = tuple(r[i] for i in key)
            by_key.setdefault(k, Counter())[r] += s
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        self._pending: dict[bytes, list] = {}
        try:
            if self.version != self._cache_version:  # another view object wrote meanwhile
                self._cache.clear()
            changes = self._apply_keys(by_key)
            version = self.version + 1
            db.execute("UPDATE meta SET value = ? WHERE name = 'version'", (version,))
            crash_point("commit", version)
            db.execute("COMMIT")
            logger.info("view %s: batch %d applied: %d rows in, %d changes out", self.name,
                     version, len(rows), len(changes))  # fmt: skip
        except BaseException:
            self._cache.clear()  # replay changed state objects in place: forget them all
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        for kb, states in self._pending.items():  # committed: keep them unpickled
            self._cache[kb] = states
        self._cache_version = version
        while len(self._cache) > _CACHE_KEYS:
            self._cache.popitem(last=False)
        return changes

    def _apply_keys(self, by_key: dict[Any, Counter]) -> list[tuple]:
        db = self.db
        plans = []
        for k, d in by_key.items():  # check the whole batch before changing anything
            d = Counter({r: n for r, n in d.items() if n})
            kb = dumps(k)
            for r, n in d.items():
                if n < 0:
                    have = db.execute("SELECT n FROM live WHERE k = ? AND r = ?",
                                      (kb, dumps(r))).fetchone()  # fmt: skip
                    if (have[0] if have else 0) + n < 0:
                        raise DeltaError(
                            f"delete of a row that is not live: {r!r} "
                            f"({-n} deleted, {have[0] if have else 0} live); nothing was applied"
                        )
            plans.append((k, kb, d))
        changes: list[tuple] = []
        first = True
        for _k, kb, d in plans:
            if not d:
                continue
            cached = self._cache.pop(kb, None)
            if cached is not None:
                row = db.execute("SELECT NULL, out FROM keys WHERE k = ?", (kb,)).fetchone()
                states = cached
            else:
                row = db.execute("SELECT states, out FROM keys WHERE k = ?", (kb,)).fetchone()
                states = pickle.loads(row[0]) if row and row[0] else []
            if row:
                old = pickle.loads(row[1])
            else:
                old = self.step.initial_output() if self.shape.key == () else []
            for r, n in d.items():
                rb = dumps(r)
                db.execute("INSERT INTO live VALUES (?, ?, ?) ON CONFLICT (k, r) DO UPDATE "
                           "SET n = n + excluded.n", (kb, rb, n))  # fmt: skip
            for r, n in d.items():
                if n < 0:  # a row whose last copy went: drop it (by key and row, no scan)
                    db.execute("DELETE FROM live WHERE k = ? AND r = ? AND n = 0", (kb, dumps(r)))
            if self.shape.mode == "state":
                alive = db.execute("SELECT 1 FROM live WHERE k = ? LIMIT 1", (kb,)).fetchone()
                live = Counter({"_": 1}) if alive else Counter()
            else:
                live = Counter({pickle.loads(rb): n for rb, n in db.execute(
                    "SELECT r, n FROM live WHERE k = ?", (kb,))})  # fmt: skip
            new_states, new = self.step.run(live, states, d)
            if not live and self.shape.key != ():
                db.execute("DELETE FROM keys WHERE k = ?", (kb,))
            else:
                db.execute("INSERT OR REPLACE INTO keys VALUES (?, ?, ?)",
                           (kb, dumps(new_states) if new_states else None, dumps(new)))  # fmt: skip
            if new_states and self.shape.mode == "state":
                self._pending[kb] = new_states
            changes.extend(diff_rows(old, new))
            if first:  # (tests: a crash with the first key's rows and states written)
                crash_point("apply", self.version + 1)
                first = False
        return net_changes(changes)

    def result(self) -> Any:
        """The current full result as a DataFrame."""
        return self._frame(self.result_rows(), with_sign=False)

    def result_rows(self) -> list[tuple]:
        out: list[tuple] = []
        for (blob,) in self.db.execute("SELECT out FROM keys"):
            out.extend(pickle.loads(blob))
        if self.shape.key == () and not out:
            return self.step.fresh_output()
        return out

    def close(self) -> None:
        self.db.close()

    @staticmethod
    def remove(path: str) -> None:
        """Delete an (empty) view's SQLite file and its WAL files."""
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(path + suffix)
            except FileNotFoundError:
                pass

    # -- DataFrames ------------------------------------------------------------------------
    def _collect(self, df: Any) -> tuple[list[tuple], list[int]]:
        return collect_delta(self, df)

    def _frame(self, rows: list[tuple], with_sign: bool, spark: Any = None) -> Any:
        return change_frame(self, rows, with_sign, spark)
