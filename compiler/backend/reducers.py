"""State operators in a plan: one aggregate per scope key, joined into the scope's frame.

Additive operators become Spark sums (fused with the other additive operators
of the same scope and input), action operators a grouped Arrow reducer (or,
for one integer key and numeric arguments, whole partitions reduced at once),
and a state no action reaches the readers of a fresh state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dataflow.payloads import GLOBAL, ROWS, FrameKey
from ..dataflow.strategy import FUSED, ORDERED, Strategy
from ..ir.nodes import CARRY, Lit
from ..names import user_name
from ..operators import StateOperator
from .errors import BackendError
from .frames import SRC, Frame, spark_col
from .sequence import NativeSequence, native_sequence, reader_sql
from .shells import render
from .sql import sql_literal
from .states import (
    action_map,
    additive_reader,
    additive_terms,
    constructor_args,
    field_init,
    field_total,
    field_type,
    reader_list,
)
from .types import spark_type

if TYPE_CHECKING:
    from .plan import Planner

__all__ = ["ReducersMixin"]


class ReducersMixin:
    def materialize_op(self: Planner, op: StateOperator) -> None:
        if op.name in self.op_done:
            return
        how = self.strategy_of(op).strategy
        if how is Strategy.FRESH_READERS:
            self._unused_state(op)
            self.made_with(op, how)
            return
        group = [op]
        if how in FUSED:
            for mate in self.ops:
                if mate.name in op.fusable_with and mate.name not in self.op_done:
                    if self.strategy_of(mate).strategy is how:
                        group.append(mate)
        fk = self.frame_key(op.scope)
        keys = self.key_cols(fk)
        if how is Strategy.NATIVE_SUMS:
            result, reads = self._additive(group, keys)
        elif how in ORDERED:
            result, reads = self.ordered_readers(op, keys)
        elif how is Strategy.CONTAINER:
            result, reads = self.container_reduce(op, keys)
        elif how is Strategy.ARG_BEST:
            result, reads = self.arg_best_readers(group, keys)
        elif how is Strategy.SEQUENCE:
            result, reads = self.sequence_readers(group, keys)
        else:
            result, reads = self._action(group, keys)
        for o in group:
            if how not in ORDERED:  # (an ordered loop notes what it made itself)
                self.made_with(o, how)
            self.op_done[o.name] = reads
        for r in reads:
            self.read_home[r] = fk
        if fk not in self.frames:
            self.frames[fk] = Frame(result, keys, set(reads))
            if not keys and fk != GLOBAL:
                # group_by((), rows): one group of the whole input, and none when it is empty
                self.step(fk, f"{SRC}.join({self.frame(ROWS).var}.select().limit(1), how='left_semi')",
                          "one group of the whole input (none when it is empty)")  # fmt: skip
            return
        if fk == GLOBAL:
            self.step(fk, f"{SRC}.crossJoin({result})")
        else:
            self.step(fk, f"ll.join_on_keys({SRC}, {result}, {list(keys)!r})")
        self.frames[fk].cols.update(reads)

    def native_seq(self: Planner, op: StateOperator) -> NativeSequence | None:
        """The native readers of a library sequence state (None: a Python reducer runs)."""
        return native_sequence(op, self.a, self.refs, self.ty)

    def sequence_readers(self: Planner, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Library sequence states read natively: one aggregate expression per reader over
        the scope key's collected events (compiler/backend/sequence.py)."""
        (fk,) = {self.frame_key(act.loops) for op in group for act in op.actions}
        r = self.renderer(fk)
        self.frame(fk)
        events: dict[str, str] = {}  # the map part's SQL -> its column (shared by the states)
        aggs: list[str] = []
        reads: list[str] = []

        def event_col(sql: str, prefix: str) -> str:
            return events.setdefault(sql, f"{prefix}{len(events)}")

        for op in group:
            ns = self.native_seq(op)
            assert ns is not None
            code, arg = action_map(op, r).columns
            code, arg = f"`{event_col(code, '_code')}`", f"`{event_col(arg, '_arg')}`"
            readers = reader_list(op, self.a)
            types = [spark_type(self.ty.types.get(res, "any")) for _, res in readers]
            k_sql = r.expr(ns.k) if ns.k is not None else None
            sqls = reader_sql(ns, code, arg, [m for m, _ in readers], types, k_sql,
                              row=lambda sql: f"`{event_col(sql, '_event')}`")  # fmt: skip
            for (_, res), sql in zip(readers, sqls, strict=True):
                aggs.append(f"E({sql!r}).alias({self.col_for(res)!r})")
                reads.append(res)
        src = self.frames[fk].var  # after rendering: the guards' columns are on it
        mapped = self.py.fresh("events")
        kcols = [f"F.col({k!r})" for k in keys]
        mapped_sel = [f"E({q!r}).alias({c!r})" for q, c in events.items() if not c.startswith("_event")]
        event_sel = [f"E({q!r}).alias({c!r})" for q, c in events.items() if c.startswith("_event")]
        self.emit(f"{mapped} = {src}.select({', '.join([*kcols, *mapped_sel])})"
                  f".select({', '.join([*kcols, *event_sel])})"
                  "  # map part native: action code and argument, then each event as one value")  # fmt: skip
        agg = self.py.fresh("agg")
        names = ", ".join(user_name(o.name) for o in group)
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(f"{agg} = {mapped}{grouping}.agg({', '.join(aggs)})"
                  f"  # {names}: native readers over the sorted collected events")  # fmt: skip
        return agg, reads

    def _unused_state(self: Planner, op: StateOperator) -> None:
        """A state no action reaches: its readers are a fresh state's, constants per scope."""
        fk = self.frame_key(op.scope)
        self.frame(fk)
        reads = []
        for rd in op.reads:
            if rd.result == "_" or op.classes[0] == CARRY:
                continue
            cls = self.refs[op.classes[0]]
            try:
                ctor = [x.value for x in self.a.states[rd.state].args]
                value = getattr(cls(*ctor), rd.method)(*[x.value for x in rd.args])
            except Exception as e:  # noqa: BLE001 - a constructor needing parameters, say
                raise BackendError(
                    f"state `{user_name(rd.state)}` receives no action and its fresh reader "
                    f"`{rd.method}()` could not be evaluated at compile time: {e}",
                    self.a.states[rd.state].span,
                ) from None
            t = spark_type(self.ty.types.get(rd.result, "any"))
            col = self.col_for(rd.result)
            sql = f"CAST({sql_literal(value)} AS {t})"
            self.step(fk, f"{SRC}.withColumn({col!r}, E({sql!r}))",
                      f"{user_name(rd.state)} receives no action: a fresh state's reader")  # fmt: skip
            self.frames[fk].cols.add(rd.result)
            reads.append(rd.result)
        self.op_done[op.name] = reads
        for r in reads:
            self.read_home[r] = fk

    def _additive(self: Planner, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native sums of the sign-weighted projections, then the readers."""
        fields: dict[tuple[str, str], tuple[str, Any]] = {}  # (state, field) -> (column, init)
        for op in group:
            for s, cref in zip(op.states, op.classes, strict=True):
                for fname, init in self.classes[cref].fields:
                    col = self.columns.get(f"{s}.{fname}:sum", f"{user_name(s, keep_callee=False)}_{fname}")
                    fields[(s, fname)] = (col, field_init(init))
        terms = []
        parts: dict[FrameKey, list[tuple[str, str]]] = {}
        for op in group:
            for t in additive_terms(op, self.classes, lambda act: self.renderer(self.frame_key(act.loops)), self.ty):
                terms.append(t)
                fk = self.frame_key(t.act.loops)
                parts.setdefault(fk, []).append((fields[(t.state, t.field)][0], f"({t.sql}) * `_sign`"))
        # one aggregate per input granularity; several granularities are unioned first
        frames = list(parts)
        if len(frames) == 1:
            fk = frames[0]
            cols = sorted({c for c, _ in parts[fk]})
            sums = {c: " + ".join(e for c2, e in parts[fk] if c2 == c) for c in cols}
            exprs = [f"E({f'sum({e})'!r}).alias({c!r})" for c, e in sums.items()]
            agg_src = self.signed_rows(self.frame(fk).var, fk)
        else:
            cols = sorted({c for fk in frames for c, _ in parts[fk]})
            selects = []
            for fk in frames:
                src = self.frame(fk).var
                sel = [f"F.col({k!r})" for k in keys]
                for c in cols:
                    e = " + ".join(e for c2, e in parts[fk] if c2 == c) or "0"
                    sel.append(f"E({e!r}).alias({c!r})")
                selects.append(f"{self.signed_rows(src, fk)}.select({', '.join(sel)})")
            agg_src = self.py.fresh("contributions")
            self.emit(f"{agg_src} = {self.union(selects)}  # the additive terms of every level")
            exprs = [f"F.sum({c!r}).alias({c!r})" for c in cols]
        exprs += self.live_sums(keys)
        agg = self.py.fresh("sums")
        names = ", ".join(user_name(o.name) for o in group)
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(f"{agg} = {agg_src}{grouping}.agg({', '.join(exprs)})"
                  f"  # additive {names}: native sums per scope key")  # fmt: skip
        # readers over the sums (a global sum over no rows is NULL: start from the init)
        reads: list[str] = []
        sel = [f"F.col({k!r})" for k in keys] + self.live_columns(keys)
        for op in group:
            for rd in op.reads:
                if rd.result == "_" or rd.result in reads:
                    continue
                info = self.classes[op.classes[op.states.index(rd.state)]]
                totals = {}
                for (s, fname), (col, init) in fields.items():
                    if s == rd.state:
                        mine = [t for t in terms if t.state == s and t.field == fname]
                        totals[fname] = (field_total(f"`{col}`", init), field_type(init, mine))
                sql = self.live_reader(additive_reader(info, rd.method, totals), keys)
                sel.append(f"E({sql!r}).alias({self.col_for(rd.result)!r})")
                reads.append(rd.result)
        out = self.py.fresh("agg")
        self.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads

    # -- the sign of the rows (signed plans, :mod:`.signed`, override these) -------------
    def signed_rows(self: Planner, var: str, fk: FrameKey) -> str:
        """A frame of rows with their ``_sign`` column: every row is an insert in a batch plan."""
        return f"{var}.withColumn('_sign', F.lit(1))"

    def live_sums(self: Planner, keys: tuple[str, ...]) -> list[str]:
        """More aggregates of the additive sums (none in a batch plan)."""
        return []

    def live_columns(self: Planner, keys: tuple[str, ...]) -> list[str]:
        """More columns kept by the additive readers' projection (none in a batch plan)."""
        return []

    def live_reader(self: Planner, sql: str, keys: tuple[str, ...]) -> str:
        """An additive reader's SQL as the readers' projection computes it."""
        return sql

    def _action(self: Planner, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native map part (action code + arguments per row), one Arrow reducer per key."""
        fk_inputs = {self.frame_key(act.loops) for op in group for act in op.actions}
        if len(fk_inputs) > 1:
            raise BackendError(
                f"state `{user_name(group[0].name)}` receives actions from loops at different "
                "levels; the Spark backend supports that for additive states only",
                group[0].actions[0].span,
            )
        (fk,) = fk_inputs if fk_inputs else {self.frame_key(group[0].scope)}
        if not fk_inputs:
            fk = ROWS
        r = self.renderer(fk)
        udf_cols: list[str] = []
        defaults: list[tuple[str, str]] = []
        outs: list[str] = []
        reads: list[str] = []
        src = self.frame(fk).var
        for op in group:
            (s,) = op.states
            cls = self.refs[op.classes[0]]
            alias = self.import_class(op.classes[0])
            amap = action_map(op, r)
            cols = [spark_col(c) for c in amap.columns]
            readers = reader_list(op, self.a)
            rtypes = [spark_type(self.ty.types.get(res, "any")) for _, res in readers]
            args = constructor_args(op, self.a, self.scalar_params)
            items = [repr(x.value) if isinstance(x, Lit) else x.name for x in args]
            ctor = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            udf = self.py.fresh(f"{user_name(s, keep_callee=False)}_reducer")
            line = render(
                "action_reducer.py.j2", var=udf, cls=alias, ctor=ctor, sites=repr(list(amap.sites)),
                packed=repr(amap.packed), readers=repr([m for m, _ in readers]), types=repr(rtypes),
                state=user_name(s), cls_name=cls.__name__,
            )  # fmt: skip
            if not all(isinstance(x, Lit) for x in args):
                self.emit(line)  # built per call: it depends on the plan's parameters
            else:
                self.reducers.append(line)
            self.python_ops.append(f"{user_name(s)} ({cls.__name__} reducer)")
            self.python_states.append(op.name)
            src = self.frames[fk].var
            if self._can_reduce_partitions(op, cls, amap.packed, keys, readers, fk_inputs):
                return self._reduce_partitions(udf, src, cols, keys, readers)
            col = self.columns.get(f"{s}:reduced", f"{user_name(s, keep_callee=False)}_reduced")
            udf_cols.append(f"{udf}.udf({', '.join(cols)}).alias({col!r})")
            for i, (_, res) in enumerate(readers):
                outs.append(f"F.col('{col}._{i + 1}').alias({self.col_for(res)!r})")
                reads.append(res)
                defaults.append((self.col_for(res), f"{udf}.fresh()[{i}]"))
        agg = self.py.fresh("reduced")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(f"{agg} = {src}{grouping}.agg({', '.join(udf_cols)})"
                  "  # map part native, reduce part: Arrow reducer per scope key")  # fmt: skip
        out = self.py.fresh("agg")
        kcols = [f"F.col({k!r})" for k in keys]
        self.emit(f"{out} = {agg}.select({', '.join([*kcols, *outs])})")
        if not keys:
            # a global aggregate over no rows has no row: use a fresh state's readers
            fill = self.py.fresh("agg")
            pairs = ", ".join(f"({c!r}, {v})" for c, v in defaults)
            self.emit(f"{fill} = ll.default_row(spark, {out}, [{pairs}])")
            out = fill
        return out, reads

    def _can_reduce_partitions(self: Planner, op, cls, packed, keys, readers, fk_inputs) -> bool:  # noqa: ANN001
        """Whole hash partitions reduced at once: one key column, numeric arguments, and
        grouped readers offered by the state class (IntervalSequence does)."""
        grouped = getattr(cls, "grouped_reader", None)
        if not (packed and len(keys) == 1 and grouped is not None and len(fk_inputs) == 1):
            return False
        if self.a.states[op.states[0]].args:
            return False
        if any(not isinstance(m, str) or grouped(m) is None for m, _ in readers):
            return False
        key_t = self.ty.types.get(self._key_param(keys[0]), "any")
        arg_ts = {self.ty.of(a.args[0]) for a in op.actions}
        return key_t == "int" and arg_ts <= {"int", "float"}

    def _key_param(self: Planner, col: str) -> str:
        i = self.field_of_col[col]
        for lp in self.a.loops.values():
            if lp.kind == "group" and lp.key == (i,):
                return lp.params[0]
        return ""

    def _reduce_partitions(self: Planner, udf: str, src: str, cols: list[str], keys: tuple[str, ...],
                           readers: list) -> tuple[str, list[str]]:  # fmt: skip
        (key,) = keys
        part = self.py.fresh("partitions")
        self.emit(
            f"{part} = {src}.select(F.col({key!r}).alias('k'), {cols[0]}.alias('c'), "
            f"{cols[1]}.alias('a')).repartition('k')  # map part native; one shuffle by key"
        )
        out = self.py.fresh("agg")
        sel = [f"F.col('k').alias({key!r})"] + [
            f"F.col('_{i + 1}').alias({self.col_for(res)!r})" for i, (_, res) in enumerate(readers)
        ]
        self.emit(
            f"{out} = {part}.mapInArrow({udf}.partitions, {udf}.partition_schema('bigint'))"
            f".select({', '.join(sel)})  # reduce part: each partition's keys at once (Python)"
        )
        return out, [res for _, res in readers]
