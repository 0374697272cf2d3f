"""The native side of a primitive's lowering: sqlglot trees of a call's operands.

Lowerings are sqlglot expression trees rendered with ``.sql(dialect="spark")`` (chosen
over text templates: the checks compose — NaN tests, AND/OR of clauses, nested CASEs —
and the tree keeps the parentheses right). Functions are built as ``exp.Anonymous``
calls (:func:`call`) so that the Spark function named is the one written (sqlglot would
turn ``log2`` into ``LOG(2, x)``). The operands arrive as SQL text from the expression
renderer and enter the tree as opaque ``exp.Var`` leaves (parenthesized when they are
not atomic), so the tree is never re-parsed from text and never edited as text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

__all__ = ["INF", "Operands", "call", "num"]

INF = exp.cast(exp.Literal.string("Infinity"), "double")


def call(name: str, *args: exp.Expression) -> exp.Expression:
    """``name(args)``, spelled as Spark spells it (sqlglot would turn ``log2`` into
    ``LOG(2, x)``, which is not the same function)."""
    return exp.Anonymous(this=name, expressions=list(args))


def num(v: float) -> exp.Expression:
    """A number literal: small integers as they are, other floats as Spark doubles."""
    if math.isinf(v):
        return INF.copy() if v > 0 else exp.Neg(this=INF.copy())
    if v == int(v) and abs(v) < 2**31 and not (v == 0 and math.copysign(1.0, v) < 0):
        return exp.Literal.number(int(v))
    return exp.Literal.number(repr(float(v)) + "D")


_CHEAP = re.compile(r"[\w.`]+|-?[0-9][0-9.eE+-]*[DL]?")


def _atomic(sql: str) -> bool:
    """An identifier, literal or call, or text in one pair of parentheses."""
    if sql.replace("`", "").replace(".", "").replace("_", "").isalnum():
        return True
    depth = 0
    for i, ch in enumerate(sql):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")" and i != len(sql) - 1:
            return False
        if depth == 0 and ch != ")" and not (ch.isalnum() or ch in "_`."):
            return False
    return sql.endswith(")")


@dataclass
class Operands:
    """The arguments of one call: their SQL, types, and the native expression."""

    sql: Sequence[str]
    ts: Sequence[Any]
    lowering: Callable[[Operands], exp.Expression] | None = None
    raw_lowering: Callable[[Operands], exp.Expression] | None = None
    _native: exp.Expression | None = field(default=None, repr=False)
    nan_free: set[Any] = field(default_factory=set)  # terms known not to be NaN here

    @contextmanager
    def without_nan(self, terms: set[Any]) -> Iterator[None]:
        added = terms - self.nan_free
        self.nan_free |= added
        try:
            yield
        finally:
            self.nan_free -= added

    @property
    def atomic(self) -> bool:
        """Every operand a column or a literal (cheap to repeat in a message)."""
        return all(_CHEAP.fullmatch(x) for x in self.sql)

    def raw(self, i: int) -> exp.Expression:
        text = self.sql[i]
        return exp.var(text) if _atomic(text) else exp.paren(exp.var(text))

    def d(self, i: int) -> exp.Expression:
        """The argument as a double (ints and bools cast)."""
        if self.ts[i] == "float":
            return self.raw(i)
        if self.ts[i] == "bool":
            return exp.cast(exp.cast(self.raw(i), "bigint"), "double")
        return exp.cast(self.raw(i), "double")

    def native(self) -> exp.Expression:
        assert self.lowering is not None
        if self._native is None:
            self._native = self.lowering(self)
        return self._native.copy()

    def raw_result(self) -> exp.Expression:
        """The native function without the lowering's fixes (what a :class:`Result`
        condition reads)."""
        return self.raw_lowering(self) if self.raw_lowering is not None else self.native()
