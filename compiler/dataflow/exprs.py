"""Render let-normal IR values back into readable Python-like expressions.

Compiler temporaries (``_t3``, ``_b1`` ...) are inlined into their use, so a
guard reads ``category == 0`` instead of ``_t1``. Parentheses follow Python's
precedence (as ``ast.unparse`` places them): an operand is parenthesized only
where Python would otherwise read the text differently, so the printed text
parses back to the same tree.

>>> from looplift.compiler.ir.nodes import Apply, Prim, Var
>>> from looplift.compiler.analysis import Analysis
>>> e = Apply(Prim("truediv"), (Apply(Prim("sub"), (Var("t"), Var("p"))), Var("k")))
>>> render(e, Analysis(fn=None))
'(t - p) / k'
"""

from __future__ import annotations

import math

from ..analysis import Analysis
from ..ir.nodes import Apply, Builtin, Expr, Host, Lambda, Let, Lit, Prim, StateCall, Var
from ..ir.prims import PRIMS
from ..names import is_temp, user_name
from ..primitives.windows import window_call

__all__ = ["render", "render_name", "render_guards"]

# Python's precedence levels, lowest first (the levels of ast.unparse that IR can reach)
TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, ATOM = range(1, 15)

_INFIX_PREC = {
    "eq": CMP, "ne": CMP, "lt": CMP, "le": CMP, "gt": CMP, "ge": CMP,
    "add": ARITH, "sub": ARITH, "mul": TERM, "truediv": TERM, "floordiv": TERM, "mod": TERM,
    "pow": POWER, "bitor": BOR, "bitxor": BXOR, "bitand": BAND, "lshift": SHIFT, "rshift": SHIFT,
}  # fmt: skip
_UNARY_PREC = {"neg": FACTOR, "pos": FACTOR, "not": NOT, "invert": FACTOR}


def render_name(name: str, a: Analysis, depth: int = 0, prec: int = 0) -> str:
    b = a.bound.get(name)
    if b is None or b.value is None or not _is_temp(name) or depth > 12:
        return _user(name)
    return render(b.value, a, depth + 1, prec)


def render(e: Expr, a: Analysis, depth: int = 0, prec: int = 0) -> str:
    """``e`` as Python text, parenthesized when its precedence is below ``prec``."""
    text, own = _render(e, a, depth)
    return f"({text})" if own < prec else text


def render_guards(guards: tuple[tuple[str, bool], ...], a: Analysis) -> str:
    parts = []
    for cond, taken in guards:
        if taken:  # a conjunction of conjunctions: `a and b` needs no parentheses here
            parts.append(render_name(cond, a, prec=AND if len(guards) > 1 else 0))
        else:
            text = render_name(cond, a, prec=ATOM)
            parts.append(f"not {text}" if text.startswith("(") else f"not ({text})")
    return " and ".join(parts)


def _render(e: Expr, a: Analysis, depth: int) -> tuple[str, int]:
    """The text of ``e`` and the precedence of its outermost operator."""
    if isinstance(e, Var):
        b = a.bound.get(e.name)
        if b is None or b.value is None or not _is_temp(e.name) or depth > 12:
            return _field_name(e.name, a) or _user(e.name), ATOM
        return _render(b.value, a, depth + 1)
    if isinstance(e, Lit):
        return _lit(e.value)
    if isinstance(e, Let):
        # a chain inside an `if` branch: show its result
        while isinstance(e, Let):
            e = e.body
        return _render(e, a, depth)
    if isinstance(e, Apply):
        f = e.fn
        args = e.args
        if isinstance(f, Prim):
            return _prim(f.op, args, a, depth)
        if isinstance(f, Builtin) and f.name == "if":
            return _if(args, a, depth)
        if isinstance(f, StateCall):
            return f"{_user(f.state)}.{f.method}({_args(args, a, depth)})", ATOM
        if isinstance(f, Host):
            return f"{f.ref.rsplit(':', 1)[-1]}({_args(args, a, depth)})", ATOM
        if isinstance(f, Builtin) and f.name == "each":  # a loop over container values
            return f"the rows of each element of {render(args[0], a, depth)}", ATOM
        if isinstance(f, Builtin):
            return f"{f.name}({_args(args, a, depth)})", ATOM
    return "?", ATOM


def _if(args: tuple[Expr, ...], a: Analysis, depth: int) -> tuple[str, int]:
    then, other = (_branch(x) for x in args[1:])
    if other is not None and other == args[0]:  # `c and x` is `x if c else c`
        left = render(args[0], a, depth, AND)
        return f"{left} and {render(args[1].body, a, depth, AND + 1)}", AND
    if then is not None and then == args[0]:  # `c or x` is `c if c else x`
        left = render(args[0], a, depth, OR)
        return f"{left} or {render(args[2].body, a, depth, OR + 1)}", OR
    c = render(args[0], a, depth, OR)
    t = render(args[1].body, a, depth, OR) if isinstance(args[1], Lambda) else "?"
    o = render(args[2].body, a, depth, TEST) if isinstance(args[2], Lambda) else "?"
    return f"{t} if {c} else {o}", TEST


def _branch(lam: Expr) -> Expr | None:
    """The result of a branch that is just an atom, else None."""
    if isinstance(lam, Lambda) and isinstance(lam.body, (Var, Lit)):
        return lam.body
    return None


def _prim(op: str, args: tuple[Expr, ...], a: Analysis, depth: int) -> tuple[str, int]:
    string = _string_prim(op, args, a, depth)
    if string is not None:
        return string
    info = PRIMS.get(op)
    if op == "dict_get":  # `d.get(k, default)` of a host function's dict
        base = render(args[0], a, depth, ATOM)
        return f"{base}.get({_args(args[1:], a, depth)})", ATOM
    if op == "tuple":
        inner = _args(args, a, depth)
        return f"({inner}{',' if len(args) == 1 else ''})", ATOM
    if op == "nth":
        return f"{render(args[0], a, depth, ATOM)}[{render(args[1], a, depth)}]", ATOM
    if op in ("table_item", "table_get") and isinstance(args[1], Lit):
        key = render(args[0], a, depth, TEST)
        if op == "table_get":
            return f"{args[1].value}.get({key}, {render(args[3], a, depth, TEST)})", ATOM
        if isinstance(args[3], Lit) and args[3].value == "ValueError":
            return f"{args[1].value}.index({key})", ATOM
        return f"{args[1].value}[{key}]", ATOM
    if op in ("make_datetime", "make_date"):
        return f"{op[5:]}({_args(args, a, depth)})", ATOM
    if op == "make_timedelta":
        names = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
        given = [(n, x) for n, x in zip(names, args, strict=False) if x != Lit(0)]
        inner = ", ".join(f"{n}={render(x, a, depth, TEST)}" for n, x in given)
        return f"timedelta({inner})", ATOM
    if op == "dt.strptime":
        return f"datetime.strptime({_args(args, a, depth)})", ATOM
    if op in ("win.tumble", "win.hop", "win.session") and all(isinstance(x, Lit) for x in args[1:]):
        return window_call(op, render(args[0], a, depth, TEST), [x.value for x in args[1:]]), ATOM
    if op.startswith(("dt.", "td.")):
        call = "()" if op[3:] in ("weekday", "isoweekday", "date", "total_seconds") else ""
        if len(args) > 1:  # t.strftime(FORMAT)
            call = f"({_args(args[1:], a, depth)})"
        return f"{render(args[0], a, depth, ATOM)}.{op[3:]}{call}", ATOM
    if op == "raise" and isinstance(args[0], Lit):  # not an expression in Python: shown as one
        return f"raise {args[0].value}({render(args[1], a, depth, TEST)})", TEST
    if op in ("is_none", "is_not_none"):
        return f"{render(args[0], a, depth, CMP + 1)} {info.symbol}", CMP
    if op in ("in", "not_in"):
        rest, _ = _prim("tuple", args[1:], a, depth)
        return f"{render(args[0], a, depth, CMP + 1)} {info.symbol} {rest}", CMP
    p = _INFIX_PREC.get(op)
    if p is not None and len(args) == 2:
        if op == "pow":  # right-associative; `2 ** -x` needs no parentheses
            lp, rp = POWER + 1, FACTOR
        elif p == CMP:  # comparisons chain: `(a < b) < c` is not `a < b < c`
            lp, rp = CMP + 1, CMP + 1
        else:
            lp, rp = p, p + 1
        left, right = render(args[0], a, depth, lp), render(args[1], a, depth, rp)
        return f"{left} {info.symbol} {right}", p
    p = _UNARY_PREC.get(op)
    if p is not None and len(args) == 1:
        return f"{info.symbol}{render(args[0], a, depth, p)}", p
    return f"{op}({_args(args, a, depth)})", ATOM


def _args(args: tuple[Expr, ...], a: Analysis, depth: int) -> str:
    return ", ".join(render(x, a, depth, TEST) for x in args)


def _lit(v: object) -> tuple[str, int]:
    if isinstance(v, float) and not math.isfinite(v):
        text = "math.nan" if math.isnan(v) else "math.inf" if v > 0 else "-math.inf"
        return text, FACTOR if v < 0 else ATOM
    text = repr(v)
    # a negative number is a unary minus to Python: `(-1) ** 2`, `(-2).real`
    return text, FACTOR if isinstance(v, (int, float)) and text.startswith("-") else ATOM


def _is_temp(name: str) -> bool:
    return is_temp(name)


def _field_name(name: str, a: Analysis) -> str | None:
    """``v.page`` for the field variable ``v[1]`` of a named row ``v`` (the frontend names
    a whole row's fields by position); None for any other name."""
    if not name.endswith("]") or "[" not in name:
        return None
    params = {p.name: p for p in a.fn.params}
    for lp in a.loops.values():
        src = params.get(lp.source)
        if src is None or not src.fields or name not in lp.params:
            continue
        i = lp.fields[lp.params.index(name)]
        if 0 <= i < len(src.fields):
            return f"{name.partition('[')[0]}.{src.fields[i]}"
    return None


def _user(name: str) -> str:
    return user_name(name, keep_callee=False)


def _string_prim(op: str, args: tuple[Expr, ...], a: Analysis, depth: int) -> tuple[str, int] | None:
    """String primitives in Python's spelling: ``s.strip()``, ``m.group(1)``, ``s[1:3]``,
    ``'x' in s``, ``re.match('p', s)``."""
    r = [render(x, a, depth, TEST) for x in args]
    if op.startswith("str.") or op == "match.group":
        return f"{render(args[0], a, depth, ATOM)}.{op.partition('.')[2]}({', '.join(r[1:])})", ATOM
    if op in ("contains", "not_contains"):
        word = "in" if op == "contains" else "not in"
        return f"{render(args[0], a, depth, CMP + 1)} {word} {render(args[1], a, depth, CMP + 1)}", CMP
    if op == "slice":
        lo, hi, step = ("" if isinstance(x, Lit) and x.value is None else t
                        for x, t in zip(args[1:], r[1:], strict=True))  # fmt: skip
        inner = f"{lo}:{hi}:{step}" if step else f"{lo}:{hi}"
        return f"{render(args[0], a, depth, ATOM)}[{inner}]", ATOM
    if op == "getitem":
        return f"{render(args[0], a, depth, ATOM)}[{r[1]}]", ATOM
    if op == "pct" and isinstance(args[1], Lit):
        return f"({'%' + str(args[1].value)!r} % {render(args[0], a, depth, ATOM)})", ATOM
    if op.startswith("re."):
        flags = args[-1]
        shown = r[:-1] if isinstance(flags, Lit) and flags.value == 0 else r
        return f"{op}({', '.join(shown)})", ATOM
    return None
