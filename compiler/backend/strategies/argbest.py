"""Arg-max / arg-min states in a plan: a native window and a filter, no Python.

An ``ArgBest`` operator (the frontend's rewrite of ``if k > best_k: best_k, best =
k, v``) offers ``(key, row, value)`` per row under the guards of its ``if``. Natively:

- a rank column on the rows frame, ``row_number() OVER (PARTITION BY <scope key>
  ORDER BY <guard first>, key DESC|ASC, row fields ASC|DESC)`` — the best row first,
  ties as CPython's loop over the canonical row order breaks them (fields that are
  scope keys, or the key itself, cannot break a tie and are left out);
- per scope key the row ranked 1 (``WHERE rank = 1``: the QUALIFY shape, which Spark
  pre-limits to one row per key before the shuffle with a ``WindowGroupLimit``);
- the reader: that row's value where it was offered (its guard holds) and beats the
  starting key, else the starting value.

Several orderings in one fused group, or no scope key (a global arg-max must give one
row also for an empty input), keep the aggregate form: ``max(CASE WHEN rank = 1 AND
guard THEN named_struct(value, key) END)`` per scope key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...dataflow.payloads import ROWS
from ...dataflow.strategy import Strategy
from ...ir.nodes import Apply, Lit, Prim, Var
from ...names import user_name
from ..errors import BackendError
from ..frame import SRC
from ..sql import quote_ident, sql_literal
from ..states import constructor_args
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = ["ArgBestPlanner"]

_BEATS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}


@register(Strategy.ARG_BEST)
class ArgBestPlanner(StatePlanner):
    """Native arg-best readers (``Strategy.ARG_BEST``)."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        return self.arg_best_readers(group, keys)

    def arg_best_readers(
        self, group: list[StateOperator], keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        """The readers of fused ArgBest operators: one window per ordering, then the first
        row per scope key (a filter, or an aggregate where a filter cannot do)."""
        r = self.p.renderer(ROWS)
        ranks: dict[str, str] = {}  # window SQL -> rank column
        offers: list[_Offer] = []
        for op in group:
            (act,) = op.actions
            init, init_key, mode = constructor_args(op, self.p.a, self.p.scalar_params)
            if not (isinstance(mode, Lit) and mode.value in _BEATS):
                raise BackendError("ArgBest needs a constant mode", act.span)
            key_x, row_x, value_x = act.args
            guard = r.guards(act.guards)
            key = r.expr(_through_names(self.p, key_x))
            kept = {quote_ident(k) for k in keys} | {key}
            fields = [f for f in _row_fields(self.p, row_x) if f not in kept]
            kdir = "DESC NULLS LAST" if mode.value in ("gt", "ge") else "ASC NULLS LAST"
            rdir = "ASC NULLS FIRST" if mode.value in ("gt", "lt") else "DESC NULLS LAST"
            first = [] if guard == "TRUE" else [f"CASE WHEN {guard} THEN 0 ELSE 1 END"]
            order = ", ".join([*first, f"{key} {kdir}", *(f"{f} {rdir}" for f in fields)])
            part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
            window = f"row_number() OVER ({part}ORDER BY {order})"
            if window not in ranks:
                ranks[window] = self.p.columns.get(f"{op.name}:rank", "best_rank")
                self.p.step(ROWS, f"{SRC}.withColumn({ranks[window]!r}, E({window!r}))",
                          f"arg-{'max' if mode.value in ('gt', 'ge') else 'min'}: the best row "
                          "first (window)")  # fmt: skip
            start = sql_literal(init.value) if isinstance(init, Lit) else r.expr(init)
            beats = None
            if not (isinstance(init_key, Lit) and init_key.value is None):
                ik = sql_literal(init_key.value) if isinstance(init_key, Lit) else r.expr(init_key)
                beats = f"{_BEATS[mode.value]} {ik}"
            results = [rd.result for rd in op.reads if rd.result != "_" and rd.method == "get"]
            offers.append(_Offer(op, ranks[window], guard, key, r.expr(value_x), start, beats,
                                 results))  # fmt: skip
        names = ", ".join(user_name(o.name) for o in group)
        if keys and len(ranks) == 1:
            return self._first_rows(offers, keys, names)
        return self._aggregate(offers, keys, names)

    def _first_rows(self, offers: list[_Offer], keys: tuple[str, ...], names: str
                    ) -> tuple[str, list[str]]:  # fmt: skip
        """The row ranked 1 of each scope key (every key has one: the guard only orders),
        its values read where it was offered and beats the starting key."""
        out = self.p.py.fresh("best")
        sel = [f"F.col({k!r})" for k in keys]
        reads = []
        for o in offers:
            cond = " AND ".join(c for c in (
                "" if o.guard == "TRUE" else f"({o.guard})",
                "" if o.beats is None else f"{o.key} {o.beats}") if c)  # fmt: skip
            sql = o.value if not cond else f"CASE WHEN {cond} THEN {o.value} ELSE {o.start} END"
            for res in o.results:
                sel.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
                reads.append(res)
        self.p.emit(f"{out} = {self.p.frame(ROWS).var}.where({f'`{offers[0].rank}` = 1'!r})"
                    f".select({', '.join(sel)})  # arg-best {names}: the best row per scope key")  # fmt: skip
        return out, reads

    def _aggregate(self, offers: list[_Offer], keys: tuple[str, ...], names: str
                   ) -> tuple[str, list[str]]:  # fmt: skip
        """Per scope key (or once), ``max`` of the value and key of the row ranked 1 where
        it was offered; the starting value where there is none or it does not beat."""
        aggs: list[str] = []
        readers: list[tuple[str, str]] = []  # (result binder, reader SQL over the aggregate)
        for o in offers:
            best = self.p.columns.get(f"{o.op.name}:best",
                                      f"{user_name(o.op.states[0], keep_callee=False)}_best")  # fmt: skip
            pick = f"named_struct('v', {o.value}, 'k', {o.key})"
            when = f"`{o.rank}` = 1" + ("" if o.guard == "TRUE" else f" AND {o.guard}")
            aggs.append(f"E({f'max(CASE WHEN {when} THEN {pick} END)'!r}).alias({best!r})")
            then = f"`{best}`.`v`"
            if o.beats is None:
                sql = f"CASE WHEN `{best}` IS NULL THEN {o.start} ELSE {then} END"
            else:
                sql = (f"CASE WHEN `{best}` IS NOT NULL AND `{best}`.`k` {o.beats} "
                       f"THEN {then} ELSE {o.start} END")  # fmt: skip
            readers.extend((res, sql) for res in o.results)
        agg = self.p.py.fresh("best")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.p.emit(f"{agg} = {self.p.frame(ROWS).var}{grouping}.agg({', '.join(aggs)})"
                  f"  # arg-best {names}: native, per scope key")  # fmt: skip
        out = self.p.py.fresh("agg")
        sel = [f"F.col({k!r})" for k in keys]
        reads = []
        for res, sql in readers:
            sel.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
            reads.append(res)
        self.p.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads


@dataclass(frozen=True, slots=True)
class _Offer:
    """One ArgBest operator's offer, rendered over the rows frame."""

    op: StateOperator
    rank: str  # its window's rank column
    guard: str  # SQL: where the row is offered ("TRUE": every row)
    key: str  # SQL of the offered key
    value: str  # SQL of the offered value
    start: str  # SQL of the starting value
    beats: str | None  # "> <starting key>" (None: any offer beats a starting key of None)
    results: list[str]  # the binders of its get() reads


def _through_names(p: PlanContext, x: object) -> object:
    """A name bound unconditionally to another name or a row field: that (the key's
    temporary is its field, and a field that is the key cannot break a tie)."""
    for _ in range(20):
        b = p.a.bound.get(x.name) if isinstance(x, Var) else None
        if b is None or b.guards or not isinstance(b.value, Var):
            return x
        x = b.value
    return x


def _row_fields(p: PlanContext, row: object) -> list[str]:
    """The SQL of each field of an offer's row tuple."""
    while isinstance(row, Var) and row.name in p.a.bound and p.a.bound[row.name].value is not None:
        row = p.a.bound[row.name].value
    if not (isinstance(row, Apply) and isinstance(row.fn, Prim) and row.fn.op == "tuple"):
        raise BackendError("ArgBest offers need the row as a tuple of fields")
    r = p.renderer(ROWS)
    return [r.expr(x) for x in row.args]
