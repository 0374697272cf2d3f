"""Render let-normal IR values back into readable Python-like expressions.

Compiler temporaries (``_t3``, ``_b1`` ...) are inlined into their use, so a
guard reads ``category == 0`` instead of ``_t1``.
"""

from __future__ import annotations

from ..analysis import Analysis
from ..ir.nodes import Apply, Builtin, Expr, Host, Lambda, Let, Lit, Prim, StateCall, Var
from ..ir.prims import PRIMS
from ..names import is_temp, user_name

__all__ = ["render", "render_name", "render_guards"]

_INFIX_PREC = {
    "or": 1, "and": 2, "not": 3,
    "eq": 4, "ne": 4, "lt": 4, "le": 4, "gt": 4, "ge": 4, "in": 4, "not_in": 4,
    "is_none": 4, "is_not_none": 4,
    "add": 5, "sub": 5, "mul": 6, "truediv": 6, "floordiv": 6, "mod": 6,
    "neg": 7, "pos": 7, "pow": 8,
}  # fmt: skip


def render_name(name: str, a: Analysis, depth: int = 0) -> str:
    b = a.bound.get(name)
    if b is None or b.value is None or not _is_temp(name) or depth > 12:
        return _user(name)
    return render(b.value, a, depth + 1)


def render(e: Expr, a: Analysis, depth: int = 0, prec: int = 0) -> str:
    if isinstance(e, Var):
        return render_name(e.name, a, depth)
    if isinstance(e, Lit):
        return repr(e.value)
    if isinstance(e, Let):
        # a chain inside an `if` branch: show its result
        while isinstance(e, Let):
            e = e.body
        return render(e, a, depth, prec)
    if isinstance(e, Apply):
        f = e.fn
        args = e.args
        if isinstance(f, Prim):
            return _prim(f.op, args, a, depth, prec)
        if isinstance(f, Builtin) and f.name == "if":
            then, other = (_branch(x) for x in args[1:])
            if other is not None and other == args[0]:  # `c and x` is `x if c else c`
                text = f"{render(args[0], a, depth, 2)} and {render(args[1].body, a, depth, 2)}"
                return f"({text})" if prec > 2 else text
            if then is not None and then == args[0]:  # `c or x` is `c if c else x`
                text = f"{render(args[0], a, depth, 1)} or {render(args[2].body, a, depth, 1)}"
                return f"({text})" if prec > 1 else text
            c = render(args[0], a, depth, 0)
            t = render(args[1].body, a, depth, 0) if isinstance(args[1], Lambda) else "?"
            o = render(args[2].body, a, depth, 0) if isinstance(args[2], Lambda) else "?"
            text = f"{t} if {c} else {o}"
            return f"({text})" if prec > 0 else text
        if isinstance(f, StateCall):
            inner = ", ".join(render(x, a, depth) for x in args)
            return f"{_user(f.state)}.{f.method}({inner})"
        if isinstance(f, Host):
            inner = ", ".join(render(x, a, depth) for x in args)
            return f"{f.ref.rsplit(':', 1)[-1]}({inner})"
        if isinstance(f, Builtin) and f.name == "each":  # a loop over container values
            return f"the rows of each element of {render(args[0], a, depth)}"
        if isinstance(f, Builtin):
            inner = ", ".join(render(x, a, depth) for x in args)
            return f"{f.name}({inner})"
    return "?"


def _branch(lam: Expr) -> Expr | None:
    """The result of a branch that is just an atom, else None."""
    if isinstance(lam, Lambda) and isinstance(lam.body, (Var, Lit)):
        return lam.body
    return None


def render_guards(guards: tuple[tuple[str, bool], ...], a: Analysis) -> str:
    parts = []
    for cond, taken in guards:
        text = render_name(cond, a)
        parts.append(text if taken else f"not ({text})")
    return " and ".join(parts)


def _prim(op: str, args: tuple[Expr, ...], a: Analysis, depth: int, prec: int) -> str:
    info = PRIMS.get(op)
    p = _INFIX_PREC.get(op)
    if op == "tuple":
        inner = ", ".join(render(x, a, depth) for x in args)
        return f"({inner}{',' if len(args) == 1 else ''})"
    if op == "nth":
        return f"{render(args[0], a, depth, 9)}[{render(args[1], a, depth)}]"
    if op in ("is_none", "is_not_none"):
        text = f"{render(args[0], a, depth, 5)} {info.symbol}"
    elif op in ("in", "not_in"):
        rest = ", ".join(render(x, a, depth) for x in args[1:])
        text = f"{render(args[0], a, depth, 5)} {info.symbol} ({rest})"
    elif p is not None and len(args) == 2:
        text = f"{render(args[0], a, depth, p)} {info.symbol} {render(args[1], a, depth, p + 1)}"
    elif p is not None and len(args) == 1:
        text = f"{info.symbol}{render(args[0], a, depth, p)}"
    else:
        inner = ", ".join(render(x, a, depth) for x in args)
        return f"{op}({inner})"
    return f"({text})" if p is not None and prec > p else text


def _is_temp(name: str) -> bool:
    return is_temp(name)


def _user(name: str) -> str:
    return user_name(name, keep_callee=False)
