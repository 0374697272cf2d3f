"""The native tests of the string primitives' partiality clauses, each on its own (a
``try``'s test, ``Primitive.raise_test``; the lowerings in ``backend/strsql.py`` check
inside their expressions): sqlglot trees from the operands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from .sqltree import Operands

__all__ = ["Native_", "bounds_typed", "equals", "is_null", "not_matching", "out_of_range", "typed"]

Native_ = Callable[[Operands], exp.Expression]


def is_null(i: int) -> Native_:
    def test(o: Operands) -> exp.Expression:
        if i >= len(o.sql) or not getattr(o, "nullable", [True] * len(o.sql))[i]:
            return exp.false()
        return exp.Is(this=o.raw(i), expression=exp.Null())

    return test


def typed(i: int, *types: Any) -> Native_:
    """False where argument ``i`` is absent or known to have one of ``types`` (the typer
    refuses others before a plan runs; an unknown type has no native test)."""

    def test(o: Operands) -> exp.Expression:
        if i >= len(o.sql) or o.ts[i] in types:
            return exp.false()
        raise NotImplementedError(f"argument {i} of type {o.ts[i]}")

    return test


def equals(i: int, v: str) -> Native_:
    return lambda o: (exp.EQ(this=o.raw(i), expression=exp.Literal.string(v))
                      if i < len(o.sql) else exp.false())  # fmt: skip


def not_matching(regex: str) -> Native_:
    return lambda o: exp.not_(exp.RegexpLike(this=o.raw(0), expression=exp.Literal.string(regex)))


def out_of_range(size: str, lo_zero: bool = False) -> Native_:
    """``not -n <= i < n`` (``not 0 <= i < n`` with ``lo_zero``), ``n = size(x)``."""

    def test(o: Operands) -> exp.Expression:
        n = exp.Anonymous(this=size, expressions=[o.raw(0)])
        lo = exp.Literal.number(0) if lo_zero else exp.Neg(this=exp.paren(n.copy()))
        return exp.or_(exp.GTE(this=o.raw(1), expression=n), exp.LT(this=o.raw(1), expression=lo))

    return test


def bounds_typed(o: Operands) -> exp.Expression:
    for i in range(1, len(o.sql)):
        typed(i, "int", "bool", "none")(o)
    return exp.false()
