"""Numeric builtins and conversions: ``round``, ``int``, ``float``, ``str``, ``bool``.

Covers bools, ints and floats (``int(s)``, ``float(s)`` and ``str(s)`` of a str are
the strings' rules, in ``backend/strnumbers.py`` and ``backend/strsql.py``; ``str`` of None is ``'None'``).

Where CPython raises: ``int(x)`` and ``round(x)`` of a float: ValueError for NaN
("cannot convert float NaN to integer"), OverflowError for an infinity ("cannot convert
float infinity to integer") and, SPEC §4, for a result beyond 64 bits (CPython returns
the big int). Spark's ANSI cast raises ``CAST_OVERFLOW`` for NaN (the wrong class) and
*saturates* at ``2.0**63`` (``CAST(9.223372036854775807E18 AS BIGINT)`` is
``2**63 - 1``): both are checked before the cast.

Exactness:

- ``round(x)`` is banker's rounding, Spark's ``bround`` (exact: it rounds the double's
  decimal value, half to even, as CPython does).
- ``round(x, n)`` of a float is not exactly ``bround(x, n)`` (CPython rounds the exact
  binary value: ``round(2.675, 2)`` is 2.67; ``bround`` rounds the shortest decimal,
  2.68): it runs as CPython's ``round``, a vectorized Python function. Of an int with
  a literal ``n >= 0``, the int itself; with another ``n``, CPython's ``round``.
- ``str(x)`` of a float is Python's ``repr`` (``1e+16``, ``inf``, ``nan``, ``-0.0``),
  which Spark's cast does not spell: CPython's ``str`` runs, as a Python function. Of an
  int, bool, str or None: native.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from .base import NOT_LIT
from .compare import truthy
from .operator import Arity, NumPred, Operator, beyond64, none
from .partiality import All, Arg, Cmp, IsInf, IsNan, Not, Num, Raises
from .sqltree import Operands, call

__all__ = ["CONVERT"]

X = Arg(0)
INT64_END = 2.0**63

_TO_INT = (
    Raises("ValueError", "cannot convert float NaN to integer", All(Arity(1), IsNan(X)),
           on="float"),
    Raises("OverflowError", "cannot convert float infinity to integer, or to 64 bits",
           All(Arity(1), Not(All(Cmp(">=", X, Num(-INT64_END)), Cmp("<", X, Num(INT64_END))))),
           on="float", beyond64=True, cpython=All(Arity(1), IsInf(X))),
)  # fmt: skip


def _as_int(o: Operands) -> exp.Expression:
    t = o.ts[0]
    if t == "int":
        return o.raw(0)
    if t == "bool":
        return exp.cast(o.raw(0), "bigint")
    return exp.cast(o.raw(0), "bigint")


def _round(o: Operands) -> exp.Expression:
    if len(o.sql) == 2 or o.ts[0] in ("int", "bool"):
        return _as_int(o)  # an int with a literal n >= 0 (else: not native)
    return exp.cast(call("bround", o.d(0), exp.Literal.number(0)), "bigint")


def _round_exact(ts: Sequence[Any], lits: Sequence[Any]) -> bool:
    if len(ts) == 1:
        return True
    return ts[0] in ("int", "bool") and type(lits[1]) is int and lits[1] >= 0


def _round_type(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    if len(ts) == 1 or ts[0] == "bool":
        return "int"
    return ts[0]


def _round_ref(x: Any, n: Any = None) -> Any:
    return round(x) if n is None else round(x, n)


def _float(o: Operands) -> exp.Expression:
    return o.raw(0) if o.ts[0] == "float" else exp.cast(number_of(o), "double")


def number_of(o: Operands) -> exp.Expression:
    return exp.cast(o.raw(0), "bigint") if o.ts[0] == "bool" else o.raw(0)


def _str(o: Operands) -> exp.Expression:
    t, x = o.ts[0], o.raw(0)
    null = bool(o.nullable[0])  # type: ignore[attr-defined]
    if t == "str":
        return call("coalesce", x, exp.Literal.string("None")) if null else x
    if t == "bool":
        case = exp.Case()
        if null:
            case = case.when(
                exp.Is(this=x.copy(), expression=exp.Null()), exp.Literal.string("None")
            )
        return case.when(x.copy(), exp.Literal.string("True")).else_(exp.Literal.string("False"))
    if t == "none":
        return exp.Literal.string("None")
    return call("coalesce", exp.cast(x, "string"), exp.Literal.string("None"))


def _bool(o: Operands) -> exp.Expression:
    t = truthy(o)
    assert t is not None
    return t


def _entry(name: str, ref: Any, native: Any, partiality: tuple[Raises, ...], rule: Any,
           spelling: str, arity: tuple[int, int] = (1, 1), nulls: str = "raise",
           exact_for: Any = None, edges: tuple = (), covers: str = "bool, int, float",
           notes: str = "") -> Operator:  # fmt: skip
    return Operator(
        name=name, arity=arity, params="real", result="any", reference=ref,
        partiality=(*(none(1, f"{name}()") if nulls == "raise" else ()), *partiality),
        native=native, exact=True, edges=edges, rule=rule, spelling=spelling, nulls=nulls,
        covers=covers, exact_for=exact_for, notes=notes,
    )  # fmt: skip


_BIG = (9.223372036854775807e18, 9.2233720368547748e18, -9.223372036854775808e18,
        -9.223372036854777e18, 2.5, -2.5, 0.5, 1.5, -0.5, 4503599627370497.0, 1e300)  # fmt: skip


def _not_a(conv: Any) -> Any:
    def fn(x: Any) -> bool:
        if not isinstance(x, str):
            return False
        try:
            conv(x)
        except ValueError:
            return True
        return False

    return fn


def _from_str(name: str, conv: Any) -> Raises:
    """``int(s)`` / ``float(s)`` of a str that does not spell one: the strings' rule
    (``render_int``, ``render_float``) checks."""
    return Raises("ValueError", f"invalid literal for {name}()",
                  NumPred(_not_a(conv), "a str that is not a literal (the strings' rule checks)",
                          native=_no_str))  # fmt: skip


def _no_str(o: Operands) -> exp.Expression:
    """A try's test of the clause where the argument is no str (a str's is ``int(str)``'s)."""
    if o.ts[0] == "str":
        raise NotImplementedError("int() of a str: the entry int(str) tests it")
    return exp.false()


CONVERT: tuple[Operator, ...] = (
    _entry("round", _round_ref, _round, (*_TO_INT, beyond64(_round_ref)), _round_type,
           "round({0})", arity=(1, 2), exact_for=_round_exact,
           edges=tuple((v,) for v in _BIG) + ((2.675, 2), (1234, -2), (2**63 - 1, -1),
                                                (True, 1), (-0.0, 1), (5e-324, 0))),
    _entry("int", int, _as_int, (_from_str("int", int), *_TO_INT), lambda ts, _l: "int", "int({0})",
           covers="bool, int, float (int(str): the strings' rule)",
           edges=tuple((v,) for v in _BIG) + ((True,), (-0.0,))),
    _entry("float", float, _float, (_from_str("float", float),), lambda ts, _l: "float", "float({0})",
           covers="bool, int, float (float(str): the strings' rule)",
           edges=((2**53 + 1,), (True,), (-0.0,), (2**63 - 1,))),
    _entry("str", str, _str, (), lambda ts, _l: "str", "str({0})", nulls="total",
           exact_for=lambda ts, _l: ts[0] in ("str", "bool", "int", "none"), covers="bool, int, str, None; float "
           "(CPython's repr, as a Python function)",
           edges=((-0.0,), (1e16,), (True,), (2**63 - 1,), (-(2**63),), (0.1,))),
    _entry("bool", bool, _bool, (), lambda ts, _l: "bool", "bool({0})", nulls="total",
           covers="bool, int, float, str, None (others: the renderer's truthiness)",
           edges=((float("nan"),), (-0.0,), (5e-324,), (0,))),
)  # fmt: skip

_ = NOT_LIT
