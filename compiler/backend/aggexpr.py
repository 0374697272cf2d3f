"""An aggregate algorithm as one aggregate SQL expression (``f.agg(...)``).

For an aggregate whose states live at its global scope and are fed by one loop
over its input rows, the whole algorithm is a single expression over
aggregate functions, usable in ``df.groupBy(...).agg(...)``: additive states
become ``sum(...)`` of their sign-weighted projections, an action state a
registered grouped Arrow reducer, and the code after the loop a native
expression over them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis import Analysis
from ..ir.nodes import Let, Lit, Var
from ..program import Program
from .plan import _exclusive, _py_expr_sql
from .sql import BackendError, PyCall, SqlRenderer, quote_ident
from .types import infer_types, spark_type

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
    if prog.kind != "aggregate":
        raise BackendError(f"`{fn.name}` is not an aggregate algorithm")
    ty = infer_types(a, prog.refs)
    ops = prog.operators
    classes = prog.kinds.classes
    for op in ops:
        if (
            op.scope
            or op.ordered
            or any(
                len(act.loops) != 1 or a.loops[act.loops[0]].kind != "rows" for act in op.actions
            )
        ):
            raise BackendError(
                f"`{fn.name}` is not a single aggregate over its rows (its states are not all "
                "fed by one loop over the input); call it on a DataFrame instead"
            )
    kinds = {op.kind for op in ops}
    if len(kinds) > 1:
        raise BackendError(
            f"`{fn.name}` mixes native and Python reducers, which Spark cannot evaluate in one "
            "aggregate expression; call it on a DataFrame instead"
        )
    reads: dict[str, str] = {}
    reducers: list[tuple[str, dict[str, Any]]] = []
    params = {p.name for p in fn.params if p.kind == "scalar"}

    def resolve(n: str) -> str | None:
        if n in reads:
            return reads[n]
        if n in params:
            return f"\x01{n}\x01"
        b = a.bound.get(n)
        if b is not None and b.value is None:
            for lp in a.loops.values():
                if n in lp.params and lp.kind == "rows":
                    return f"{FIELD}{lp.fields[lp.params.index(n)]}{FIELD}"
            raise BackendError(f"`{n}` is not available in an aggregate expression")
        return None

    r = SqlRenderer(a, ty, resolve, prog.refs, {})
    for op in ops:
        if op.kind == "additive":
            for rd in op.reads:
                info = classes[op.classes[0]]
                env, envt = {}, {}
                for fname, init in info.fields:
                    terms = []
                    for act in op.actions:
                        spec = next(x for x in info.additive_actions if x.method == act.method)
                        penv = {p: r.expr(x) for p, x in zip(spec.params, act.args, strict=True)}
                        pt = {p: ty.of(x) for p, x in zip(spec.params, act.args, strict=True)}
                        for f2, sign, text in spec.updates:
                            if f2 != fname:
                                continue
                            v, _ = _py_expr_sql(text, penv, pt)
                            v = f"(- {v})" if sign == "-" else v
                            g = r.guards(act.guards) if act.guards else None
                            _refuse_nested(fn.name, v, g, reads)
                            terms.append(f"CASE WHEN {g} THEN {v} ELSE 0 END" if g else v)
                    total = f"coalesce(sum({' + '.join(terms) or '0'}), 0)"
                    env[f"self.{fname}"] = f"({init} + {total})" if init not in ("0",) else total
                    envt[f"self.{fname}"] = "float" if "." in init else "int"
                text = dict(info.reader_exprs)[rd.method]
                reads[rd.result], _ = _py_expr_sql(text, env, envt)
        else:
            (s,) = op.states
            if not (_exclusive(op.actions) and all(len(x.args) == 1 for x in op.actions)):
                raise BackendError(
                    f"state `{s}` takes several actions per row; call `{fn.name}` on a DataFrame"
                )
            code = " ".join(f"WHEN {r.guards(x.guards)} THEN {i}" for i, x in enumerate(op.actions))
            arg = " ".join(
                f"WHEN {r.guards(x.guards)} THEN {r.expr(x.args[0])}" for x in op.actions
            )
            _refuse_nested(fn.name, code + arg, None, reads)
            readers = [rd for rd in op.reads if rd.result != "_"]
            name = f"looplift_udaf_{fn.name}_{s.replace('.', '_')}"
            spec = {
                "cls": op.classes[0],
                "ctor": tuple(x.value for x in a.states[s].args if isinstance(x, Lit)),
                "sites": [(x.method, 1) for x in op.actions],
                "packed": True,
                "readers": [
                    (rd.method, tuple(x.value for x in rd.args)) if rd.args else rd.method
                    for rd in readers
                ],
                "types": [spark_type(ty.types.get(rd.result, "any")) for rd in readers],
            }
            reducers.append((name, spec))
            call = f"{quote_ident(name)}(CASE {code} END, CASE {arg} END)"
            for i, rd in enumerate(readers):
                reads[rd.result] = f"{call}.{quote_ident('_' + str(i + 1))}"
    tail = fn.body
    while isinstance(tail, Let):
        tail = tail.body
    sql = r.expr(tail)
    if "sum(" not in sql and not any(name in sql for name, _ in reducers):
        # no state is read: still one value per group (and one row without rows)
        sql = f"(CASE WHEN count(1) >= 0 THEN {sql} END)"
    t = ty.of(tail) if isinstance(tail, (Var, Lit)) else "any"
    return AggExpression(sql, tuple(reducers), tuple(r.pycalls.values()), spark_type(t))
