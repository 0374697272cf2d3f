"""The rules of the operators and numeric builtins (arithmetic, comparisons, ``round``,
``int``, ``float``, ``str``, ``bool``): the table's checked lowering
(:class:`~looplift.compiler.primitives.operator.Operator`), behind the None checks, or
CPython's reference as a vectorized Python function where the table says the lowering
is not exact for these argument types (``str`` of a float, ``round(x, n)`` of a float).

What is not the table's: datetime arithmetic (``datetimes``), ``int`` / ``float`` of a
str (``strsql``), truthiness of other values (the emitter's), ``%`` with a str on the
left (formatting: refused here unless its format is a literal, which the frontend
turns into ``pct``).
"""

from __future__ import annotations

from typing import Any

from ..ir.nodes import Expr, Lit
from ..primitives import NOT_LIT, OPERATORS, PRIMITIVES
from ..primitives.operator import IsNone, Operator
from .datetimes import datetime_arith
from .errors import BackendError
from .guarded import PyCallKind
from .rules import Emitter, rule
from .strnumbers import render_float, render_int
from .types import spark_type

__all__ = ["NAMES", "operator_sql", "literals"]

NAMES = tuple(p.name for p in OPERATORS)
_NUMS = ("bool", "int", "float", "str", "none")


def literals(args: tuple[Expr, ...]) -> list[Any]:
    return [a.value if isinstance(a, Lit) else NOT_LIT for a in args]


@rule(*NAMES)
def operator_sql(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    special = _not_the_tables(r, op, args, ts, x)
    if special is not None:
        return special
    prim = PRIMITIVES[op]
    assert isinstance(prim, Operator)
    lits = literals(args)
    if not prim.lowers_natively(ts, lits):
        rtype = spark_type(prim.result_type(ts, lits))
        return r._pycall(PyCallKind.PRIM, op, args, rtype)  # type: ignore[attr-defined]
    nullable = [r.ty.may_be_null(a) for a in args]
    nonzero = op in _DIVISIONS and _known_nonzero(r.conds, x[1])
    sql = prim.lower(x, ts, lits, nullable, nonzero=nonzero)
    if prim.nulls != "raise":
        return sql
    what = next(c.message for c in prim.partiality if isinstance(c.when, IsNone))
    return r._raise_if_null(args, sql, what)  # type: ignore[attr-defined]


_DIVISIONS = ("truediv", "floordiv", "mod")


def _known_nonzero(conds: list[str], d: str) -> bool:
    """Is the divisor ``d`` tested non-zero by an enclosing branch or guard (``if n != 0:``,
    ``if n == 0: ... else``)? Then the placed zero check of the division is left out."""
    forms = set()
    for zero in ("0L", "0", "0.0D"):
        forms |= {f"(NOT ({d} = {zero}))", f"({d} != {zero})", f"({d} <> {zero})",
                  f"(NOT coalesce(({d} = {zero}), FALSE))", f"coalesce((NOT ({d} = {zero})), FALSE)",
                  f"coalesce(({d} != {zero}), FALSE)", f"coalesce(({d} <> {zero}), FALSE)"}  # fmt: skip
    return any(part.strip() in forms for c in conds for part in c.split(" AND "))


def _not_the_tables(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any],
                    x: list[str]) -> str | None:  # fmt: skip
    """The argument types the table's entry does not cover, rendered by their domain."""
    if op in ("add", "sub", "mul", "neg"):
        arith = datetime_arith(op, ts, x)
        if arith is not None:
            return r._raise_if_null(args, arith, f"`{op}`")  # type: ignore[attr-defined]
    if op in ("not", "bool") and ts[0] not in _NUMS:
        t = r._truthy(x[0], ts[0], True)  # type: ignore[attr-defined]
        return f"(NOT {t})" if op == "not" else t
    if op == "int" and ts[0] == "str":
        return render_int(x[0])
    if op == "float" and ts[0] == "str":
        return render_float(x[0])
    if op == "str" and ts[0] not in _NUMS:
        return r._pycall(PyCallKind.PRIM, "str", args)  # type: ignore[attr-defined]
    if op == "mod" and "str" in ts:
        raise BackendError("`%` formatting with a format that is not a constant str is not "
                           "supported", hint='write the format as a literal ("n=%d" % n) '
                           'or use an f-string')  # fmt: skip
    if (
        op in ("min", "max")
        and not any(t == "float" for t in ts)
        and not all(t in ("int", "bool") for t in ts)
    ):  # strs (and values Spark orders as Python does): least / greatest
        fn = "least" if op == "min" else "greatest"
        return r._raise_if_null(args, f"{fn}({', '.join(x)})", f"{op}()")  # type: ignore[attr-defined]
    return None
