"""``--explain``: what an algorithm compiled into, for a human.

Per algorithm: its kind, inputs, scopes, and each operator with its scope
key, what runs natively (map phase, native sums, scalar expressions) and
what needs Python (action reducers, ordered loops, host functions), and why.

The strategies come from the graph (decided once, by ``passes/choose_strategy.py``,
and recorded on its nodes), and the ``runs:`` line also from what the backend made (``made``: every Python function
its SQL calls and every operator it reduces in Python), so it never says
"native" of a plan that calls Python. An algorithm the backend cannot build
(``failure``) says so instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import groupform
from ..kernels import kernels_called
from .analysis import LoopKind
from .dataflow.exprs import render, render_guards, render_name
from .dataflow.payloads import NodeKind
from .dataflow.strategy import PyCallKind, Strategy
from .ir.nodes import CARRY, Host
from .names import is_temp, user_name

if TYPE_CHECKING:
    from .dataflow.graph import DataflowGraph
    from .program import Program

__all__ = ["explain"]


def explain(prog: Program, g: DataflowGraph, made: Any = None, failure: Any = None) -> str:
    """The explanation of one compiled algorithm (its analysed program and its graph; ``made``:
    the backend's plan module or SQL function; ``failure``: the backend's error instead)."""
    a = prog.analysis
    made_python = set(getattr(made, "python_states", ()))
    fold_reasons = dict(getattr(made, "fold_reasons", ()))
    fn = prog.fn
    classes = prog.kinds.classes
    out: list[str] = []
    sig = ", ".join(f"{p.name}: {p.type_text()}" for p in fn.params)
    out.append(f"algorithm {fn.name}({sig})")
    kind = prog.kind
    what = {
        "scalar": "scalar (1:1): one native expression per row",
        "aggregate": "aggregate (n:1): one value per call (per group when used in GROUP BY)",
        "table": "table (n:m): yields rows",
    }[kind]
    whole = getattr(made, "in_python", "")  # a scalar run as one Python call
    if whole:
        what = "scalar (1:1): the whole function as one vectorized Python call per batch"
    elif any(i.kind == "whole function" for i in fn.islands):
        what = "scalar (1:1): the whole function as one Python island (one Arrow UDF per batch)"
    out.append(f"  kind: {what}")
    if fn.columns:
        out.append(f"  columns: {', '.join(fn.columns)}")

    loops = g.of_kind(NodeKind.GROUP_BY, NodeKind.ITERATE)
    if loops:
        out.append("  scopes:")
        for n in loops:
            lp = n.op.loop
            if lp.kind == LoopKind.GROUP:
                key = ", ".join(a.loops[lp.name].params[:1])
                out.append(f"    {lp.name}: {n.label}; key {key} -> scope key {n.scope}")
            else:
                out.append(f"    {lp.name}: {n.label}; per row, scope {n.scope}")

    ops = g.of_kind(NodeKind.STATE)
    hosted: set[str] = set()  # host calls inside a state's map part
    hosted_refs: set[str] = set()  # the functions they call
    hosted_islands: set[str] = set()  # the Python islands among them
    islands = {i.ref: i for i in fn.islands}
    per_group: dict[str, str] = {}  # island ref -> the ordered reducer that runs it
    if ops:
        out.append("  operators:")
    for n in ops:
        op = n.op.operator
        strat = n.strategy.strategy
        out.append(f"    {op.name}: {n.label}, scope key {n.scope}")
        for s, cref in zip(op.states, op.classes, strict=True):
            if cref == CARRY:
                out.append(f"      state {_user(s)}: carried local, updated in loop order")
                continue
            info = classes[cref]
            if strat is Strategy.CONTAINER:
                what = {"KeyedSums": "dict of sums", "KeyedMax": "dict of maxima",
                        "KeyedMin": "dict of minima", "ValueSet": "set", "Bag": "list",
                        "Seq": "list of an ordered loop", "PySet": "set of an ordered loop"}  # fmt: skip
                how = "reversible); actions add; value() is a sorted array"
                if info.name == "Seq":  # filled in an ordered loop (no undo)
                    how = "batch and SQL only); actions append; value() is in the loop's order"
                elif info.name == "PySet":
                    how = "batch and SQL only); actions add; value() is a sorted array"
                kind = what.get(info.name, info.name)
                out.append(f"      state {_user(s)}: local {kind} ({info.name}, {how}")
                continue
            tag = {Strategy.ARG_BEST: "arg-max / arg-min, native",
                   Strategy.SEQUENCE: "sequence state, read natively"}.get(
                strat, "additive" if info.additive else "action reducer")  # fmt: skip
            out.append(
                f"      state {_user(s)}: {info.name} — {tag}; actions "
                f"{', '.join(info.actions)}; readers {', '.join(info.readers)}"
            )
            if info.additive:
                for act in info.additive_actions:
                    ups = "; ".join(f"{f} {sign}= {e}" for f, sign, e in act.updates)
                    out.append(f"        projection {act.method}({', '.join(act.params)}): {ups}")
                for r, e in info.reader_exprs:
                    out.append(f"        reader {r}() = {e}")
            elif strat not in (Strategy.ARG_BEST, Strategy.SEQUENCE):
                out.append(f"        needs Python because {info.why}")
            no_undo = [act for act, how in info.undo if how == "missing"]
            if no_undo:
                out.append(
                    f"        no undo for {', '.join(no_undo)}: batch and SQL only; incremental "
                    "views and streams refuse it"
                )
        if op.fusable_with:
            out.append(
                f"      fusable with {', '.join(op.fusable_with)}: same scope {n.scope} and same "
                "input, one aggregate"
            )
        where = ", ".join(op.inputs) if op.inputs else "(no loop)"
        # (an ordered reducer runs its loop body, host calls too, in its own Python)
        hosts = [b for b in op.map_code if prog.kinds.code.get(b) == "host" and not op.ordered]
        if op.ordered:  # its islands run per group, in the reducer's Python
            for b in op.map_code:
                value = a.bound[b].value if b in a.bound else None
                if value is not None and isinstance(getattr(value, "fn", None), Host):
                    per_group.setdefault(value.fn.ref, op.name)
        part = "native except host calls" if hosts else "native"
        out.append(f"      map part ({part}, per row of {where}):")
        for b in hosts:
            value = a.bound[b].value
            fn_name = value.fn.ref.rsplit(":", 1)[-1] if isinstance(value.fn, Host) else b
            label = render(value, a) if is_temp(b) else f"{_user(b)} = {render(value, a)}"
            if isinstance(value.fn, Host):
                hosted_refs.add(value.fn.ref)
                if value.fn.ref in islands:
                    island = islands[value.fn.ref]
                    hosted_islands.add(f"Python island {island.name} (line {island.span.line})")
                    out.append(f"        Python island (vectorized Arrow): {label}")
                    continue
            hosted.add(fn_name if is_temp(b) else _user(b))
            out.append(f"        host call (Python, vectorized Arrow): {label}")
        for act in op.actions:
            args = ", ".join(render(x, a) for x in act.args)
            guard = f"when {render_guards(act.guards, a)}: " if act.guards else ""
            code = f"  [action code {act.code}]" if strat is not Strategy.NATIVE_SUMS else ""
            out.append(f"        {guard}{_user(act.state)}.{act.method}({args}){code}")
        if strat is Strategy.FRESH_READERS:
            out.append(
                "      reduce part (native): no action reaches it; its readers are a fresh "
                "state's, constants per scope key; no Python at run time"
            )
        elif strat is Strategy.NATIVE_SUMS and n.strategy.over_rows:
            out.append(
                "      reduce part (native): Spark sum() OVER (PARTITION BY the scope key) on "
                f"every row, no aggregate joined back ({n.strategy.form_why}); no Python at "
                "run time"
            )
        elif strat is Strategy.NATIVE_SUMS:
            why = n.strategy.form_why
            why = f" (not a window over the rows: {why})" if why else ""
            out.append(
                "      reduce part (native): Spark sum() of the sign-weighted projections per "
                f"scope key{why}; no Python at run time"
            )
        elif strat is Strategy.CONTAINER:
            text = {
                "KeyedSums": "sum per scope key and dict key, then array_sort(collect_list(struct"
                "(key, sum)))",
                "KeyedMax": "max per scope key and dict key, then array_sort(collect_list(struct"
                "(key, max)))",
                "KeyedMin": "min per scope key and dict key, then array_sort(collect_list(struct"
                "(key, min)))",
                "ValueSet": "array_sort(collect_set(element))",
                "Bag": "array_sort(collect_list(element))",
                "PySet": "array_sort(collect_set(element))",
                "Seq": "collect_list(struct(order fields, element)) array_sort-ed by the loop's "
                "order, then the elements",
            }.get(op.classes[0].rsplit(":", 1)[-1], "collect_list")
            out.append(f"      reduce part (native): per scope key, {text}; no Python at run time")
        elif strat is Strategy.NATIVE_BOUNDARY and op.name not in made_python:
            out.append(
                "      reduce part (boundary-position fold): per scope key, the rows sorted in the "
                "loop's order (sort_array(collect_list(...))), the positions where the carries "
                f"reset, each carried value from those positions ({n.strategy.form_why}); chosen "
                "over a window chain and aggregate() over every row; it holds a scope key's rows "
                "in one task's memory (no spill); no Python at run time"
            )
            out.append(f"      plan chosen by size: {n.strategy.detail}")
        elif strat in (Strategy.NATIVE_FOLD, Strategy.NATIVE_WINDOW) and op.name not in made_python:
            loop = op.name.removeprefix("ordered.")
            yields = any(loop in y.site.loops for y in prog.kinds.yields)
            after = {r.result for r in op.reads
                     if r.result != "_" and len(a.bound[r.result].loops) <= len(op.scope)}  # fmt: skip
            reads = any(after & set(m.needs) for m in g.nodes())
            if reads or not yields:
                out.append(
                    "      reduce part (native fold): per scope key, aggregate() over the rows "
                    "sorted in the loop's order (sort_array(collect_list(struct(...)))); the "
                    "carried values are its accumulator, the loop body its step function; no "
                    "Python at run time"
                )
            if yields and n.strategy.form_why:  # why not the boundary-position fold
                out.append(f"      ({n.strategy.form_why})")
            if yields and n.strategy.detail:
                out.append(f"      plan chosen by size: {n.strategy.detail}")
            if yields and strat is Strategy.NATIVE_WINDOW:
                out.append(
                    "      rows yielded in the loop (native window): each carried value before a "
                    "row is a window function over the scope's rows in order (lag of a value set "
                    "on every row, running sum of an addition, last value set under a condition, "
                    "running max/min, or an int reset under a condition then summed: the running "
                    "sum plus its offset at the last reset, one sort, or where the value before "
                    "the row is read, a running sum per segment, two sorts); chosen over "
                    "aggregate() over every row, which holds a scope key's rows in one task's "
                    "memory: windows sort and spill; no Python at run time"
                )
            elif yields:
                out.append(
                    "      rows yielded in the loop (native fold): a carried value depends on its "
                    "own previous value beyond a sum, so no window function gives it; aggregate() "
                    "over the sorted rows collects the yielded rows (in chunks of 512) and "
                    "inline() explodes them; no Python at run time"
                )
        elif op.ordered:
            why = n.strategy.why or fold_reasons.get(op.name, "the backend could not make one")
            out.append(
                "      reduce part (Python): sort each scope's rows by the order_by field, run "
                f"the loop body in order; not a native fold because {why}"
            )
        elif strat is Strategy.ARG_BEST:
            out.append(
                "      reduce part (native): the best row per scope key (ties by the row), "
                "min()/max() of a struct of the key and the row's fields where the key is a "
                "number and the values are fields, else a row_number() window and its first "
                "row; no Python at run time"
            )
        elif strat is Strategy.SEQUENCE:
            why = f" ({n.strategy.form_why})" if n.strategy.over_rows else ""
            out.append(f"      reduce part (native): {n.strategy.detail}{why}; no Python at run time")
        else:
            cls = ", ".join(c.rsplit(":", 1)[-1] for c in op.classes)
            out.append(
                f"      reduce part (Python): a fresh {cls} per scope key applies "
                "(action code, argument, sign) in one vectorized Arrow reducer"
            )
        if n.strategy.by_statistics:
            out.append(JOINED_BY_STATISTICS)
        if op.actions:  # (backend/partial.py)
            out.append(f"      partial aggregation: {n.strategy.partial or 'none'}")
        for r in op.reads:
            out.append(f"      read {_user(r.state)}.{r.method}() -> {_user(r.result)}")

    # scalar code consumed only by other scalar code is shown inside its consumer
    def shown(n) -> bool:  # noqa: ANN001
        if n.kind is not NodeKind.SCALAR:
            return True
        succ = [g.node(v) for v in g.g.successors(n.id)]
        return (
            not succ
            or any(s.kind is not NodeKind.SCALAR for s in succ)
            and not all(s.kind is NodeKind.YIELD and n.id.startswith("scalar:_") for s in succ)
        )

    rest = [n for n in g.of_kind(NodeKind.SCALAR, NodeKind.HOST, NodeKind.YIELD) if shown(n)]
    if rest:
        out.append("  other operators:")
        for n in rest:
            where = "native" if n.native else "Python (host function, vectorized Arrow)"
            if n.kind is NodeKind.HOST and n.strategy.why:
                where = "Python island (vectorized Arrow)"
            if n.strategy.strategy is Strategy.PYTHON_FUNCTION:
                where = "Python (vectorized function)"
            cls = _OTHER[n.kind]
            out.append(f"    {cls:<10} scope {n.scope:<14} {where}: {n.label}")
    ret = g.node("return")
    if fn.returns == "rows":
        out.append(f"  returns: {ret.label}")
    else:
        tail = ret.needs[0] if ret.needs else None
        out.append(f"  returns: {render_name(tail, a) if tail else ret.label}")
    if fn.islands:
        out.append("  python islands (no exact native lowering; strict=True refuses them):")
        for i in fn.islands:
            cost = None
            if i.ref in per_group:
                cost = (f"runs per group, with the rest of the loop body, in the Python "
                        f"reducer {per_group[i.ref]} (the loop carries values from row to row)")
            out.append(f"    {i.describe(cost)}")
    reasons = {r for n in g.nodes() if not n.native for r in _py_reasons(n, islands)}
    reasons |= {f"host call {b}" for b in hosted} | hosted_islands
    reasons |= _made_reasons(g, made, hosted_refs, islands)
    # "the Python function re.search" is said once, with the construct that keeps it there
    reasons -= {r.split(" (", 1)[0] for r in reasons if " (" in r}
    used = _kernels_of(made)
    if used:
        out.append(f"  kernels: {', '.join(used)} (looplift's JVM functions in Spark's generated "
                   "code; Java UDFs or SQL forms where the session cannot load the jar)")  # fmt: skip
    if failure is not None:
        why = "; ".join(d.message for d in failure.diagnostics)
        out.append(f"  runs: cannot be built for Spark ({why})")
        return "\n".join(out)
    if whole:
        out.append(f"  runs: Python, the whole function ({whole})")
        return "\n".join(out)
    out.append(
        "  runs: fully native (no Python at run time)"
        if not reasons
        else "  runs: native except " + ", ".join(sorted(reasons))
    )
    return "\n".join(out)


def _made_reasons(g: DataflowGraph, made: Any, hosted_refs: set[str],
                  islands: dict[str, Any]) -> set[str]:  # fmt: skip
    """The Python the backend's artifact runs that the graph's nodes do not already say:
    Python functions in its SQL (a ``str`` or ``round`` of a float, a string method, a
    host function inside an operator) and state operators reduced in Python."""
    if made is None:
        return set()
    out: set[str] = set()
    graph_hosts = {_host_ref(n) for n in g.of_kind(NodeKind.HOST)}
    for c in made.pycalls:
        if c.kind != PyCallKind.HOST:
            out.add(f"the Python function {c.ref}")
        elif c.ref not in graph_hosts | hosted_refs:
            what = "Python island" if c.ref in islands else "host call"
            out.add(f"{what} {c.ref.rsplit(':', 1)[-1]}")
    for name in getattr(made, "python_states", ()):
        nid = f"state:{name}"
        node = g.node(nid) if nid in g.g else None
        if node is None or node.native:
            out.add(f"the {node.op.operator.kind if node else 'Python'} reducer {name}")
    return out


def _kernels_of(made: Any) -> list[str]:
    """The kernels (``looplift.kernels``) the backend's artifact calls."""
    return kernels_called(" ".join(str(getattr(made, f, "") or "") for f in ("source", "body", "sql")))


def _host_ref(n) -> str | None:  # noqa: ANN001
    v = n.op.binding.value
    return v.fn.ref if hasattr(v, "fn") and isinstance(v.fn, Host) else None


def _py_reasons(n, islands: dict[str, Any]) -> list[str]:  # noqa: ANN001
    """Why a node that is not native runs Python (its recorded strategy)."""
    choice = n.strategy
    ref = _host_ref(n) if n.kind is NodeKind.HOST else None
    if ref in islands:
        return [f"Python island {islands[ref].name} (line {islands[ref].span.line})"]
    if choice.strategy is Strategy.PYTHON_FUNCTION:  # string work as vectorized functions
        return [f"the Python function {f}" for f in choice.python_fns]
    if n.kind is NodeKind.STATE:
        return [f"the {n.op.operator.kind} reducer {n.op.operator.name}"]
    if n.kind is NodeKind.HOST:
        return [f"host call {n.id.split(':', 1)[1]}"]
    return [n.id]


def _user(name: str) -> str:
    return user_name(name)


#: what a window over the rows whose scope key is made of input fields gives way to
JOINED_BY_STATISTICS = (
    "      at run time: an aggregate per key joined back instead (broadcast: the rows are "
    "neither shuffled nor sorted) when Spark's statistics of the input show few large groups "
    f"(at least {groupform.MIN_ROWS:,} rows, {groupform.MIN_ROWS_PER_KEY} rows a key; ANALYZE "
    "TABLE <view> COMPUTE STATISTICS FOR COLUMNS <key> gives the keys), or when "
    f"{groupform.CONF} is 'join'"
)
_OTHER = {NodeKind.SCALAR: "1:1 scalar", NodeKind.HOST: "host call", NodeKind.YIELD: "emit"}
