"""Action state operators with a Python reducer: the map part native (action code and
arguments per row), one Arrow reducer per scope key (or, for one integer key and numeric
arguments, whole partitions reduced at once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...analysis import LoopKind
from ...dataflow.payloads import ROWS
from ...dataflow.strategy import Strategy
from ...ir.nodes import Lit
from ...names import user_name
from ..errors import BackendError
from ..frame import spark_col
from ..partial import PAIR_TEXT, pair_lines
from ..shells import render
from ..states import (
    action_map,
    constructor_args,
    reader_list,
)
from ..types import spark_type
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator

__all__ = ["ActionPlanner"]


@register(Strategy.ARROW_REDUCER)
class ActionPlanner(StatePlanner):
    """An Arrow reducer per scope key (``Strategy.ARROW_REDUCER``)."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        return self._action(group, keys)

    def _action(self, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native map part (action code + arguments per row), one Arrow reducer per key."""
        fk_inputs = {self.p.frame_key(act.loops) for op in group for act in op.actions}
        if len(fk_inputs) > 1:
            raise BackendError(
                f"state `{user_name(group[0].name)}` receives actions from loops at different "
                "levels; the Spark backend supports that for additive states only",
                group[0].actions[0].span,
            )
        (fk,) = fk_inputs if fk_inputs else {self.p.frame_key(group[0].scope)}
        if not fk_inputs:
            fk = ROWS
        r = self.p.renderer(fk)
        udf_cols: list[str] = []
        defaults: list[tuple[str, str]] = []
        outs: list[str] = []
        reads: list[str] = []
        paired: str | None = None  # the aggregate of a partial/merge pair
        src = self.p.frame(fk).var
        for op in group:
            (s,) = op.states
            cls = self.p.refs[op.classes[0]]
            alias = self.p.import_class(op.classes[0])
            amap = action_map(op, r)
            cols = [spark_col(c) for c in amap.columns]
            readers = reader_list(op, self.p.a)
            rtypes = [spark_type(self.p.ty.types.get(res, "any")) for _, res in readers]
            args = constructor_args(op, self.p.a, self.p.scalar_params)
            items = [repr(x.value) if isinstance(x, Lit) else x.name for x in args]
            ctor = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            udf = self.p.py.fresh(f"{user_name(s, keep_callee=False)}_reducer")
            line = render(
                "action_reducer.py.j2", var=udf, cls=alias, ctor=ctor, sites=repr(list(amap.sites)),
                packed=repr(amap.packed), readers=repr([m for m, _ in readers]), types=repr(rtypes),
                state=user_name(s), cls_name=cls.__name__,
            )  # fmt: skip
            if not all(isinstance(x, Lit) for x in args):
                self.p.emit(line)  # built per call: it depends on the plan's parameters
            else:
                self.p.reducers.append(line)
            self.p.python_ops.append(f"{user_name(s)} ({cls.__name__} reducer)")
            self.p.python_states.append(op.name)
            src = self.p.frames[fk].var
            if self._can_reduce_partitions(op, cls, amap.packed, keys, readers, fk_inputs):
                return self._reduce_partitions(udf, src, cols, keys, readers)
            col = self.p.columns.get(f"{s}:reduced", f"{user_name(s, keep_callee=False)}_reduced")
            if (len(group) == 1 and self.p.partial_aggregation
                    and self.p.strategy_of(op).partial == PAIR_TEXT):  # (backend/partial.py)
                paired = pair_lines(self.p, op, udf, src, cols, keys, col)
            else:
                udf_cols.append(f"{udf}.udf({', '.join(cols)}).alias({col!r})")
            for i, (_, res) in enumerate(readers):
                outs.append(f"F.col('{col}._{i + 1}').alias({self.p.col_for(res)!r})")
                reads.append(res)
                defaults.append((self.p.col_for(res), f"{udf}.fresh()[{i}]"))
        if paired is not None:
            agg = paired
        else:
            agg = self.p.py.fresh("reduced")
            grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
            self.p.emit(f"{agg} = {src}{grouping}.agg({', '.join(udf_cols)})"
                      "  # map part native, reduce part: Arrow reducer per scope key")  # fmt: skip
        out = self.p.py.fresh("agg")
        kcols = [f"F.col({k!r})" for k in keys]
        self.p.emit(f"{out} = {agg}.select({', '.join([*kcols, *outs])})")
        if not keys:
            # a global aggregate over no rows has no row: use a fresh state's readers
            fill = self.p.py.fresh("agg")
            pairs = ", ".join(f"({c!r}, {v})" for c, v in defaults)
            self.p.emit(f"{fill} = ll.default_row(spark, {out}, [{pairs}])")
            out = fill
        return out, reads

    def _can_reduce_partitions(self, op, cls, packed, keys, readers, fk_inputs) -> bool:  # noqa: ANN001
        """Whole hash partitions reduced at once: one key column, numeric arguments, and
        grouped readers offered by the state class (IntervalSequence does)."""
        grouped = getattr(cls, "grouped_reader", None)
        if not (packed and len(keys) == 1 and grouped is not None and len(fk_inputs) == 1):
            return False
        if self.p.a.states[op.states[0]].args:
            return False
        if any(not isinstance(m, str) or grouped(m) is None for m, _ in readers):
            return False
        key_t = self.p.ty.types.get(self._key_param(keys[0]), "any")
        arg_ts = {self.p.ty.of(a.args[0]) for a in op.actions}
        return key_t == "int" and arg_ts <= {"int", "float"}

    def _key_param(self, col: str) -> str:
        i = self.p.field_of_col[col]
        for lp in self.p.a.loops.values():
            if lp.kind == LoopKind.GROUP and lp.key == (i,):
                return lp.params[0]
        return ""

    def _reduce_partitions(self, udf: str, src: str, cols: list[str], keys: tuple[str, ...],
                           readers: list) -> tuple[str, list[str]]:  # fmt: skip
        (key,) = keys
        part = self.p.py.fresh("partitions")
        self.p.emit(
            f"{part} = {src}.select(F.col({key!r}).alias('k'), {cols[0]}.alias('c'), "
            f"{cols[1]}.alias('a')).repartition('k')  # map part native; one shuffle by key"
        )
        out = self.p.py.fresh("agg")
        sel = [f"F.col('k').alias({key!r})"] + [
            f"F.col('_{i + 1}').alias({self.p.col_for(res)!r})" for i, (_, res) in enumerate(readers)
        ]
        self.p.emit(
            f"{out} = {part}.mapInArrow({udf}.partitions, {udf}.partition_schema('bigint'))"
            f".select({', '.join(sel)})  # reduce part: each partition's keys at once (Python)"
        )
        return out, [res for _, res in readers]
