"""Ordered loops in a plan: a native fold per scope key (its yielded rows the fold's or
window functions), else the loop body in Python per scope key, rows in order.

For Python, the generated function takes one scope key's rows (all source fields) and the
loop's free values, sorts the rows by the order field (ties by the remaining
fields), runs the loop body, and returns (the readers after the loop, the
rows it yielded). Its readers are an ``OrderedReducer`` aggregate; the rows it
yields an ``OrderedRows`` grouped map.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import GLOBAL, ROWS
from ...dataflow.strategy import Strategy
from ...ir.nodes import CARRY, Var
from ...ir.traverse import free_vars
from ...names import user_name
from ...operators import StateOperator
from ..errors import BackendError
from ..fold import fold_free, fold_of, init_sql, loop_lambda
from ..fold_model import ACC, ACC_REF, ROW, Fold, NotFoldable, WindowForm
from ..frame import spark_col
from ..pycode import PyEmitter, py_name
from ..rows import row_types, tuple_items
from ..shells import render
from ..sql import quote_ident, sql_literal
from ..types import spark_type
from .boundary_plan import boundary_frame
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ..context import PlanContext

__all__ = ["OrderedFunction", "OrderedPlanner", "comparator", "loop_order"]


def loop_order(a: Any, lp: Any, nfields: int) -> list[tuple[int, bool]] | None:
    """The order an ordered loop sees its rows in, as (source field, descending) pairs: its
    given order (``sorted_by``'s, else its group's ``order_by``), then the remaining fields
    of the stream that was sorted, ascending, as the runtime breaks ties (``sorted_by`` of
    ``g.project(2, 1)`` breaks them by field 2, not by the source's field 0), then the
    source's other fields (rows equal on the stream's fields are equal to the loop).
    None: the loop has no order."""
    group = a.loops[lp.parent] if lp.parent else None
    if lp.order_by is not None:
        order, sorted_fields = lp.order_by, lp.fields
    elif group is not None and group.order_by is not None:
        order, sorted_fields = group.order_by, group.fields
    else:
        return None
    given = {i for i, _ in order}
    ties = [i for i in dict.fromkeys(sorted_fields) if i < nfields and i not in given]
    rest = [i for i in range(nfields) if i not in given and i not in ties]
    return [*order, *((i, False) for i in (*ties, *rest))]


@dataclass(frozen=True)
class OrderedFunction:
    fn: str  # its name in the generated module
    free: tuple[str, ...]  # the free values it takes after the rows
    readers: tuple[tuple[str, str, Any, str], ...]  # (state, method, args, result)
    nfields: int


@dataclass(frozen=True)
class _FoldSource:
    """The rows a fold runs over (:meth:`OrderedPlanner._fold_source`)."""

    inp: str  # the scope's rows: ``_f<i>`` fields, ``_v<j>`` free values
    agg: tuple[str, ...]  # per scope key: ``_all``, the rows sorted; per-scope free values
    row: Any  # rewrites a fold's SQL over ``_fr`` to read what ``_all`` and the scope hold


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
        field_order = self._loop_order(op)
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

    def _loop_order(self, op: StateOperator) -> list[tuple[int, bool]]:
        loop_name = op.name.removeprefix("ordered.")
        lp = self.p.a.loops[loop_name]
        assert self.p.source is not None
        order = loop_order(self.p.a, lp, len(self.p.source.types))
        if order is None:
            raise BackendError("an ordered loop must iterate a group of group_by(..., order_by=) or "
                               "sorted_by(...)", lp.span)  # fmt: skip
        return order

    def _sort_order(
        self, op: StateOperator, keys: tuple[str, ...]
    ) -> list[tuple[int, bool]]:
        """The loop's order without the fields of the scope key (the same on every row of a
        scope: they break no tie), then those fields."""
        order = self._loop_order(op)
        varying = [(i, d) for i, d in order if self.p.field_col(i) not in keys]
        return (
            varying + [(i, d) for i, d in order if self.p.field_col(i) in keys] if varying else order
        )

    def _ordered_input(
        self, fold: Fold, keys: tuple[str, ...], order: list, free: Any = None
    ) -> str:
        """The scope's rows with their fields as ``_f<i>`` and free values as ``_v<j>`` (those
        of ``free`` only, when given)."""
        r = self.p.renderer(ROWS)
        cols = [f"F.col({k!r})" for k in keys]
        cols += [f"F.col({self.p.field_col(i)!r}).alias('_f{i}')" for i, _ in order]
        cols += [f"{spark_col(r.expr(Var(n)))}.alias('_v{j}')" for j, n in enumerate(fold.free)
                 if free is None or j in free]  # fmt: skip
        inp = self.p.py.fresh("ordered_input")
        self.p.emit(f"{inp} = {self.p.frame(ROWS).var}.select({', '.join(cols)})")
        return inp

    def _fold_source(
        self, op: StateOperator, fold: Fold, keys: tuple[str, ...]
    ) -> _FoldSource:
        """The scope's rows collected in the loop's order, one array ``_all`` per scope key,
        holding only what the fold reads of them.

        Fields of the scope key and the loop's free values are the same on every row of a
        scope: the fold reads them from the scope's row, not from each element. Trailing
        fields of the order that the fold never reads are left out (rows that differ only
        there fold alike). One non-Optional field left is collected bare (``collect_list``
        drops None): an array of longs sorts and folds faster than one of structs."""
        order = self._sort_order(op, keys)
        used = {int(i) for i in _ROW_FIELD.findall(fold.step)}
        members = [(i, d) for i, d in order if self.p.field_col(i) not in keys] or order[:1]
        while len(members) > 1 and members[-1][0] not in used:
            members.pop()
        subs: dict[str, str] = {}
        for i, _ in order:
            if self.p.field_col(i) in keys:
                subs[f"_f{i}"] = quote_ident(self.p.field_col(i))
        r = self.p.renderer(ROWS)
        extra, scoped = [], set()
        for j, n in enumerate(fold.free):
            col = r.expr(Var(n))
            key = next((k for k in keys if col in (k, quote_ident(k))), None)
            if key is not None:
                subs[f"_v{j}"] = quote_ident(key)
            else:
                subs[f"_v{j}"] = f"_v{j}"
                extra.append(f"F.first('_v{j}').alias('_v{j}')")
                scoped.add(j)
        inp = self._ordered_input(fold, keys, members, scoped)
        if len(members) == 1 and self._plain_field(f"_f{members[0][0]}"):  # never None
            ((m, desc),) = members
            subs[f"_f{m}"] = ROW
            rows = f"sort_array(collect_list(_f{m}){', false' if desc else ''})"
        else:
            rows = f"collect_list(struct({', '.join(f'_f{i}' for i, _ in members)}))"
            if any(d for _, d in members):
                rows = f"array_sort({rows}, {comparator(members)})"
            else:
                rows = f"sort_array({rows})"  # ascending, None first: Python's order

        def row(sql: str) -> str:
            return _ROW_MEMBER.sub(lambda m: subs.get(m.group(1), m.group(0)), sql)

        return _FoldSource(inp, (f"E({rows!r}).alias('_all')", *extra), row)

    def _fold_groups(
        self, src: _FoldSource, keys: tuple[str, ...], chunked: bool = False
    ) -> str:
        """The scope keys' sorted rows (``_all``) and per-scope free values: one row per key;
        ``chunked``: with ``_chunk``, the rows per chunk of a fold that yields rows."""
        grouped = self.p.py.fresh("grouped")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        chunk = (f".withColumn('_chunk', E('greatest({CHUNK}, CAST(ceil(sqrt(size(_all))) AS INT))'))"
                 if chunked else "")  # fmt: skip
        self.p.emit(f"{grouped} = {src.inp}{grouping}.agg({', '.join(src.agg)}){chunk}")
        return grouped

    def _fold_init(self, fold: Fold, src: _FoldSource, out: bool) -> str:
        def value_of(e: Any) -> str:
            if isinstance(e, Var) and e.name in fold.free:
                return src.row(f"{ROW}._v{fold.free.index(e.name)}")
            return self.p.renderer(GLOBAL).expr(e)

        return init_sql(fold, value_of, out)

    def _fold_readers(
        self, op: StateOperator, fold: Fold, keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        src = self._fold_source(op, fold, keys)
        init = self._fold_init(fold, src, False)
        finish = ", ".join(
            f"'r{i}', CAST({sql} AS {spark_type(self.p.ty.types.get(res, 'any'))})"
            for i, (res, sql) in enumerate(fold.readers)
        )
        sql = (f"aggregate(_all, {init}, ({ACC}, {ROW}) -> {src.row(fold.step)}, "
               f"{ACC} -> named_struct({finish}))")  # fmt: skip
        grouped = self._fold_groups(src, keys)
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
            return boundary_frame(self, op, fold, readers)
        keys = self.p.key_cols(self.p.frame_key(op.scope))
        src = self._fold_source(op, fold, keys)
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
        grouped = self._fold_groups(src, keys, chunked=True)
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

    def _window_rows(self, op: StateOperator, fold: Fold, names: list[str]) -> str:
        """The rows an ordered loop yields as window functions over the scope's rows in order:
        each carry's value before a row is a ``lag``, a running ``sum``, the ``last`` value
        set under a condition, or a running ``max`` / ``min`` of the rows before it."""
        assert fold.window is not None
        keys = self.p.key_cols(self.p.frame_key(op.scope))
        order = self._sort_order(op, keys)
        r = self.p.renderer(ROWS)
        subs = {}  # free values that are a scope key's column: read there, not carried along
        for j, n in enumerate(fold.free):
            col = r.expr(Var(n))
            key = next((k for k in keys if col in (k, quote_ident(k))), None)
            if key is not None:
                subs[f"_v{j}"] = quote_ident(key)
        free = {j for j in range(len(fold.free)) if f"_v{j}" not in subs}
        frame = self._ordered_input(fold, keys, order, free)
        by = ", ".join(f"_f{i} {'DESC NULLS LAST' if d else 'ASC NULLS FIRST'}" for i, d in order
                       if self.p.field_col(i) not in keys) or f"_f{order[0][0]}"  # fmt: skip
        part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
        before = f"OVER ({part}ORDER BY {by} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
        lag = f"OVER ({part}ORDER BY {by})"

        def cols_of(sql: str) -> str:
            sql = ACC_REF.sub(r"_b\1", sql).replace(f"{ROW}.", "")
            return _FREE.sub(lambda m: subs.get(m.group(0), m.group(0)), sql)

        def init_of(wc: Any) -> str:
            c = wc.carry
            if c.member in ("max", "min"):
                return "NULL"
            if c.member is not None:
                return sql_literal(c.init)
            if isinstance(c.init, Var) and c.init.name in fold.free:
                return cols_of(f"_v{fold.free.index(c.init.name)}")
            return self.p.renderer(GLOBAL).expr(c.init)

        line = self.p.a.loops[op.name.removeprefix("ordered.")].span.line
        self.p.emit(f"# rows yielded in the ordered loop at line {line}: window functions over each "
                  "scope's rows in order")  # fmt: skip
        afters = self._reset_afters(fold)  # reset carries the yields read after the row only

        def yielded(sql: str) -> str:
            for text, token in afters.items():
                sql = sql.replace(text, token)
            return cols_of(sql)

        for wc in fold.window.carries:
            k, t = wc.carry.field, spark_type(wc.carry.type)
            init = init_of(wc)
            what = ""
            if wc.kind is WindowForm.KEEP:
                steps = [("_b" + k, f"CAST({init} AS {t})")]
            elif wc.kind is WindowForm.SET and self._plain_field(cols_of(wc.sql)):
                steps = [(f"_b{k}", f"CAST(lag({cols_of(wc.sql)}, 1, {init}) {lag} AS {t})")]
                what = "set on every row: the previous row's value"
            elif wc.kind is WindowForm.SET:
                steps = [(f"_e{k}", cols_of(wc.sql)),
                         (f"_p{k}", f"lag(named_struct('v', _e{k})) {lag}"),
                         (f"_b{k}", f"CAST(CASE WHEN _p{k} IS NULL THEN {init} ELSE _p{k}.v END AS {t})")]  # fmt: skip
                what = "set on every row: the previous row's value"
            elif wc.kind is WindowForm.ADD:
                steps = [(f"_d{k}", cols_of(wc.sql)),
                         (f"_b{k}", f"CAST({init} + coalesce(sum(_d{k}) {before}, 0) AS {t})")]  # fmt: skip
                what = "a running sum of the rows before"
            elif wc.kind is WindowForm.CSET:
                steps = [(f"_s{k}", f"CASE WHEN {cols_of(wc.cond)} THEN named_struct('v', {cols_of(wc.sql)}) END"),
                         (f"_p{k}", f"last(_s{k}, true) {before}"),
                         (f"_b{k}", f"CAST(CASE WHEN _p{k} IS NULL THEN {init} ELSE _p{k}.v END AS {t})")]  # fmt: skip
                what = "set where a condition holds: the last such value before"
            elif wc.kind is WindowForm.RESET and wc.after in afters:
                steps = self._reset_after_steps(k, t, init, cols_of(wc.cond), cols_of(wc.start),
                                                cols_of(wc.sql), [quote_ident(x) for x in keys],
                                                by)  # fmt: skip
                what = ("reset where a condition holds, then a sum: after each row, the running "
                        "sum plus its offset at the last reset (one sort)")  # fmt: skip
            elif wc.kind is WindowForm.RESET:
                steps = self._reset_steps(k, t, init, cols_of(wc.cond), cols_of(wc.start),
                                          cols_of(wc.sql), [quote_ident(x) for x in keys], by,
                                          before)  # fmt: skip
                what = ("reset where a condition holds, then a sum: the value after the last "
                        "reset plus a running sum of the rows since (one window per segment)")  # fmt: skip
            else:
                steps = [
                    (f"_x{k}", cols_of(wc.sql)),
                    (f"_b{k}", f"CAST({wc.kind}(_x{k}) {before} AS {t})"),
                ]
                what = f"a running {wc.kind} of the rows before"
            name = user_name(wc.carry.state) + (f".{wc.carry.member}" if wc.carry.member not in (None, "max", "min") else "")  # fmt: skip
            comment = f"  # {name}: {what}" if what else f"  # {name}: never changes"
            for i, (col, sql) in enumerate(steps):
                nxt = self.p.py.fresh("windowed")
                if isinstance(col, tuple):  # independent window functions: one Window operator
                    cols = ", ".join(f"{c!r}: E({x!r})" for c, x in zip(col, sql, strict=True))
                    self.p.emit(f"{nxt} = {frame}.withColumns({{{cols}}}){comment if i == 0 else ''}")
                else:
                    self.p.emit(
                        f"{nxt} = {frame}.withColumn({col!r}, E({sql!r})){comment if i == 0 else ''}"
                    )
                frame = nxt
        out = self.p.py.fresh("yielded")
        sites = fold.window.yields
        if len(sites) == 1:
            cond, items = sites[0]
            where = "" if cond == "TRUE" else f".where(E({yielded(cond)!r}))"
            sel = ", ".join(
                f"E({yielded(x)!r}).alias({n!r})" for x, n in zip(items, names, strict=True)
            )
            self.p.emit(f"{out} = {frame}{where}.select({sel})")
            return out
        rows = []
        for cond, items in sites:
            fields = ", ".join(f"'o{i}', {yielded(x)}" for i, x in enumerate(items))
            rows.append(f"CASE WHEN {yielded(cond)} THEN named_struct({fields}) END")
        sql = f"filter(array({', '.join(rows)}), _y -> _y IS NOT NULL)"
        sel = ", ".join(f"F.col('o{i}').alias({n!r})" for i, n in enumerate(names))
        self.p.emit(f"{out} = {frame}.select(F.inline(E({sql!r}))).select({sel})")
        return out

    @staticmethod
    def _reset_afters(fold: Fold) -> dict[str, str]:
        """{its value after the row (SQL): ``_a<k>``} of each ``reset`` carry that the yields
        read only after the row's update and no other carry reads: those need no value
        before the row (:meth:`_reset_after_steps`)."""
        assert fold.window is not None
        out: dict[str, str] = {}
        others = " ".join(f"{w.sql} {w.cond} {w.start}" for w in fold.window.carries)
        for wc in fold.window.carries:
            k = wc.carry.field
            if wc.kind is not WindowForm.RESET or not wc.after or f"_fa.{k}" in others:
                continue
            texts = [x for cond, items in fold.window.yields for x in (cond, *items)]
            if not any(f"_fa.{k}" in x.replace(wc.after, "") for x in texts):
                out[wc.after] = f"_a{k}"
        return dict(sorted(out.items(), key=lambda kv: -len(kv[0])))  # longest first

    @staticmethod
    def _reset_after_steps(
        k: str, t: str, init: str, cond: str, start: str, d: str, keys: list[str], by: str,
    ) -> list[tuple[Any, Any]]:
        """The window steps of an int carry set to ``start`` where ``cond`` holds, then
        ``+= d`` on every row, read after each row only. With ``_r`` the running sum of
        ``d`` over the scope's rows up to and including the row, its value after row ``i``
        is ``_r(i)`` plus, at the last reset ``j <= i``, ``start(j) - (_r(j) - d(j))``
        (``init`` before the first reset): one sort, two Window operators over the same
        order (the second needs the first's ``_r``, Spark sorts once). Exact for ints while
        a scope's running sum fits 64 bits; beyond it Spark's ANSI error (an intermediate
        Python does not overflow: SPEC §4 allows it where the inputs hold ints past 32
        bits). ``start`` and ``d`` are never None (the carry holds no None)."""
        upto = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
        part = f"PARTITION BY {', '.join(keys)} " if keys else ""
        over = f"OVER ({part}ORDER BY {by} {upto})"
        base = f"last(CASE WHEN {cond} THEN {start} - (_r{k} - {d}) END, true) {over}"
        return [
            (f"_r{k}", f"sum({d}) {over}"),
            (f"_a{k}", f"CAST(coalesce({base}, {init}) + _r{k} AS {t})"),
        ]  # fmt: skip

    @staticmethod
    def _reset_steps(
        k: str, t: str, init: str, cond: str, start: str, d: str, keys: list[str], by: str,
        before: str,
    ) -> list[tuple[Any, Any]]:
        """The window steps of an int carry set to ``start`` where ``cond`` holds, then
        ``+= d`` on every row: its value before a row is the value after the last reset
        before it (``start + d`` there; ``init`` when none) plus the sum of ``d`` over the
        rows after that reset and before this row. Those rows are the ones with as many
        resets before them: ``_g`` (a running count over the rows before) names the
        segment, and the sum is one running ``sum`` per (scope key, ``_g``): the scope's
        rows are already partitioned by key, so the second window only sorts. ``_g`` and
        ``_s`` are one Window operator (each operator buffers a key's rows). ``start`` and
        ``d`` are never None (the carry holds no None), so a null ``last`` is "no reset
        before". Exact for ints: the same additions in another grouping (an intermediate
        beyond 64 bits raises, as the fold's can, SPEC §4)."""
        seg = f"OVER (PARTITION BY {', '.join([*keys, f'_g{k}'])} "
        return [
            ((f"_g{k}", f"_s{k}"),
             (f"coalesce(count(CASE WHEN {cond} THEN 1 END) {before}, 0L)",
              f"last(CASE WHEN {cond} THEN {start} + {d} END, true) {before}")),
            (f"_b{k}", f"CAST(coalesce(_s{k}, {init}) + coalesce(sum({d}) {seg}ORDER BY {by} "
                       f"ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0L) AS {t})"),
        ]  # fmt: skip

    def _fold_kind(self, op: StateOperator) -> Strategy:
        """A fold's rows: the boundary-position fold where it was chosen, else aggregate()."""
        boundary = self.p.strategy_of(op).strategy is Strategy.NATIVE_BOUNDARY
        return Strategy.NATIVE_BOUNDARY if boundary else Strategy.NATIVE_FOLD

    def _plain_field(self, col: str) -> bool:
        """A non-Optional source field (``_f<i>``): never NULL, so ``lag``'s default marks the
        first row."""
        assert self.p.source is not None
        if not _FIELD.fullmatch(col):
            return False
        i = int(col[2:])
        return i < len(self.p.source.types) and not self.p.source.types[i].startswith("Optional[")

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
            return self._window_rows(op, fold, names)
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


CHUNK = 32  # the fewest rows per chunk of a fold that yields rows (else about sqrt(n))
_FIELD = __import__("re").compile(r"_f\d+")
_FREE = __import__("re").compile(r"\b_v\d+\b")
_ROW_FIELD = __import__("re").compile(rf"\b{ROW}\._f(\d+)\b")
_ROW_MEMBER = __import__("re").compile(rf"\b{ROW}\.(_[fv]\d+)\b")
_ACC_PREFIX = __import__("re").compile(r"\b_fa\.")


def comparator(order: list[tuple[int, bool]]) -> str:
    """An ``array_sort`` comparator of rows in ``order``: None first ascending, last
    descending (as ``ll.sort_rows``)."""
    expr = "0"
    for i, desc in reversed(order):
        x, y = f"_l._f{i}", f"_m._f{i}"
        lt, gt = ("1", "-1") if desc else ("-1", "1")
        expr = (
            f"CASE WHEN {x} <=> {y} THEN {expr} WHEN {x} IS NULL THEN {lt} WHEN {y} IS NULL "
            f"THEN {gt} WHEN {x} < {y} THEN {lt} ELSE {gt} END"
        )
    return f"(_l, _m) -> {expr}"
