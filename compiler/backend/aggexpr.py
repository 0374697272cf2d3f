"""An aggregate algorithm as one aggregate SQL expression (``f.agg(...)``).

For an aggregate whose states live at its global scope and are fed by one loop
over its input rows, the whole algorithm is a single expression over
aggregate functions, usable in ``df.groupBy(...).agg(...)``: additive states
become ``sum(...)`` of their sign-weighted projections, an action state a
registered grouped Arrow reducer, and the code after the loop a native
expression over them. How a state becomes Spark is decided in :mod:`.states`,
shared with the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...sqltext import param_ref
from ..analysis import Analysis, LoopKind
from ..ir.nodes import Let, Lit, ParamKind, Var
from ..operators import OperatorKind, StateClassInfo, StateOperator
from ..program import AlgorithmKind, Program
from .errors import BackendError
from .sequence import NativeSequence, native_sequence, reader_sql
from .sql import PyCall, SqlRenderer, quote_ident
from .states import (
    action_map,
    additive_reader,
    additive_terms,
    field_init,
    field_total,
    field_type,
    reader_list,
)
from .types import Typing, infer_types, spark_type

__all__ = ["AggExpression", "agg_expression"]


@dataclass(frozen=True)
class AggExpression:
    sql: str  # with input fields written as \x02i\x02 (bound to column names at the call)
    reducers: tuple[tuple[str, dict[str, Any]], ...]  # (registered name, ActionReducer kwargs)
    pycalls: tuple[PyCall, ...]
    return_type: str


FIELD = "\x02"


def _refuse_nested(name: str, value: str, guard: str | None, reads: dict[str, str]) -> None:
    """An action fed by another state's result (a second pass over the rows) would nest
    aggregate functions, which SQL does not allow."""
    text = value + (guard or "")
    if any(r in text for r in reads.values()) or "sum(" in text or "looplift_udaf_" in text:
        raise BackendError(
            f"`{name}` feeds one state's result into another state over the same rows "
            "(two passes); call it on a DataFrame instead"
        )


def agg_expression(prog: Program) -> AggExpression:
    a: Analysis = prog.analysis
    fn = prog.fn
    if prog.kind != AlgorithmKind.AGGREGATE:
        raise BackendError(f"`{fn.name}` is not an aggregate algorithm")
    ty = infer_types(a, prog.refs)
    ops = prog.operators
    classes = prog.kinds.classes
    for op in ops:
        if (
            op.scope
            or op.ordered
            or any(
                len(act.loops) != 1 or a.loops[act.loops[0]].kind != LoopKind.ROWS for act in op.actions
            )
        ):
            raise BackendError(
                f"`{fn.name}` is not a single aggregate over its rows (its states are not all "
                "fed by one loop over the input); call it on a DataFrame instead"
            )
        if any(c.endswith("containers:Seq") for c in op.classes):
            raise BackendError(
                f"`{fn.name}` fills a list in an ordered loop: its order is the loop's, which a "
                "reducer over rows in no order does not keep"
            )
    seqs = {op.name: native_sequence(op, a, prog.refs, ty) for op in ops}
    kinds = {"native" if op.kind == OperatorKind.ADDITIVE or seqs[op.name] else op.kind for op in ops}
    if len(kinds) > 1:
        raise BackendError(
            f"`{fn.name}` mixes native and Python reducers, which Spark cannot evaluate in one "
            "aggregate expression; call it on a DataFrame instead"
        )
    reads: dict[str, str] = {}
    reducers: list[tuple[str, dict[str, Any]]] = []
    params = {p.name for p in fn.params if p.kind == ParamKind.SCALAR}

    def resolve(n: str) -> str | None:
        if n in reads:
            return reads[n]
        if n in params:
            return param_ref(n)
        b = a.bound.get(n)
        if b is not None and b.value is None:
            for lp in a.loops.values():
                if n in lp.params and lp.kind == LoopKind.ROWS:
                    return f"{FIELD}{lp.fields[lp.params.index(n)]}{FIELD}"
            raise BackendError(f"`{n}` is not available in an aggregate expression")
        return None

    r = SqlRenderer(a, ty, resolve, prog.refs, {})
    for op in ops:
        if not op.actions:  # (dead code after a `return`): the plan reads a fresh state
            raise BackendError(f"state `{op.states[0]}` gets no action; call `{fn.name}` on a "
                               "DataFrame")  # fmt: skip
        if op.kind == OperatorKind.ADDITIVE:
            _additive(fn.name, op, classes, r, ty, reads)
        elif seqs[op.name] is not None:
            _sequence(fn.name, op, seqs[op.name], a, r, ty, reads)
        else:
            reducers.append(_action(fn.name, op, a, r, ty, reads))
    tail = fn.body
    while isinstance(tail, Let):
        tail = tail.body
    sql = r.expr(tail)
    native_reads = [v for op in ops if seqs[op.name] for rd in op.reads if (v := reads.get(rd.result))]
    if (
        "sum(" not in sql
        and not any(name in sql for name, _ in reducers)
        and not any(v in sql for v in native_reads)
    ):
        # no state is read: still one value per group (and one row without rows)
        sql = f"(CASE WHEN count(1) >= 0 THEN {sql} END)"
    t = ty.of(tail) if isinstance(tail, (Var, Lit)) else "any"
    return AggExpression(sql, tuple(reducers), tuple(r.pycalls.values()), spark_type(t))


def _additive(
    name: str,
    op: StateOperator,
    classes: dict[str, StateClassInfo],
    r: SqlRenderer,
    ty: Typing,
    reads: dict[str, str],
) -> None:
    terms = additive_terms(op, classes, lambda act: r, ty)
    for t in terms:
        _refuse_nested(name, t.sql, None, reads)
    for rd in op.reads:
        if rd.result == "_":
            continue
        info = classes[op.classes[op.states.index(rd.state)]]
        totals = {}
        for fname, init_text in info.fields:
            init = field_init(init_text)
            mine = [t for t in terms if t.state == rd.state and t.field == fname]
            summed = f"sum({' + '.join(t.sql for t in mine) or '0'})"
            totals[fname] = (field_total(summed, init), field_type(init, mine))
        reads[rd.result] = additive_reader(info, rd.method, totals)


def _sequence(
    name: str,
    op: StateOperator,
    ns: NativeSequence,
    a: Analysis,
    r: SqlRenderer,
    ty: Typing,
    reads: dict[str, str],
) -> None:
    """A library sequence state read natively: an aggregate expression per reader."""
    code, arg = action_map(op, r).columns
    _refuse_nested(name, code + arg, None, reads)
    readers = reader_list(op, a)
    types = [spark_type(ty.types.get(res, "any")) for _, res in readers]
    k_sql = r.expr(ns.k) if ns.k is not None else None
    sqls = reader_sql(ns, code, arg, [m for m, _ in readers], types, k_sql)
    for (_, res), sql in zip(readers, sqls, strict=True):
        reads[res] = f"({sql})"


def _action(
    name: str, op: StateOperator, a: Analysis, r: SqlRenderer, ty: Typing, reads: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    (s,) = op.states
    amap = action_map(op, r)
    if not amap.packed:
        raise BackendError(
            f"state `{s}` takes several actions per row; call `{name}` on a DataFrame"
        )
    code, arg = amap.columns
    _refuse_nested(name, code + arg, None, reads)
    readers = reader_list(op, a)
    udaf = f"looplift_udaf_{name}_{s.replace('.', '_')}"
    spec = {
        "cls": op.classes[0],
        "ctor": tuple(x.value for x in a.states[s].args if isinstance(x, Lit)),
        "sites": list(amap.sites),
        "packed": True,
        "readers": [m for m, _ in readers],
        "types": [spark_type(ty.types.get(res, "any")) for _, res in readers],
    }
    call = f"{quote_ident(udaf)}({code}, {arg})"
    for i, (_, res) in enumerate(readers):
        reads[res] = f"{call}.{quote_ident('_' + str(i + 1))}"
    return udaf, spec
