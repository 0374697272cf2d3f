"""Build the dataflow graph from an analysed program.

One node per operator: sources and scalar parameters; one ``group_by`` or
``iterate`` node per loop (its rows flow into the operators inside it); one
``state`` node per fused state operator (its map part runs per row, its
reduce part per scope key); one ``scalar`` or ``host`` node per remaining
binding; one ``yield`` node per ``yield``; one ``return`` node.

Assumes: ``classify_operators`` ran (``Program.analysis``, ``operators``,
``scopes``, ``kinds``).
Guarantees: every variable a node needs arrives on exactly one arc from the
node that produces it (checked by :meth:`DataflowGraph.verify`). How each node
runs is not decided here: ``passes/choose_strategy.py`` records it on the graph.
"""

from __future__ import annotations

from ..analysis import Analysis, LoopKind, SiteKind
from ..ir.nodes import Apply, Builtin, Lambda, Let, Lit, ParamKind, Prim, StateCall, StateNew, Var
from ..ir.prims import PRIMS
from ..ir.traverse import walk
from ..operators import OperatorKind
from ..primitives.windows import window_call
from ..program import Program, scope_of
from .exprs import render, render_guards, render_name
from .graph import ArcKind, DataflowGraph, Node
from .payloads import (
    ActionState,
    AdditiveState,
    GroupBy,
    HostCall,
    Iterate,
    NodeKind,
    OrderedState,
    Param,
    Return,
    Scalar,
    Source,
    Yield,
)

__all__ = ["build_graph", "refs", "read_results"]

#: the payload of a state operator's node, by the operator's kind
_PAYLOADS = {OperatorKind.ADDITIVE: AdditiveState, OperatorKind.ORDERED: OrderedState}


def build_graph(prog: Program) -> DataflowGraph:
    a: Analysis = prog.analysis
    fn = prog.fn
    g = DataflowGraph(fn.name)
    producer: dict[str, str] = {}
    reads_of_states = read_results(a)

    def scope_text(loops: tuple[str, ...]) -> str:
        return scope_of(a, loops).text()

    # sources and parameters
    for p in fn.params:
        if p.kind == ParamKind.ROWS:
            nid = f"source:{p.name}"
            op = Source(p.span, p.name, p.types)
        else:
            nid = f"param:{p.name}"
            op = Param(p.span, p.name, p.types[0])
        g.add(Node(nid, op, f"{p.name}: {p.type_text()}", "global", (), (p.name,)))
        producer[p.name] = nid

    # loops
    for name, lp in a.loops.items():
        group = lp.kind == LoopKind.GROUP
        nid = f"{'group_by' if group else 'iterate'}:{name}"
        if group:
            label = f"group_by({_fields(lp.key)}) of {lp.source}"
            if any(f in a.virtual for f in lp.key):
                parts = [key_part_text(lp.source, f, a.virtual) for f in lp.key]
                label = f"group_by(computed key ({', '.join(parts)})) of {lp.source}"
                label += session_text(lp.source, lp.key, a.virtual)
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
                GroupBy(lp.span, lp) if group else Iterate(lp.span, lp),
                label,
                scope_text((*a.bound[lp.params[0]].loops,)),
                a.bound[lp.params[0]].loops,
                tuple(lp.params),
            )
        )
        for p in lp.params:
            producer[p] = nid
    for name, lp in a.loops.items():
        nid = producer[lp.params[0]]
        parent = a.rows_origin(name)
        g.connect(producer.get(parent, f"source:{lp.source}"), nid, name, ArcKind.ROWS)

    # state operators
    fused_code: set[str] = set()
    for op in prog.operators:
        nid = f"state:{op.name}"
        reads = tuple(r.result for r in op.reads if r.result != "_")
        classes = ", ".join(
            "carried local" if c == "carry" else c.rsplit(":", 1)[-1] for c in op.classes
        )
        needs = set(op.free)
        for act in op.actions:
            needs |= {x.name for x in act.args if isinstance(x, Var)}
            needs |= {c for c, _ in act.guards}
        for n in op.map_code:
            needs |= refs(a.bound[n].value, reads_of_states)
        needs -= set(op.map_code)
        needs -= set(op.states)
        row_fields = {p for loop in op.inputs for p in a.loops[loop].params}
        needs -= row_fields  # they arrive with the rows of the input loops
        needs -= {r.result for r in op.reads}
        for d in op.states:
            for x in a.states[d].args:
                if isinstance(x, Var):
                    needs.add(x.name)
        payload = _PAYLOADS.get(op.kind, ActionState)
        span = _operator_span(a, op)
        g.add(Node(nid, payload(span, op), classes, scope_text(op.scope), op.scope, reads,
                   tuple(sorted(needs))))  # fmt: skip
        fused_code |= set(op.map_code)
        for r in reads:
            producer[r] = nid
        for loop in op.inputs:
            for p in (loop, *a.loops[loop].params):
                g.connect(producer[a.loops[loop].params[0]], nid, p, ArcKind.ROWS)

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
        needed |= refs(a.bound[n].value, reads_of_states)
    for node in g.of_kind(NodeKind.STATE):
        needed |= set(node.needs)
    for s in a.sites:
        if s.kind in (SiteKind.YIELD, SiteKind.HOST):
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
                needed |= refs(a.bound[n].value, reads_of_states)
                changed = True
    code = prog.kinds.code
    for n in nodes_for:
        b = a.bound[n]
        host = code.get(n) == "host"
        label = render(b.value, a) if n.startswith("_") else f"{n} = {render(b.value, a)}"
        if b.guards:
            label += f"   [when {render_guards(b.guards, a)}]"
        nid = f"{'host' if host else 'scalar'}:{n}"
        # a loop inside an `if` branch reads its stream (`srt = sorted(g, ...)`) by the rows
        # arcs of its operator, not as a value of this node
        needs = tuple(
            sorted((refs(b.value, reads_of_states) - set(a.streams)) | {c for c, _ in b.guards})
        )
        op = HostCall(b.span, n, b) if host else Scalar(b.span, n, b)
        g.add(Node(nid, op, label, scope_text(b.loops), b.loops, (n,), needs))
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
                 site.loops, (nid,), tuple(sorted(needs)))
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
    g.add(Node("return", ret, label.strip(), "global", (), (), ret_needs))

    # data arcs
    for node in list(g.nodes()):
        for v in node.needs:
            src = producer.get(v)
            if src is None:
                continue  # reported by verify(): a needed variable without producer
            kind = ArcKind.RETURN if node.kind is NodeKind.RETURN else ArcKind.DATA
            g.connect(src, node.id, v, kind)
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


def read_results(a: Analysis) -> set[str]:
    """The binders of the state reads (produced by their state operator)."""
    return {s.result for s in a.sites if s.kind == SiteKind.READ}


def refs(e, external: set[str]) -> set[str]:  # noqa: ANN001
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


def order_text(source: str, order: tuple[tuple[int, bool], ...]) -> str:
    """``clicks[1], clicks[2] desc`` (ties: the remaining fields, ascending)."""
    return ", ".join(f"{source}[{i}]{' desc' if d else ''}" for i, d in order)


def session_text(source: str, key: tuple[int, ...], virtual: dict) -> str:
    """How a ``session(...)`` key part is computed (``backend/sessions.py``), or ""."""
    for f in key:
        e = virtual.get(f, (None,))[0]
        if isinstance(e, Apply) and e.fn == Prim("win.session"):
            others = [key_part_text(source, o, virtual) for o in key if o != f]
            per = f" per {', '.join(others)}" if others else ""
            return (f"; sessions cut natively: lag() and a running max() over the time{per} "
                    "(two window passes over one sort)")
    return ""


def key_part_text(source: str, f: int, virtual: dict) -> str:
    """A group key part: ``clicks[0]`` or a computed one, ``clicks[2] // 7`` (native)."""

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
            if e.fn.op in ("win.tumble", "win.hop", "win.session") and all(isinstance(x, Lit) for x in e.args[1:]):
                return window_call(e.fn.op, args[0], [x.value for x in e.args[1:]])  # type: ignore[union-attr]
            return f"{e.fn.op}({', '.join(args)})"
        return "?"

    if f not in virtual:
        return f"{source}[{f}]"
    out = text(virtual[f][0])
    return out[1:-1] if out.startswith("(") and out.endswith(")") else out
