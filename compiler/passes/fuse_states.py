"""Fuse all code that touches one state into one operator (thesis §5.1.1).

Transforms the let-normal IR's scattered state calls::

    let seq = new IntervalSequence() in
    let _loop1 = smap(\\category ts ->
        let _t1 = eq(category, 0) in
        let _ = if(_t1, \\() -> let _ = seq#open(ts) in None, ...) in None, clicks) in
    seq#average_closed_size()

into one ``StateOperator`` per state (:attr:`Program.operators`): constructor,
action sites with their guards and argument atoms, the minimal per-row code
computing them (``map_code``), the loops feeding it (``inputs``) and its
readers. The IR itself is unchanged.

Assumes: let-normal form; reductions recognized (remaining ``carry`` states
are in ordered loops).
Guarantees: the state dependency graph (t depends on s when an action of t
uses a value read from s) is acyclic except inside one ordered loop, whose
states fuse into a single ordered operator; no state is read inside an
unordered loop that updates it; every state is in exactly one operator.
"""

from __future__ import annotations

import networkx as nx

from ..analysis import Analysis, Site, SiteKind, analyze
from ..dataflow.strategy import NATIVE_IN_ORDER
from ..errors import Diagnostic, PassError
from ..ir.nodes import CARRY, Var
from ..names import user_name
from ..operators import ActionSite, ReadSite, StateOperator
from ..program import Program

__all__ = ["fuse_states"]


def fuse_states(prog: Program) -> Program:
    a = analyze(prog.fn)
    diags: list[Diagnostic] = []
    deps = _state_deps(a)
    in_cycle = _check_cycles(a, deps, diags)
    groups = _ordered_groups(a, in_cycle, diags)
    if diags:
        raise PassError(diags)
    ops = []
    grouped = {s for g in groups.values() for s in g}
    for name in a.states:
        if name not in grouped:
            ops.append(_operator(a, name, (name,), prog, ordered=False))
    for loop, members in groups.items():
        ops.append(_operator(a, f"ordered.{loop}", tuple(sorted(members)), prog, ordered=True))
    return prog.with_(analysis_=a, operators=tuple(ops))


def _state_deps(a: Analysis) -> nx.DiGraph:
    """Edge s -> t when an action of t (or its guard) uses a value read from s."""
    g = nx.DiGraph()
    g.add_nodes_from(a.states)
    reader_of = {s.result: s for s in a.sites if s.kind == SiteKind.READ}
    for site in a.sites:
        if site.kind != SiteKind.ACTION:
            continue
        used = _site_inputs(site)
        for n in a.closure(used):
            r = reader_of.get(n)
            if r is not None:
                g.add_edge(r.state, site.state, site=site)
    return g


def _site_inputs(site: Site) -> set[str]:
    used = {x.name for x in site.args if isinstance(x, Var)}
    used |= {c for c, _ in site.guards}
    return used


def _check_cycles(a: Analysis, deps: nx.DiGraph, diags: list[Diagnostic]) -> set[str]:
    """Report cycles between states, except those confined to one ordered loop."""
    bad: set[str] = set()
    order = {name: i for i, name in enumerate(a.states)}  # declaration order
    cycles = []
    for c in nx.simple_cycles(deps):
        i = min(range(len(c)), key=lambda j: order[c[j]])
        cycles.append(c[i:] + c[:i])  # start each cycle at its first-declared state
    for cycle in sorted(cycles, key=lambda c: [order[x] for x in c]):
        edges = [(cycle[i], cycle[(i + 1) % len(cycle)]) for i in range(len(cycle))]
        sites = [deps.edges[e]["site"] for e in edges]
        loops = {s.loops[-1] for s in sites if s.loops}
        if len(loops) == 1 and a.loops[next(iter(loops))].ordered:
            continue  # sequential inside an ordered loop: fused into one ordered operator
        names = [_user(s) for s in cycle]
        site = max(sites, key=lambda s: (s.span.line, s.span.col))
        if len(cycle) == 1:
            msg = (
                f"cyclic dependency: an action of state `{names[0]}` uses a value read from "
                f"`{names[0]}` itself"
            )
        else:
            msg = "cyclic dependency between states " + " -> ".join(
                f"`{n}`" for n in [*names, names[0]]
            )
        diags.append(
            Diagnostic(
                site.span,
                msg,
                "a state's actions may only use values of states that are complete "
                "(read them after the loop that updates them), or iterate in order with "
                "`order_by=`",
            )
        )
        bad.update(cycle)
    return bad


def _ordered_groups(
    a: Analysis, in_cycle: set[str], diags: list[Diagnostic]
) -> dict[str, set[str]]:
    """States read inside a loop that updates them: fused per ordered loop, else errors."""
    groups: dict[str, set[str]] = {}
    for name, decl in a.states.items():
        depth = len(decl.loops)
        acts = a.actions_of(name)
        for r in a.reads_of(name):
            if len(r.loops) <= depth:
                continue
            for act in acts:
                common = _common_prefix(r.loops, act.loops)
                if len(common) <= depth:
                    continue
                loop = a.loops[common[-1]]
                if loop.ordered or any(a.loops[x].ordered for x in common[depth:]):
                    olp = next(x for x in reversed(common) if a.loops[x].ordered)
                    groups.setdefault(olp, set()).add(name)
                    break
                if name in in_cycle:
                    break
                diags.append(
                    Diagnostic(
                        r.span,
                        f"state `{_user(name)}` is read inside the loop that updates it "
                        f"(line {loop.span.line}); in an unordered loop the value read would "
                        "depend on row order",
                        "read it after the loop, or iterate in order with "
                        "`group_by(key, rows, order_by=field)`",
                    )
                )
                break
    # an ordered loop with carried locals runs as one ordered operator with them
    for name, decl in a.states.items():
        if decl.cls != CARRY:
            continue
        for act in a.actions_of(name):
            olp = next((x for x in reversed(act.loops) if a.loops[x].ordered), None)
            if olp is not None:
                groups.setdefault(olp, set()).add(name)
    # a container of an ordered loop whose value depends on the order of its actions beyond
    # a list's appends in row order (a dict's insertion order and last values, a `pop`, a
    # `discard` after an `add`) runs in Python with its loop, in row order
    for name, decl in a.states.items():
        acts = a.actions_of(name)
        if not _order_dependent(decl.cls, {act.method for act in acts}):
            continue
        for act in acts:
            olp = next((x for x in reversed(act.loops) if a.loops[x].ordered), None)
            if olp is not None:
                groups.setdefault(olp, set()).add(name)
    # a list appended to in ordered loops of different orders has no order Spark can sort by
    for name, decl in a.states.items():
        if decl.cls != "looplift.states.containers:Seq" or name in in_cycle:
            continue
        orders = {}
        for act in a.actions_of(name):
            lp = a.loops[act.loops[-1]]
            parent = a.loops[lp.parent] if lp.parent else None
            orders.setdefault(lp.order_by or (parent.order_by if parent else None), act)
        if len(orders) > 1 and not any(name in g for g in groups.values()):
            site = max(orders.values(), key=lambda s: (s.span.line, s.span.col))
            diags.append(Diagnostic(site.span, f"the list `{_user(name)}` is filled in loops of "
                                    "different orders, so its elements have no one order",
                                    "fill it in one loop, or in loops of one order (build "
                                    "one list per loop and join them after)"))  # fmt: skip
    # every state acted on inside a fused ordered loop joins that operator
    for olp, members in groups.items():
        for name in a.states:
            if any(olp in s.loops for s in a.actions_of(name)):
                members.add(name)
    # a state in two groups: merge groups (nested ordered loops)
    merged: dict[str, set[str]] = {}
    for olp, members in groups.items():
        target = next((k for k, v in merged.items() if v & members), olp)
        merged.setdefault(target, set()).update(members)
    return merged


def _order_dependent(cls: str, methods: set[str]) -> bool:
    mod, _, name = cls.partition(":")
    if mod != "looplift.states.containers" or name not in NATIVE_IN_ORDER:
        return False
    return not methods <= NATIVE_IN_ORDER[name]


def _operator(
    a: Analysis, name: str, states: tuple[str, ...], prog: Program, ordered: bool
) -> StateOperator:
    decls = [a.states[s] for s in states]
    scope = min((d.loops for d in decls), key=len)
    actions, reads = [], []
    used: set[str] = set()
    for s in states:
        cls = a.states[s].cls
        codes = _action_codes(prog, cls)
        for site in a.actions_of(s):
            actions.append(
                ActionSite(
                    s,
                    site.method,
                    codes.get(site.method, 0),
                    site.args,
                    site.guards,
                    site.loops,
                    site.span,
                )
            )
            used |= _site_inputs(site)
        for site in a.reads_of(s):
            reads.append(ReadSite(s, site.method, site.result, site.args, site.loops, site.span))
    inputs = tuple(sorted({act.loops[-1] for act in actions if len(act.loops) > len(scope)}))
    depth = len(scope)
    own_reads = {r.result for r in reads}
    read_results = {s.result for s in a.sites if s.kind == SiteKind.READ}
    # the map part: per-row binders inside the operator's loops, walked back from
    # the action arguments and guards; whatever it reaches outside is a free input
    map_code: set[str] = set()
    free: set[str] = set()
    todo = list(used)
    while todo:
        n = todo.pop()
        if n in map_code or n in free or n not in a.bound:
            continue
        b = a.bound[n]
        inside = len(b.loops) > depth and b.value is not None and n not in read_results
        if inside or (n in own_reads and ordered):
            map_code.add(n)
            todo.extend(
                x for x in a.deps[n] if x not in a.states
            )  # another state: its own operator
            todo.extend(c for c, _ in b.guards)
        else:
            free.add(n)
    return StateOperator(
        name=name,
        states=states,
        classes=tuple(d.cls for d in decls),
        scope=scope,
        inputs=inputs,
        actions=tuple(actions),
        reads=tuple(reads),
        map_code=tuple(sorted(map_code)),
        free=tuple(sorted(free)),
        ordered=ordered,
    )


def _action_codes(prog: Program, cls_ref: str) -> dict[str, int]:
    cls = prog.refs.get(cls_ref)
    if cls is None:
        return {m: i for i, m in enumerate(("add", "sub", "max", "min", "set", "radd"))}
    return {m: i for i, m in enumerate(cls.actions())}


def _common_prefix(x: tuple[str, ...], y: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for p, q in zip(x, y, strict=False):
        if p != q:
            break
        out.append(p)
    return tuple(out)


def _user(name: str) -> str:
    return user_name(name, keep_callee=False)
