"""Filter once, then project: the rows a table algorithm's only ``yield`` keeps are
filtered before the values it yields are computed (issue 27, item 5).

Transforms this (each value under the yield's guard, the guard repeated per column)::

    rows_2 = rows.withColumn('a', E('CASE WHEN <guard> THEN <a> END'))
    rows_3 = rows_2.withColumn('b', E('CASE WHEN <guard> THEN <b> END'))
    out = rows_3.where(E('<guard>')).select(...)

into::

    rows_2 = rows.where(E('<guard>'))
    out = rows_2.select(F.col('k'), E('<a>').alias('a'), E('<b>').alias('b'))

Assumes: one ``yield`` in the algorithm, over the rows frame, no state operators (nothing
else reads the rows frame after the filter) and no extra columns kept (plan variants).
Guarantees: every value is computed on the rows where CPython computes it: a value the
yield reads that is computed outside the yield's guard and may raise (the table of
primitives' partiality) is made before the filter, on every row; values under the guard
are computed after it, without it (it holds there), and a value used once is inlined into
the final ``select``.
"""

from __future__ import annotations

from typing import Any

from ..analysis import Site
from ..dataflow.payloads import ROWS, FrameKey
from ..ir.nodes import Apply, Expr, Lit, Prim, Var
from ..ir.traverse import walk
from ..primitives import PRIMITIVES
from ..primitives.strmethods import raises_only_on_none
from .frame import SRC

__all__ = ["FilterFirstMixin"]

_TOTAL_FORMS = frozenset(("tuple",))  # builders that never raise


class FilterFirstMixin:
    #: guards known to hold on every row of a frame (it was filtered on them), and their SQL
    known: dict[FrameKey, frozenset[Any]]
    known_sql: dict[FrameKey, list[str]]

    def unknown_guards(self, fk: FrameKey, guards: tuple[Any, ...]) -> tuple[Any, ...]:
        """``guards`` without those that hold on every row of frame ``fk``."""
        known = self.known.get(fk)
        return tuple(g for g in guards if g not in known) if known else guards

    def filter_first(self, site: Site, fk: FrameKey, exploded: bool) -> None:
        """Filter the rows frame on the only yield's guard before its values are made."""
        if not self._filters_first(site, fk, exploded):
            return
        for name in self._made_before(site, fk):
            self.materialize(name)  # type: ignore[attr-defined]
        r = self.renderer(fk)  # type: ignore[attr-defined]
        r.reads_matches = True  # a match test filters once; its groups are read after it
        guard = r.guards(site.guards)
        self.step(fk, f"{SRC}.where(E({guard!r}))",  # type: ignore[attr-defined]
                  "the rows the yield keeps, before its values are computed")  # fmt: skip
        self.known[fk] = frozenset(site.guards)
        self.known_sql[fk] = [guard]

    def _filters_first(self, site: Site, fk: FrameKey, exploded: bool) -> bool:
        p: Any = self
        return (
            fk == ROWS
            and bool(site.guards)
            and not exploded
            and not p.keep
            and not p.ops
            and len(p.prog.kinds.yields) == 1
            and set(p.frames) == {ROWS}
        )

    def _made_before(self, site: Site, fk: FrameKey) -> list[str]:
        """Values the yield reads (through other values) that CPython computes on rows the
        yield's guard drops, and that may raise there."""
        p: Any = self
        need = set(site.guards)
        seen: set[str] = set()
        out: list[str] = []
        stack: list[Expr] = list(site.args)
        while stack:
            for node in walk(stack.pop()):
                if not isinstance(node, Var) or node.name in seen:
                    continue
                seen.add(node.name)
                b = p.a.bound.get(node.name)
                if b is None or b.value is None or p.frame_key(b.loops) != fk:
                    continue
                if not need <= set(b.guards) and not self._total(b.value):
                    out.append(node.name)
                stack.append(b.value)
        return out

    def _total(self, v: Expr) -> bool:
        """Can ``v`` not raise (on its operands, which are checked on their own)?"""
        p: Any = self
        if isinstance(v, (Var, Lit)):
            return True
        if not (isinstance(v, Apply) and isinstance(v.fn, Prim)):
            return False
        if v.fn.op in _TOTAL_FORMS:
            return True
        entry = PRIMITIVES.get(v.fn.op)
        if entry is None:
            return False
        if entry.total:
            return True
        return raises_only_on_none(entry) and not any(p.ty.may_be_null(a) for a in v.args)
