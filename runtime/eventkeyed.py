"""The per-window form of an event-time stream (:mod:`looplift.eventtime`): Spark's
``transformWithStateInPandas`` keyed by the scope key's plain fields and its window.

Per key (its plain key fields and the start of a ``tumble`` window of the event time),
one value state holds the key's live rows, its states and its output rows (the views'
own step, :class:`looplift.viewcore.KeyStep`, as :func:`looplift.streaming.keyed_stream`
keeps them), and an event-time timer is set at the window's end. When the watermark
reaches it, the timer emits the window's rows (``_sign`` +1), once, and clears the key's
state: the state holds the open windows only. With ``changes=True`` the rows are
emitted as signed changes (−old, +new) whenever a batch changes them instead, and the
timer only clears the state.

Late rows are Spark's: ``transformWithStateInPandas`` in event time drops a row whose
event time is at or before the watermark of the previous micro-batch (Spark's watermark
for late rows) and counts it in ``numRowsDroppedByWatermark`` of its state operator. A
window whose end the current batch's watermark passes while its rows come is emitted
with them; no window is emitted twice (its rows would all be late).

A ``hop`` window puts a row in several windows whose outputs the reference cannot tell
apart per key: an algorithm of non-additive states keyed by ``hop(...)`` is refused.
"""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

from .deltarows import CDF, DeltaError, DeltaRows, typed_columns
from .viewcore import KeyStep, diff_rows, dumps, output_schema, resolve

__all__ = ["keyed_event_stream"]

WSTART, WEND, S = "__looplift_window", "__looplift_window_end_ms", "__looplift_sign"


def keyed_event_stream(dataflow: Any, marked: Any, sign_col: str, cdf: bool, cols: list[str],
                       scalars: tuple, window: Any, event_time: str, kind: str,
                       changes: bool = False) -> Any:  # fmt: skip
    """The signed output of ``dataflow`` per window over the watermarked ``marked``."""
    from pyspark.sql import functions as F

    from .delta import shape_of
    from .eventtime import ET, EventTimeError
    from .spark import ship

    alg, ref = resolve(dataflow)
    if window.op == "session":
        raise EventTimeError(f"`{alg.name}`: a `session(...)` key of non-additive states has "
                             "no event-time stream yet (a session grows until the watermark "
                             "passes it: no window end to set a timer at); use additive "
                             "states (a native stream of Spark's session_window)")  # fmt: skip
    if window.op != "tumble":
        raise EventTimeError(f"`{alg.name}`: a `hop(...)` key of non-additive states has no "
                             "event-time stream yet (a row is in several windows); use "
                             "tumble(...), or additive states (a native stream)")  # fmt: skip
    shape = shape_of(alg)
    ship(list(alg.refs))
    if cdf:
        ct = marked["_change_type"]
        sign_expr = F.lit(0)
        for k, v in CDF.items():
            sign_expr = F.when(ct == k, F.lit(v)).otherwise(sign_expr)
    else:
        sign_expr = marked[sign_col]
    # Spark drops late rows by the input's event-time column: keep it (an int event
    # time's TIMESTAMP column, after the fields and the sign, which the processor reads)
    extra = [marked[ET]] if kind == "int" else []
    rows = marked.select(*typed_columns(marked, cols, alg.fields, alg.name),
                         sign_expr.alias(S), *extra)  # fmt: skip
    rows = rows.withColumn(WSTART, F.expr(window.start_sql(event_time)))
    rows = rows.withColumn(WEND, F.expr(window.end_ms_sql(WSTART)))
    if any(i >= len(cols) for i in shape.key):
        raise EventTimeError(f"`{alg.name}`: its group key computes more than the window of "
                             "the event time; key it by fields and the window")  # fmt: skip
    key_cols = [cols[i] for i in shape.key] + [WSTART, WEND]
    names = [n for n, _ in alg.output]
    types = [t for _, t in alg.output]
    schema = output_schema(names, types, with_sign=True)
    proc = WindowProcessor(KeyStep(ref, shape, scalars),
                           DeltaRows(alg.name, alg.fields, tuple(cols), "stream", sign_col, cdf),
                           names, types, len(cols), changes)  # fmt: skip
    return rows.groupBy(*key_cols).transformWithStateInPandas(proc, schema, "Append", "EventTime")


def _processor_base() -> type:
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    return StatefulProcessor


class WindowProcessor(_processor_base()):  # type: ignore[misc]
    """One key's window: its rows in a value state, a timer at the window's end."""

    def __init__(self, step: KeyStep, norm: DeltaRows, names: list[str], types: list[str],
                 nfields: int, changes: bool) -> None:  # fmt: skip
        self.step, self.norm, self.names, self.types = step, norm, names, types
        self.nfields, self.changes = nfields, changes

    def init(self, handle: Any) -> None:
        self.handle = handle
        self.state = handle.getValueState("window", "live binary, states binary, out binary")

    def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:  # noqa: N802,N803
        from .streaming import _isnan, _item

        end_ms = int(key[-1])
        d: Counter = Counter()
        for pdf in rows:
            for rec in pdf.itertuples(index=False, name=None):
                values = tuple(None if _isnan(x) else _item(x) for x in rec[: self.nfields])
                s = self.norm.sign_of(None if _isnan(rec[self.nfields]) else
                                      _item(rec[self.nfields]), values)  # fmt: skip
                d[self.norm.row(values)] += s
        # Spark dropped the rows at or before the previous batch's watermark; a window
        # final by this batch's watermark gets its last rows now (its timer fires after
        # this; a window without state never had rows: it is emitted now)
        final = end_ms <= timerValues.getCurrentWatermarkInMs()
        if self.state.exists():
            live_b, states_b, out_b = self.state.get()
            live, states, old = pickle.loads(live_b), pickle.loads(states_b), pickle.loads(out_b)
            final = False
        else:
            live, states, old = Counter(), [], []
            if not final:
                self.handle.registerTimer(end_ms)
        d = Counter({r: k for r, k in d.items() if k})
        for r, k in d.items():
            if live[r] + k < 0:
                raise DeltaError(f"delete of a row that is not live: {r!r}")
            live[r] += k
        live = Counter({r: k for r, k in live.items() if k > 0})
        new_states, new = self.step.run(live, states, d)
        if final:
            yield from self._rows(diff_rows(old, new) if self.changes else
                                  [(*r, 1) for r in new])  # fmt: skip
            return
        self.state.update((dumps(live), dumps(new_states), dumps(new)))
        if self.changes:
            yield from self._rows(diff_rows(old, new))

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any) -> Any:  # noqa: N802,N803
        if self.state.exists():
            _live, _states, out_b = self.state.get()
            if not self.changes:
                yield from self._rows([(*r, 1) for r in pickle.loads(out_b)])
        self.state.clear()

    def close(self) -> None:
        pass

    def _rows(self, signed: list[tuple]) -> Any:
        import pandas as pd

        from .pyvalues import _out

        if signed:
            yield pd.DataFrame(
                [tuple(_out(v, t) for v, t in zip(c[:-1], self.types, strict=True)) + (c[-1],)
                 for c in signed],
                columns=[*self.names, "_sign"],
            )  # fmt: skip
