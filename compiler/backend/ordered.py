"""Ordered loops in a plan: the loop body runs in Python per scope key, rows in order.

The generated function takes one scope key's rows (all source fields) and the
loop's free values, sorts the rows by the order field (ties by the remaining
fields), runs the loop body, and returns (the readers after the loop, the
rows it yielded). Its readers are an ``OrderedReducer`` aggregate; the rows it
yields an ``OrderedRows`` grouped map.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..dataflow.payloads import GLOBAL, ROWS
from ..ir.nodes import CARRY, Apply, Lambda, Var
from ..ir.traverse import free_vars
from ..operators import StateOperator
from .errors import BackendError
from .frames import SRC, spark_col
from .pycode import PyEmitter, py_name
from .shells import render
from .sql import SqlRenderer, quote_ident
from .types import spark_type

if TYPE_CHECKING:
    from ..analysis import Loop
    from .plan import Planner

__all__ = ["OrderedMixin", "OrderedFunction"]


@dataclass(frozen=True)
class OrderedFunction:
    fn: str  # its name in the generated module
    free: tuple[str, ...]  # the free values it takes after the rows
    readers: tuple[tuple[str, str, Any, str], ...]  # (state, method, args, result)
    nfields: int


class OrderedMixin:
    def ordered_function(self: Planner, op: StateOperator) -> OrderedFunction:
        """Generate (once) the Python function running an ordered loop for one scope key."""
        if op.name in self.ordered_fns:
            return self.ordered_fns[op.name]
        loop_name = op.name.removeprefix("ordered.")
        lp = self.a.loops[loop_name]
        group_loop = self.a.loops[lp.parent] if lp.parent else None
        order = (
            lp.order_by
            if lp.order_by is not None
            else (group_loop.order_by if group_loop is not None else None)
        )
        if order is None:
            raise BackendError(
                "an ordered loop must iterate a group of group_by(..., order_by=) or "
                "sorted_by(...)",
                lp.span,
            )
        v = self.a.bound[loop_name].value
        assert isinstance(v, Apply)
        lam = v.args[0]
        assert isinstance(lam, Lambda)
        emitter = PyEmitter(self.all_class_aliases(), self.host_aliases())
        body: list[str] = []
        try:
            emitter.block(lam.body, "        ", body)
        except BackendError as e:
            raise BackendError(e.message, lp.span) from None
        needed = set(free_vars(lam)) - set(op.states)
        for st in op.states:
            needed |= {x.name for x in self.a.states[st].args if isinstance(x, Var)}
        needed -= set(self.a.streams)
        free = sorted(n for n in needed if n in self.a.bound or n in self.scalar_params)
        assert self.source is not None
        nfields = len(self.source.types)
        given = {i for i, _ in order}
        field_order = [*order, *((i, False) for i in range(nfields) if i not in given)]
        proj = [lp.fields[lp.params.index(p)] for p in lam.params]
        ctor_lines = []
        for st in op.states:
            decl = self.a.states[st]
            args = ", ".join(emitter.expr(x) for x in decl.args)
            cls = "ll.Carry" if decl.cls == CARRY else self.import_class(decl.cls)
            ctor_lines.append(f"{py_name(st)} = {cls}({args})")
        readers = tuple((rd.state, rd.method, rd.args, rd.result) for rd in op.reads
                        if rd.result != "_" and len(self.a.bound[rd.result].loops) <= len(op.scope))  # fmt: skip
        ret = ", ".join(
            f"{py_name(st)}.{m}({', '.join(emitter.expr(x) for x in args)})"
            for st, m, args, _ in readers
        )
        fn_name = self.py.fresh("ordered_loop")
        targets = ", ".join(py_name(p) for p in lam.params) + ("," if len(lam.params) == 1 else "")
        values = ", ".join(f"_row[{i}]" for i in proj) + ("," if len(proj) == 1 else "")
        self.reducers.append(
            render(
                "ordered_loop.py.j2",
                name=fn_name,
                params=[py_name(n) for n in free],
                line=lp.span.line,
                ctors=ctor_lines,
                order=repr(field_order),
                targets=targets,
                values=values,
                body=body,
                readers=ret + ("," if len(readers) == 1 else ""),
            )
        )
        self.python_ops.append(f"ordered loop at line {lp.span.line}")
        info = OrderedFunction(fn_name, tuple(free), readers, nfields)
        self.ordered_fns[op.name] = info
        return info

    def rank_column(self: Planner, lp: Loop) -> None:
        """A ranked loop's rank: ``row_number()`` over its scope's rows in its order (native)."""
        assert lp.order_by is not None and self.source is not None
        chain = self._loop_chain(lp.name)
        keys = self.key_cols(self.frame_key(chain[:-1]))
        given = {i for i, _ in lp.order_by}
        nfields = len(self.source.types)
        order = [*lp.order_by, *((i, False) for i in range(nfields) if i not in given)]
        by = ", ".join(
            f"{quote_ident(self.field_col(i))} {'DESC NULLS LAST' if d else 'ASC NULLS FIRST'}"
            for i, d in order
        )
        part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
        sql = f"row_number() OVER ({part}ORDER BY {by})"
        col = self.field_col(lp.fields[-1])
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({sql!r}))",
                  f"rank of each row in the order of the loop at line {lp.span.line} (window)")  # fmt: skip

    def computed_key_column(self: Planner, f: int) -> None:
        """A computed group key part (``group_by(lambda r: r[2] // 7, ...)``): a native column."""
        import dataclasses

        from ..analysis import Bound
        from ..ir.nodes import UNKNOWN

        assert self.source is not None
        expr, _ = self.a.virtual[f]
        fields = {f"_kf.{i}": i for i in range(len(self.source.types))}
        for name, i in fields.items():
            t = self.source.types[i]
            self.ty.types[name] = t[len("Optional[") : -1] if t.startswith("Optional[") else t
            if t.startswith("Optional["):
                self.ty.nullable.add(name)
        # each operation of the key gets a typed temporary (str methods render by type)
        from ..ir.nodes import Apply, Prim, Var
        from .types import _prim_type

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
        sql = r.expr(expr)
        col = self.field_col(f)
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({sql!r}))", "a computed group key")

    def ordered_op_of(self: Planner, loops: tuple[str, ...]) -> StateOperator | None:
        for op in self.ops:
            if op.ordered and op.name.removeprefix("ordered.") in loops:
                return op
        return None

    def _ordered_inputs(self: Planner, info: OrderedFunction) -> list[str]:
        r = self.renderer(ROWS)
        cols = [f"F.col({self.field_col(i)!r})" for i in range(info.nfields)]
        for n in info.free:
            cols.append(spark_col(r.expr(Var(n))))
        return cols

    def ordered_readers(self: Planner, op: StateOperator, keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """The ordered loop's readers: Python per scope key, rows sorted by the order field."""
        info = self.ordered_function(op)
        rtypes = [spark_type(self.ty.types.get(res, "any")) for *_, res in info.readers]
        udf = self.py.fresh(f"{info.fn}_reducer")
        self.reducers.append(
            render("ordered_reducer.py.j2", rows=False, var=udf, fn=info.fn, nfields=info.nfields,
                   nfree=len(info.free), types=repr(rtypes))  # fmt: skip
        )
        cols = self._ordered_inputs(info)
        src = self.frame(ROWS).var
        agg = self.py.fresh("reduced")
        col = self.columns.get(f"{op.name}:reduced", "ordered_loop")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(f"{agg} = {src}{grouping}.agg({udf}.udf({', '.join(cols)}).alias({col!r}))"
                  "  # ordered loop: Python per scope key")  # fmt: skip
        out = self.py.fresh("agg")
        outs = [f"F.col({k!r})" for k in keys]
        reads = []
        for i, (*_, res) in enumerate(info.readers):
            outs.append(f"F.col('{col}._{i + 1}').alias({self.col_for(res)!r})")
            reads.append(res)
        self.emit(f"{out} = {agg}.select({', '.join(outs)})")
        if not keys and all(self._constant(n) for n in info.free):
            out = self._ordered_default(info, out, reads)
        return out, reads

    def _ordered_default(self: Planner, info: OrderedFunction, out: str, reads: list[str]) -> str:
        """A global ordered loop over no rows has no aggregate row: its readers are the loop
        function's on no rows (its free values are constants, evaluated once)."""
        r = self.renderer(GLOBAL)
        empty = self.py.fresh("no_rows")
        if info.free:
            cols = ", ".join(spark_col(r.expr(Var(n))) for n in info.free)
            self.emit(f"{empty} = {info.fn}([], *spark.range(1).select({cols}).first())[0]")
        else:
            self.emit(f"{empty} = {info.fn}([])[0]")
        fill = self.py.fresh("agg")
        pairs = ", ".join(f"({self.col_for(res)!r}, {empty}[{i}])" for i, res in enumerate(reads))
        self.emit(f"{fill} = ll.default_row(spark, {out}, [{pairs}])  # no rows: the loop's start")
        return fill

    def ordered_rows(self: Planner, op: StateOperator, names: list[str], types: list[str]) -> str:
        """The rows an ordered loop yields: Python per scope key (grouped map)."""
        info = self.ordered_function(op)
        keys = self.key_cols(self.frame_key(op.scope))
        cols = self._ordered_inputs(info)
        src = self.frame(ROWS).var
        inp = self.py.fresh("ordered_input")
        aliased = [f"{c}.alias('_i{i}')" for i, c in enumerate(cols)]
        self.emit(f"{inp} = {src}.select({', '.join([*(repr(k) for k in keys), *aliased])})")
        schema = ", ".join(f"{quote_ident(n)} {t}" for n, t in zip(names, types, strict=True))
        udf = self.py.fresh(f"{info.fn}_rows")
        self.reducers.append(
            render("ordered_reducer.py.j2", rows=True, var=udf, fn=info.fn, nfields=info.nfields,
                   nkeys=len(keys), schema=repr(schema))  # fmt: skip
        )
        out = self.py.fresh("yielded")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ".groupBy()"
        self.emit(f"{out} = {inp}{grouping}.applyInArrow({udf}.apply, {udf}.schema)"
                  "  # rows yielded inside an ordered loop: Python per scope key")  # fmt: skip
        return out
