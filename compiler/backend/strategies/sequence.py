"""Library sequence states read natively: one aggregate expression per reader over the
scope key's collected events (:mod:`..sequence` says which readers and how).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...dataflow.strategy import Strategy
from ...names import user_name
from ..frame import SRC
from ..partial import TOPK_TEXT, no_partial, topk_sql
from ..sequence import NativeSequence, native_sequence, reader_sql, window_reader
from ..sql import quote_ident
from ..states import (
    action_map,
    reader_list,
)
from ..types import spark_type
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator

__all__ = ["SequencePlanner"]


@register(Strategy.SEQUENCE)
class SequencePlanner(StatePlanner):
    """Native sequence readers (``Strategy.SEQUENCE``)."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        return self.sequence_readers(group, keys)

    def over_rows(self, group: list[StateOperator], keys: tuple[str, ...]) -> list[str]:
        """``min(v) OVER (PARTITION BY keys)`` (``max``) on every row, for a ``Min`` or
        ``Max`` read only per row of its scope (``backend/group_windows.py``)."""
        (fk,) = {self.p.frame_key(act.loops) for op in group for act in op.actions}
        r = self.p.renderer(fk)
        over = f"OVER (PARTITION BY {', '.join(quote_ident(k) for k in keys)})"
        cols: dict[str, str] = {}
        reads: list[str] = []
        for op in group:
            ns = self.native_seq(op)
            assert ns is not None
            code, arg = action_map(op, r).columns
            for _, res in reader_list(op, self.p.a):
                t = spark_type(self.p.ty.types.get(res, "any"))
                cols[self.p.col_for(res)] = f"CAST({window_reader(ns, code, arg, over)} AS {t})"
                reads.append(res)
        wins = ", ".join(f"{c!r}: E({sql!r})" for c, sql in cols.items())
        names = ", ".join(user_name(o.name) for o in group)
        self.p.step(fk, f"{SRC}.withColumns({{{wins}}})",
                    f"{names}: native per scope key, on every row")  # fmt: skip
        return reads

    def native_seq(self, op: StateOperator) -> NativeSequence | None:
        """The native readers of a library sequence state (None: a Python reducer runs)."""
        return native_sequence(op, self.p.a, self.p.refs, self.p.ty)

    def sequence_readers(self, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Library sequence states read natively: one aggregate expression per reader over
        the scope key's collected events (compiler/backend/sequence.py)."""
        (fk,) = {self.p.frame_key(act.loops) for op in group for act in op.actions}
        r = self.p.renderer(fk)
        self.p.frame(fk)
        events: dict[str, str] = {}  # the map part's SQL -> its column (shared by the states)
        aggs: list[str] = []
        reads: list[str] = []
        outs: list[tuple[str, str, str]] = []  # (column, reader, type) of the readers

        def event_col(sql: str, prefix: str) -> str:
            return events.setdefault(sql, f"{prefix}{len(events)}")

        for op in group:
            ns = self.native_seq(op)
            assert ns is not None
            code, arg = action_map(op, r).columns
            code, arg = f"`{event_col(code, '_code')}`", f"`{event_col(arg, '_arg')}`"
            readers = reader_list(op, self.p.a)
            types = [spark_type(self.p.ty.types.get(res, "any")) for _, res in readers]
            k_sql = r.expr(ns.k) if ns.k is not None else None
            sqls = reader_sql(ns, code, arg, [m for m, _ in readers], types, k_sql,
                              row=lambda sql: f"`{event_col(sql, '_event')}`")  # fmt: skip
            for (method, res), sql, t in zip(readers, sqls, types, strict=True):
                aggs.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
                reads.append(res)
                outs.append((self.p.col_for(res), method, t))
        src = self.p.frames[fk].var  # after rendering: the guards' columns are on it
        mapped = self.p.py.fresh("events")
        kcols = [f"F.col({k!r})" for k in keys]
        mapped_sel = [f"E({q!r}).alias({c!r})" for q, c in events.items() if not c.startswith("_event")]
        event_sel = [f"E({q!r}).alias({c!r})" for q, c in events.items() if c.startswith("_event")]
        self.p.emit(f"{mapped} = {src}.select({', '.join([*kcols, *mapped_sel])})"
                  f".select({', '.join([*kcols, *event_sel])})"
                  "  # map part native: action code and argument, then each event as one value")  # fmt: skip
        partials = [self.p.strategy_of(o).partial for o in group]  # (backend/partial.py)
        if not self.p.partial_aggregation and any(partials):
            mapped = no_partial(self.p, mapped, keys)
        elif partials == [TOPK_TEXT]:  # Spark's max_by with k: a partial top k
            (event,) = [c for c in events.values() if c.startswith("_event")]
            ns = self.native_seq(group[0])
            assert ns is not None
            aggs = [f"E({topk_sql(event, ns.k.value, t)!r}).alias({c!r})" for c, _, t in outs]
        agg = self.p.py.fresh("agg")
        names = ", ".join(user_name(o.name) for o in group)
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.p.emit(f"{agg} = {mapped}{grouping}.agg({', '.join(aggs)})"
                  f"  # {names}: native readers over the sorted collected events")  # fmt: skip
        return agg, reads
