"""SQL of a state's projection or reader expression (additive states).

The expression is IR over the action's parameters (``Var("p")``) and the
state's fields (``Var("self.<field>")``); the Python source text form that
:class:`~looplift.compiler.operators.StateClassInfo` holds today is parsed to
the same IR first.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from ..analysis import Analysis
from ..ir.nodes import Apply, Builtin, Expr, Function, Lambda, Lit, Prim, Var
from ..ir.traverse import walk
from .errors import BackendError
from .sql import SqlRenderer
from .types import Typing, _value_type

__all__ = ["state_expr_sql", "state_expr_ir"]

_BIN = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
        ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}  # fmt: skip
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "not"}
_CMP = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge",
        ast.Is: "is_none", ast.IsNot: "is_not_none"}  # fmt: skip


def state_expr_sql(
    expr: Expr | str, env: Mapping[str, str], envt: Mapping[str, Any]
) -> tuple[str, Any]:
    """(SQL, type) of ``expr``; ``env`` maps parameters and ``self.field`` to SQL, ``envt``
    to their types."""
    ir = state_expr_ir(expr) if isinstance(expr, str) else expr
    for n in walk(ir):
        if isinstance(n, Var) and n.name not in env:
            raise BackendError(f"`{n.name}` is not a parameter or field in a state's expression")
    a = Analysis(Function("x:y", "y", (), Lit(None), "value"))
    ty = Typing(dict(envt))
    ty.nullable = set()
    r = SqlRenderer(a, ty, lambda n: env.get(n), {}, {})
    t, _ = _value_type(ir, ty, a, {}, {})
    return r.expr(ir), t


def state_expr_ir(text: str) -> Expr:
    """The IR of a projection or reader written as Python source text."""
    return _conv(ast.parse(text, mode="eval").body)


def _conv(n: ast.AST) -> Expr:
    if isinstance(n, ast.Constant):
        return Lit(n.value)
    if isinstance(n, ast.Name):
        return Var(n.id)
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
        return Var(f"self.{n.attr}")
    if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
        return Apply(Prim(_BIN[type(n.op)]), (_conv(n.left), _conv(n.right)))
    if isinstance(n, ast.UnaryOp) and type(n.op) in _UNARY:
        return Apply(Prim(_UNARY[type(n.op)]), (_conv(n.operand),))
    if isinstance(n, ast.Compare) and all(type(op) in _CMP for op in n.ops):
        left = _conv(n.left)
        out = None
        for op, right in zip(n.ops, n.comparators, strict=True):
            name = _CMP[type(op)]
            part = (
                Apply(Prim(name), (left,))
                if name in ("is_none", "is_not_none")
                else Apply(Prim(name), (left, _conv(right)))
            )
            out = part if out is None else _if(out, part, Lit(False))
            left = _conv(right)
        assert out is not None
        return out
    if isinstance(n, ast.IfExp):
        return _if(_conv(n.test), _conv(n.body), _conv(n.orelse))
    if isinstance(n, ast.BoolOp):
        vals = [_conv(v) for v in n.values]
        out = vals[0]
        for v in vals[1:]:
            out = _if(out, v, out) if isinstance(n.op, ast.And) else _if(out, out, v)
        return out
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
        return Apply(Prim(n.func.id), tuple(_conv(x) for x in n.args))
    raise BackendError(f"cannot translate `{ast.unparse(n)}` in a state's expression")


def _if(c: Expr, t: Expr, o: Expr) -> Expr:
    return Apply(Builtin("if"), (c, Lambda((), t), Lambda((), o)))
