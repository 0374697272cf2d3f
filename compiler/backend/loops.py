"""Columns a loop adds to the rows frame: a ranked loop's rank and a computed group key
(a mixin of the planner; a ``session(...)`` key part is ``sessions.py``'s)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..analysis import Bound, Loop
from ..dataflow.payloads import ROWS
from ..ir.nodes import UNKNOWN, Apply, Prim, Var
from ..operators import StateOperator
from .errors import BackendError
from .frame import SRC
from .sql import SqlRenderer, quote_ident
from .strategies.ordered_rows import loop_order
from .types import _prim_type

__all__ = ["LoopsMixin"]


class LoopsMixin:
    def rank_column(self, lp: Loop) -> None:
        """A ranked loop's rank: ``row_number()`` over its scope's rows in its order (native)."""
        assert lp.order_by is not None and self.source is not None
        chain = self.loop_chain(lp.name)
        keys = self.key_cols(self.frame_key(chain[:-1]))
        order = loop_order(self.a, lp, len(self.source.types))
        assert order is not None
        seen = set(keys)  # a scope key, or a field already ordered by, breaks no tie
        by_cols = []
        for i, d in order:
            c = self.field_col(i)
            if c not in seen:
                seen.add(c)
                by_cols.append(f"{quote_ident(c)} {'DESC NULLS LAST' if d else 'ASC NULLS FIRST'}")
        by = ", ".join(by_cols) or "1"
        part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
        sql = f"row_number() OVER ({part}ORDER BY {by})"
        col = self.field_col(lp.fields[-1])
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({sql!r}))",
                  f"rank of each row in the order of the loop at line {lp.span.line} (window)")  # fmt: skip

    def computed_key_column(self, f: int) -> None:
        """A computed group key part (``group_by(lambda r: r[2] // 7, ...)``): a native column."""
        expr, _ = self.a.virtual[f]
        windows = isinstance(expr, Apply) and expr.fn == Prim("win.hop")
        sql, _ = self.key_sql(expr)
        col = self.field_col(f)
        if windows:  # hop(...): the row once per window (none where it is in no window)
            self._one_loop_over_rows(f)
            self.step(ROWS, f"{SRC}.withColumn({col!r}, E({'explode(' + sql + ')'!r}))",
                      "a group key per window of hop(...)")  # fmt: skip
            return
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({sql!r}))", "a computed group key")

    def key_sql(self, expr: Any) -> tuple[str, bool]:
        """The SQL of an expression of a row's fields (``_kf.<i>`` vars), and whether it may
        be None."""
        assert self.source is not None
        fields = {f"_kf.{i}": i for i in range(len(self.source.types))}
        for name, i in fields.items():
            t = self.source.types[i]
            self.ty.types[name] = t[len("Optional[") : -1] if t.startswith("Optional[") else t
            if t.startswith("Optional["):
                self.ty.nullable.add(name)
        # each operation of the key gets a typed temporary (str methods render by type)
        temps: dict[str, Bound] = {}

        def flat(e: Any) -> Any:
            if isinstance(e, Apply) and isinstance(e.fn, Prim):
                v = Apply(e.fn, tuple(flat(x) for x in e.args), span=e.span)
                name = f"_kf.t{len(temps)}"
                temps[name] = Bound(name, v, (), (), UNKNOWN)
                t, null = _prim_type(e.fn.op, v.args, self.ty)
                self.ty.types[name] = t
                if null:
                    self.ty.nullable.add(name)
                return Var(name)
            return e

        expr = flat(expr)
        a = dataclasses.replace(
            self.a,
            bound={**self.a.bound, **temps, "_kf.value": Bound("_kf.value", expr, (), (), UNKNOWN)},
        )
        r = SqlRenderer(a, self.ty, lambda n: quote_ident(self.field_col(fields[n])) if n in fields
                        else None, self.refs, self.pycalls)  # fmt: skip
        return r.expr(expr), self.ty.may_be_null(expr)

    def _one_loop_over_rows(self, f: int) -> None:
        """A ``hop(...)`` key multiplies the rows of its source: no other loop may read them."""
        src = next(lp.source for lp in self.a.loops.values() if f in lp.key)
        users = [lp for lp in self.a.loops.values() if lp.parent is None and lp.source == src]
        if len(users) > 1:
            raise BackendError("a group_by keyed by hop(...) must be the only loop over its "
                               "rows in the function; split the function in two")  # fmt: skip

    def ordered_op_of(self, loops: tuple[str, ...]) -> StateOperator | None:
        for op in self.ops:
            if op.ordered and op.name.removeprefix("ordered.") in loops:
                return op
        return None
