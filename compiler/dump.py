"""Text dumps of the program after a stage (``--dump-after`` and the golden tests).

Transforming passes dump the IR; analysis passes dump the results they made.
"""

from __future__ import annotations

from .dataflow.exprs import render, render_guards
from .ir.pprint import pformat_function
from .program import Program

__all__ = ["dump_stage"]


def dump_stage(prog: Program, stage: str) -> str:
    if stage == "fuse_states":
        return _operators(prog, with_kind=False)
    if stage == "analyze_scopes":
        return _scopes(prog)
    if stage == "classify_operators":
        return _classes(prog) + "\n" + _operators(prog, with_kind=True)
    return pformat_function(prog.fn)


def _operators(prog: Program, with_kind: bool) -> str:
    a = prog.analysis
    lines = [f"operators of {prog.fn.name}:"]
    for op in prog.operators:
        kind = f" kind={op.kind}" if with_kind else ""
        lines.append(f"  {op.name}: states={list(op.states)} scope={list(op.scope)}{kind}")
        lines.append(f"    inputs={list(op.inputs)} free={list(op.free)}")
        lines.append(f"    map_code={list(op.map_code)}")
        for act in op.actions:
            guard = f" when {render_guards(act.guards, a)}" if act.guards else ""
            args = ", ".join(render(x, a) for x in act.args)
            lines.append(f"    action {act.state}#{act.method}({args}) code={act.code}{guard}")
        for r in op.reads:
            lines.append(f"    read {r.state}#{r.method}() -> {r.result}")
        if with_kind and op.fusable_with:
            lines.append(f"    fusable_with={list(op.fusable_with)}")
    return "\n".join(lines)


def _scopes(prog: Program) -> str:
    a = prog.analysis
    scopes = prog.scopes.of_binder
    lines = [f"scopes of {prog.fn.name}:"]
    for name, lp in a.loops.items():
        lines.append(
            f"  loop {name}: {lp.kind} over {lp.source} fields={list(lp.fields)} "
            f"key={list(lp.key)} ordered={lp.ordered} parent={lp.parent}"
        )
    for name in sorted(scopes):
        if name.startswith("_loop"):
            continue
        lines.append(f"  {name}: {scopes[name].text()}")
    for op, sc in prog.scopes.of_operator.items():
        lines.append(f"  operator {op}: {sc.text()}")
    return "\n".join(lines)


def _classes(prog: Program) -> str:
    lines = [f"kind of {prog.fn.name}: {prog.kind}"]
    for _ref, info in sorted(prog.kinds.classes.items()):
        tag = "additive" if info.additive else f"action reducer ({info.why})"
        lines.append(f"  class {info.name}: {tag}; undo {dict(info.undo)}")
        for act in info.additive_actions:
            lines.append(f"    {act.method}{act.params}: {list(act.updates)}")
        for r, e in info.reader_exprs:
            lines.append(f"    reader {r} = {e}")
    for name, code in sorted(prog.kinds.code.items()):
        lines.append(f"  {name}: {code}")
    for y in prog.kinds.yields:
        lines.append(f"  yield at {y.site.span}: {y.form}")
    return "\n".join(lines)
