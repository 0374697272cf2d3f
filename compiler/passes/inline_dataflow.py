"""Inline calls of other ``@dataflow`` functions.

Transforms this::

    let a = call m:avg_path(project[fields=(1, 2)](g)) in ...

into::

    let a = (let clicks = project[fields=(1, 2)](g) in <body of avg_path>) in ...

Assumes: the frontend resolved every call to a ``CallDataflow`` with a ref
``Program.load`` can translate.
Guarantees: no ``CallDataflow`` remains; callee names are prefixed with the
callee's name so they cannot capture caller names; recursion is diagnosed.
"""

from __future__ import annotations

import dataclasses

from ..errors import Diagnostic, FrontendError, PassError
from ..ir.nodes import Apply, CallDataflow, Expr, Function, Lambda, Let, StateCall, Var
from ..ir.traverse import map_children
from ..program import Program

__all__ = ["inline_dataflow"]


def inline_dataflow(prog: Program) -> Program:
    diags: list[Diagnostic] = []
    cache: dict[str, Function] = {}
    body = _inline(prog.fn.body, prog, (prog.fn.ref,), cache, diags)
    if diags:
        raise PassError(diags)
    # the callees' Python islands run in this plan too (``--explain`` lists them)
    islands = tuple(prog.fn.islands) + tuple(i for c in cache.values() for i in c.islands)
    return prog.with_fn(dataclasses.replace(prog.fn, body=body, islands=islands))


def _inline(
    e: Expr,
    prog: Program,
    stack: tuple[str, ...],
    cache: dict[str, Function],
    diags: list[Diagnostic],
) -> Expr:
    if isinstance(e, Apply) and isinstance(e.fn, CallDataflow):
        args = tuple(_inline(a, prog, stack, cache, diags) for a in e.args)
        ref = e.fn.ref
        name = ref.rsplit(":", 1)[-1]
        if ref in stack:
            chain = " -> ".join(s.rsplit(":", 1)[-1] for s in (*stack[stack.index(ref) :], ref))
            diags.append(
                Diagnostic(
                    e.span,
                    f"recursion is not supported: `{name}` calls itself ({chain})",
                    "dataflow graphs are finite; write the computation with loops over "
                    "streams and states",
                )
            )
            return e
        callee = cache.get(ref)
        if callee is None:
            assert prog.load is not None
            try:
                callee = prog.load(ref)
            except FrontendError as err:
                diags.extend(err.diagnostics)
                return e
            cache[ref] = callee
        if callee.returns == "rows":
            diags.append(
                Diagnostic(
                    e.span,
                    f"`{name}` is a table algorithm (it yields rows); it cannot be called "
                    "from @dataflow code",
                    "call aggregates and scalar functions from algorithms; compose table "
                    "algorithms in SQL or with DataFrames",
                )
            )
            return e
        body = _inline(callee.body, prog, (*stack, ref), cache, diags)
        body = _prefix(body, f"{callee.name}.")
        for p, a in reversed(list(zip(callee.params, args, strict=True))):
            body = Let(f"{callee.name}.{p.name}", a, body, span=e.span)
        return body
    return map_children(e, lambda c: _inline(c, prog, stack, cache, diags))


def _prefix(e: Expr, pre: str) -> Expr:
    """Rename every variable (bound or free) of a callee body with a prefix."""
    if isinstance(e, Var):
        return dataclasses.replace(e, name=pre + e.name)
    if isinstance(e, StateCall):
        return dataclasses.replace(e, state=pre + e.state)
    if isinstance(e, Let):
        return dataclasses.replace(
            e,
            # `_` (an effect) and `_loop` binders are never read; every other name is, as
            # a Var, so it is renamed like its uses (a user's `_total` too)
            name=e.name if e.name == "_" or e.name.startswith("_loop") else pre + e.name,
            value=_prefix(e.value, pre),
            body=_prefix(e.body, pre),
        )
    if isinstance(e, Lambda):
        return dataclasses.replace(
            e, params=tuple(pre + p for p in e.params), body=_prefix(e.body, pre)
        )
    return map_children(e, lambda c: _prefix(c, pre))
