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

Float sums in states are kept in arrival order and deletes are subtracted, so after
values of very different magnitudes were added and taken back a result may differ
from a from-scratch run by rounding (as Flink's retracting ``SUM(DOUBLE)``).
"""

from __future__ import annotations

import os
import pickle
import sqlite3
from collections import Counter, OrderedDict
from typing import Any

from .delta import Shape, outputs, replay, shape_of
from .deltarows import (
    CDF,
    SIGN,
    DeltaError,
    DeltaRows,
    sign_columns,
    typed_columns,
    typed_sql,
)
from .registry import Algorithm

__all__ = ["DeltaError", "IncrementalView", "stream"]

_CACHE_KEYS = 50_000  # unpickled states kept between batches (keys most recently changed)
_PICKLE = 4


def _dumps(v: Any) -> bytes:
    try:
        return pickle.dumps(v, protocol=_PICKLE)
    except (pickle.PicklingError, AttributeError, TypeError):
        # a user's State class that its module no longer names (a script's module,
        # a module loaded twice): pickled by value
        from pyspark import cloudpickle

        return cloudpickle.dumps(v, protocol=_PICKLE)


def _resolve(target: Any) -> tuple[Algorithm, Any]:
    """(the compiled algorithm, the reference function) of a ``@dataflow`` or of an
    :class:`~looplift.registry.Algorithm` (a build package's, which needs no compiler)."""
    if isinstance(target, Algorithm):
        return target, target.reference()
    return target.algorithm(), target


class KeyStep:
    """One scope key's step, shared by the view (driver) and the stream (workers)."""

    def __init__(self, dataflow: Any, shape: Shape, scalars: tuple) -> None:
        self.fn, self.shape, self.scalars = dataflow, shape, tuple(scalars)

    def fresh_output(self) -> list[tuple]:
        """The result on no rows (an aggregate still has its one row)."""
        return outputs(self.shape.kind, self._call([])) if self.shape.kind == "aggregate" else []

    def initial_output(self) -> list[tuple]:
        """The output before any row, the base the first changes apply to: none when the
        reference raises on no rows (an aggregate whose value needs a row)."""
        try:
            return self.fresh_output()
        except Exception:  # noqa: BLE001 - there was no result to retract
            return []

    def _call(self, rows: list[tuple]) -> Any:
        args = list(self.scalars)
        args.insert(self.shape.rows_index, rows)
        return self.fn(*args)

    def run(self, live: Counter, states: list[Any] | None, delta: Counter,
            batch: bool = False) -> tuple[list, list]:  # fmt: skip
        """New (states, output rows) of a key whose live rows are now ``live`` (already
        updated with ``delta``). ``batch``: a new key's first rows (a bulk load), whose
        library states' actions may be applied in batches."""
        new_states, out = self._run(live, states, delta, batch)
        for row in out:
            _check_int64(row)
        return new_states, out

    def read(self, states: list[Any], row: tuple) -> tuple[list, list]:
        """(the states, in construction order; the output rows) of a key whose states are
        complete (built natively), its code run on one of its rows with no action."""
        built, result = replay(self.fn, [row], [1], states, list(self.scalars),
                               self.shape.rows_index, actions=False)  # fmt: skip
        out = outputs(self.shape.kind, result)
        for r in out:
            _check_int64(r)
        return built, out

    def _run(self, live: Counter, states: list[Any] | None, delta: Counter,
             batch: bool = False) -> tuple[list, list]:  # fmt: skip
        if not live:
            return [], self.fresh_output()
        if self.shape.mode == "state":
            rows, signs = [], []
            for sign in (1, -1):  # inserts first: an undo never precedes its action
                for r, n in delta.items():
                    if (n > 0) == (sign > 0):
                        rows.extend([r] * abs(n))
                        signs.extend([sign] * abs(n))
            args = list(self.scalars)
            built, result = replay(self.fn, rows, signs, states or [], args, self.shape.rows_index,
                                   batch=batch and not states)  # fmt: skip
            return built, outputs(self.shape.kind, result)
        return [], outputs(self.shape.kind, self._call(list(live.elements())))


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
    """

    def __init__(self, dataflow: Any, spark: Any, checkpoint: str, *scalars: Any,
                 store: str = "auto", keep_versions: int | None = None,
                 buckets: int | None = None, driver_keys: int | None = None) -> None:  # fmt: skip
        from .sparkview import STORE_DIR

        if store not in STORES:
            raise ValueError(f"store must be one of {', '.join(map(repr, STORES))}, not {store!r}")
        self._args = (dataflow, spark, checkpoint, scalars, keep_versions, buckets, driver_keys)
        self._auto = False
        has_spark = os.path.exists(os.path.join(checkpoint, STORE_DIR, "CURRENT"))
        has_local = os.path.exists(os.path.join(checkpoint, LocalView.FILE))
        if has_spark or (store == "spark" and not has_local):
            self._impl: Any = self._spark()
        else:
            self._impl = LocalView(dataflow, spark, checkpoint, *scalars)
            self._auto = store == "auto" and self._impl.version == 0
            if store == "spark":
                raise DeltaError(f"checkpoint {checkpoint} holds a local (SQLite) view; "
                                 "open it with store='local' or 'auto', or use a new checkpoint")  # fmt: skip

    def _spark(self) -> Any:
        from .sparkview import DEFAULT_DRIVER_KEYS, DEFAULT_KEEP, SparkView

        dataflow, spark, checkpoint, scalars, keep, buckets, driver_keys = self._args
        alg, fn = _resolve(dataflow)
        if driver_keys is None:
            driver_keys = DEFAULT_DRIVER_KEYS
        return SparkView(alg, fn, spark, checkpoint, scalars, keep or DEFAULT_KEEP, buckets,
                         driver_keys)  # fmt: skip

    def _maybe_spark(self, rows: int | Any) -> None:
        """Move a new, empty ``auto`` view to the Spark store for a large first batch."""
        if not self._auto:
            return
        self._auto = False
        n = rows if isinstance(rows, int) else rows.count()
        if n < AUTO_SPARK_ROWS or self._impl.version != 0:
            return
        path = self._impl.path
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
        alg, dataflow = _resolve(dataflow)
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
        ident = _dumps((alg.ref, alg.params, alg.output, self.shape, tuple(scalars)))
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
            _crash_point("commit", version)
            db.execute("COMMIT")
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
            kb = _dumps(k)
            for r, n in d.items():
                if n < 0:
                    have = db.execute("SELECT n FROM live WHERE k = ? AND r = ?",
                                      (kb, _dumps(r))).fetchone()  # fmt: skip
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
                rb = _dumps(r)
                db.execute("INSERT INTO live VALUES (?, ?, ?) ON CONFLICT (k, r) DO UPDATE "
                           "SET n = n + excluded.n", (kb, rb, n))  # fmt: skip
            for r, n in d.items():
                if n < 0:  # a row whose last copy went: drop it (by key and row, no scan)
                    db.execute("DELETE FROM live WHERE k = ? AND r = ? AND n = 0", (kb, _dumps(r)))
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
                           (kb, _dumps(new_states) if new_states else None, _dumps(new)))  # fmt: skip
            if new_states and self.shape.mode == "state":
                self._pending[kb] = new_states
            changes.extend(_diff(old, new))
            if first:  # (tests: a crash with the first key's rows and states written)
                _crash_point("apply", self.version + 1)
                first = False
        return _net(changes)

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


def bind_view(view: Any, alg: Any, dataflow: Any, spark: Any, scalars: tuple) -> None:
    """What a view of either store knows of its algorithm: the step, fields and outputs."""
    view.dataflow, view.spark, view.name = dataflow, spark, alg.name
    view.shape = shape_of(alg)
    view.step = KeyStep(dataflow, view.shape, scalars)
    view.fields = alg.fields
    view.rows = DeltaRows(alg.name, alg.fields,
                          tuple(f"field {i}" for i in range(len(alg.fields))), "rows")  # fmt: skip
    view.columns = [n for n, _ in alg.output]
    view.types = [t for _, t in alg.output]


def check_ident(stored: tuple, alg: Any, scalars: tuple, where: str) -> None:
    """Refuse a checkpoint written for another algorithm or other scalar arguments
    (``stored``: the (ref, params, output, shape, scalars) it was created with)."""
    if tuple(stored[:2]) != (alg.ref, alg.params):
        raise DeltaError(
            f"checkpoint {where} belongs to another algorithm ({stored[0]}), not {alg.ref}"
        )
    if tuple(stored[4]) != tuple(scalars):  # its results were computed with those
        raise DeltaError(
            f"checkpoint {where} holds `{alg.name}` with the scalar arguments "
            f"{tuple(stored[4])!r}, not {tuple(scalars)!r}; reopen it with the same arguments "
            "(or use a new checkpoint)"
        )


def collect_delta(view: Any, df: Any, hashes: bool = False) -> Any:
    """A delta DataFrame's rows and signs, typed and checked, on the driver; with
    ``hashes``, also each row's :func:`~looplift.deltarows.row_hash` (computed by Spark
    in the same job), as (rows, signs, hashes)."""
    from .sqltext import quote_ident

    sign_col, cdf, data = sign_columns(list(df.columns))
    typed = typed_sql(df, data, view.fields, view.name)  # types, before running
    norm = DeltaRows(view.name, view.fields, tuple(data), "delta", sign_col, cdf)
    exprs = [f"{e} AS `__c{i}`" for i, e in enumerate(typed)]
    exprs.append(f"{quote_ident(sign_col)} AS __s")
    if hashes:
        from .deltarows import row_hash_sql

        exprs.append(f"{row_hash_sql(typed, view.fields)} AS __h")  # of the typed values
    pairs = df.selectExpr(*exprs)
    table = pairs.toArrow()
    columns = [table.column(i).to_pylist() for i in range(len(data) + 1)]
    signs = norm.signs_of(columns[-1])
    rows = norm.rows_of_columns(columns[:-1])
    if hashes:
        return rows, signs, table.column(len(data) + 1).to_pylist()
    return rows, signs


def output_schema(names: Any, types: Any, with_sign: bool) -> str:
    """The DDL schema of a view's output rows (and their sign)."""
    schema = ", ".join(f"`{n}` {t}" for n, t in zip(names, types, strict=True))
    return schema + f", `{SIGN}` int" if with_sign else schema


def output_arrays(rows: list[tuple], types: Any, arrow: Any, signs: list[int] | None) -> list:
    """Output rows (and ``signs``) as Arrow arrays of the ``arrow`` schema (naive
    datetimes are UTC, as Spark's Python workers read them)."""
    import pyarrow as pa

    from .spark import _out

    cols = [[_out(r[i], t) for r in rows] for i, t in enumerate(types)]
    if signs is not None:
        cols.append(signs)
    return [pa.array(c, type=arrow.field(i).type) for i, c in enumerate(cols)]


def change_frame(view: Any, rows: list[tuple], with_sign: bool, spark: Any = None) -> Any:
    """A DataFrame of a view's output rows (and signs) from Python rows, sent to Spark as
    one Arrow table (:func:`output_arrays`)."""
    import pyarrow as pa

    from .spark import _arrow_schema

    schema = output_schema(view.columns, view.types, with_sign)
    arrow = _arrow_schema(schema)
    signs = [r[-1] for r in rows] if with_sign else None
    table = pa.Table.from_arrays(output_arrays(rows, view.types, arrow, signs), schema=arrow)
    spark = spark or view.spark
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("looplift: no SparkSession (pass one to incremental())")
    return spark.createDataFrame(table, schema)


def _check_int64(value: Any) -> None:
    """An int output beyond 64 bits is an error, as in the compiled plan (SPEC §4)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise OverflowError(f"looplift: the result {value} does not fit in 64 bits")
    elif isinstance(value, (list, tuple)):
        for v in value:
            _check_int64(v)


def _diff(old: list[tuple], new: list[tuple]) -> list[tuple]:
    """Retractions of rows that went away, inserts of rows that came (multisets)."""
    if old == new:  # (most keys of a small delta: no change; == is the tally's equality)
        return []
    orig = {_freeze(r): r for r in [*old, *new]}
    o, n = Counter(map(_freeze, old)), Counter(map(_freeze, new))
    out = [(*orig[r], -1) for r, c in (o - n).items() for _ in range(c)]
    out += [(*orig[r], 1) for r, c in (n - o).items() for _ in range(c)]
    return out


def _net(changes: list[tuple]) -> list[tuple]:
    """A batch's changes netted over its keys: a row one key retracts and another
    inserts (two input rows mapped to equal output rows) is no change."""
    orig: dict[Any, tuple] = {}
    tally: Counter = Counter()
    for c in changes:
        f = _freeze(c[:-1])
        orig.setdefault(f, c[:-1])
        tally[f] += c[-1]
    out = [(*orig[f], -1) for f, n in tally.items() if n < 0 for _ in range(-n)]
    out += [(*orig[f], 1) for f, n in tally.items() if n > 0 for _ in range(n)]
    return out


def _freeze(v: Any) -> Any:
    """A hashable stand-in for an output row (lists, e.g. a TopK reader, become tuples)."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_freeze(x) for x in v))
    if isinstance(v, float) and v != v:
        return ("nan",)
    return v


def _crash_point(where: str, version: int) -> None:
    """Tests kill the process here (``LOOPLIFT_CRASH_AT=apply:3``) to check atomicity."""
    want = os.environ.get("LOOPLIFT_CRASH_AT")
    if want and want == f"{where}:{version}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


# -- Structured Streaming -------------------------------------------------------------------------


def stream(dataflow: Any, streaming_df: Any, sign: str = SIGN, *scalars: Any) -> Any:
    """Signed output changes of ``dataflow`` over a streaming DataFrame of signed rows.

    Per scope key, the live rows, states and output rows are kept in Spark's state
    store (``applyInPandasWithState``); use the RocksDB provider for large state
    (``spark.sql.streaming.stateStore.providerClass``, set here when unset).
    """
    import pandas as pd
    from pyspark.sql.streaming.state import GroupStateTimeout

    from .spark import ship
    from .streaming import _columns, use_rocksdb

    use_rocksdb(streaming_df.sparkSession)
    alg, dataflow = _resolve(dataflow)
    shape = shape_of(alg)
    ship(list(alg.refs))
    fields = alg.fields
    from pyspark.sql import functions as F

    sign, cdf, cols = _columns(alg, streaming_df, sign)
    if cdf:  # Delta Lake's change data feed, as is
        ct = streaming_df["_change_type"]
        sign_expr = F.lit(0)
        for kind, v in CDF.items():
            sign_expr = F.when(ct == kind, F.lit(v)).otherwise(sign_expr)
    else:
        sign_expr = streaming_df[sign]
    norm = DeltaRows(alg.name, fields, tuple(cols), "stream", sign, cdf)
    step = KeyStep(dataflow, shape, scalars)
    names = [n for n, _ in alg.output]
    types = [t for _, t in alg.output]
    out_schema = output_schema(names, types, with_sign=True)
    casts = typed_columns(streaming_df, cols, fields, alg.name)  # column types, up front
    keyed = streaming_df.select(*casts, sign_expr.alias("__s"))
    key_cols = [cols[i] for i in shape.key]
    if not key_cols:
        keyed = keyed.withColumn("__k", F.lit(0))
        key_cols = ["__k"]
    nfields = len(cols)

    def func(key: Any, pdfs: Any, state: Any) -> Any:
        from .spark import _out

        live: Counter
        if state.exists:
            live_b, states_b, out_b = state.get
            live, states, old = pickle.loads(live_b), pickle.loads(states_b), pickle.loads(out_b)
        else:
            # a stream's changes sum to its result from nothing: an aggregate's first
            # change inserts its value (a view's start from its value on no rows)
            live, states, old = Counter(), [], []
        d: Counter = Counter()
        for pdf in pdfs:
            for rec in pdf.itertuples(index=False, name=None):
                values = tuple(None if _isnan(x) else _item(x) for x in rec[:nfields])
                s = norm.sign_of(None if _isnan(rec[nfields]) else _item(rec[nfields]), values)
                r = norm.row(values)
                d[r] += s
        d = Counter({r: n for r, n in d.items() if n})
        for r, n in d.items():
            if live[r] + n < 0:
                raise DeltaError(f"delete of a row that is not live: {r!r}")
            live[r] += n
        live = Counter({r: n for r, n in live.items() if n > 0})
        new_states, new = step.run(live, states, d)
        if live or shape.key == ():
            state.update((_dumps(live), _dumps(new_states), _dumps(new)))
        else:
            state.remove()
        changes = _diff(old, new)
        if changes:
            yield pd.DataFrame(
                [
                    tuple(_out(v, t) for v, t in zip(c[:-1], types, strict=True)) + (c[-1],)
                    for c in changes
                ],  # fmt: skip
                columns=[*names, SIGN],
            )

    return keyed.groupBy(*key_cols).applyInPandasWithState(
        func,
        out_schema,
        "live binary, states binary, out binary",
        "append",
        GroupStateTimeout.NoTimeout,
    )


def _isnan(x: Any) -> bool:
    try:
        import pandas as pd

        return x is None or (not isinstance(x, (str, bytes)) and bool(pd.isna(x)))
    except (TypeError, ValueError):
        return False


def _item(x: Any) -> Any:
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if hasattr(x, "to_pydatetime"):
        x = x.to_pydatetime()
    return x
