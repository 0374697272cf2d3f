"""``f.stream(streaming_df, sign="_sign")``: an algorithm in Spark Structured Streaming.

Two forms, chosen per algorithm (``changes=`` forces one):

- **Native** (algorithms whose states are all additive: ``Sum``, ``Count``,
  ``Average``, ``Variance``, ``+=`` reductions ..., read at the scope of their
  ``group_by``, one unconditional row per scope key). The batch plan's map phase, its
  sums weighted by each row's sign (``sum(v * _sign)``; ``sum(_sign)`` is the key's
  live row count) as Spark's own streaming aggregation, and its exit projection: no
  Python runs (:func:`looplift.compiler.backend.signed.signed_plan`). A streaming
  aggregation cannot retract its previous rows, so this form is an **update** stream:
  each micro-batch holds, per scope key it touched, the key's current output row, with
  two more columns, ``_key`` (the scope key: its field, or a struct ``_1, _2, ...`` of
  its fields) and ``_live`` (the key's live input rows). The row replaces the key's
  previous one; ``_live = 0`` means the key has no rows any more: delete its row (its
  values computed from the states are NULL then; a key inserted and deleted within one
  micro-batch may come this way without having come before). An aggregate (one
  global key) has no ``_key``: each row is the current result (its value on no rows
  when ``_live = 0``; nothing before the first row arrives). Write it with
  ``outputMode("update")`` (the default of its ``writeStream``) or ``"complete"``;
  ``"append"`` is refused with a message. Deletes are checked per key (a key's live
  count below zero raises), not per row.
- **Per key in Python** (everything else, or ``changes=True``): signed output changes
  (−old row, +new row, column ``_sign``), an append stream; per scope key the live rows,
  states and output rows live in Spark's state store (RocksDB), and each group of rows
  is replayed by the reference code (:func:`keyed_stream`; its step is the views' own,
  :class:`looplift.viewcore.KeyStep`).

Both take ``_sign`` (+1/−1) or Delta Lake's change data feed (``_change_type``).
Ints beyond 64 bits raise (ANSI sums) in both.

**Checkpoints.** looplift keeps no files of its own next to a stream: a stream's
per-key state and offsets are in Spark's checkpoint (``checkpointLocation``), which
Spark writes through Hadoop's filesystems. On object storage that needs Hadoop's
connector on the classpath (S3: ``s3a://`` and ``hadoop-aws``); a query started without
it fails with :class:`StreamCheckpointError`, which says so (:func:`checkpoint_error`).

>>> out = average.stream(spark.readStream.schema("k bigint, v bigint, _sign int")
...                      .parquet(path))                       # doctest: +SKIP
>>> out.columns                                                # doctest: +SKIP
['k', 'avg', '_key', '_live']
"""

from __future__ import annotations

import pickle
import re
import weakref
from collections import Counter
from typing import Any

from .delta import shape_of
from .deltarows import (
    CDF,
    SIGN,
    DeltaError,
    DeltaRows,
    native_sign,
    sign_columns,
    typed_columns,
)
from .pyvalues import _out
from .spark import ship
from .viewcore import KeyStep, diff_rows, dumps, output_schema, resolve

__all__ = ["StreamCheckpointError", "StreamModeError", "checkpoint_error", "keyed_stream",
           "stream", "stream_form"]  # fmt: skip

LIVE = "_live"
KEY = "_key"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

_SIGNED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # dataflow -> (module, why)


class StreamModeError(ValueError):
    """A native (update) stream written with an output mode it cannot have."""


class StreamCheckpointError(RuntimeError):
    """A stream's checkpoint location is on a filesystem Spark has no connector for."""


_NO_FS = re.compile(r"No FileSystem for scheme:? *\"?([A-Za-z0-9+.-]+)\"?")
#: Spark 4's wrapping of a missing filesystem class (s3a: ``...fs.s3a.S3A not found``)
_NO_MANAGER = re.compile(r"CANNOT_LOAD_CHECKPOINT_FILE_MANAGER.*?path=([A-Za-z0-9+.-]+)://")


def checkpoint_error(e: BaseException, name: str) -> StreamCheckpointError | None:
    """The error to raise for Spark's failure to open a checkpoint location on a
    filesystem it has no connector for (None for any other failure)."""
    text = str(e)
    m = _NO_FS.search(text)
    if m is None and "ClassNotFoundException" in text:
        m = _NO_MANAGER.search(text)
    if m is None:
        return None
    scheme = m.group(1)
    hint = (
        "use an s3a:// location and put Hadoop's S3 connector on the classpath "
        "(spark.jars.packages=org.apache.hadoop:hadoop-aws:<Spark's Hadoop version>, whose "
        "AWS SDK bundle comes with it)"
        if scheme.lower() in ("s3", "s3a", "s3n")
        else f"put Hadoop's connector for {scheme}:// on the classpath"
    )
    return StreamCheckpointError(
        f"`{name}.stream(...)`: Spark has no filesystem for the checkpoint location's scheme "
        f"{scheme}:// (the stream's state and offsets live in Spark's checkpoint; looplift "
        f"keeps no files of its own there): {hint}, or keep the checkpoint on a path shared "
        "by the driver and every executor"
    )


def stream(dataflow: Any, streaming_df: Any, sign: str = SIGN, *scalars: Any,
           changes: bool | None = None, event_time: str | None = None,
           watermark: Any = None, allowed_lateness: Any = None) -> Any:  # fmt: skip
    """``dataflow`` over a streaming DataFrame of signed rows (see the module docs).

    ``changes=None`` picks the native update stream when the algorithm allows it, else
    the per-key signed changes; ``changes=True`` forces the signed changes, and
    ``changes=False`` the native form (an error says why an algorithm has none).
    ``event_time`` and ``watermark``: an event-time stream (:mod:`looplift.eventtime`).
    """
    if event_time is not None or watermark is not None or allowed_lateness is not None:
        from .eventtime import EventTimeError, event_stream

        if event_time is None:
            raise EventTimeError("watermark= and allowed_lateness= need event_time= (the "
                                 "column of each row's event time)")  # fmt: skip
        return event_stream(dataflow, streaming_df, sign, scalars, changes=changes,
                            event_time=event_time, watermark=watermark,
                            allowed_lateness=allowed_lateness)  # fmt: skip
    if changes is not True:
        alg, ref = resolve(dataflow)
        module, why = signed_module(ref)
        if module is not None:
            return _native(alg, module, streaming_df, sign, scalars)
        if changes is False:
            raise DeltaError(f"`{alg.name}` has no native stream: {why}; stream its signed "
                             "changes per key instead (changes=True)")  # fmt: skip
    return keyed_stream(dataflow, streaming_df, sign, *scalars)


def stream_form(dataflow: Any, event_time: bool = False) -> tuple[str, str]:
    """("native", "") or ("python", why): the form ``f.stream`` runs by default;
    ``event_time=True``: the form of its event-time stream
    (:func:`looplift.eventtime.eventtime_form`: also ("none", why) without a window)."""
    if event_time:
        from .eventtime import eventtime_form

        return eventtime_form(dataflow)
    _alg, ref = resolve(dataflow)
    module, why = signed_module(ref)
    return ("native", "") if module is not None else ("python", why)


def signed_module(dataflow: Any) -> tuple[Any, str]:
    """(the signed plan as an imported module, "") or (None, why there is none)."""
    if dataflow in _SIGNED:
        return _SIGNED[dataflow]
    import types

    try:
        from .compiler.backend.signed import NotSigned, signed_plan
    except ImportError:  # a build package without the compiler: the per-key form
        _SIGNED[dataflow] = (None, "the compiler is not installed (the native form is "
                                   "compiled when stream() is called)")  # fmt: skip
        return _SIGNED[dataflow]
    try:
        gen = signed_plan(dataflow.compile())
    except NotSigned as e:
        _SIGNED[dataflow] = (None, str(e))
        return _SIGNED[dataflow]
    mod = types.ModuleType(f"looplift_signed_plan_{dataflow.name}")
    mod.__file__ = f"<looplift signed plan of {dataflow.name}>"
    exec(compile(gen.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102
    _SIGNED[dataflow] = (mod, "")
    return _SIGNED[dataflow]


def _native(alg: Any, module: Any, streaming_df: Any, sign: str, scalars: tuple) -> Any:
    sign_col, cdf, cols = _columns(alg, streaming_df, sign)
    sign_expr = native_sign(streaming_df, sign_col, cdf)
    casts = typed_columns(streaming_df, cols, alg.fields, alg.name)
    use_rocksdb(streaming_df.sparkSession)
    rows = streaming_df.select(*casts, sign_expr.alias(SIGN))
    args = list(scalars)
    rows_at = next(i for i, p in enumerate(alg.params) if p[1] == "rows")
    args.insert(rows_at, rows)
    out = module.plan(streaming_df.sparkSession, *args)
    return _looplift_stream(out, alg.name, update=True)


def use_rocksdb(spark: Any) -> None:
    """Keep streaming state in RocksDB unless the session chose another provider than
    the default one (the choice is fixed in a query's checkpoint at its first start)."""
    key = "spark.sql.streaming.stateStore.providerClass"
    have = spark.conf.get(key, None)
    if not have or "HDFSBackedStateStoreProvider" in have:
        spark.conf.set(key, ROCKSDB)


def _columns(alg: Any, streaming_df: Any, sign: str) -> tuple[str, bool, list[str]]:
    """(the sign column, whether it is ``_change_type``, the data columns), checked."""
    try:
        sign, cdf, cols = sign_columns(list(streaming_df.columns), sign, alg.row_fields, alg.name)
    except DeltaError:
        raise DeltaError(
            f"the stream has no `{sign}` column (+1 insert, -1 delete) nor Delta Lake's "
            "`_change_type`; got columns " + ", ".join(streaming_df.columns)
        ) from None
    if len(cols) != len(alg.fields):
        raise DeltaError(
            f"`{alg.name}` takes {len(alg.fields)} fields; the stream has columns "
            + ", ".join(cols)
            + f" besides `{sign}`"
        )
    return sign, cdf, cols


# -- the per-key form: signed changes, each key's rows and states in Spark's state store --


def keyed_stream(dataflow: Any, streaming_df: Any, sign: str = SIGN, *scalars: Any) -> Any:
    """Signed output changes of ``dataflow`` over a streaming DataFrame of signed rows.

    Per scope key, the live rows, states and output rows are kept in Spark's state
    store (``applyInPandasWithState``); use the RocksDB provider for large state
    (``spark.sql.streaming.stateStore.providerClass``, set here when unset).
    """
    import pandas as pd
    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout

    use_rocksdb(streaming_df.sparkSession)
    alg, dataflow = resolve(dataflow)
    shape = shape_of(alg)
    ship(list(alg.refs))
    fields = alg.fields
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
            state.update((dumps(live), dumps(new_states), dumps(new)))
        else:
            state.remove()
        changes = diff_rows(old, new)
        if changes:
            yield pd.DataFrame(
                [
                    tuple(_out(v, t) for v, t in zip(c[:-1], types, strict=True)) + (c[-1],)
                    for c in changes
                ],  # fmt: skip
                columns=[*names, SIGN],
            )

    out = keyed.groupBy(*key_cols).applyInPandasWithState(
        func,
        out_schema,
        "live binary, states binary, out binary",
        "append",
        GroupStateTimeout.NoTimeout,
    )
    return _looplift_stream(out, alg.name, update=False)


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


# -- the update stream's writer: update mode by default, append refused ----------------------

_CLASSES: dict[tuple[type, bool], type] = {}


def _looplift_stream(df: Any, name: str, update: bool) -> Any:
    """``df`` whose ``writeStream`` names a checkpoint location Spark cannot open
    (:func:`checkpoint_error`); ``update``: it also starts in update mode and refuses
    append."""
    base = type(df)
    if not base.__module__.startswith("pyspark.sql.classic"):
        return df  # (Spark Connect: its own writer; Spark's message for a wrong mode)
    cls = _CLASSES.get((base, update))
    if cls is None:

        def write_stream(self: Any) -> Any:
            return _writer(self, self._looplift_name, update)

        kind = "UpdateStream" if update else "ChangeStream"
        cls = type(kind, (base,), {"writeStream": property(write_stream),
                                   "__module__": __name__})  # fmt: skip
        _CLASSES[(base, update)] = cls
    df.__class__ = cls
    df._looplift_name = name
    return df


def _writer(df: Any, name: str, update: bool = True) -> Any:
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    class UpdateStreamWriter(DataStreamWriter):
        def outputMode(self, outputMode: str) -> Any:  # noqa: N802,N803 (Spark's names)
            if not update:
                return super().outputMode(outputMode)
            if isinstance(outputMode, str) and outputMode.strip().lower() == "append":
                raise StreamModeError(
                    f"`{name}.stream(...)` is an update stream (Spark's streaming aggregation "
                    "keeps each scope key's current row; it cannot retract rows): write it with "
                    "outputMode('update') (the default) or 'complete', or stream signed "
                    f"changes in append mode with `{name}.stream(..., changes=True)`"
                )
            return super().outputMode(outputMode)

        def start(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().start(*args, **kwargs)
            except Exception as e:
                raise _start_error(e, name, update) from None

        def toTable(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 (Spark's name)
            try:
                return super().toTable(*args, **kwargs)
            except Exception as e:
                raise _start_error(e, name, update) from None

    w = UpdateStreamWriter(df)
    if update:
        DataStreamWriter.outputMode(w, "update")
    return w


def _start_error(e: Exception, name: str, update: bool) -> Exception:
    """What to raise for a stream's failed start: a missing connector for its
    checkpoint, or an output mode an update stream's sink refused, said in looplift's
    terms; anything else as is."""
    from pyspark.errors import AnalysisException

    got = checkpoint_error(e, name)
    if got is None and update and isinstance(e, AnalysisException):
        return _mode_error(e, name)
    return got or e


def _mode_error(e: Exception, name: str) -> Exception:
    text = str(e)
    if "output mode" not in text.lower() and "outputmode" not in text.lower():
        return e
    first = text.strip().splitlines()[0] if text.strip() else text
    return StreamModeError(
        f"`{name}.stream(...)` is an update stream and its sink refused the output mode "
        f"({first}); use outputMode('update') or 'complete' with a sink that supports it "
        f"(foreachBatch, memory, console, Delta), or `{name}.stream(..., changes=True)` "
        "for signed changes in append mode"
    )
