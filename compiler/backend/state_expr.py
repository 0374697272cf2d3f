"""SQL of a state's projection or reader expression (additive states).

The expression is IR made by the frontend's expression translator from the
state class's source (:attr:`AdditiveAction.update_exprs`,
:attr:`StateClassInfo.reader_irs`): ``Var("p")`` for the action's parameters,
``Var("self.<field>")`` for the state's fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis import Analysis
from ..ir.nodes import Expr, Function, Lit, Var
from ..ir.traverse import walk
from .errors import BackendError
from .sql import SqlRenderer
from .types import Typing, _value_type

__all__ = ["state_expr_sql"]


def state_expr_sql(expr: Expr, env: Mapping[str, str], envt: Mapping[str, Any]) -> tuple[str, Any]:
    """(SQL, type) of ``expr``; ``env`` maps parameters and ``self.field`` to SQL, ``envt``
    to their types."""
    for n in walk(expr):
        if isinstance(n, Var) and n.name not in env:
            raise BackendError(f"`{n.name}` is not a parameter or field in a state's expression")
    a = Analysis(Function("x:y", "y", (), Lit(None), "value"))
    ty = Typing(dict(envt))
    ty.nullable = set()
    r = SqlRenderer(a, ty, lambda n: env.get(n), {}, {})
    t, _ = _value_type(expr, ty, a, {}, {})
    return r.expr(expr), t
