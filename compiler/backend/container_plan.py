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

A container filled in an ordered loop (``Seq``, ``InsertionDict``, ``PySet``) that
the loop's other code does not read is collected the same way, in the loop's order:

- a list: ``collect_list(struct(order fields, site, element))`` sorted in the loop's
  order (ties by the remaining fields, then by the action's place in the body);
- a dict: the same sorted array of ``(key, value)`` updates; its keys in the order
  they first appear (``array_distinct``), each one's value folded over its updates
  in order (``d[k] = v`` replaces, ``d[k] = d.get(k, 0) + v`` adds);
- a set: its elements whose last update is an ``add`` (not a ``discard``), ascending
  (a set filled by ``add`` only is collected as an unordered one is).

A global scope aggregates without ``groupBy``: over no rows that is one row
holding an empty array, a fresh container's value. Every reader of the
container (``value()``) is that array column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..names import user_name
from ..operators import StateOperator
from .errors import BackendError
from .frames import spark_col
from .sql import quote_ident
from .types import spark_type, unify

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
        if cls in ("Seq", "InsertionDict") or cls == "PySet" and any(
            act.method != "add" for act in op.actions
        ):
            return self._ordered_container(op, keys, fk, cls)
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
            fn = "collect_set" if cls in ("ValueSet", "PySet") else "collect_list"
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

    def _ordered_container(self: Planner, op: StateOperator, keys: tuple[str, ...], fk: Any,
                           cls: str) -> tuple[str, list[str]]:  # fmt: skip
        """A list or dict filled in an ordered loop, read after it: its updates collected per
        scope key in the loop's order (see the module docstring)."""
        (s,) = op.states
        loops = {act.loops[-1] for act in op.actions if act.loops}
        wanted = {"Seq": ("append",), "InsertionDict": ("set", "add"), "PySet": ("add", "discard")}[cls]
        bad = [act for act in op.actions if act.method not in wanted]
        if len(loops) != 1 or bad:
            what = f"`{bad[0].method}`" if bad else "updates in several loops"
            raise BackendError(
                f"the container `{user_name(s)}` gets {what} in an ordered loop without being "
                "read in it; the Spark backend collects such a container only from `append` "
                "(a list), `d[k] = v` / `d[k] = d.get(k, 0) + v` (a dict) or `add` / `discard` "
                "(a set) in one loop",
                (bad[0] if bad else op.actions[0]).span,
                hint="read it inside the loop too (then the loop runs in row order in Python), "
                "or fill it with those updates only",
            )
        (loop,) = loops
        order = self._order_of_loop(loop)
        site = len(self.source.types) if self.source is not None else 0  # the `_f` after the fields
        r = self.renderer(fk)
        keyed, is_set = cls == "InsertionDict", cls == "PySet"
        parts, vtypes = [], []
        for i, act in enumerate(op.actions):
            guard = r.guards(act.guards) if act.guards else ""
            cols = [f"F.col({k!r})" for k in keys]
            cols += [f"F.col({self.field_col(f)!r}).alias('_f{f}')" for f, _ in order]
            cols.append(f"F.lit({i}).alias('_f{site}')")
            for arg, name in zip(act.args[: 2 if keyed else 1], ("_k", "_v"), strict=False):
                cols.append(f"{spark_col(r.expr(arg))}.alias({name!r})")
            if is_set:
                cols.append(f"F.lit({int(act.method == 'discard')}).alias('_a')")
            if keyed:
                vtypes.append(self.ty.of(act.args[1]))
                cols.append(f"F.lit({int(act.method == 'add')}).alias('_a')")
                if act.method == "add" and self.ty.may_be_null(act.args[1]):
                    raise BackendError(f"`{user_name(s)}[k] = {user_name(s)}.get(k, 0) + v` with "
                                       "a v that may be None (Python raises TypeError)",
                                       act.span, hint="test `v is None` first")  # fmt: skip
            cols.append(f"E({(f'coalesce({guard}, false)' if guard else 'true')!r}).alias('_in')")
            parts.append(cols)
        src = self.frame(fk).var
        elems = self.py.fresh("elements")
        selects = [f"{src}.select({', '.join(cols)})" for cols in parts]
        self.emit(f"{elems} = {self.union(selects)}  # {user_name(s)}: the updates per row, "
                  "with the loop's order")  # fmt: skip
        extra = ("_v", "_a") if keyed else ("_a",) if is_set else ()
        members = [*(f"_f{f}" for f, _ in order), f"_f{site}", "_k", *extra]
        item = f"F.when(F.col('_in'), F.struct({', '.join(repr(m) for m in members)}))"
        ordered = [*order, (site, False)]
        if any(d for _, d in ordered):
            from .ordered import _comparator

            rows = f"E({f'array_sort(collect_list(_u), {_comparator(ordered)})'!r})"
            pre = f".withColumn('_u', {item})"
        else:
            rows, pre = f"F.sort_array(F.collect_list({item}))", ""
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        sorted_col = self.py.fresh("_updates")
        agg = self.py.fresh("collected")
        self.emit(f"{agg} = {elems}{pre}{grouping}.agg({rows}.alias({sorted_col!r}))"
                  f"  # {user_name(s)}: its updates per scope key, in the loop's order")  # fmt: skip
        u = quote_ident(sorted_col)
        if is_set:  # the elements whose last update is an add, ascending (PySet.value)
            last = f"element_at(filter({u}, _e -> _e._k <=> _q), -1)._a = 0"
            value = f"array_sort(filter(array_distinct(transform({u}, _e -> _e._k)), _q -> {last}))"
        elif not keyed:
            value = f"transform({u}, _e -> _e._k)"
        else:
            t = "none"
            for vt in vtypes:
                t = unify(t, vt)
            st = spark_type(t if t != "none" else "int")
            mine = f"filter({u}, _e -> _e._k <=> _q)"
            fold = (f"aggregate({mine}, CAST(0 AS {st}), (_acc, _e) -> CASE WHEN _e._a = 1 "
                    f"THEN _acc + _e._v ELSE CAST(_e._v AS {st}) END)")  # fmt: skip
            value = (f"transform(array_distinct(transform({u}, _e -> _e._k)), _q -> "
                     f"named_struct('_1', _q, '_2', {fold}))")  # fmt: skip
        out = self.py.fresh("agg")
        reads = [rd.result for rd in op.reads if rd.result != "_"]
        sel = [f"F.col({k!r})" for k in keys] + [
            f"E({value!r}).alias({self.col_for(res)!r})" for res in reads
        ]
        self.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads

    def _order_of_loop(self: Planner, loop: str) -> list[tuple[int, bool]]:
        """The order an ordered loop sees its rows in: its order fields, then the others."""
        lp = self.a.loops[loop]
        parent = self.a.loops[lp.parent] if lp.parent else None
        order = lp.order_by if lp.order_by is not None else (
            parent.order_by if parent is not None else None)  # fmt: skip
        if order is None or self.source is None:
            raise BackendError("a container of an ordered loop outside one", lp.span)
        given = {i for i, _ in order}
        return [*order, *((i, False) for i in range(len(self.source.types)) if i not in given)]
