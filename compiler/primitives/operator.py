"""The operators' and builtins' kind of entry: :class:`Operator`.

An operator's result type depends on its argument types (``int + int`` is an int,
``int / int`` a float, ``str + str`` a str), and sometimes on a literal argument (``x
** 2`` is an int, ``x ** n`` a float: ``n`` may be negative); its lowering, and whether
that lowering is exact, may too. So an :class:`Operator` carries functions of the
argument types and literals where a math entry carries constants:

- ``rule(ts, lits)``: the result type;
- ``exact_for(ts, lits)``: the native lowering agrees with CPython on these types
  (else the backend calls ``reference`` as a vectorized Python function);
- ``nulls``: ``"raise"`` (CPython raises TypeError on a None argument: the renderer
  checks, the result is None only where an argument may be), ``"total"`` (a None
  argument is an ordinary value, the result is never None: ``==``, ``str``, ``bool``).

Partiality is :class:`~.partiality.Raises` data as for the math entries; conditions that
need exact integers or CPython's own result (64-bit overflow) are :class:`NumPred`, whose
native check is, where ``sql`` is None, Spark's (ANSI mode raises
``ARITHMETIC_OVERFLOW``, ``DIVIDE_BY_ZERO``, ``REMAINDER_BY_ZERO``, ``CAST_OVERFLOW``
on exactly those inputs). ``None`` arguments are :class:`IsNone` clauses, rendered by
the expression renderer (which knows which operands may be None).

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["truediv"].result_type(["int", "int"])
'float'
>>> PRIMITIVES["floordiv"].raises((1, 0)).cls
'ZeroDivisionError'
>>> PRIMITIVES["add"].raises((2**62, 2**62)).cls
'OverflowError'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .base import NOT_LIT, Primitive
from .partiality import Cond, Env, IsNan, Pred, Raises
from .sqltree import Operands

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "Arity",
    "IsNone",
    "Operator",
    "NumPred",
    "beyond64",
    "none",
]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True, slots=True)
class IsNone(Cond):
    """The ``i``-th argument is None (CPython: TypeError for an operator on it)."""

    i: int

    def holds(self, env: Env) -> bool:
        return self.i < len(env.args) and env.args[self.i] is None

    def tree(self, ops: Operands) -> exp.Expression:
        return exp.Is(this=ops.raw(self.i), expression=exp.Null())

    def args(self) -> set[int]:
        return {self.i}


@dataclass(frozen=True, slots=True)
class NumPred(Pred):
    """A :class:`~.partiality.Pred` on the exact numbers: it does not hold where an argument is
    None (an :class:`IsNone` clause says that) or where ``test`` cannot take the arguments;
    ``sql`` is its native check, or None where the native expression raises by itself
    (Spark's ANSI checks: ``text`` says which)."""

    sql: Callable[[Operands], exp.Expression] | None = None

    def holds(self, env: Env) -> bool:
        if any(a is None for a in env.args):
            return False
        try:
            return bool(self.test(*env.args))
        except (ArithmeticError, ValueError, TypeError):
            return False

    def tree(self, ops: Operands) -> exp.Expression:
        if self.sql is None:
            raise NotImplementedError(f"{self.text}: checked by the native expression")
        return self.sql(ops)

    def check(self, ops: Operands) -> exp.Expression:
        if self.sql is None and self.native is not None:  # Spark's check: its test alone
            return self.native(ops)
        return self.tree(ops)

    def __repr__(self) -> str:
        return f"NumPred({self.text!r})"


@dataclass(frozen=True, slots=True)
class Arity(Cond):
    """The call has ``n`` arguments (``round(x)`` raises where ``round(x, n)`` does not)."""

    n: int

    def holds(self, env: Env) -> bool:
        return len(env.args) == self.n

    def tree(self, ops: Operands) -> exp.Expression:
        return exp.true() if len(ops.sql) == self.n else exp.false()


def beyond64(ref: Callable[..., Any], text: str = "Spark's ANSI arithmetic raises") -> Raises:
    """SPEC §4: where CPython's int result needs more than 64 bits, the plan raises
    OverflowError (Spark's ANSI arithmetic raises ``ARITHMETIC_OVERFLOW`` there)."""

    def fn(*args: Any) -> bool:
        v = ref(*args)
        return type(v) is int and not INT64_MIN <= v <= INT64_MAX

    return Raises("OverflowError", "integer result beyond 64 bits", NumPred(fn, text),
                  beyond64=True)  # fmt: skip


def none(n: int, message: str) -> tuple[Raises, ...]:
    """TypeError for a None in any of the first ``n`` argument positions."""
    return tuple(Raises("TypeError", message, IsNone(i)) for i in range(n))


Rule = Callable[[Sequence[Any], Sequence[Any]], Any]
Lowering = Callable[[Operands], exp.Expression]


@dataclass(frozen=True)
class Operator(Primitive):
    """An operator or builtin of the language (see the module's doc).

    ``spelling``: the call in Python source (``"{0} + {1}"``), for the edge-test
    generator and ``--explain``; ``covers``: the argument types the entry is written for
    (others are rendered by their own domain's rules: datetimes, containers);
    ``variadic``: takes any number of arguments from ``arity[0]`` on."""

    rule: Rule | None = None
    exact_for: Callable[[Sequence[Any], Sequence[Any]], bool] | None = None
    nulls: str = "raise"
    spelling: str = ""
    covers: str = "bool, int, float"
    variadic: bool = False
    domain: str = "operator"
    none_raises: str = ""  # IsNone clauses say where a None raises

    @property
    def total(self) -> bool:
        """Never raises on non-None arguments, 64-bit overflow aside (checked where it
        happens: the IR may move it across control flow)."""
        return not any(not r.beyond64 and not isinstance(r.when, IsNone) for r in self.partiality)

    def result_type(self, ts: Sequence[Any], lits: Sequence[Any] = ()) -> Any:
        assert self.rule is not None
        return self.rule(ts, _lits(lits, len(ts)))

    def lowers_natively(self, ts: Sequence[Any], lits: Sequence[Any] = ()) -> bool:
        if self.native is None or not self.exact:
            return False
        return self.exact_for is None or self.exact_for(ts, _lits(lits, len(ts)))

    def raises(self, args: Sequence[Any]) -> Raises | None:
        ts = ["float" if isinstance(a, float) else "int" for a in args]
        env = Env(tuple(args), self.model)
        for r in self.partiality:
            if r.applies(ts) and r.when.holds(env):
                return r
        return None

    def operands(self, sql: Sequence[str], ts: Sequence[Any], lits: Sequence[Any] = (),
                 nullable: Sequence[bool] = ()) -> Operands:  # fmt: skip
        ops = OpOperands(sql, ts, self.native, self.raw)
        ops.lits = _lits(lits, len(ts))  # type: ignore[attr-defined]
        ops.nullable = list(nullable) or [False] * len(ts)  # type: ignore[attr-defined]
        return ops

    def tree(self, sql: Sequence[str], ts: Sequence[Any], lits: Sequence[Any] = (),
             nullable: Sequence[bool] = (), nonzero: bool = False) -> exp.Expression:  # fmt: skip
        """The checked lowering: the clauses with a native check of their own become
        ``CASE WHEN`` tests in front of the native expression (None and Spark's ANSI
        checks are not repeated, but a division by zero is tested, to place the error,
        unless ``nonzero``: the caller knows the divisor is not zero)."""
        ops = OpOperands(sql, ts, self.native, self.raw)
        ops.lits = _lits(lits, len(ts))  # type: ignore[attr-defined]
        ops.nullable = list(nullable) or [False] * len(ts)  # type: ignore[attr-defined]
        whens = []
        for r in self.partiality:
            if isinstance(r.when, IsNone) or not r.applies(ts):
                continue
            if isinstance(r.when, NumPred) and r.when.sql is None:
                placed = None if nonzero else _placed_zero_check(r, ops)
                if placed is not None:
                    whens.append((placed, self._raise(r, ops)))
                continue
            whens.append((r.when.tree(ops), self._raise(r, ops)))
            if isinstance(r.when, IsNan):
                ops.nan_free.add(r.when.term)
        if not whens:
            return ops.native()
        case = exp.Case()
        for cond, then in whens:
            case = case.when(cond, then)
        return case.else_(ops.native())

    def lower(self, sql: Sequence[str], ts: Sequence[Any], lits: Sequence[Any] = (),
              nullable: Sequence[bool] = (), nonzero: bool = False) -> str:  # fmt: skip
        tree = self.tree(sql, ts, lits, nullable, nonzero)
        if not isinstance(tree, (exp.Case, exp.Anonymous, exp.Cast, exp.Var, exp.Paren)):
            tree = exp.paren(tree)
        return tree.sql(dialect="spark", normalize_functions="lower")


_SQL_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_COLUMN = re.compile(r"[\w.`]+|-?[0-9][0-9.eE+-]*[DL]?")


def _placed_zero_check(r: Raises, ops: Operands) -> exp.Expression | None:
    """A division by zero tested in front of Spark's own check (``DIVIDE_BY_ZERO`` names no
    place), so that the error carries CPython's message and the source line; only where
    the dividend is a column or a literal (testing the divisor first must not change which
    error comes first) and the divisor is no literal other than zero."""
    if r.cls != "ZeroDivisionError" or r.when.native is None:  # type: ignore[attr-defined]
        return None
    lits = getattr(ops, "lits", [NOT_LIT] * len(ops.sql))
    if not _COLUMN.fullmatch(ops.sql[0]) or lits[1] is not NOT_LIT and lits[1] != 0:
        return None
    test = r.when.native(ops)  # type: ignore[attr-defined]
    return None if test == exp.false() else test


class OpOperands(Operands):
    """Operands whose SQL string literals count as atoms (not parenthesized)."""

    def raw(self, i: int) -> exp.Expression:
        if _SQL_STRING.fullmatch(self.sql[i]):
            return exp.var(self.sql[i])
        return super().raw(i)


def _lits(lits: Sequence[Any], n: int) -> list[Any]:
    out = list(lits)
    return out + [NOT_LIT] * (n - len(out))
