"""Yields and the return value: the plan's output, read from the final frames.

A table algorithm's ``yield`` sites each select their row from the frame of
their scope (a filter is a ``where``); rows yielded inside an ordered loop
come from its grouped map; all of them are unioned. An aggregate selects its
returned value from the global frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis import Site
from ..dataflow.payloads import GLOBAL, FrameKey, Return, Yield
from .container_loops import each_row_types
from .errors import BackendError
from .filter_first import FilterFirstMixin
from .frame import spark_col
from .rows import row_types, tuple_items
from .sql import quote_ident
from .types import spark_type

__all__ = ["OutputsMixin", "tuple_items", "row_types"]


@dataclass
class Outputs:
    """The yields met so far (visited in graph order), unioned by the return."""

    parts: list[tuple[int, FrameKey, list[str], str | None]] = field(default_factory=list)
    ordered: dict[str, list[Site]] = field(default_factory=dict)  # ordered op -> its yields
    width: int | None = None
    exploded: set[int] = field(default_factory=set)  # yields of rows per container value


class OutputsMixin(FilterFirstMixin):
    def visit_Yield(self, op: Yield) -> None:
        site = op.site.site
        ordered = self.ordered_op_of(site.loops)
        n = len(tuple_items(site.args[0], self.a))
        each_types = each_row_types(site.args[0], self.a, self.ty)
        if each_types is not None:
            n = len(each_types)
            self.out.exploded.add(op.index)
        if ordered is not None:
            self.out.ordered.setdefault(ordered.name, []).append(site)
        else:
            fk = self.frame_key(site.loops)
            self.filter_first(site, fk, op.index in self.out.exploded)
            r = self.renderer(fk)
            with r.under(self.unknown_guards(fk, site.guards)) as guard:
                exprs = [r.expr(x) for x in tuple_items(site.args[0], self.a)]
            self.out.parts.append((op.index, fk, exprs, guard))
        if self.out.width is None:
            self.out.width = n
        elif self.out.width != n and ordered is None:
            raise BackendError(
                "every `yield` of a table algorithm must give the same number of fields", site.span
            )

    def visit_Return(self, op: Return) -> None:
        if op.returns == "rows":
            self._return_rows(op)
        else:
            self._return_value(op)

    def _return_rows(self, op: Return) -> None:
        fn = self.fn
        width = self.out.width
        names = list(fn.columns) if fn.columns else [f"_{i + 1}" for i in range(width or 0)]
        if width is not None and len(names) != width:
            raise BackendError(
                f"`{fn.name}` declares {len(names)} columns but yields rows of {width} fields",
                op.span,
            )
        selects = []
        all_sites = [y.site for y in self.prog.kinds.yields]
        all_types = [spark_type(t) for t in row_types(all_sites, self.a, self.ty, len(names))]
        parts = sorted(self.out.parts, key=lambda p: p[0])
        for op_name, (rows_col, fk) in self.fold_rows_col.items():
            if op_name not in self.out.ordered or fk not in self.frames:
                continue
            # the rows of an ordered loop's fold, and the rows yielded in its scope's frame: one
            # explode of one array per scope key
            mine = [p for p in parts if p[1] == fk and p[0] not in self.out.exploded]
            parts = [p for p in parts if p not in mine]
            del self.out.ordered[op_name]
            cast = ", ".join(f"'o{i}', CAST(_y.o{i} AS {t})" for i, t in enumerate(all_types))
            arrays = [f"transform({quote_ident(rows_col)}, _y -> named_struct({cast}))"]
            for _, _, exprs, guard in mine:
                row = ", ".join(
                    f"'o{i}', CAST({e} AS {t})"
                    for i, (e, t) in enumerate(zip(exprs, all_types, strict=True))
                )
                one = f"array(named_struct({row}))"
                arrays.append(f"CASE WHEN {guard} THEN {one} ELSE array() END" if guard else one)
            sql = arrays[0] if len(arrays) == 1 else f"concat({', '.join(arrays)})"
            cols = ", ".join(f"F.col('o{i}').alias({n!r})" for i, n in enumerate(names))
            selects.append(f"{self.frame(fk).var}.select(F.inline(E({sql!r}))).select({cols})")
        for index, fk, exprs, guard in parts:
            fr = self.frame(fk)
            where = f".where(E({guard!r}))" if guard else ""
            if index in self.out.exploded:  # rows per container value: one row per struct
                cols = ", ".join(repr(n) for n in names)
                selects.append(f"{fr.var}{where}.select(E({f'inline({exprs[0]})'!r})).toDF({cols})")
                continue
            cols = ", ".join(self._out_col(e, n) for e, n in zip(exprs, names, strict=True))
            selects.append(f"{fr.var}{where}.select({cols})")
        for op_name, sites in self.out.ordered.items():
            sop = next(o for o in self.ops if o.name == op_name)
            ytypes = [spark_type(t) for t in row_types(sites, self.a, self.ty, len(names))]
            selects.append(self.state_planner(self.strategy_of(sop).strategy).rows(sop, names, ytypes))
        if selects:
            self.emit(f"out = {self.union(selects)}")
        else:
            schema = ", ".join(f"{n} double" for n in names)
            self.emit(f"out = spark.createDataFrame([], {schema!r})")
        self.columns_out = tuple(names)
        sites = [y.site for y in self.prog.kinds.yields]
        self.output_types = tuple(
            spark_type(t) for t in row_types(sites, self.a, self.ty, len(names))
        )

    def _out_col(self, sql: str, name: str) -> str:
        """An output column: a plain column renamed, else the expression."""
        col = spark_col(sql)
        return col if col == f"F.col({name!r})" else f"{col}.alias({name!r})"

    def _return_value(self, op: Return) -> None:
        fn = self.fn
        tail = op.value
        assert tail is not None
        self.frame(GLOBAL)
        sql = self.renderer(GLOBAL).expr(tail)
        g = self.frames[GLOBAL]
        self.emit(f"out = {g.var}.select({self._out_col(sql, fn.name)})")
        self.columns_out = (fn.name,)
        self.output_types = (spark_type(self.ty.of(tail)),)

    def union(self, selects: list[str]) -> str:
        """One frame, or the union of several (no union of a single frame)."""
        if len(selects) == 1:
            return selects[0]
        return f"ll.union_all([{', '.join(selects)}])"
