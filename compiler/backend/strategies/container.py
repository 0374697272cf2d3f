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

Filled in an ordered loop (``group_by(..., order_by=)``, ``sorted_by``), a list only
appended to (``Seq``) keeps the loop's order: ``collect_list`` of (order fields, element)
structs, ``array_sort``-ed by the order fields with the ordered loops' comparator (ties
by the remaining fields, ascending; None first ascending, last descending), then the
elements; a set only added to (``PySet``) is the set of its elements, as unordered. The
other containers of an ordered loop (a dict's insertion order, ``pop``, ``discard``) run
with the loop in Python (``fuse_states``).

A global scope aggregates without ``groupBy``: over no rows that is one row
holding an empty array, a fresh container's value. Every reader of the
container (``value()``) is that array column.
"""

from __future__ import annotations

from ...dataflow.strategy import Strategy
from ...names import user_name
from ...operators import StateOperator
from ..errors import BackendError
from ..frame import spark_col
from ..partial import no_partial
from .ordered_rows import comparator, loop_order
from .registry import Reduced, StatePlanner, register

__all__ = ["ContainerPlanner"]


@register(Strategy.CONTAINER)
class ContainerPlanner(StatePlanner):
    """Native containers (``Strategy.CONTAINER``): one container operator at a time."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        (op,) = group
        return self.container_reduce(op, keys)

    def container_reduce(self, op: StateOperator, keys: tuple[str, ...]) -> tuple[str, list[str]]:
        (s,) = op.states
        cls = op.classes[0].rsplit(":", 1)[-1]
        fks = {self.p.frame_key(act.loops) for act in op.actions}
        if len(fks) != 1:
            raise BackendError(
                f"the container `{user_name(s)}` is filled in loops at different levels; fill it "
                "in one loop",
                op.actions[0].span,
            )
        (fk,) = fks
        r = self.p.renderer(fk)
        keyed = cls in ("KeyedSums", "KeyedMax", "KeyedMin")
        # a guarded site keeps every row, its element only where the guard holds (a row
        # flag `_in`): a scope key whose rows all fail the guards still gets its (empty)
        # container, where a `where` would drop the key from the plan
        flagged = any(act.guards for act in op.actions)
        ordered = self._seq_order(op) if cls == "Seq" else None
        parts = []
        for site, act in enumerate(op.actions):  # render first: it may add columns to the frame
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
            if ordered is not None:  # the element's place: its loop, the row's order, the site
                rank, fields = ordered[0][act.loops[-1]], ordered[1]
                cols.append(f"F.lit({rank}).alias('_f{fields}')")
                cols += [f"F.col({self.p.field_col(i)!r}).alias('_f{i}')" for i in range(fields)]
                cols.append(f"F.lit({site}).alias('_f{fields + 1}')")
            parts.append(cols)
        src = self.p.frame(fk).var
        selects = [f"{src}.select({', '.join(cols)})" for cols in parts]
        elems = self.p.py.fresh("elements")
        self.p.emit(
            f"{elems} = {self.p.union(selects)}  # {user_name(s)}: the elements added per row"
        )
        if self.p.strategy_of(op).partial and not self.p.partial_aggregation:  # (backend/partial.py)
            whole = self.p.py.fresh("elements")
            self.p.emit(f"{whole} = {no_partial(self.p, elems, keys)}  # no partial aggregation")
            elems = whole
        col = self.p.columns.get(f"{s}:value", f"{user_name(s, keep_callee=False)}_value")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""

        def kept(struct: str) -> str:  # only the elements of rows that passed their guards
            return f"F.when(F.col('_in'), {struct})" if flagged else struct

        if keyed:
            per_key = self.p.py.fresh("sums")
            kgroup = ", ".join([*(repr(k) for k in keys), "'_k'"])
            fn = {"KeyedSums": "sum", "KeyedMax": "max", "KeyedMin": "min"}[cls]
            flag = ", F.max('_in').alias('_in')" if flagged else ""
            self.p.emit(f"{per_key} = {elems}.groupBy({kgroup}).agg(F.{fn}('_v').alias('_v'){flag})"
                      f"  # one {fn} per scope key and dict key")  # fmt: skip
            item = kept("F.struct(F.col('_k').alias('_1'), F.col('_v').alias('_2'))")
            value = f"F.array_sort(F.collect_list({item}))"
            elems = per_key
        elif ordered is not None:  # a list in the loop's order, not the elements' order
            _, fields, cmp = ordered
            struct = ", ".join(f"_f{i}" for i in (fields, *range(fields), fields + 1))
            item = f"struct({struct}, _k)"
            item = f"CASE WHEN _in THEN {item} END" if flagged else item
            sql = f"transform(array_sort(collect_list({item}), {cmp}), _e -> _e._k)"
            value = f"E({sql!r})"
        elif cls in ("ValueSet", "PySet") and self._float_elements(op):
            # a row's NaN is a distinct object in Python (NaN != NaN): the set keeps each
            # row's NaN, and one of each other value (Spark's collect_set keeps one NaN)
            nan = "F.coalesce(F.isnan('_k'), F.lit(False))"
            one = kept(f"F.when(~{nan}, F.struct('_k'))")
            each = kept(f"F.when({nan}, F.struct('_k'))")
            both = f"F.concat(F.collect_set({one}), F.collect_list({each}))"
            value = f"F.transform(F.array_sort({both}), lambda e: e['_k'])"
        else:  # wrapped in a struct: collect_set / collect_list drop NULLs, Python keeps None
            fn = "collect_set" if cls in ("ValueSet", "PySet") else "collect_list"
            item = kept("F.struct('_k')")
            value = f"F.transform(F.array_sort(F.{fn}({item})), lambda e: e['_k'])"
        agg = self.p.py.fresh("collected")
        self.p.emit(f"{agg} = {elems}{grouping}.agg({value}.alias({col!r}))"
                  f"  # {user_name(s)}: a sorted array per scope key, native")  # fmt: skip
        reads = [rd.result for rd in op.reads if rd.result != "_"]
        out = self.p.py.fresh("agg")
        sel = [f"F.col({k!r})" for k in keys] + [
            f"F.col({col!r}).alias({self.p.col_for(res)!r})" for res in reads
        ]
        self.p.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads

    def _float_elements(self, op: StateOperator) -> bool:
        """Does the set hold floats (NaN possible)?"""
        return any(a.args and self.p.ty.of(a.args[0]) == "float" for a in op.actions)

    def _seq_order(self, op: StateOperator) -> tuple[dict[str, int], int, str]:
        """How a list appended to in ordered loops is ordered: (each loop's rank in the
        program, the number of source fields, a comparator of ``F.array_sort``). The
        struct of an element holds ``_f<i>`` per source field, ``_f<n>`` its loop's rank and
        ``_f<n+1>`` its append site's: loops in program order, then the rows in the
        loop's order, then the appends of one row in program order."""
        assert self.p.source is not None
        n = len(self.p.source.types)
        loops = list(self.p.a.loops)
        orders = {}
        for act in op.actions:
            lp = self.p.a.loops[act.loops[-1]]
            full = loop_order(self.p.a, lp, n)
            if full is None:
                raise BackendError(f"the list `{user_name(op.states[0])}` of an ordered loop is "
                                   "filled in a loop in no order", act.span,
                                   "fill it in a loop over a group of `group_by(..., order_by=)` "
                                   "or `sorted_by(...)`")  # fmt: skip
            orders[lp.name] = full
        if len({tuple(o) for o in orders.values()}) > 1:
            raise BackendError(f"the list `{user_name(op.states[0])}` is filled in loops of "
                               "different orders", op.actions[-1].span,
                               "fill it in one loop, or in loops of one order")  # fmt: skip
        order = [(n, False), *next(iter(orders.values())), (n + 1, False)]
        cmp = comparator(order)  # as the ordered loops sort their rows
        return {name: loops.index(name) for name in orders}, n, cmp
