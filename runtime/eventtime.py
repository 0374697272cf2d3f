"""``f.stream(df, event_time="ts", watermark="10 minutes")``: event-time streams (SPEC §5).

The event-time column is a field of the algorithm's rows: a ``datetime.datetime``
(TIMESTAMP) or an ``int`` of epoch **seconds** (the windows of ``looplift.windows`` take
both; for ints, the durations of ``tumble``/``hop`` are then seconds too). The top-level
``group_by`` key holds a window of it, ``tumble(ts, ...)``, ``hop(ts, ...)`` (its start)
or ``session(ts, gap=...)`` (the session's start; additive states only, natively as
Spark's ``session_window``: see :func:`explain_line`).
The watermark is Spark's: the largest event time seen in earlier micro-batches minus
``watermark`` (plus ``allowed_lateness``: the two delays add up, so later rows are kept
and windows are emitted later). A window is *final* once the watermark is at or past its
end; its rows are then emitted and its state removed, so the state holds the open
windows only.

Late rows are dropped by Spark and counted in ``numRowsDroppedByWatermark`` of the
query's state operator (``query.lastProgress["stateOperators"]``). Spark judges them by
the watermark of the previous micro-batch; a window the current batch's watermark makes
final is emitted with the rows that came in time, and no window is emitted twice.

Two forms (:func:`eventtime_form`, ``f.explain()``):

- **native** (additive states, as the native stream of :mod:`looplift.streaming`):
  Spark's own windowed streaming aggregation with the watermark
  (:func:`looplift.compiler.backend.eventtime.eventtime_plan`), no Python. The writer's
  output mode chooses: ``append`` (the default) emits each window's row once, when it is
  final; ``update`` emits each window's current row whenever it changes. Columns: the
  output, ``_key`` and ``_live``. A row is late for a window (``hop``: for each of its
  windows apart) whose end is at or before the watermark; ``numRowsDroppedByWatermark``
  counts the late rows summed per key and micro-batch partition.
- **per window in Python** (other states, ``tumble`` keys: :mod:`looplift.eventkeyed`):
  Spark's ``transformWithStateInPandas`` keyed by the scope key's plain fields and the
  window, an event-time timer at the window's end that emits the window's final rows
  (``_sign`` +1) and clears its state. ``changes=True`` emits signed changes (−old,
  +new) as micro-batches change the rows instead (the stream without an event time),
  and the timer only clears the state. Write it in append mode. A row is late when its
  event time is at or before the watermark.

>>> out = clicks_per_window.stream(events, event_time="ts",
...                                watermark="10 minutes")   # doctest: +SKIP
>>> out.writeStream.outputMode("append")                     # doctest: +SKIP
"""

from __future__ import annotations

import weakref
from typing import Any

from .deltarows import DeltaError, native_sign, typed_columns
from .viewcore import resolve

__all__ = ["EventTimeError", "delay_ms", "event_stream", "eventtime_form", "explain_line"]

ET = "__looplift_event_time"  # the watermark's TIMESTAMP column of an int event time

_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # dataflow -> {key: module}


class EventTimeError(DeltaError):
    """An event-time stream the algorithm or the input cannot have (names the column)."""


def event_stream(dataflow: Any, streaming_df: Any, sign: str, scalars: tuple, *,
                 changes: bool | None, event_time: str, watermark: Any,
                 allowed_lateness: Any = None) -> Any:  # fmt: skip
    """``dataflow`` over ``streaming_df`` with ``event_time`` and ``watermark`` (module docs)."""
    from .streaming import _columns, _looplift_stream, use_rocksdb

    alg, ref = resolve(dataflow)
    sign_col, cdf, cols = _columns(alg, streaming_df, sign)
    kind = _event_kind(alg, streaming_df, event_time, cols)
    if watermark is None:
        raise EventTimeError(f"`{alg.name}.stream(..., event_time={event_time!r})` needs a "
                             "watermark= (how late rows may come, e.g. '10 minutes')")  # fmt: skip
    spark = streaming_df.sparkSession
    delay = delay_ms(streaming_df, watermark, "watermark")
    if allowed_lateness is not None:
        delay += delay_ms(streaming_df, allowed_lateness, "allowed_lateness")
    window = _window(alg.name, ref, cols.index(event_time), kind)
    use_rocksdb(spark)
    marked = _watermarked(streaming_df, event_time, kind, delay)
    module = None if changes is True else _native_module(ref, window, delay)
    if module is None:
        if changes is False:
            raise EventTimeError(f"`{alg.name}` has no native event-time stream: "
                                 f"{eventtime_form(dataflow)[1]}; stream it per window "
                                 "in Python (changes=None)")  # fmt: skip
        from .eventkeyed import keyed_event_stream

        out = keyed_event_stream(dataflow, marked, sign_col, cdf, cols, scalars, window,
                                 event_time, kind, changes=changes is True)  # fmt: skip
        return _looplift_stream(out, alg.name, update=False)
    sign_expr = native_sign(marked, sign_col, cdf)
    rows = marked.select(*typed_columns(marked, cols, alg.fields, alg.name),
                         sign_expr.alias("_sign"))  # fmt: skip
    args = list(scalars)
    args.insert(next(i for i, p in enumerate(alg.params) if p[1] == "rows"), rows)
    return _looplift_stream(module.plan(spark, *args), alg.name, update=False)


def eventtime_form(dataflow: Any) -> tuple[str, str]:
    """The form of ``dataflow``'s event-time stream (module docs): ("native", how),
    ("python", why not native), or ("none", why there is none: no window in the key)."""
    _alg, ref = resolve(dataflow)
    try:
        from .compiler.backend.eventtime import NotWindowed, event_window
        from .compiler.backend.signed import NotSigned, signed_plan
    except ImportError:
        return "none", "the compiler is not installed"
    compiled = ref.compile()
    windows, why = [], ""
    for field in range(len(_alg.fields)):
        try:
            windows.append(event_window(compiled, field))
        except NotWindowed as e:
            why = why or str(e)
    if len(windows) != 1:
        return "none", why or "more than one window in the group key"
    w = windows[0]
    try:
        if w.op == "session":  # the signed plan cuts sessions in a batch: not this one
            from .compiler.backend.eventtime import eventtime_plan

            eventtime_plan(compiled, w, 0)
        else:
            signed_plan(compiled)
    except NotSigned as e:
        if w.op != "tumble":
            return "none", f"{e}, and a `{w.op}(...)` key needs additive states"
        return "python", str(e)
    return "native", f"{w.op} window"


def explain_line(dataflow: Any) -> str:
    """``event-time stream: ...`` for ``f.explain()``; "" for an algorithm with no window."""
    try:
        form, why = eventtime_form(dataflow)
    except Exception as e:  # noqa: BLE001 - explain what cannot run, do not fail
        return f"event-time stream: not available ({e})"
    if form == "native" and why.startswith("session"):
        return ("event-time stream: native streaming aggregation by Spark's session_window with "
                "the watermark (gap 1 microsecond shorter: a row exactly a gap after the "
                "previous starts a new session, as in Python; append mode only: Spark refuses "
                "update mode for session windows; no Python). A row "
                "is late when its time plus the gap is at or before the watermark; a session "
                "is final when the watermark passes its end (its last time plus the gap); a "
                "row in time that comes after its session was emitted starts a new session")  # fmt: skip
    if form == "native":
        return (f"event-time stream: native windowed streaming aggregation with the "
                f"watermark ({why}; append or update mode; no Python)")  # fmt: skip
    if form == "python":
        return ("event-time stream: per window in transformWithStateInPandas, an event-time "
                f"timer at each window's end ({why})")  # fmt: skip
    return ""


def delay_ms(streaming_df: Any, value: Any, what: str) -> int:
    """A watermark delay in milliseconds: a ``timedelta``, or a Spark interval string
    ("10 minutes", "1 hour 30 seconds"), parsed by Spark's own ``withWatermark``."""
    import datetime

    if isinstance(value, datetime.timedelta):
        ms = value // datetime.timedelta(milliseconds=1)
    elif isinstance(value, str):
        from pyspark.sql import functions as F

        probe = streaming_df.select(F.current_timestamp().alias("t"))  # (a stream: analysed)
        try:
            marked = probe.withWatermark("t", value)
            ms = int(marked.schema["t"].metadata["spark.watermarkDelayMs"])
        except Exception as e:  # noqa: BLE001 - Spark's parse error, said with the argument
            raise EventTimeError(
                f"{what}={value!r} is not a delay Spark reads (e.g. "
                f"'10 minutes', '1 hour'): {str(e).splitlines()[0]}"
            ) from None
    else:
        raise EventTimeError(f"{what}= takes a timedelta or a string such as '10 minutes', "
                             f"not {type(value).__name__}")  # fmt: skip
    if ms < 0:
        raise EventTimeError(f"{what}={value!r} is negative")
    return ms


# -- helpers ---------------------------------------------------------------------------------


def _event_kind(alg: Any, df: Any, event_time: str, cols: list[str]) -> str:
    """The kind of the event time ("td": a TIMESTAMP; "int": epoch seconds), checked."""
    from pyspark.sql import types as T

    if not isinstance(event_time, str) or event_time not in df.columns:
        raise EventTimeError(f"event_time={event_time!r}: the stream has no such column; got "
                             "columns " + ", ".join(df.columns))  # fmt: skip
    if event_time not in cols:
        raise EventTimeError(f"event_time={event_time!r} is not one of `{alg.name}`'s fields "
                             f"({', '.join(cols)})")  # fmt: skip
    t = df.schema[event_time].dataType
    if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
        return "td"
    if isinstance(t, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return "int"
    raise EventTimeError(f"event_time column `{event_time}` is {t.simpleString()}; an event "
                         "time is a timestamp or an integer of epoch seconds")  # fmt: skip


def _window(name: str, ref: Any, field: int, kind: str) -> Any:
    from .compiler.backend.eventtime import NotWindowed, event_window

    try:
        w = event_window(ref.compile(), field)
    except NotWindowed as e:
        raise EventTimeError(f"`{name}` cannot stream by event time: {e}") from None
    if w.kind != kind:
        col = "a timestamp" if kind == "td" else "an int (epoch seconds)"
        dur = "int seconds" if kind == "int" else "timedeltas"
        raise EventTimeError(f"`{name}`: the event-time column is {col}, so its window's "
                             f"durations must be {dur}")  # fmt: skip
    return w


def _watermarked(df: Any, event_time: str, kind: str, delay: int) -> Any:
    from pyspark.sql import functions as F

    from .sqltext import quote_ident

    interval = f"{delay} milliseconds"
    if kind == "td":
        return df.withWatermark(event_time, interval)
    return df.withColumn(ET, F.timestamp_seconds(F.col(quote_ident(event_time)))) \
        .withWatermark(ET, interval)  # fmt: skip


def _native_module(ref: Any, window: Any, delay: int) -> Any:
    """The event-time plan as an imported module, or None (the algorithm needs Python)."""
    import types

    from .compiler.backend.signed import NotSigned

    cache = _PLANS.setdefault(ref, {})
    key = (window, delay)
    if key not in cache:
        from .compiler.backend.eventtime import eventtime_plan

        try:
            gen = eventtime_plan(ref.compile(), window, delay)
        except NotSigned:
            cache[key] = None
            return None
        mod = types.ModuleType(f"looplift_eventtime_plan_{ref.name}")
        mod.__file__ = f"<looplift event-time plan of {ref.name}>"
        exec(compile(gen.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102
        cache[key] = mod
    return cache[key]
