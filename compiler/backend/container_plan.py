"""Container states in a plan: native nested aggregation per scope key, no Python.

A local ``dict`` of sums, ``set`` or ``list`` filled in an unordered loop
(``states/containers.py``) is reduced by Spark itself: each action site selects
(scope key, element[, amount]) from the rows of its loop (a ``where`` for its
guards), the sites are unioned, and

- a dict: ``groupBy(scope…, key).agg(sum(amount))``, then per scope key
  ``array_sort(collect_list(struct(key, sum)))``;
- a set: per scope key ``array_sort(collect_set(element))``;
- a list: per scope key ``array_sort(collect_list(element))`` (its multiset,
  ascending: rows arrive in no order).

A global scope aggregates without ``groupBy``: over no rows that is one row
holding an empty array, a fresh container's value. Every reader of the
container (``value()``) is that array column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..names import user_name
from ..operators import StateOperator
from .errors import BackendError
from .frames import spark_col

if TYPE_CHECKING:
    from .plan import Planner

__all__ = ["ContainerPlanMixin"]


class ContainerPlanMixin:
    def container_reduce(
        self: Planner, op: StateOperator, keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        (s,) = op.states
        cls = op.classes[0].rsplit(":", 1)[-1]
        fks = {self.frame_key(act.loops) for act in op.actions}
        if len(fks) != 1:
            raise BackendError(
                f"the container `{user_name(s)}` is filled in loops at different levels; fill it "
                "in one loop",
                op.actions[0].span,
            )
        (fk,) = fks
        r = self.renderer(fk)
        parts = []
        for act in op.actions:  # render first: rendering may add columns to the frame
            where = f".where(E({r.guards(act.guards)!r}))" if act.guards else ""
            cols = [f"F.col({k!r})" for k in keys]
            cols.append(f"{spark_col(r.expr(act.args[0]))}.alias('_k')")
            if cls in ("KeyedSums", "KeyedMax", "KeyedMin"):
                cols.append(f"{spark_col(r.expr(act.args[1]))}.alias('_v')")
            parts.append((where, cols))
        src = self.frame(fk).var
        selects = [f"{src}{where}.select({', '.join(cols)})" for where, cols in parts]
        elems = self.py.fresh("elements")
        self.emit(f"{elems} = {self.union(selects)}  # {user_name(s)}: the elements added per row")
        col = self.columns.get(f"{s}:value", f"{user_name(s, keep_callee=False)}_value")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        if cls in ("KeyedSums", "KeyedMax", "KeyedMin"):
            per_key = self.py.fresh("sums")
            kgroup = ", ".join([*(repr(k) for k in keys), "'_k'"])
            fn = {"KeyedSums": "sum", "KeyedMax": "max", "KeyedMin": "min"}[cls]
            self.emit(f"{per_key} = {elems}.groupBy({kgroup}).agg(F.{fn}('_v').alias('_v'))"
                      f"  # one {fn} per scope key and dict key")  # fmt: skip
            value = "F.array_sort(F.collect_list(F.struct(F.col('_k').alias('_1'), F.col('_v').alias('_2'))))"
            elems = per_key
        elif cls == "ValueSet":  # wrapped in a struct: collect_set drops NULLs, Python keeps None
            value = "F.transform(F.array_sort(F.collect_set(F.struct('_k'))), lambda e: e['_k'])"
        else:
            value = "F.transform(F.array_sort(F.collect_list(F.struct('_k'))), lambda e: e['_k'])"
        agg = self.py.fresh("collected")
        self.emit(f"{agg} = {elems}{grouping}.agg({value}.alias({col!r}))"
                  f"  # {user_name(s)}: a sorted array per scope key, native")  # fmt: skip
        reads = [rd.result for rd in op.reads if rd.result != "_"]
        out = self.py.fresh("agg")
        sel = [f"F.col({k!r})" for k in keys] + [
            f"F.col({col!r}).alias({self.col_for(res)!r})" for res in reads
        ]
        self.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads
