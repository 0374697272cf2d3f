"""The event-time plan of an algorithm of additive states: its signed plan grouped so that
Spark's streaming aggregation sees the window of the event-time column.

What ``f.stream(df, event_time=..., watermark=...)`` runs natively
(:mod:`looplift.eventtime`). Spark accepts ``outputMode("append")`` for a streaming
aggregation only when a grouping column carries the watermark's metadata, and it emits
and evicts a group when that column (a timestamp) is at or before the watermark. The
window of the group key is named by its *start*; the group is final at its *end*. So
the aggregate gets one more grouping column, ``_wend``: the window's end (a function of
the start: it splits no group), marked with the watermark's delay.

Transforms this (the signed plan of ``clicks_per_window``)::

    rows_2 = rows.withColumn('clicks_2', E('<tumble(ts, minutes=5)>'))
    sums = rows_2.groupBy('c_0_1', 'clicks_2').agg(sum((1L) * _sign) ..., _live)

into::

    rows_2 = rows.withColumn('clicks_2', E('<tumble(ts, minutes=5)>'))
    sums = rows_2.withColumn('_wend', E('timestamp_micros(unix_micros(`clicks_2`) + 300000000L)')
                             .alias('_wend', metadata={'spark.watermarkDelayMs': 600000}))
                 .groupBy('c_0_1', 'clicks_2', '_wend').agg(...)

Assumes: the input DataFrame went through ``withWatermark`` (of the event-time column, or
of ``timestamp_seconds`` of an int one) before the plan's entry.
Guarantees: the signed plan's output, one row per scope key; the aggregate groups by a
column Spark recognizes as event time, at the window's end. A group key without a
``tumble``/``hop`` of the event-time field (or with two of them) is :class:`NotWindowed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis import LoopKind
from ..ir.nodes import Apply, Lit, Prim, Var
from .plan import PlanModule, planned_or
from .signed import NotSigned, SignedPlanner

if TYPE_CHECKING:
    from ..dataflow.payloads import FrameKey
    from ..pipeline import Compiled

__all__ = ["DELAY_KEY", "END", "EventWindow", "NotWindowed", "event_window", "eventtime_plan"]

END = "_wend"
DELAY_KEY = "spark.watermarkDelayMs"  # Spark's EventTimeWatermark.delayKey


class NotWindowed(NotSigned):
    """The group key has no window of the event-time field (the message says what it has)."""


@dataclass(frozen=True)
class EventWindow:
    """The window of the event-time field in the top-level group key."""

    field: int  # the key's virtual field (its column holds the window's start)
    op: str  # "tumble" or "hop"
    size: int  # the window's length, in microseconds ("td") or the int's units ("int")
    kind: str  # "td": a datetime event time; "int": int epoch seconds
    offset: int = 0  # the windows' offset, in the size's units
    slide: int = 0  # hop: the distance of two window starts

    def start_sql(self, ts: str) -> str:
        """The window's start (``tumble``) as SQL over the event-time column ``ts``."""
        from .windows import tumble_sql

        t = "datetime" if self.kind == "td" else "int"
        return tumble_sql(f"`{ts}`", t, self.size, self.offset)

    def end_ms_sql(self, start: str) -> str:
        """The window's end in epoch milliseconds (rounded up), from its start ``start``."""
        if self.kind == "td":
            return f"((unix_micros(`{start}`) + {self.size}L + 999L) div 1000L)"
        return f"((`{start}` + {self.size}L) * 1000L)"

    def end_sql(self, col: str) -> str:
        """The window's end as a TIMESTAMP, from its start in column ``col``."""
        if self.kind == "td":
            return f"timestamp_micros(unix_micros(`{col}`) + {self.size}L)"
        return f"timestamp_seconds(`{col}` + {self.size}L)"


def event_window(compiled: Compiled, ts_field: int) -> EventWindow:
    """The ``tumble``/``hop`` of source field ``ts_field`` in the algorithm's top-level
    ``group_by`` key; :class:`NotWindowed` says why there is none."""
    a = compiled.program.analysis
    tops = [lp for lp in a.loops.values() if lp.parent is None and lp.kind == LoopKind.GROUP]
    if len(tops) != 1:
        raise NotWindowed("the algorithm has no single top-level `group_by` (a window of the "
                          "event time must be (a part of) its key)")  # fmt: skip
    found = []
    for f in tops[0].key:
        expr = a.virtual.get(f, (None, None))[0]
        if not (isinstance(expr, Apply) and isinstance(expr.fn, Prim)
                and expr.fn.op in ("win.tumble", "win.hop", "win.session")):  # fmt: skip
            continue
        ts, *lits = expr.args
        if not (isinstance(ts, Var) and ts.name == f"_kf.{ts_field}"):
            continue
        assert all(isinstance(x, Lit) for x in lits)
        if expr.fn.op == "win.session":  # session(ts, gap, kind): the gap as the "size"
            gap, kind = [x.value for x in lits]  # type: ignore[attr-defined]
            found.append(EventWindow(f, "session", gap, kind))
            continue
        size, *rest, offset, kind = [x.value for x in lits]  # type: ignore[attr-defined]
        found.append(EventWindow(f, expr.fn.op[4:], size, kind, offset, rest[0] if rest else 0))
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise NotWindowed(f"the `group_by` key has {what} `tumble(...)`/`hop(...)`/`session(...)` "
                          "of the event-time field (append mode emits a window's rows when "
                          "the watermark passes its end)")  # fmt: skip
    return found[0]


def eventtime_plan(compiled: Compiled, window: EventWindow, delay_ms: int) -> PlanModule:
    """The signed plan (:func:`~.signed.signed_plan`) whose aggregate also groups by the
    window's end, marked as Spark's event time with ``delay_ms``; :class:`NotSigned`
    when the algorithm has no signed plan."""
    base = SessionStreamPlanner if window.op == "session" else EventTimePlanner
    planner = type("WindowPlanner", (base,), {"window": window, "delay_ms": delay_ms})
    return planned_or(NotSigned, compiled, planner)


class EventTimePlanner(SignedPlanner):
    """:class:`SignedPlanner` grouping its one aggregate by the window's end as well."""

    window: EventWindow
    delay_ms: int

    def signed_rows(self, var: str, fk: FrameKey) -> str:
        rows = super().signed_rows(var, fk)
        col = self.field_col(self.window.field)
        end = f"E({self.window.end_sql(col)!r}).alias({END!r}, metadata={{{DELAY_KEY!r}: {self.delay_ms}}})"
        return f"{rows}.withColumn({END!r}, {end})"

    def emit(self, line: str) -> None:
        marker = f".withColumn({END!r}, "
        if marker in line and ".groupBy(" in line:
            head, tail = line.split(".groupBy(", 1)
            line = f"{head}.groupBy({tail.replace(').agg(', f', {END!r}).agg(', 1)}"
        super().emit(line)


class SessionStreamPlanner(SignedPlanner):
    """:class:`SignedPlanner` whose ``session(...)`` key part is Spark's streaming
    ``session_window`` of the event-time column (marked with the watermark's delay), with
    the gap one microsecond shorter: Spark merges windows that touch, so a row exactly
    ``gap`` after the previous would stay in its session (Python starts the next). The
    aggregate groups by the session window; its start is the key part's value."""

    window: EventWindow
    delay_ms: int
    session_col: str = ""
    session_src: str = ""

    def session_key_column(self, f: int, loop: str, others: tuple[int, ...]) -> None:
        assert self.source is not None
        self.session_col = self.field_col(f)
        ts = self.a.virtual[f][0].args[0]  # type: ignore[attr-defined]
        self.session_src = self.field_col(int(ts.name[4:]))

    def signed_rows(self, var: str, fk: FrameKey) -> str:
        rows = super().signed_rows(var, fk)
        w, src = self.window, self.session_src
        t = f"`{src}`" if w.kind == "td" else f"timestamp_seconds(`{src}`)"
        gap = w.size - 1 if w.kind == "td" else w.size * 1_000_000 - 1
        marked = f"E({t!r}).alias({src + '_event'!r}, metadata={{{DELAY_KEY!r}: {self.delay_ms}}})"
        window = f"F.session_window({src + '_event'!r}, {f'{gap} microseconds'!r})"
        return f"{rows}.withColumn({src + '_event'!r}, {marked}).withColumn({self.session_col!r}, {window})"

    def emit(self, line: str) -> None:
        col = self.session_col
        if col and f"withColumn({col!r}, F.session_window(" in line and ".groupBy(" in line:
            start = f"`{col}`.start" if self.window.kind == "td" else f"unix_seconds(`{col}`.start)"
            code, sep, comment = line.partition("  # ")
            line = f"{code}.withColumn({col!r}, E({start!r})){sep}{comment}"
        super().emit(line)
