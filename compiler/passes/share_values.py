"""Share values: a primitive computed again where an equal one is already bound is read
from that binding (common subexpressions, scoped by the IR's blocks).

Let-normal form names every value, and the frontend repeats work in places: a ``try``'s
test evaluates the statement's calls one by one, each behind the codes of the calls
before it, and the statement then runs them again::

    let _t3 = str.strip(s) in                 let _t3 = str.strip(s) in
    let _t4 = raise_code(..., _t3, ...) in    let _t4 = raise_code(..., _t3, ...) in
    if(ne(_t4, 0), ..., λ.                →   if(ne(_t4, 0), ..., λ.
        let _t7 = str.strip(s) in                 let _t8 = str.replace(_t3, ',', '') in
        let _t8 = str.replace(_t7, ',', '')       ...

Each repeat became a column of the plan (and its SQL), computed on every row. A binding
is visible in its body and in every lambda inside it (a branch, a loop's body), so a
value bound there again, with the same primitive and the same operands, is the same
value: primitives are functions of their arguments, and where the first raised, the
second is never reached. What a branch binds is not visible after the branch.

Only primitives are shared (no state call, host function or control builtin), and not
``raise`` (an error, not a value) nor the tuples and projections of a branch's result
that later stages read by shape. Literals are compared with their type (``1``, ``True``
and ``1.0`` are equal in Python, not as operands).

Assumes: let-normal form (``let_normalize``: atomic arguments, unique binders).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..ir.nodes import Apply, Expr, Lambda, Let, Lit, Prim, StateCall, Var
from ..program import Program

__all__ = ["share_values"]

#: primitives never shared
_KEEP = frozenset({"raise", "tuple", "nth", "win.session"})


def share_values(prog: Program) -> Program:
    body = _share(prog.fn.body, {}, {})
    if body is prog.fn.body:
        return prog
    return prog.with_fn(dataclasses.replace(prog.fn, body=body))


def _operand(e: Expr, alias: dict[str, str]) -> Any:
    if isinstance(e, Var):
        return ("v", alias.get(e.name, e.name))
    if isinstance(e, Lit):
        return ("l", type(e.value).__name__, repr(e.value))
    return None  # a lambda: not shared


def _key(v: Expr, alias: dict[str, str]) -> tuple | None:
    if not (isinstance(v, Apply) and isinstance(v.fn, Prim)) or v.fn.op in _KEEP:
        return None
    ops = tuple(_operand(a, alias) for a in v.args)
    if any(o is None for o in ops):
        return None
    return (v.fn.op, ops)


def _share(e: Expr, seen: dict[tuple, str], alias: dict[str, str]) -> Expr:
    """``e`` with its repeated primitives read from the bindings in ``seen`` (key: the
    binder in scope); ``alias`` maps each dropped binder to the one it reads."""
    if isinstance(e, Let):
        key = _key(e.value, alias)
        if key is not None and e.name != "_" and key in seen:
            alias[e.name] = seen[key]
            return _share(e.body, seen, alias)
        value = _share(e.value, seen, alias)
        inner = seen
        if key is not None and e.name != "_":
            inner = {**seen, key: e.name}
        body = _share(e.body, inner, alias)
        if value is e.value and body is e.body:
            return e
        return dataclasses.replace(e, value=value, body=body)
    if isinstance(e, Var):
        name = alias.get(e.name)
        return e if name is None else dataclasses.replace(e, name=name)
    if isinstance(e, Lambda):
        body = _share(e.body, dict(seen), alias)
        return e if body is e.body else dataclasses.replace(e, body=body)
    if isinstance(e, Apply):
        fn = e.fn
        if isinstance(fn, StateCall) and fn.state in alias:
            fn = dataclasses.replace(fn, state=alias[fn.state])
        args = tuple(_share(a, seen, alias) for a in e.args)
        if fn is e.fn and all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        return dataclasses.replace(e, fn=fn, args=args)
    return e
