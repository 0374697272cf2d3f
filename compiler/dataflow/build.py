"""Build the dataflow graph from an analysed program.

One node per operator: sources and scalar parameters; one ``group_by`` or
``iterate`` node per loop (its rows flow into the operators inside it); one
``state`` node per fused state operator (its map part runs per row, its
reduce part per scope key); one ``scalar`` or ``host`` node per remaining
binding; one ``yield`` node per ``yield``; one ``return`` node.

Assumes: ``classify_operators`` ran (``Program.analysis``, ``operators``,
``scopes``, ``kinds``).
Guarantees: every variable a node needs arrives on exactly one arc from the
node that produces it (checked by :meth:`DataflowGraph.verify`).
"""

from __future__ import annotations

from typing import Any

from ..analysis import Analysis
from ..ir.nodes import Apply, Builtin, Lambda, Let, Prim, StateCall, StateNew, Var
from ..ir.prims import runs_python
from ..ir.traverse import children, walk
from ..names import is_temp
from ..program import Program
from .exprs import render, render_guards, render_name
from .graph import DataflowGraph, Node
from .payloads import (
    ActionState,
    AdditiveState,
    GroupBy,
    HostCall,
    Iterate,
    OrderedState,
    Param,
    Return,
    Scalar,
    Source,
    Yield,
)

__all__ = ["build_graph"]


def build_graph(prog: Program) -> DataflowGraph:
    a: Analysis = prog.analysis
    fn = prog.fn
    g = DataflowGraph(fn.name)
    producer: dict[str, str] = {}
    read_results = {s.result for s in a.sites if s.kind == "read"}
    type_of = _type_of(prog)

    def scope_text(loops: tuple[str, ...]) -> str:
        from ..passes.analyze_scopes import scope_of

        return scope_of(a, loops).text()

    # sources and parameters
    for p in fn.params:
        if p.kind == "rows":
            nid = f"source:{p.name}"
            op = Source(p.span, p.name, p.types)
        else:
            nid = f"param:{p.name}"
            op = Param(p.span, p.name, p.types[0])
        g.add(Node(nid, op, f"{p.name}: {p.type_text()}", "global", (), True, (p.name,)))
        producer[p.name] = nid

    # loops
    for name, lp in a.loops.items():
        nid = f"{'group_by' if lp.kind == 'group' else 'iterate'}:{name}"
        if lp.kind == "group":
            label = f"group_by({_fields(lp.key)}) of {lp.source}"
            if any(f in a.virtual for f in lp.key):
                parts = [key_part_text(lp.source, f, a.virtual) for f in lp.key]
                label = f"group_by(computed key ({', '.join(parts)})) of {lp.source}"
            if lp.order_by is not None:
                label += f", each group ordered by {order_text(lp.source, lp.order_by)}"
        else:
            nsrc = next((len(p.types) for p in fn.params if p.name == lp.source), 0)
            real = tuple(f for f in lp.fields if f < nsrc)
            label = f"rows of {lp.source}{_fields(real, bracket=True)}"
            if lp.order_by is not None and real != lp.fields:
                label += (
                    f" ranked by {order_text(lp.source, lp.order_by)} (native row_number() window)"
                )
            elif lp.order_by is not None:
                label += f" ordered by {order_text(lp.source, lp.order_by)}"
            elif lp.ordered:
                label += " in order"
        g.add(
            Node(
                nid,
                GroupBy(lp.span, lp) if lp.kind == "group" else Iterate(lp.span, lp),
                label,
                scope_text((*a.bound[lp.params[0]].loops,)),
                a.bound[lp.params[0]].loops,
                True,
                tuple(lp.params),
            )
        )
        for p in lp.params:
            producer[p] = nid
    for name, lp in a.loops.items():
        nid = producer[lp.params[0]]
        parent = a.rows_origin(name)
        g.connect(producer.get(parent, f"source:{lp.source}"), nid, name, "rows")

    # state operators
    fused_code: set[str] = set()
    for op in prog.operators:
        nid = f"state:{op.name}"
        reads = tuple(r.result for r in op.reads if r.result != "_")
        classes = ", ".join(
            "carried local" if c == "carry" else c.rsplit(":", 1)[-1] for c in op.classes
        )
        label = f"{classes} ({'native arg-best' if op.arg_best else op.kind + ' reducer'})"
        why_python, window = None, False  # an ordered loop: why it is not a native fold
        if op.kind == "ordered":
            from ..backend.fold import fold_check  # the backend decides what is a fold

            why_python, window = fold_check(prog, op)
            how = "ordered reducer" if why_python else "native window" if window else "native fold"
            label = f"{classes} ({how})"
        if _native_sequence(prog, op):
            label = f"{classes} (native sequence readers)"
        needs = set(op.free)
        for act in op.actions:
            needs |= {x.name for x in act.args if isinstance(x, Var)}
            needs |= {c for c, _ in act.guards}
        for n in op.map_code:
            needs |= _refs(a.bound[n].value, read_results)
        needs -= set(op.map_code)
        needs -= set(op.states)
        row_fields = {p for loop in op.inputs for p in a.loops[loop].params}
        needs -= row_fields  # they arrive with the rows of the input loops
        needs -= {r.result for r in op.reads}
        for d in op.states:
            for x in a.states[d].args:
                if isinstance(x, Var):
                    needs.add(x.name)
        payload = {"additive": AdditiveState, "ordered": OrderedState}.get(op.kind, ActionState)
        g.add(
            Node(
                nid,
                OrderedState(_operator_span(a, op), op, why_python, window)
                if op.kind == "ordered"
                else payload(_operator_span(a, op), op),
                label,
                scope_text(op.scope),
                op.scope,
                op.kind in ("additive", "container")
                or op.arg_best
                or (op.kind == "ordered" and why_python is None)
                or _native_sequence(prog, op),
                reads,
                tuple(sorted(needs)),
            )
        )
        fused_code |= set(op.map_code)
        for r in reads:
            producer[r] = nid
        for loop in op.inputs:
            for p in (loop, *a.loops[loop].params):
                g.connect(producer[a.loops[loop].params[0]], nid, p, "rows")

    # remaining bindings
    skip = set(producer) | set(a.states) | set(a.streams)
    wanted = [
        n
        for n, b in a.bound.items()
        if n not in skip and b.value is not None and not _is_structural(b.value)
    ]
    # binders inside `if` branches are part of their enclosing `if` unless used elsewhere
    nodes_for = [n for n in wanted if n not in fused_code and not a.bound[n].guards]
    # fused code still needed outside its operator gets its own node too
    needed = set()
    for n in nodes_for:
        needed |= _refs(a.bound[n].value, read_results)
    for node in g.of_kind("state"):
        needed |= set(node.needs)
    for s in a.sites:
        if s.kind in ("yield", "host"):
            needed |= {x.name for x in s.args if isinstance(x, Var)} | {c for c, _ in s.guards}
    tail = _tail_var(fn.body)
    if tail:
        needed.add(tail)
    changed = True
    while changed:  # ends: each round adds at least one of finitely many binders
        changed = False
        for n in wanted:
            if n in needed and n not in nodes_for:
                nodes_for.append(n)
                needed |= _refs(a.bound[n].value, read_results)
                changed = True
    code = prog.kinds.code
    for n in nodes_for:
        b = a.bound[n]
        kind = "host" if code.get(n) == "host" else "scalar"
        label = render(b.value, a) if n.startswith("_") else f"{n} = {render(b.value, a)}"
        if b.guards:
            label += f"   [when {render_guards(b.guards, a)}]"
        nid = f"{kind}:{n}"
        needs = tuple(sorted(_refs(b.value, read_results) | {c for c, _ in b.guards}))
        op = HostCall(b.span, n, b) if kind == "host" else Scalar(b.span, n, b)
        pyfns = python_prims(b.value, set(nodes_for), type_of)
        todo, seen = list(_refs(b.value, read_results)), set()
        while todo:  # temporaries are shown inlined in the label (ends: each name once)
            t = todo.pop()
            if t in seen or not is_temp(t) or t not in a.bound or a.bound[t].value is None:
                continue
            seen.add(t)
            pyfns |= python_prims(a.bound[t].value, set(nodes_for), type_of)
            todo.extend(_refs(a.bound[t].value, read_results))
        native = kind != "host" and not pyfns
        if pyfns and kind != "host":
            label += f"   [Python function: {', '.join(sorted(pyfns))}]"
        g.add(Node(nid, op, label, scope_text(b.loops), b.loops, native, (n,), needs))
        producer[n] = nid

    # yields
    for i, y in enumerate(prog.kinds.yields):
        site, cls = y.site, y.form
        nid = f"yield:{i}"
        needs = {x.name for x in site.args if isinstance(x, Var)} | {c for c, _ in site.guards}
        label = f"yield {render(site.args[0], a)}"
        if site.guards:
            label += f" when {render_guards(site.guards, a)}"
        g.add(
            Node(nid, Yield(site.span, i, y), f"{label}  ({cls})", scope_text(site.loops),
                 site.loops, True, (nid,), tuple(sorted(needs)))
        )  # fmt: skip
        producer[nid] = nid

    # return
    if fn.returns == "rows":
        ret_needs = tuple(f"yield:{i}" for i in range(len(prog.kinds.yields)))
        label = "rows " + (f"({', '.join(fn.columns)})" if fn.columns else "")
    else:
        ret_needs = (tail,) if tail else ()
        label = render_name(tail, a) if tail else repr(_tail_lit(fn.body))
    ret = Return(fn.span, fn.returns, None if fn.returns == "rows" else _tail(fn.body))
    g.add(Node("return", ret, label.strip(), "global", (), True, (), ret_needs))

    # data arcs
    for node in list(g.nodes()):
        for v in node.needs:
            src = producer.get(v)
            if src is None:
                continue  # reported by verify(): a needed variable without producer
            g.connect(src, node.id, v, "return" if node.kind == "return" else "data")
    return g


def _operator_span(a: Analysis, op):  # noqa: ANN001, ANN202
    """Where a state operator comes from: its first state's creation (or first action)."""
    decl = a.states.get(op.states[0]) if op.states else None
    if decl is not None:
        return decl.span
    return op.actions[0].span if op.actions else a.fn.span


def _tail(e):  # noqa: ANN001, ANN202
    while isinstance(e, Let):
        e = e.body
    return e


def _refs(e, external: set[str]) -> set[str]:
    """Variables an expression refers to.

    Binders inside its ``if`` branches are its own, except ``external`` ones
    (state reads inside a branch, produced by their state operator).
    """
    out: set[str] = set()
    inner: set[str] = set()
    for n in walk(e):
        if isinstance(n, Var):
            out.add(n.name)
        elif isinstance(n, Let):
            (out if n.name in external else inner).add(n.name)
        elif isinstance(n, Lambda):
            inner.update(n.params)
    return out - inner


def _is_structural(v) -> bool:
    """Loops, stream forms and state constructors are not computations of their own."""
    if isinstance(v, Apply):
        if isinstance(v.fn, Builtin) and v.fn.name in ("smap", "group_by", "project"):
            return True
        if isinstance(v.fn, (StateNew, StateCall)):
            return True
        if isinstance(v.fn, Builtin) and v.fn.name == "if":
            # effect-only joins (no value) are carried by their effects
            return all(isinstance(x, Lambda) and _returns_unit(x) for x in v.args[1:])
    return False


def _returns_unit(lam: Lambda) -> bool:
    e = lam.body
    while isinstance(e, Let):
        e = e.body
    return getattr(e, "value", 0) is None and not isinstance(e, Var)


def _tail_var(e) -> str | None:
    while isinstance(e, Let):
        e = e.body
    return e.name if isinstance(e, Var) else None


def _tail_lit(e):
    while isinstance(e, Let):
        e = e.body
    return getattr(e, "value", None)


def _fields(fields: tuple[int, ...], bracket: bool = False) -> str:
    text = ", ".join(str(f) for f in fields)
    if bracket:
        return f"[{text}]" if fields else ""
    return text if len(fields) != 1 else str(fields[0])


def _type_of(prog: Program) -> Any:
    """The types of the program's values (``Typing.of``), or None where they cannot be
    inferred: the table's operators run natively or not by their argument types."""
    from ..backend.types import infer_types

    try:
        return infer_types(prog.analysis, prog.refs, strict=False).of
    except Exception:  # noqa: BLE001 - the build reports it; explain says what it can
        return None


def python_prims(e: Any, operators: frozenset[str] | set[str] = frozenset(),
                 type_of: Any = None) -> set[str]:  # fmt: skip
    """The primitives of a value that run as vectorized Python functions (not counting
    the values of nested ``let``s that are ``operators`` of their own)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Let) and x.name in operators:
            stack.append(x.body)
            continue
        if (
            isinstance(x, Apply)
            and isinstance(x.fn, Prim)
            and runs_python(x.fn.op, x.args, type_of)
        ):
            out.add("format" if x.fn.op == "pct" else x.fn.op)  # "%.2f" % x is a format()
        stack.extend(children(x))
    return out


def order_text(source: str, order: tuple[tuple[int, bool], ...]) -> str:
    """``clicks[1], clicks[2] desc`` (ties: the remaining fields, ascending)."""
    return ", ".join(f"{source}[{i}]{' desc' if d else ''}" for i, d in order)


def key_part_text(source: str, f: int, virtual: dict) -> str:
    """A group key part: ``clicks[0]`` or a computed one, ``clicks[2] // 7`` (native)."""
    from ..ir.nodes import Apply, Lit, Prim, Var
    from ..ir.prims import PRIMS

    def text(e: object) -> str:
        if isinstance(e, Var) and e.name.startswith("_kf."):
            return f"{source}[{e.name[4:]}]"
        if isinstance(e, Lit):
            return repr(e.value)
        if isinstance(e, Apply) and isinstance(e.fn, Prim):
            sym = PRIMS[e.fn.op].symbol
            args = [text(x) for x in e.args]
            if sym and len(args) == 2:
                return f"({args[0]} {sym} {args[1]})"
            if e.fn.op == "neg":
                return f"-{args[0]}"
            return f"{e.fn.op}({', '.join(args)})"
        return "?"

    if f not in virtual:
        return f"{source}[{f}]"
    out = text(virtual[f][0])
    return out[1:-1] if out.startswith("(") and out.endswith(")") else out


def _native_sequence(prog, op) -> bool:  # noqa: ANN001
    """A library sequence state whose readers run natively (compiler/backend/sequence.py)."""
    from ..backend.sequence import native_sequence

    return native_sequence(op, prog.analysis, prog.refs) is not None
