"""Arg-max / arg-min states in a plan: a native window and an aggregate, no Python.

An ``ArgBest`` operator (the frontend's rewrite of ``if k > best_k: best_k, best =
k, v``) offers ``(key, row, value)`` per row under the guards of its ``if``. Natively:

- a rank column on the rows frame, ``row_number() OVER (PARTITION BY <scope key>
  ORDER BY <guard first>, key DESC|ASC, row fields ASC|DESC)`` — the best row first,
  ties as CPython's loop over the canonical row order breaks them;
- per scope key, ``max(CASE WHEN rank = 1 AND guard THEN named_struct(value, key) END)``;
- the reader: the best value, or the starting value when no row beats the starting key.
"""

from __future__ import annotations

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
        """The readers of fused ArgBest operators: one window per ordering, one aggregate."""
        r = self.p.renderer(ROWS)
        ranks: dict[str, str] = {}  # window SQL -> rank column
        aggs: list[str] = []
        readers: list[tuple[str, str]] = []  # (result binder, reader SQL over the aggregate)
        for op in group:
            (act,) = op.actions
            init, init_key, mode = constructor_args(op, self.p.a, self.p.scalar_params)
            if not (isinstance(mode, Lit) and mode.value in _BEATS):
                raise BackendError("ArgBest needs a constant mode", act.span)
            key_x, row_x, value_x = act.args
            guard = r.guards(act.guards)
            fields = _row_fields(self.p, row_x)
            kdir = "DESC NULLS LAST" if mode.value in ("gt", "ge") else "ASC NULLS LAST"
            rdir = "ASC NULLS FIRST" if mode.value in ("gt", "lt") else "DESC NULLS LAST"
            first = [] if guard == "TRUE" else [f"CASE WHEN {guard} THEN 0 ELSE 1 END"]
            order = ", ".join([*first, f"{r.expr(key_x)} {kdir}", *(f"{f} {rdir}" for f in fields)])
            part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
            window = f"row_number() OVER ({part}ORDER BY {order})"
            if window not in ranks:
                ranks[window] = self.p.columns.get(f"{op.name}:rank", "best_rank")
                self.p.step(ROWS, f"{SRC}.withColumn({ranks[window]!r}, E({window!r}))",
                          f"arg-{'max' if mode.value in ('gt', 'ge') else 'min'}: the best row "
                          "first (window)")  # fmt: skip
            best = self.p.columns.get(f"{op.name}:best", f"{user_name(op.states[0], keep_callee=False)}_best")
            pick = f"named_struct('v', {r.expr(value_x)}, 'k', {r.expr(key_x)})"
            when = f"`{ranks[window]}` = 1" + ("" if guard == "TRUE" else f" AND {guard}")
            aggs.append(f"E({f'max(CASE WHEN {when} THEN {pick} END)'!r}).alias({best!r})")
            start = sql_literal(init.value) if isinstance(init, Lit) else r.expr(init)
            then = f"`{best}`.`v`"
            if isinstance(init_key, Lit) and init_key.value is None:
                sql = f"CASE WHEN `{best}` IS NULL THEN {start} ELSE {then} END"
            else:
                ik = sql_literal(init_key.value) if isinstance(init_key, Lit) else r.expr(init_key)
                sql = (f"CASE WHEN `{best}` IS NOT NULL AND `{best}`.`k` {_BEATS[mode.value]} {ik} "
                       f"THEN {then} ELSE {start} END")  # fmt: skip
            for rd in op.reads:
                if rd.result != "_" and rd.method == "get":
                    readers.append((rd.result, sql))
        agg = self.p.py.fresh("best")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        names = ", ".join(user_name(o.name) for o in group)
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


def _row_fields(p: PlanContext, row: object) -> list[str]:
    """The SQL of each field of an offer's row tuple."""
    while isinstance(row, Var) and row.name in p.a.bound and p.a.bound[row.name].value is not None:
        row = p.a.bound[row.name].value
    if not (isinstance(row, Apply) and isinstance(row.fn, Prim) and row.fn.op == "tuple"):
        raise BackendError("ArgBest offers need the row as a tuple of fields")
    r = p.renderer(ROWS)
    return [r.expr(x) for x in row.args]
