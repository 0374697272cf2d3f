"""Decide once how every operator of the dataflow graph runs, and record it on the graph.

Each node gets a :class:`~..dataflow.strategy.Choice` (``node.strategy``): a state
operator's reducer (native sums, arg-best, containers, sequence readers, an Arrow
reducer, the readers of a fresh state, or an ordered loop as a native fold, a native
window or Python per scope key), a value's (a native expression, vectorized Python
functions, a host call) and the structure's (sources, loops, yields, the result).
``--check``, ``--explain``, the plan builder (its state planners are found by the
recorded strategy) and the runtime read the record; nothing decides again.

Assumes: the graph was built (``dataflow/build.py``) from the analysed program.
Guarantees: every node has a strategy; a state node's label ends with the strategy.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..analysis import Analysis
from ..backend.boundary import boundary_check
from ..backend.fold import fold_check
from ..backend.group_windows import statistics_key, window_check
from ..backend.ordered_cost import ordered_strategy
from ..backend.partial import partial_form
from ..backend.sequence import OVER_ROWS, native_sequence, window_text
from ..backend.types import infer_types
from ..dataflow.build import read_results, refs
from ..dataflow.graph import DataflowGraph, Node
from ..dataflow.payloads import ROWS, NodeKind, StateOp, frame_key
from ..dataflow.strategy import Choice, Strategy
from ..ir.nodes import Apply, Let, Lit, Prim
from ..ir.prims import runs_python
from ..ir.traverse import children
from ..names import is_temp
from ..operators import OperatorKind, StateOperator
from ..primitives import NOT_LIT
from ..primitives.strnative import re_refusal
from ..program import Program

__all__ = ["choose_strategy", "python_prims", "state_choice"]

_STRUCTURE = Choice(Strategy.STRUCTURE)


def choose_strategy(
    prog: Program, graph: DataflowGraph, largest_group: int | None = None
) -> DataflowGraph:
    """Record every node's strategy on ``graph`` (in place; returned for chaining);
    ``largest_group``: the algorithm's hint of its largest group's rows, or None
    (:mod:`..backend.ordered_cost`)."""
    ops = {op.name: op for op in prog.operators}
    values = {n.produces[0] for n in graph.of_kind(NodeKind.SCALAR, NodeKind.HOST)}
    type_of = _type_of(prog) if values else None
    for node in list(graph.nodes()):
        label = node.label
        if isinstance(node.op, StateOp):
            op = node.op.operator
            choice = state_choice(prog, op, ops, largest_group, _reads_after(prog, op, graph))
            label = f"{label} ({choice.strategy.value})"
        elif node.kind is NodeKind.HOST:
            choice = Choice(Strategy.HOST_CALL, why=_island_why(prog, node))
        elif node.kind is NodeKind.SCALAR:
            choice = _value_choice(prog.analysis, node, values, type_of)
            if choice.python_fns:
                label += f"   [Python function: {', '.join(choice.python_fns)}]"
        else:
            choice = _STRUCTURE
        graph.record(dataclasses.replace(node, label=label, strategy=choice))
    return graph


def _reads_after(prog: Program, op: StateOperator, graph: DataflowGraph) -> bool:
    """Does the plan read ordered loop ``op``'s carries after the loop (a fold over each
    scope key's rows, whatever gives the rows it yields)?"""
    if not op.ordered:
        return False
    a = prog.analysis
    after = {r.result for r in op.reads
             if r.result != "_" and len(a.bound[r.result].loops) <= len(op.scope)}  # fmt: skip
    return any(after & set(m.needs) for m in graph.nodes())


def _island_why(prog: Program, node: Any) -> str | None:
    """A host call of a Python island (``frontend/islands.py``): what it outlines and why."""
    fn = getattr(getattr(node.op.binding, "value", None), "fn", None)
    ref = getattr(fn, "ref", None)
    for i in prog.fn.islands:
        if i.ref == ref:
            return f"Python island (line {i.span.line}, {i.kind}): {i.why}"
    return None


def state_choice(
    prog: Program,
    op: StateOperator,
    ops: dict[str, StateOperator],
    largest_group: int | None = None,
    reads_after: bool = False,
) -> Choice:
    """How a state operator is reduced per scope key, and what it aggregates before the
    shuffle (``Choice.partial``, ``backend/partial.py``)."""
    choice = _reduce_choice(prog, op, ops, largest_group, reads_after)
    seq = native_sequence(op, prog.analysis, prog.refs) if choice.strategy is Strategy.SEQUENCE else None
    fused = choice.strategy is Strategy.SEQUENCE and any(
        m in ops and native_sequence(ops[m], prog.analysis, prog.refs) is not None
        for m in op.fusable_with
    )
    # (sums over the rows as a window send every row to its key's task: no partial)
    if choice.strategy is Strategy.ARROW_REDUCER:
        fused = any(m in ops and ops[m].kind == op.kind for m in op.fusable_with)
    cls = prog.refs.get(op.classes[0]) if op.classes else None
    mergeable = getattr(cls, "merger", lambda: None)() is not None
    partial = None if choice.over_rows else partial_form(op, choice.strategy.name, seq, fused,
                                                         mergeable)  # fmt: skip
    return dataclasses.replace(choice, partial=partial) if partial else choice


def _reduce_choice(
    prog: Program,
    op: StateOperator,
    ops: dict[str, StateOperator],
    largest_group: int | None,
    reads_after: bool,
) -> Choice:
    if not op.actions:
        return Choice(Strategy.FRESH_READERS)
    if op.kind == OperatorKind.ADDITIVE:
        over_rows, why = window_check(prog, op)
        joined = over_rows and statistics_key(prog, op) is not None
        return Choice(Strategy.NATIVE_SUMS, over_rows=over_rows, form_why=why, by_statistics=joined)
    if op.kind == OperatorKind.ORDERED:
        why, window = fold_check(prog, op)
        if why is not None:
            return Choice(Strategy.PYTHON_ORDERED, why=why)
        bounds, form_why = boundary_check(prog, op)
        strategy, by_size = ordered_strategy(bounds is not None, window and not reads_after,
                                              largest_group, reads_after)  # fmt: skip
        if strategy is Strategy.NATIVE_BOUNDARY:
            return Choice(strategy, form_why=form_why, detail=by_size)
        return Choice(strategy, form_why=form_why if bounds is None else None, detail=by_size)
    if op.kind == OperatorKind.CONTAINER:
        return Choice(Strategy.CONTAINER)
    seq = native_sequence(op, prog.analysis, prog.refs)
    if seq is not None:
        over_rows, why = window_check(prog, op) if seq.cls_name in OVER_ROWS else (False, None)
        detail = window_text(seq) if over_rows else seq.describe()
        joined = over_rows and statistics_key(prog, op) is not None
        return Choice(Strategy.SEQUENCE, detail=detail, over_rows=over_rows, form_why=why,
                      by_statistics=joined)
    # arg-best operators fused with an operator that is not are reduced with it, in Python
    mates = [ops[m] for m in op.fusable_with if m in ops and ops[m].kind == op.kind]
    group = [op, *(m for m in mates if native_sequence(m, prog.analysis, prog.refs) is None)]
    if all(_arg_best_of_rows(prog.analysis, o) for o in group):
        return Choice(Strategy.ARG_BEST)
    return Choice(Strategy.ARROW_REDUCER)


def _arg_best_of_rows(a: Analysis, op: StateOperator) -> bool:
    return op.arg_best and bool(op.actions) and frame_key(a, op.actions[0].loops) == ROWS


def _value_choice(a: Analysis, node: Node, operators: set[str], type_of: Any = None) -> Choice:
    """A value: native, or with string work that runs as vectorized Python functions
    (its own, and its inlined temporaries')."""
    b = a.bound[node.produces[0]]
    external = read_results(a)
    pyfns = python_prims(b.value, operators, type_of)
    todo, seen = list(refs(b.value, external)), set()
    while todo:  # temporaries are inlined into their consumer (ends: each name once)
        t = todo.pop()
        if t in seen or not is_temp(t) or t not in a.bound or a.bound[t].value is None:
            continue
        seen.add(t)
        pyfns |= python_prims(a.bound[t].value, operators, type_of)
        todo.extend(refs(a.bound[t].value, external))
    if pyfns:
        return Choice(Strategy.PYTHON_FUNCTION, python_fns=tuple(sorted(pyfns)))
    return Choice(Strategy.NATIVE_EXPR)


def _type_of(prog: Program) -> Any:
    """The types of the program's values (``Typing.of``), or None where they cannot be
    inferred: the table's operators run natively or not by their argument types."""
    try:
        return infer_types(prog.analysis, prog.refs, strict=False).of
    except Exception:  # noqa: BLE001 - the build reports it; explain says what it can
        return None


def _named(x: Apply) -> str:
    """A primitive running as a Python function, with the construct that keeps a ``re``
    call there (``re.search (`\\b` (word characters differ between engines))``)."""
    assert isinstance(x.fn, Prim)
    why = re_refusal(x.fn.op, [a.value if isinstance(a, Lit) else NOT_LIT for a in x.args])
    return f"{x.fn.op} ({why})" if why is not None else x.fn.op


def python_prims(e: Any, operators: frozenset[str] | set[str] = frozenset(),
                 type_of: Any = None) -> set[str]:  # fmt: skip
    """The primitives of a value that run as vectorized Python functions (not counting
    the values of nested ``let``s that are ``operators`` of their own; ``type_of``: the
    values' types, by which the table's operators decide)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Let) and x.name in operators:
            stack.append(x.body)
            continue
        if isinstance(x, Apply) and isinstance(x.fn, Prim) and runs_python(x.fn.op, x.args, type_of):
            out.add("format" if x.fn.op == "pct" else _named(x))  # "%.2f" % x is a format()
        stack.extend(children(x))
    return out
