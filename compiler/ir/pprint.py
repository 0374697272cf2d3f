"""Pretty-printer for the lambda IR (used by golden tests and ``--dump-after``).

>>> from looplift.compiler.ir.nodes import Let, Apply, Prim, Var, Lit
>>> print(pformat(Let("y", Apply(Prim("add"), (Var("x"), Lit(1))), Var("y"))))
let y = add(x, 1) in
y
"""

from __future__ import annotations

from .nodes import (
    Apply,
    Builtin,
    CallDataflow,
    Expr,
    Function,
    Host,
    Lambda,
    Let,
    Lit,
    Prim,
    StateCall,
    StateNew,
    Var,
)

__all__ = ["pformat", "pformat_function"]

IND = "  "


def pformat_function(fn: Function) -> str:
    params = ", ".join(f"{p.name}: {p.type_text()}" for p in fn.params)
    head = f"fun {fn.name}({params}) -> {fn.returns}"
    if fn.columns:
        head += f" columns={list(fn.columns)}"
    return head + " =\n" + _fmt(fn.body, 1)


def pformat(e: Expr) -> str:
    return _fmt(e, 0)


def _fmt(e: Expr, depth: int) -> str:
    pad = IND * depth
    lines = []
    while isinstance(e, Let):
        lines.append(f"{pad}let {e.name} = {_inline(e.value, depth)} in")
        e = e.body
    lines.append(pad + _inline(e, depth))
    return "\n".join(lines)


def _fn_name(f: Expr) -> str:
    if isinstance(f, Prim):
        return f.op
    if isinstance(f, Builtin):
        if not f.attrs:
            return f.name
        inner = ", ".join(f"{k}={v!r}" for k, v in f.attrs)
        return f"{f.name}[{inner}]"
    if isinstance(f, StateNew):
        return f"new {f.cls}"
    if isinstance(f, StateCall):
        return f"{f.state}#{f.method}"
    if isinstance(f, Host):
        return f"host {f.ref}"
    if isinstance(f, CallDataflow):
        return f"call {f.ref}"
    return f"({_inline(f, 0)})"


def _inline(e: Expr, depth: int) -> str:
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Lit):
        return repr(e.value)
    if isinstance(e, Apply):
        args = [_inline(a, depth) for a in e.args]
        return f"{_fn_name(e.fn)}({', '.join(args)})"
    if isinstance(e, Lambda):
        params = " ".join(e.params) if e.params else "()"
        return f"\\{params} ->\n{_fmt(e.body, depth + 2)}\n{IND * (depth + 1)}"
    if isinstance(e, Let):
        return "(\n" + _fmt(e, depth + 2) + "\n" + IND * (depth + 1) + ")"
    return _fn_name(e)
