"""Additive state operators: native sums of the sign-weighted projections per scope key
(fused with the other additive operators of the same scope and input), then the readers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import FrameKey
from ...dataflow.strategy import Strategy
from ...names import user_name
from ..frame import SRC
from ..sql import quote_ident
from ..states import (
    additive_reader,
    additive_terms,
    field_init,
    field_total,
    field_type,
)
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator

__all__ = ["AdditivePlanner"]


@register(Strategy.NATIVE_SUMS)
class AdditivePlanner(StatePlanner):
    """Native sums (``Strategy.NATIVE_SUMS``); a signed plan's hooks weigh the rows."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        return self._additive(group, keys)

    def over_rows(self, group: list[StateOperator], keys: tuple[str, ...]) -> list[str]:
        """The same sums as window aggregates over the rows (``sum(...) OVER (PARTITION BY
        keys)``), then the readers on every row (``backend/group_windows.py``)."""
        fields, terms, parts = self._terms(group)
        (fk,) = parts  # every action per row (window_check)
        cols = sorted({c for c, _ in parts[fk]})
        over = f" OVER (PARTITION BY {', '.join(quote_ident(k) for k in keys)})"
        sums = {c: " + ".join(e for c2, e in parts[fk] if c2 == c) for c in cols}
        wins = ", ".join(f"{c!r}: E({f'sum({e}){over}'!r})" for c, e in sums.items())
        names = ", ".join(user_name(o.name) for o in group)
        self.p.step(fk, f"{SRC}.withColumns({{{wins}}})",
                    f"additive {names}: native sums per scope key, on every row")  # fmt: skip
        reads = self._readers(group, fields, terms, keys)
        sel = ", ".join(f"{c!r}: E({sql!r})" for c, sql in reads.values())
        self.p.step(fk, f"{SRC}.withColumns({{{sel}}})")
        return list(reads)

    def _terms(self, group: list[StateOperator]) -> tuple[dict, list, dict[FrameKey, list[tuple[str, str]]]]:
        """Each (state, field)'s sum column and init, the additive terms, and the
        (column, term) pairs per frame the terms are computed in."""
        fields: dict[tuple[str, str], tuple[str, Any]] = {}  # (state, field) -> (column, init)
        for op in group:
            for s, cref in zip(op.states, op.classes, strict=True):
                for fname, init in self.p.classes[cref].fields:
                    col = self.p.columns.get(f"{s}.{fname}:sum", f"{user_name(s, keep_callee=False)}_{fname}")
                    fields[(s, fname)] = (col, field_init(init))
        terms = []
        parts: dict[FrameKey, list[tuple[str, str]]] = {}
        for op in group:
            for t in additive_terms(op, self.p.classes, lambda act: self.p.renderer(self.p.frame_key(act.loops)), self.p.ty):
                terms.append(t)
                fk = self.p.frame_key(t.act.loops)
                parts.setdefault(fk, []).append((fields[(t.state, t.field)][0], self.p.signed_term(t.sql)))
        return fields, terms, parts

    def _readers(self, group: list[StateOperator], fields: dict, terms: list,
                 keys: tuple[str, ...]) -> dict[str, tuple[str, str]]:  # fmt: skip
        """Each read binder's (column, SQL over the sum columns); a global sum over no rows
        is NULL: it starts from the init."""
        reads: dict[str, tuple[str, str]] = {}
        for op in group:
            for rd in op.reads:
                if rd.result == "_" or rd.result in reads:
                    continue
                info = self.p.classes[op.classes[op.states.index(rd.state)]]
                totals = {}
                for (s, fname), (col, init) in fields.items():
                    if s == rd.state:
                        mine = [t for t in terms if t.state == s and t.field == fname]
                        totals[fname] = (field_total(f"`{col}`", init), field_type(init, mine))
                sql = self.p.live_reader(additive_reader(info, rd.method, totals), keys)
                reads[rd.result] = (self.p.col_for(rd.result), sql)
        return reads

    def _additive(self, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native sums of the sign-weighted projections, then the readers."""
        fields, terms, parts = self._terms(group)
        # one aggregate per input granularity; several granularities are unioned first
        frames = list(parts)
        if len(frames) == 1:
            fk = frames[0]
            cols = sorted({c for c, _ in parts[fk]})
            sums = {c: " + ".join(e for c2, e in parts[fk] if c2 == c) for c in cols}
            exprs = [f"E({f'sum({e})'!r}).alias({c!r})" for c, e in sums.items()]
            agg_src = self.p.signed_rows(self.p.frame(fk).var, fk)
        else:
            cols = sorted({c for fk in frames for c, _ in parts[fk]})
            selects = []
            for fk in frames:
                src = self.p.frame(fk).var
                sel = [f"F.col({k!r})" for k in keys]
                for c in cols:
                    e = " + ".join(e for c2, e in parts[fk] if c2 == c) or "0"
                    sel.append(f"E({e!r}).alias({c!r})")
                selects.append(f"{self.p.signed_rows(src, fk)}.select({', '.join(sel)})")
            agg_src = self.p.py.fresh("contributions")
            self.p.emit(f"{agg_src} = {self.p.union(selects)}  # the additive terms of every level")
            exprs = [f"F.sum({c!r}).alias({c!r})" for c in cols]
        exprs += self.p.live_sums(keys)
        agg = self.p.py.fresh("sums")
        names = ", ".join(user_name(o.name) for o in group)
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.p.emit(f"{agg} = {agg_src}{grouping}.agg({', '.join(exprs)})"
                  f"  # additive {names}: native sums per scope key")  # fmt: skip
        reads = self._readers(group, fields, terms, keys)
        sel = [f"F.col({k!r})" for k in keys] + self.p.live_columns(keys)
        sel += [f"E({sql!r}).alias({c!r})" for c, sql in reads.values()]
        out = self.p.py.fresh("agg")
        self.p.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, list(reads)
