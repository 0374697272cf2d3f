"""Float state-independent, loop-invariant code out of loops.

Transforms this::

    let _loop1 = smap(\\a b ->
        let scale = mul(factor, 2) in
        let _t1 = mul(a, scale) in
        let _ = s#add(_t1) in None, rows) in ...

into::

    let scale = mul(factor, 2) in
    let _loop1 = smap(\\a b ->
        let _t1 = mul(a, scale) in
        let _ = s#add(_t1) in None, rows) in ...

Assumes: let-normal form with unique binders.
Guarantees: a binding moves only if its value is a pure primitive that cannot
raise (so an empty loop still raises nothing), it depends on nothing bound in
the loop, and it sits at the top level of the loop body (never out of an
``if`` branch). Inner loops are processed first, so code floats as far out as
it can.
"""

from __future__ import annotations

import dataclasses

from ..ir.nodes import Apply, Builtin, Expr, Lambda, Let, Lit, Prim, Var
from ..ir.prims import PRIMS
from ..ir.traverse import free_vars, map_children
from ..program import Program

__all__ = ["float_invariants"]


def float_invariants(prog: Program) -> Program:
    return prog.with_fn(dataclasses.replace(prog.fn, body=_float(prog.fn.body)))


def _float(e: Expr) -> Expr:
    e = map_children(e, _float)
    if not (isinstance(e, Let) and _is_smap(e.value)):
        return e
    loop = e.value
    assert isinstance(loop, Apply)
    lam = loop.args[0]
    assert isinstance(lam, Lambda)
    hoisted, body = _split(lam.body, set(lam.params))
    if not hoisted:
        return e
    new_loop = dataclasses.replace(loop, args=(dataclasses.replace(lam, body=body), *loop.args[1:]))
    out: Expr = dataclasses.replace(e, value=new_loop)
    for h in reversed(hoisted):
        out = Let(h.name, h.value, out, span=h.span)
    return out


def _split(body: Expr, inside: set[str]) -> tuple[list[Let], Expr]:
    """Separate hoistable lets from the top-level chain of a loop body."""
    hoisted: list[Let] = []
    kept: list[Let] = []
    while isinstance(body, Let):
        if body.name != "_" and _hoistable(body.value) and not (free_vars(body.value) & inside):
            hoisted.append(body)
        else:
            kept.append(body)
            inside.add(body.name)
        body = body.body
    for k in reversed(kept):
        body = dataclasses.replace(k, body=body)
    return hoisted, body


def _hoistable(v: Expr) -> bool:
    if isinstance(v, (Var, Lit)):
        return True
    if isinstance(v, Apply) and isinstance(v.fn, Prim):
        info = PRIMS.get(v.fn.op)
        return info is not None and info.total and all(isinstance(a, (Var, Lit)) for a in v.args)
    return False


def _is_smap(v: Expr) -> bool:
    return isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "smap"
