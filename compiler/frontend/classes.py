"""State-class expressions → IR, through the same expression translator as ``@dataflow`` code.

An additive action's increment ``self.f += e`` and a reader's ``return e`` are
translated with ``self`` bound to the state's fields (``self.f`` becomes
``Var("self.f")``) and each action parameter ``p`` to ``Var("p")``.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..ir.nodes import Expr
from .calls import CallMixin
from .containers import ContainerMixin
from .env import Env, SelfFields, Stop, Value
from .exprs import ExprMixin

__all__ = ["state_expr"]


class _StateExprs(ContainerMixin, CallMixin, ExprMixin):
    """The expression translator over one state method (no source positions)."""


def state_expr(
    node: cst.BaseExpression,
    globals_: dict[str, Any],
    self_name: str,
    fields: tuple[str, ...] | set[str],
    params: tuple[str, ...] = (),
) -> tuple[Expr | None, str]:
    """The IR of ``node``, or ``None`` and the first problem's message."""
    t = _StateExprs(globals_)
    env = Env()
    env.names[self_name] = SelfFields("self", fields=frozenset(fields))
    for p in params:
        env.names[p] = Value(p)
    try:
        ir = t.expr(node, env)
    except Stop:
        ir = None
    if t.diags:
        return None, t.diags[0].message
    return ir, ""
