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
        keyed = cls in ("KeyedSums", "KeyedMax", "KeyedMin")
        # a guarded site keeps every row, its element only where the guard holds (a row
        # flag `_in`): a scope key whose rows all fail the guards still gets its (empty)
        # container, where a `where` would drop the key from the plan
        flagged = any(act.guards for act in op.actions)
        parts = []
        for act in op.actions:  # render first: rendering may add columns to the frame
            guard = r.guards(act.guards) if act.guards else ""
            cols = [f"F.col({k!r})" for k in keys]
            for arg, name in zip(act.args[: 2 if keyed else 1], ("_k", "_v"), strict=False):
                sql = r.expr(arg)
                if guard:
                    cols.append(f"E({f'CASE WHEN {guard} THEN {sql} END'!r}).alias({name!r})")
                else:
                    cols.append(f"{spark_col(sql)}.alias({name!r})")
            if flagged:
                cols.append(f"E({f'coalesce({guard}, false)'!r}).alias('_in')" if guard
                            else "F.lit(True).alias('_in')")  # fmt: skip
            parts.append(cols)
        src = self.frame(fk).var
        selects = [f"{src}.select({', '.join(cols)})" for cols in parts]
        elems = self.py.fresh("elements")
        self.emit(f"{elems} = {self.union(selects)}  # {user_name(s)}: the elements added per row")
        col = self.columns.get(f"{s}:value", f"{user_name(s, keep_callee=False)}_value")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""

        def kept(struct: str) -> str:  # only the elements of rows that passed their guards
            return f"F.when(F.col('_in'), {struct})" if flagged else struct

        if keyed:
            per_key = self.py.fresh("sums")
            kgroup = ", ".join([*(repr(k) for k in keys), "'_k'"])
            fn = {"KeyedSums": "sum", "KeyedMax": "max", "KeyedMin": "min"}[cls]
            flag = ", F.max('_in').alias('_in')" if flagged else ""
            self.emit(f"{per_key} = {elems}.groupBy({kgroup}).agg(F.{fn}('_v').alias('_v'){flag})"
                      f"  # one {fn} per scope key and dict key")  # fmt: skip
            item = kept("F.struct(F.col('_k').alias('_1'), F.col('_v').alias('_2'))")
            value = f"F.array_sort(F.collect_list({item}))"
            elems = per_key
        else:  # wrapped in a struct: collect_set / collect_list drop NULLs, Python keeps None
            fn = "collect_set" if cls == "ValueSet" else "collect_list"
            item = kept("F.struct('_k')")
            value = f"F.transform(F.array_sort(F.{fn}({item})), lambda e: e['_k'])"
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
