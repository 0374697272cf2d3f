"""Classify the algorithm, its state classes and its operators.

- the algorithm: ``scalar`` (no RowStream parameter), ``aggregate`` (returns a
  value computed after its loops) or ``table`` (yields rows);
- each state class, by reading its source: *additive* (native sums, with the
  projection expressions recorded) or *action reducer* (needs its Python);
  an action's undo is explicit, derived (additive) or missing (then only
  incremental maintenance refuses the algorithm);
- each state operator: ``additive`` / ``action`` / ``ordered`` / ``container`` n:1 reducer,
  and which operators of one kind, scope and input, neither using the
  other's result, can fuse into one aggregate;
- every other binding: scalar 1:1 (native), host call (Python), and each
  ``yield``: 1:n emission, or a filter when guarded inside a per-row loop.

Assumes: states fused and scopes analysed.
Guarantees: :attr:`Program.kinds` (the algorithm's kind, ref → StateClassInfo,
binder → ``scalar`` | ``host``, the yields with their forms) and
:attr:`Program.operators` with ``kind`` and ``fusable_with`` set.
"""

from __future__ import annotations

import dataclasses

from ..analysis import Analysis, LoopKind, SiteKind
from ..ir.nodes import CARRY, Apply, Builtin, Host, Lambda, Prim, Var
from ..operators import OperatorKind
from ..program import AlgorithmKind, Kinds, Program, YieldSite
from ..state_classes import classify_state_class

__all__ = ["classify_operators"]


def classify_operators(prog: Program) -> Program:
    a: Analysis = prog.analysis
    fn = prog.fn
    kind = (
        AlgorithmKind.TABLE if fn.returns == "rows"
        else AlgorithmKind.AGGREGATE if fn.stream_params
        else AlgorithmKind.SCALAR
    )  # fmt: skip
    classes = {}
    for decl in a.states.values():
        if decl.cls == CARRY or decl.cls in classes:
            continue
        # an action without an undo is fine for batch and SQL; incremental maintenance
        # refuses it (:func:`~looplift.compiler.incremental_shape.incremental_shape`)
        classes[decl.cls] = classify_state_class(prog.refs[decl.cls])
    ops = []
    for op in prog.operators:
        if op.ordered:
            k = OperatorKind.ORDERED
        elif all(c != CARRY and classes[c].additive for c in op.classes):
            k = OperatorKind.ADDITIVE
        elif all(c.startswith("looplift.states.containers:") for c in op.classes):
            k = OperatorKind.CONTAINER  # a local dict / list / set: native nested aggregation
        else:
            k = OperatorKind.ACTION
        ops.append(dataclasses.replace(op, kind=k))

    def input_of(op) -> frozenset:
        return frozenset(a.input_key(loop) for loop in op.inputs)

    def needs(op) -> set[str]:
        """Every value the operator's map part depends on, transitively."""
        return a.closure(set(op.free))

    reads_of = {op.name: {r.result for r in op.reads} for op in ops}
    depends = {
        (x.name, y.name): bool(needs(x) & reads_of[y.name]) for x in ops for y in ops if x is not y
    }

    fused = []
    for op in ops:
        mates = tuple(
            o.name
            for o in ops
            if o is not op
            and not o.ordered
            and not op.ordered
            and o.kind == op.kind
            and o.scope == op.scope
            and o.inputs
            and input_of(o) == input_of(op)
            and not depends[(o.name, op.name)]
            and not depends[(op.name, o.name)]
        )
        fused.append(dataclasses.replace(op, fusable_with=mates))
    code = {}
    for name, b in a.bound.items():
        v = b.value
        if isinstance(v, Apply) and isinstance(v.fn, Host):
            code[name] = "host"
        elif isinstance(v, Apply) and isinstance(v.fn, (Prim,)):
            code[name] = "scalar"
        elif isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "if":
            if not any(isinstance(x, Lambda) and _has_effects(x, a) for x in v.args[1:]):
                code[name] = "scalar"
    yields = []
    for s in a.sites:
        if s.kind != SiteKind.YIELD:
            continue
        in_rows = bool(s.loops) and a.loops[s.loops[-1]].kind == LoopKind.ROWS
        each = isinstance(s.args[0], Var) and _is_each(a.bound.get(s.args[0].name))
        form = "filter" if (in_rows and s.guards) else "1:n" if in_rows or each else "1:1"
        yields.append(YieldSite(s, form))
    return prog.with_(
        operators=tuple(fused), kinds_=Kinds(kind, classes, code, tuple(yields))
    )


def _has_effects(lam: Lambda, a: Analysis) -> bool:
    from ..ir.nodes import StateCall
    from ..ir.traverse import walk

    return any(
        isinstance(n, Apply)
        and (isinstance(n.fn, StateCall) or (isinstance(n.fn, Builtin) and n.fn.name == "yield"))
        for n in walk(lam.body)
    )


def _is_each(b) -> bool:  # noqa: ANN001
    """A yield of the rows of a loop over container values (one row per element)."""
    v = b.value if b is not None else None
    if isinstance(v, Apply) and v.fn == Prim("nth") and isinstance(v.args[0], Var):
        return True  # the rows a fold (a loop over values updating locals) collected
    return isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "each"
