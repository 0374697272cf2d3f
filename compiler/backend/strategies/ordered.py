"""Ordered loops in a plan: which lowering the recorded strategy chose, the ``aggregate()``
fold per scope key and the loop body in Python per scope key.

The rows a loop yields come from one of three native lowerings: the ``aggregate()`` fold
(here), window functions (:mod:`.window_plan`) or the boundary-position fold
(:mod:`.boundary_plan`); all read the scope's rows in the loop's order
(:mod:`.ordered_rows`). Otherwise the loop runs in Python. For Python, the generated function takes one scope key's rows (all source fields) and the
loop's free values, sorts the rows by the order field (ties by the remaining
fields), runs the loop body, and returns (the readers after the loop, the
rows it yielded). Its readers are an ``OrderedReducer`` aggregate; the rows it
yields an ``OrderedRows`` grouped map.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import GLOBAL, ROWS
from ...dataflow.strategy import Strategy
from ...ir.nodes import CARRY, Var
from ...ir.traverse import free_vars
from ...operators import StateOperator
from ..errors import BackendError
from ..fold import fold_free, fold_of, init_sql, loop_lambda
from ..fold_model import ACC, ROW, Fold, NotFoldable
from ..frame import spark_col
from ..pycode import PyEmitter, py_name
from ..rows import row_types, tuple_items
from ..shells import render
from ..sql import quote_ident
from ..types import spark_type
from .boundary_plan import boundary_frame
from .ordered_rows import FoldSource, fold_groups, fold_source, loop_order_of
from .registry import Reduced, StatePlanner, register
from .window_plan import window_rows

if TYPE_CHECKING:
    from ..context import PlanContext

__all__ = ["OrderedFunction", "OrderedPlanner"]


@dataclass(frozen=True)
class OrderedFunction:
    fn: str  # its name in the generated module
    free: tuple[str, ...]  # the free values it takes after the rows
    readers: tuple[tuple[str, str, Any, str], ...]  # (state, method, args, result)
    nfields: int


@register(Strategy.NATIVE_FOLD, Strategy.NATIVE_WINDOW, Strategy.NATIVE_BOUNDARY,
          Strategy.PYTHON_ORDERED)  # fmt: skip
class OrderedPlanner(StatePlanner):
    """An ordered loop's states: a native fold (its yielded rows a fold's or windows), else
    the loop body in Python per scope key; the recorded strategy says which."""

    def __init__(self, p: PlanContext) -> None:
        super().__init__(p)
        self.folds: dict[tuple, Fold | None] = {}  # (ordered op, yielded types) -> its fold
        self.fold_frames: dict[str, str] = {}  # ordered op -> its fold of rows (and readers)

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        (op,) = group
        return self.ordered_readers(op, keys)

    def rows(self, op: StateOperator, names: list[str], types: list[str]) -> str:
        """The rows the ordered loop yields (named ``names``, of Spark types ``types``)."""
        return self.ordered_rows(op, names, types)

    def ordered_function(self, op: StateOperator) -> OrderedFunction:
        """Generate (once) the Python function running an ordered loop for one scope key."""
        if op.name in self.p.ordered_fns:
            return self.p.ordered_fns[op.name]
        loop_name = op.name.removeprefix("ordered.")
        lp = self.p.a.loops[loop_name]
        field_order = loop_order_of(self.p, op)
        lam = loop_lambda(self.p.a, loop_name)  # under the guards around the loop
        emitter = PyEmitter(self.p.all_class_aliases(), self.p.host_aliases())
        body: list[str] = []
        try:
            emitter.block(lam.body, "        ", body)
        except BackendError as e:
            raise BackendError(e.message, lp.span) from None
        needed = set(free_vars(lam)) - set(op.states)
        for st in op.states:
            needed |= {x.name for x in self.p.a.states[st].args if isinstance(x, Var)}
        needed -= set(self.p.a.streams)
        free = sorted(n for n in needed if n in self.p.a.bound or n in self.p.scalar_params)
        assert self.p.source is not None
        nfields = len(self.p.source.types)
        proj = [lp.fields[lp.params.index(p)] for p in lam.params]
        ctor_lines = []
        for st in op.states:
            decl = self.p.a.states[st]
            args = ", ".join(emitter.expr(x) for x in decl.args)
            cls = "ll.Carry" if decl.cls == CARRY else self.p.import_class(decl.cls)
            ctor_lines.append(f"{py_name(st)} = {cls}({args})")
        readers = tuple((rd.state, rd.method, rd.args, rd.result) for rd in op.reads
                        if rd.result != "_" and len(self.p.a.bound[rd.result].loops) <= len(op.scope))  # fmt: skip
        ret = ", ".join(
            f"{py_name(st)}.{m}({', '.join(emitter.expr(x) for x in args)})"
            for st, m, args, _ in readers
        )
        fn_name = self.p.py.fresh("ordered_loop")
        targets = ", ".join(py_name(p) for p in lam.params) + ("," if len(lam.params) == 1 else "")
        values = ", ".join(f"_row[{i}]" for i in proj) + ("," if len(proj) == 1 else "")
        self.p.reducers.append(
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
        self.p.python_ops.append(f"ordered loop at line {lp.span.line}")
        self.p.python_states.append(op.name)
        info = OrderedFunction(fn_name, tuple(free), readers, nfields)
        self.p.ordered_fns[op.name] = info
        return info

    def _ordered_inputs(self, info: OrderedFunction) -> list[str]:
        r = self.p.renderer(ROWS)
        cols = [f"F.col({self.p.field_col(i)!r})" for i in range(info.nfields)]
        for n in info.free:
            cols.append(spark_col(r.expr(Var(n))))
        return cols

    # -- native folds -------------------------------------------------------------------
    def native_fold(
        self, op: StateOperator, out_types: list[str] | None = None
    ) -> Fold | None:
        """The ordered loop as one native fold, or None (then it runs in Python; the reason is
        kept for ``--explain``)."""
        key = (op.name, tuple(out_types) if out_types is not None else None)
        recorded = self.p.strategy_of(op)  # decided once (passes/choose_strategy.py)
        if key not in self.folds and recorded.strategy is Strategy.PYTHON_ORDERED:
            self.p.fold_reasons[op.name] = recorded.why or ""  # Python per scope key
            self.folds[key] = None
        if key not in self.folds:
            free = fold_free(self.p.a, op, self.p.scalar_params)
            try:
                consts = {n: self.p.renderer(GLOBAL).expr(Var(n)) for n in free if self.p.is_constant(n)}
                fold = fold_of(self.p.a, self.p.ty, self.p.refs, self.p.classes, op, free,
                               out_types=out_types, consts=consts)  # fmt: skip
                if fold.window is not None and recorded.strategy is not Strategy.NATIVE_WINDOW:
                    fold = dataclasses.replace(fold, window=None)  # recorded: rows of the fold
                self.folds[key] = fold
            except NotFoldable as e:
                self.p.fold_reasons[op.name] = e.reason
                self.folds[key] = None
        return self.folds[key]

    def _fold_init(self, fold: Fold, src: FoldSource, out: bool) -> str:
        def value_of(e: Any) -> str:
            if isinstance(e, Var) and e.name in fold.free:
                return src.row(f"{ROW}._v{fold.free.index(e.name)}")
            return self.p.renderer(GLOBAL).expr(e)

        return init_sql(fold, value_of, out)

    def _fold_readers(
        self, op: StateOperator, fold: Fold, keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        src = fold_source(self.p, op, fold, keys)
        init = self._fold_init(fold, src, False)
        finish = ", ".join(
            f"'r{i}', CAST({sql} AS {spark_type(self.p.ty.types.get(res, 'any'))})"
            for i, (res, sql) in enumerate(fold.readers)
        )
        sql = (f"aggregate(_all, {init}, ({ACC}, {ROW}) -> {src.row(fold.step)}, "
               f"{ACC} -> named_struct({finish}))")  # fmt: skip
        grouped = fold_groups(self.p, src, keys)
        out = self.p.py.fresh("agg")
        outs = [f"F.col({k!r})" for k in keys]
        reads = []
        for i, (res, _) in enumerate(fold.readers):
            outs.append(f"F.col('_fold.r{i}').alias({self.p.col_for(res)!r})")
            reads.append(res)
        line = op.name.removeprefix("ordered.")
        folded = self.p.py.fresh("folded")
        self.p.emit(f"{folded} = {grouped}.select({', '.join(f'F.col({k!r})' for k in keys)}"
                  f"{', ' if keys else ''}E({sql!r}).alias('_fold'))"
                  f"  # ordered loop at line {self.p.a.loops[line].span.line}: native fold per scope key")  # fmt: skip
        self.p.emit(f"{out} = {folded}.select({', '.join(outs)})")
        return out, reads

    def _fold_with_rows(self, op: StateOperator, fold: Fold, readers: bool) -> str:
        """The fold of a loop that yields rows (and, with ``readers``, its readers too): a
        frame of the scope keys and ``_fold`` (``_rows``, the yielded rows, and ``r<i>``)."""
        if self.p.strategy_of(op).strategy is Strategy.NATIVE_BOUNDARY:
            frame = boundary_frame(self.p, op, fold, readers)
            self.fold_frames[op.name] = frame
            return frame
        keys = self.p.key_cols(self.p.frame_key(op.scope))
        src = fold_source(self.p, op, fold, keys)
        init = self._fold_init(fold, src, True)
        # Rows are appended to an array in the accumulator. An append copies the array, so the
        # fold runs over chunks of about sqrt(n) of the scope's n rows, each chunk with its own
        # array: an append copies at most a chunk, the chunks' arrays are collected (n / chunk
        # appends of one array each) and flattened at the end.
        carry = ", ".join(f"'{c.field}', _fc.{c.field}" for c in fold.carries)
        inner = (
            f"aggregate(_fk, named_struct({carry}, '_out', CAST(array() AS array<{fold.out_type}>)), "
            f"({ACC}, {ROW}) -> {src.row(fold.step)}, {ACC} -> named_struct("
            + ", ".join(f"'{c.field}', {ACC}.{c.field}" for c in fold.carries)
            + f", '_outs', concat(_fc._outs, array({ACC}._out))))"
        )
        start = init.replace(f"'_out', CAST(array() AS array<{fold.out_type}>)",
                             f"'_outs', CAST(array() AS array<array<{fold.out_type}>>)")  # fmt: skip
        chunks = ("transform(sequence(1, greatest(size(_all), 1), _chunk), _i -> "
                  "slice(_all, _i, _chunk))")  # fmt: skip
        finish = ["'_rows', flatten(_fc._outs)"]
        if readers:
            finish += [
                f"'r{i}', CAST({_ACC_PREFIX.sub('_fc.', sql)} AS {spark_type(self.p.ty.types.get(res, 'any'))})"
                for i, (res, sql) in enumerate(fold.readers)
            ]  # fmt: skip
        sql = (f"aggregate({chunks}, {start}, (_fc, _fk) -> {inner}, "
               f"_fc -> named_struct({', '.join(finish)}))")  # fmt: skip
        grouped = fold_groups(self.p, src, keys, chunked=True)
        agg = self.p.py.fresh("folded")
        line = self.p.a.loops[op.name.removeprefix("ordered.")].span.line
        what = "readers and rows yielded" if readers else "rows yielded"
        self.p.emit(f"{agg} = {grouped}.select({', '.join(f'F.col({k!r})' for k in keys)}"
                  f"{', ' if keys else ''}E({sql!r}).alias('_fold'))"
                  f"  # {what} in the ordered loop at line {line}: native fold per scope key")  # fmt: skip
        self.fold_frames[op.name] = agg
        return agg

    def _fold_rows(self, op: StateOperator, fold: Fold, names: list[str]) -> str:
        agg = self.fold_frames.get(op.name) or self._fold_with_rows(op, fold, False)
        out = self.p.py.fresh("yielded")
        cols = ", ".join(f"F.col('o{i}').alias({n!r})" for i, n in enumerate(names))
        self.p.emit(f"{out} = {agg}.select(F.inline('_fold._rows')).select({cols})")
        return out

    def _yield_types(self, op: StateOperator) -> list[str] | None:
        """The Spark types of the rows the ordered loop yields, None when it yields none."""

        loop = op.name.removeprefix("ordered.")
        sites = [y.site for y in self.p.prog.kinds.yields if loop in y.site.loops]
        if not sites:
            return None
        width = len(tuple_items(sites[0].args[0], self.p.a))
        return [spark_type(t) for t in row_types(sites, self.p.a, self.p.ty, width)]

    def _fold_kind(self, op: StateOperator) -> Strategy:
        """A fold's rows: the boundary-position fold where it was chosen, else aggregate()."""
        boundary = self.p.strategy_of(op).strategy is Strategy.NATIVE_BOUNDARY
        return Strategy.NATIVE_BOUNDARY if boundary else Strategy.NATIVE_FOLD

    def ordered_readers(
        self, op: StateOperator, keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        """The ordered loop's readers: a native fold, else Python per scope key."""
        types = self._yield_types(op)
        both = self.native_fold(op, types) if types is not None else None
        if both is not None and both.window is None:  # one fold for the rows and the readers
            agg = self._fold_with_rows(op, both, True)
            out = self.p.py.fresh("agg")
            outs = [f"F.col({k!r})" for k in keys]
            outs += [f"F.col('_fold.r{i}').alias({self.p.col_for(res)!r})"
                     for i, (res, _) in enumerate(both.readers)]  # fmt: skip
            # the rows it yields stay a column of the scope's frame: the rows yielded after the
            # loop are added to them there (one fold, no union recomputing it)
            rows_col = self.p.py.fresh("_yielded_rows")
            outs.append(f"F.col('_fold._rows').alias({rows_col!r})")
            self.p.fold_rows_col[op.name] = (rows_col, self.p.frame_key(op.scope))
            self.p.emit(f"{out} = {agg}.select({', '.join(outs)})")
            self.p.made_with(op, self._fold_kind(op))
            return out, [res for res, _ in both.readers]
        fold = self.native_fold(op)
        if fold is not None:
            self.p.made_with(op, Strategy.NATIVE_FOLD)
            return self._fold_readers(op, fold, keys)
        self.p.made_with(op, Strategy.PYTHON_ORDERED)
        info = self.ordered_function(op)
        rtypes = [spark_type(self.p.ty.types.get(res, "any")) for *_, res in info.readers]
        udf = self.p.py.fresh(f"{info.fn}_reducer")
        self.p.reducers.append(
            render(
                "ordered_reducer.py.j2",
                rows=False,
                var=udf,
                fn=info.fn,
                nfields=info.nfields,
                nfree=len(info.free),
                types=repr(rtypes),
            )  # fmt: skip
        )
        cols = self._ordered_inputs(info)
        src = self.p.frame(ROWS).var
        agg = self.p.py.fresh("reduced")
        col = self.p.columns.get(f"{op.name}:reduced", "ordered_loop")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.p.emit(f"{agg} = {src}{grouping}.agg({udf}.udf({', '.join(cols)}).alias({col!r}))"
                  "  # ordered loop: Python per scope key")  # fmt: skip
        out = self.p.py.fresh("agg")
        outs = [f"F.col({k!r})" for k in keys]
        reads = []
        for i, (*_, res) in enumerate(info.readers):
            outs.append(f"F.col('{col}._{i + 1}').alias({self.p.col_for(res)!r})")
            reads.append(res)
        self.p.emit(f"{out} = {agg}.select({', '.join(outs)})")
        if not keys and all(self.p.is_constant(n) for n in info.free):
            out = self._ordered_default(info, out, reads)
        return out, reads

    def _ordered_default(self, info: OrderedFunction, out: str, reads: list[str]) -> str:
        """A global ordered loop over no rows has no aggregate row: its readers are the loop
        function's on no rows (its free values are constants, evaluated once)."""
        r = self.p.renderer(GLOBAL)
        empty = self.p.py.fresh("no_rows")
        if info.free:
            cols = ", ".join(spark_col(r.expr(Var(n))) for n in info.free)
            self.p.emit(f"{empty} = {info.fn}([], *spark.range(1).select({cols}).first())[0]")
        else:
            self.p.emit(f"{empty} = {info.fn}([])[0]")
        fill = self.p.py.fresh("agg")
        pairs = ", ".join(f"({self.p.col_for(res)!r}, {empty}[{i}])" for i, res in enumerate(reads))
        self.p.emit(f"{fill} = ll.default_row(spark, {out}, [{pairs}])  # no rows: the loop's start")
        return fill

    def ordered_rows(self, op: StateOperator, names: list[str], types: list[str]) -> str:
        """The rows an ordered loop yields: a native fold, else Python per scope key."""
        fold = self.native_fold(op, types)
        if fold is not None and fold.window is not None:
            self.p.made_with(op, Strategy.NATIVE_WINDOW)
            return window_rows(self.p, op, fold, names)
        if fold is not None:
            self.p.made_with(op, self._fold_kind(op))
            return self._fold_rows(op, fold, names)
        self.p.made_with(op, Strategy.PYTHON_ORDERED)
        info = self.ordered_function(op)
        keys = self.p.key_cols(self.p.frame_key(op.scope))
        cols = self._ordered_inputs(info)
        src = self.p.frame(ROWS).var
        inp = self.p.py.fresh("ordered_input")
        aliased = [f"{c}.alias('_i{i}')" for i, c in enumerate(cols)]
        self.p.emit(f"{inp} = {src}.select({', '.join([*(repr(k) for k in keys), *aliased])})")
        schema = ", ".join(f"{quote_ident(n)} {t}" for n, t in zip(names, types, strict=True))
        udf = self.p.py.fresh(f"{info.fn}_rows")
        self.p.reducers.append(
            render(
                "ordered_reducer.py.j2",
                rows=True,
                var=udf,
                fn=info.fn,
                nfields=info.nfields,
                nkeys=len(keys),
                schema=repr(schema),
            )  # fmt: skip
        )
        out = self.p.py.fresh("yielded")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ".groupBy()"
        self.p.emit(f"{out} = {inp}{grouping}.applyInArrow({udf}.apply, {udf}.schema)"
                  "  # rows yielded inside an ordered loop: Python per scope key")  # fmt: skip
        return out


_ACC_PREFIX = re.compile(r"\b_fa\.")
