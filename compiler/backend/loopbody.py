"""A loop's body as one iteration runs it: under the ``if`` guards around the loop.

A loop in a branch runs only where the branch is taken; ``continue`` puts every loop
after it in such a branch (``if k is None: continue`` leaves the rest in the ``else``).
The plan of an ordered loop (a native fold, window functions or a Python function per
scope key) runs over all of a scope's rows, so the guards move into the body: where
they fail an iteration does nothing, as in Python (no row yielded, no carry updated,
nothing raised)::

    if(c, λ. unit, λ. smap(λ row. body, g))   →   smap(λ row. if(c, λ. unit, λ. body), g)
"""

from __future__ import annotations

import ast

from ..analysis import Analysis
from ..ir.nodes import UNIT, Apply, Builtin, Expr, Lambda, Let, Lit, Var

__all__ = ["loop_lambda", "guard_expr"]


def loop_lambda(a: Analysis, loop: str) -> Lambda:
    """The lambda of ``loop``'s ``smap``, its body under the guards around the loop."""
    b = a.bound[loop]
    v = b.value
    assert isinstance(v, Apply)
    lam = v.args[0]
    assert isinstance(lam, Lambda)
    body = lam.body
    for cname, taken in reversed(b.guards):
        run, skip = Lambda((), body), Lambda((), UNIT)
        branches = (run, skip) if taken else (skip, run)
        test = Apply(Builtin("if"), (guard_expr(cname), *branches), span=lam.span)
        body = Let("_", test, UNIT, span=lam.span)
    return lam if body is lam.body else Lambda(lam.params, body, span=lam.span)


def guard_expr(cname: str) -> Expr:
    """The condition of an analysis guard (its name): a variable, or the literal it was."""
    if cname.isidentifier() and cname not in ("True", "False", "None"):
        return Var(cname)
    return Lit(ast.literal_eval(cname))
