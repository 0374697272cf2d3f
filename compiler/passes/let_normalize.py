"""Let-normalize: A-normal form with globally unique binders.

Transforms this::

    let y = add(mul(x, 2), f(x)) in y

into::

    let _t1 = mul(x, 2) in
    let _t2 = f(x) in
    let y = add(_t1, _t2) in
    y

Assumes: inlining is done (no ``CallDataflow``).
Guarantees: every argument of an ``Apply`` is a ``Var``, a ``Lit`` or (for
control builtins) a ``Lambda``, and an ``if`` condition is a ``Var``; a ``Let`` value is never a ``Let``; every
binder (let, lambda parameter, function parameter) is unique in the function,
so later passes may move bindings without capture; ``StateCall`` names follow
the renaming.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from ..ir.nodes import Apply, Builtin, Expr, Lambda, Let, Lit, StateCall, Var
from ..program import Program

__all__ = ["let_normalize"]

_SUFFIX = re.compile(r"\.\d+$")


def let_normalize(prog: Program) -> Program:
    names = _Names()
    ren = {p.name: names.fresh(p.name) for p in prog.fn.params}
    body = _norm(prog.fn.body, ren, names, _tail(names))
    return prog.with_fn(dataclasses.replace(prog.fn, body=body))


def _tail(names: _Names) -> Callable[[Expr], Expr]:
    """Bind a non-atomic tail to a name, so every call has a binder (``_`` = effect)."""

    def k(s: Expr) -> Expr:
        if _is_atom(s) or isinstance(s, Lambda):
            return s
        v = names.fresh("_v")
        return Let(v, s, Var(v, span=s.span), span=s.span)

    return k


class _Names:
    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counters: dict[str, int] = {}

    def fresh(self, name: str) -> str:
        if name == "_":
            return name
        base = _SUFFIX.sub("", name)
        if base.startswith("_"):
            base = base.rstrip("0123456789") or base  # renormalizing: _t3 -> _t
            while True:
                k = self.counters.get(base, 0) + 1
                self.counters[base] = k
                cand = f"{base}{k}"
                if cand not in self.used:
                    break
        else:
            cand = base
            while cand in self.used:
                k = self.counters.get(base, 0) + 1
                self.counters[base] = k
                cand = f"{base}_{k}"
        self.used.add(cand)
        return cand


def _is_atom(e: Expr) -> bool:
    return isinstance(e, (Var, Lit))


def _norm(e: Expr, ren: dict[str, str], names: _Names, k: Callable[[Expr], Expr]) -> Expr:
    """Normalize ``e``; ``k`` receives a *simple* term (atom, flat Apply, Lambda)."""
    if isinstance(e, Var):
        return k(dataclasses.replace(e, name=ren.get(e.name, e.name)))
    if isinstance(e, Lit):
        return k(e)
    if isinstance(e, Lambda):
        ren2 = dict(ren)
        params = []
        for p in e.params:
            ren2[p] = names.fresh(p)
            params.append(ren2[p])
        body = _norm(e.body, ren2, names, _tail(names))
        return k(dataclasses.replace(e, params=tuple(params), body=body))
    if isinstance(e, Let):

        def bind(v: Expr) -> Expr:
            new = names.fresh(e.name)
            ren2 = {**ren, e.name: new} if e.name != "_" else ren
            return dataclasses.replace(e, name=new, value=v, body=_norm(e.body, ren2, names, k))

        return _norm(e.value, ren, names, bind)
    if isinstance(e, Apply):
        fn = e.fn
        if isinstance(fn, StateCall):
            fn = dataclasses.replace(fn, state=ren.get(fn.state, fn.state))

        def with_args(args: list[Expr]) -> Expr:
            if isinstance(fn, Builtin) and fn.name == "if" and isinstance(args[0], Lit):
                # `if 1:` — a guard is a name (analysis, graph arcs): bind the constant to one
                c = names.fresh("_c")
                cond = Var(c, span=args[0].span)
                return Let(c, args[0], k(dataclasses.replace(e, fn=fn, args=(cond, *args[1:]))),
                           span=args[0].span)  # fmt: skip
            return k(dataclasses.replace(e, fn=fn, args=tuple(args)))

        return _atoms(list(e.args), ren, names, with_args)
    return k(e)


def _atoms(
    args: list[Expr], ren: dict[str, str], names: _Names, k: Callable[[list[Expr]], Expr]
) -> Expr:
    out: list[Expr] = []

    def step(i: int) -> Expr:
        if i == len(args):
            return k(out)
        a = args[i]

        def take(s: Expr) -> Expr:
            if _is_atom(s) or isinstance(s, Lambda):
                out.append(s)
                return step(i + 1)
            tmp = names.fresh("_t")
            out.append(Var(tmp, span=s.span))
            return Let(tmp, s, step(i + 1), span=s.span)

        return _norm(a, ren, names, take)

    return step(0)
