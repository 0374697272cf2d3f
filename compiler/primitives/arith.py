"""Arithmetic: ``+ - * / // % **``, unary ``-`` and ``+``, ``abs``: one :class:`Operator` each.

Covers bools, ints and floats (bools promote to int, an int meets a float as a float;
ints are 64-bit, SPEC §4), and for ``+`` two strs (``concat``), for ``*`` a str and an
int (``repeat``). Datetime arithmetic is the datetimes' rule (``backend/datetimes.py``).

Where CPython raises (``Objects/longobject.c``, ``floatobject.c``):

- ``/``, ``//``, ``%`` by a zero (int or float, ``-0.0`` too): ZeroDivisionError, with
  the message of the operand types. Spark's ANSI mode raises ``DIVIDE_BY_ZERO`` /
  ``REMAINDER_BY_ZERO`` on exactly these (a NaN dividend included), so no check is
  rendered.
- ``0 ** -n`` and ``0.0 ** y`` for a finite negative ``y``: ZeroDivisionError.
- a finite negative float to a non-integer power: CPython returns a complex number,
  which the language has no type for: the plan raises ValueError (a deliberate
  difference, said in the message).
- ``float ** float`` whose result overflows: OverflowError ("Numerical result out of
  range"), decided on the C result as ``math.pow`` does.
- an int result beyond 64 bits: OverflowError (SPEC §4; Spark's ANSI arithmetic raises
  ``ARITHMETIC_OVERFLOW`` on ``+ - * // abs``, unary ``-``, and in the int power's loop).
- a None operand: TypeError (checked by the renderer, which knows what may be None).

Native lowering notes (Spark 4.3, ANSI on):

- Spark has no arithmetic on booleans: a bool operand is cast to bigint.
- ``//`` and ``%`` on ints: Java truncates, Python floors: one less (one divisor more)
  when the signs differ and the division is inexact.
- ``//`` and ``%`` on floats follow CPython's ``float_divmod``: ``fmod`` (Spark's
  ``%``), ``(x - mod) / y``, the floor of that with CPython's correction, and the signs
  of zero results (``0.0 % -1.0`` is ``-0.0``; ``1.0 // 0.1`` is ``9.0``, not
  ``floor(1.0 / 0.1)``; ``inf // 1.0`` is NaN; ``-1.0 // inf`` is ``-1.0``). Spark's
  ``floor`` of a double is a bigint (wrong beyond 64 bits, 0 for NaN): not used.
- ``int ** int`` with an exponent that is a literal ``>= 0`` is an int, exact, by
  repeated multiplication (ANSI: overflow raises); any other int power is a float
  (``2 ** n`` with ``n`` unknown may be negative), exact where the exponent is ``>= 0``.
- ``float ** y`` is Java's ``pow`` with C99's special cases (``1 ** nan``, ``(-1) **
  ±inf``), as ``math.pow``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from ..errtext import raise_tree
from .base import NOT_LIT
from .mathfuncs import _copysign, _np, _pow
from .operator import INT64_MAX, INT64_MIN, NumPred, Operator, beyond64, none
from .partiality import All, Arg, Cmp, IsInf, IsNan, NonInteger, Not, Num, Raises, Result
from .sqltree import Operands, call, num
from .typerules import numeric

__all__ = ["ARITH", "ints", "number"]

X, Y = Arg(0), Arg(1)


def ints(ts: Sequence[Any]) -> bool:
    return all(t in ("int", "bool") for t in ts)


def number(o: Operands, i: int) -> exp.Expression:
    """Operand ``i`` as a Spark number (a bool as a bigint)."""
    return exp.cast(o.raw(i), "bigint") if o.ts[i] == "bool" else o.raw(i)


def _n(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    return numeric(ts)


def _unary(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    return "int" if ts[0] == "bool" else ts[0]


def _float(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    return "float"


def _pow_type(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    t = numeric(ts)
    if t == "int" and not _nonneg_lit(lits[1]):
        return "float"  # a negative exponent gives a float
    return t


def _nonneg_lit(v: Any) -> bool:
    return v is not NOT_LIT and type(v) in (int, bool) and v >= 0


# -- lowerings ----------------------------------------------------------------------------


def _binary(node: type[exp.Expression]) -> Any:
    return lambda o: node(this=number(o, 0), expression=number(o, 1))


def _add(o: Operands) -> exp.Expression:
    if "str" in o.ts:
        return call("concat", o.raw(0), o.raw(1))
    if tuple(o.ts) == ("int", "int"):  # int 0 + int x is x (float 0.0 + -0.0 is 0.0: kept)
        for k in (0, 1):
            if o.sql[k] in ("0L", "0"):
                return number(o, 1 - k)
    return exp.Add(this=number(o, 0), expression=number(o, 1))


def _mul(o: Operands) -> exp.Expression:
    if "str" in o.ts:
        s, k = (0, 1) if o.ts[0] == "str" else (1, 0)
        times = call("greatest", number(o, k), exp.Literal.number("0L"))
        return call("repeat", o.raw(s), exp.cast(times, "int"))
    return exp.Mul(this=number(o, 0), expression=number(o, 1))


def _d(o: Operands, i: int) -> exp.Expression:
    return o.d(i)


def _lt0(e: exp.Expression) -> exp.Expression:
    return exp.paren(exp.LT(this=e, expression=num(0)))


def let(var: str, value: exp.Expression, body: exp.Expression) -> exp.Expression:
    """``body`` with ``var`` bound to ``value``, computed once (Spark SQL has no ``let``:
    ``transform(array(value), var -> body)[0]``, as the renderer's ``bind``). The body
    must hold no Python function (Spark cannot extract one from a lambda): the operands
    enter through ``value``."""
    lam = exp.Lambda(this=body, expressions=[exp.to_identifier(var)])
    return exp.Bracket(this=call("transform", call("array", value), lam),
                       expressions=[exp.Literal.number(0)])  # fmt: skip


def _fields(q: str, **values: exp.Expression) -> tuple[exp.Expression, dict[str, exp.Expression]]:
    """A struct of ``values`` and the references to its fields through ``q``."""
    parts: list[exp.Expression] = []
    for k, v in values.items():
        parts += [exp.Literal.string(k), v]
    refs = {k: exp.Dot(this=exp.var(q), expression=exp.to_identifier(k)) for k in values}
    return call("named_struct", *parts), refs


def _floordiv(o: Operands) -> exp.Expression:
    if ints(o.ts):
        # truncating division, one less when the signs differ and it is inexact
        x, y = number(o, 0), number(o, 1)
        inexact = exp.NEQ(this=exp.paren(exp.Mod(this=x, expression=y)), expression=num(0))
        signs = exp.NEQ(this=_lt0(x.copy()), expression=_lt0(y.copy()))
        div = exp.IntDiv(this=x.copy(), expression=y.copy())
        less = exp.Sub(this=exp.paren(div.copy()), expression=num(1))
        return exp.Case().when(exp.and_(inexact, signs), less).else_(div)
    # CPython's float_floor_div: mod = fmod(x, y); div = (x - mod) / y, one less when
    # mod's sign is not y's; the floor of div, one more when div - floor > 0.5 (that is:
    # div rounded to nearest, ties down); a zero with the sign of x / y
    value, q = _fields("__q", x=_d(o, 0), y=_d(o, 1))
    x, y = q["x"], q["y"]
    mod = exp.paren(exp.Mod(this=x.copy(), expression=y.copy()))
    adjust = exp.and_(exp.NEQ(this=mod.copy(), expression=num(0)),
                      exp.NEQ(this=_lt0(y.copy()), expression=_lt0(mod.copy())))  # fmt: skip
    div = exp.Sub(
        this=exp.Div(
            this=exp.paren(exp.Sub(this=x.copy(), expression=mod.copy())), expression=y.copy()
        ),
        expression=exp.Case().when(adjust, num(1)).else_(num(0)),
    )
    d = exp.var("__d")
    r = call("rint", d.copy())
    tie = exp.EQ(this=exp.Sub(this=r.copy(), expression=d.copy()), expression=num(0.5))
    zero = _copysign(d.copy(), exp.paren(exp.Div(this=x.copy(), expression=y.copy())))
    body = (exp.Case().when(exp.EQ(this=d.copy(), expression=num(0)), zero)
            .when(tie, exp.Sub(this=r.copy(), expression=num(1))).else_(r.copy()))  # fmt: skip
    return let("__q", value, let("__d", div, body))


def _mod(o: Operands) -> exp.Expression:
    """Python's remainder has the sign of the divisor (a zero: ``copysign(0, y)``)."""
    if ints(o.ts):
        x, y = number(o, 0), number(o, 1)
        m = exp.paren(exp.Mod(this=x, expression=y))
        other = exp.and_(exp.NEQ(this=m.copy(), expression=num(0)),
                         exp.NEQ(this=_lt0(m.copy()), expression=_lt0(y.copy())))  # fmt: skip
        return exp.Case().when(other, exp.Add(this=m.copy(), expression=y.copy())).else_(m.copy())
    value, q = _fields("__r", m=exp.Mod(this=_d(o, 0), expression=_d(o, 1)), y=_d(o, 1))
    m, y = q["m"], q["y"]
    other = exp.and_(exp.NEQ(this=m.copy(), expression=num(0)),
                     exp.NEQ(this=_lt0(m.copy()), expression=_lt0(y.copy())))  # fmt: skip
    body = (exp.Case().when(exp.EQ(this=m.copy(), expression=num(0)), _copysign(m.copy(), y.copy()))
            .when(other, exp.Add(this=m.copy(), expression=y.copy())).else_(m.copy()))  # fmt: skip
    return let("__r", value, body)


def _int_power(x: exp.Expression, y: exp.Expression) -> exp.Expression:
    """``x ** y`` for a 64-bit ``y >= 0``, exact, raising on overflow (an int result)."""
    acc = exp.Lambda(this=exp.Mul(this=exp.column("acc"), expression=x.copy()),
                     expressions=[exp.to_identifier("acc"), exp.to_identifier("i")])  # fmt: skip
    loop = call("aggregate", call("sequence", num(1), exp.cast(y.copy(), "int")),
                exp.Literal.number("1L"), acc)  # fmt: skip
    eq = lambda a, v: exp.EQ(this=a.copy(), expression=num(v))  # noqa: E731
    parity = exp.Case().when(eq(exp.paren(exp.Mod(this=y.copy(), expression=num(2))), 0),
                             exp.Literal.number("1L")).else_(exp.Literal.number("-1L"))  # fmt: skip
    too_big = raise_tree("OverflowError", "integer power beyond 64 bits (Python gives a big int)")
    return (exp.Case().when(eq(y, 0), exp.Literal.number("1L"))
            .when(eq(x, 0), exp.Literal.number("0L")).when(eq(x, 1), exp.Literal.number("1L"))
            .when(eq(x, -1), parity).when(exp.GT(this=y.copy(), expression=num(64)), too_big)
            .else_(loop))  # fmt: skip


def _power(o: Operands) -> exp.Expression:
    if ints(o.ts):
        x, y = number(o, 0), number(o, 1)
        exact = _int_power(x, y)
        if _nonneg_lit(o.lits[1]):  # type: ignore[attr-defined]
            return exact
        return (exp.Case().when(exp.GTE(this=y.copy(), expression=num(0)), exp.cast(exact, "double"))
                .else_(call("power", o.d(0), o.d(1))))  # fmt: skip
    return _pow(o)


def _neg(o: Operands) -> exp.Expression:
    return exp.Neg(this=number(o, 0))


def _pos(o: Operands) -> exp.Expression:
    return number(o, 0)


def _abs(o: Operands) -> exp.Expression:
    return call("abs", number(o, 0))


# -- partiality -------------------------------------------------------------------------------


def _zero(cls_msgs: tuple[str, str]) -> tuple[Raises, ...]:
    """Division by a zero: the int message when both operands are ints, else the float's
    (Spark's ANSI checks raise on a zero divisor of either type)."""
    int_msg, float_msg = cls_msgs

    def int_zero(x: Any, y: Any) -> bool:
        return y == 0 and not isinstance(x, float) and not isinstance(y, float)

    def float_zero(x: Any, y: Any) -> bool:
        return y == 0 and (isinstance(x, float) or isinstance(y, float))

    def zero(o: Operands) -> exp.Expression:  # Spark's check, as a try's test
        return exp.EQ(this=number(o, 1), expression=exp.Literal.number(0))

    def both(o: Operands) -> bool:
        return o.ts[0] != "float" and o.ts[1] != "float"

    def int_test(o: Operands) -> exp.Expression:
        return zero(o) if both(o) else exp.false()

    def float_test(o: Operands) -> exp.Expression:
        return exp.false() if both(o) else zero(o)

    return (Raises("ZeroDivisionError", int_msg,
                   NumPred(int_zero, "DIVIDE_BY_ZERO", native=int_test)),
            Raises("ZeroDivisionError", float_msg,
                   NumPred(float_zero, "DIVIDE_BY_ZERO", native=float_test)))  # fmt: skip


def _safe_pow(x: Any, y: Any) -> Any:
    """CPython's ``x ** y``, without computing ints that 64 bits cannot hold."""
    if type(x) is int and type(y) is int and y > 64 and abs(x) > 1:
        return 2**64  # beyond 64 bits, whatever it is
    return x**y


_BOTH_FINITE = All(Not(IsInf(X)), Not(IsNan(X)), Not(IsInf(Y)), Not(IsNan(Y)))
_POW = (
    Raises("ZeroDivisionError", "0.0 cannot be raised to a negative power",
           All(Cmp("==", X, Num(0)), Cmp("<", Y, Num(0)), Not(IsInf(Y)))),
    Raises("ValueError", "a negative number to a fractional power (Python returns a complex "
           "number, which looplift has no type for)",
           All(Cmp("<", X, Num(0)), Not(IsInf(X)), NonInteger(Y)), on="float", python=False),
    Raises("OverflowError", "(34, 'Numerical result out of range')",
           All(IsInf(Result()), _BOTH_FINITE), on="float"),
    beyond64(_safe_pow, "the int power's loop raises ARITHMETIC_OVERFLOW (or beyond 64 "
             "multiplications, raise_error)"),
)  # fmt: skip

_ARITH_NONE = "`{}`"


def _op(name: str, ref: Any, native: Any, partiality: tuple[Raises, ...], rule: Any,
        spelling: str, what: str, arity: tuple[int, int] = (2, 2), edges: tuple = (),
        covers: str = "bool, int, float", notes: str = "", **kw: Any) -> Operator:  # fmt: skip
    return Operator(
        name=name, arity=arity, params="real", result="any", reference=ref,
        partiality=(*none(arity[1], what), *partiality), native=native, exact=True,
        edges=edges, notes=notes, rule=rule, spelling=spelling, covers=covers, **kw,
    )  # fmt: skip


I63 = (INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1)

ARITH: tuple[Operator, ...] = (
    _op("add", operator.add, _add, (beyond64(operator.add),), lambda ts, _l: "str" if "str" in ts else numeric(ts),
        "{0} + {1}", "`+`", covers="bool, int, float; str + str (concat)",
        edges=((INT64_MAX, 1), (INT64_MIN, -1), (2**62, 2**62), (0.1, 0.2), (True, True),
               (-0.0, -0.0), (-0.0, 0.0), (math.inf, -math.inf))),
    _op("sub", operator.sub, _binary(exp.Sub), (beyond64(operator.sub),), _n, "{0} - {1}", "`-`",
        edges=((INT64_MIN, 1), (0, INT64_MIN), (-0.0, 0.0), (0.0, 0.0), (math.inf, math.inf))),
    _op("mul", operator.mul, _mul, (beyond64(operator.mul),), _n, "{0} * {1}", "`*`",
        covers="bool, int, float; str * int (repeat)",
        edges=((2**32, 2**31), (INT64_MIN, -1), (-1, INT64_MIN), (0.0, -1.0), (math.inf, 0.0),
               (1e200, 1e200), (True, 3))),
    _op("truediv", operator.truediv, lambda o: exp.Div(this=o.d(0), expression=o.d(1)),
        _zero(("division by zero", "float division by zero")), _float, "{0} / {1}", "`/`",
        edges=((1, 0), (1.0, -0.0), (math.nan, 0.0), (INT64_MAX, INT64_MAX), (-1, 3),
               (1e-320, 1e10), (1.0, math.inf), (-0.0, 5.0)),
        notes="int / int converts each operand to a double first (Python divides exactly, then "
              "rounds): at most one ulp apart beyond 2**53"),
    _op("floordiv", operator.floordiv, _floordiv,
        (*_zero(("integer division or modulo by zero", "float floor division by zero")),
         beyond64(operator.floordiv)), _n, "{0} // {1}", "`//`",
        edges=((INT64_MIN, -1), (-7, 2), (7, -2), (-7, -2), (1.0, 0.1), (math.inf, 1.0),
               (-1.0, math.inf), (1.0, -math.inf), (-0.0, 1.0), (0.0, -1.0), (-7.5, 2.0),
               (1e308, 1e-308), (5, 0), (5.0, 0.0), (-1, INT64_MIN))),
    _op("mod", operator.mod, _mod, _zero(("integer modulo by zero", "float modulo")), _n,
        "{0} % {1}", "`%`", covers="bool, int, float (str % ...: formatting, strings' entry)",
        edges=((INT64_MIN, -1), (-7, 2), (7, -2), (-7, -2), (0.0, -1.0), (-0.0, 1.0),
               (-1.0, math.inf), (1.0, -math.inf), (math.inf, 2.0), (-7.5, 2.0), (5, 0),
               (5.0, 0.0), (-1, INT64_MIN), (1e-320, -1.0))),
    _op("pow", _safe_pow, _power, _POW, _pow_type, "{0} ** {1}", "`**`",
        model=_np("power"), raw=lambda o: call("power", o.d(0), o.d(1)),
        edges=((0, -1), (0.0, -1.0), (-0.0, -1.0), (0.0, -math.inf), (-8.0, 1 / 3), (10.0, 400.0),
               (1.0, math.nan), (-1.0, math.inf), (2, 62), (2, 63), (-2, 63), (-1, INT64_MAX), (3, 100), (2, 65),
               (2, INT64_MAX), (3, 40), (2, -1), (-2, -1), (math.nan, 0.0), (2.0, 0.5)),
        notes="float ** y is Java's pow: within one ulp of C's for a fractional y (exact "
        "for integral y, as the edge tests check to the harness' tolerance); "
        "x ** n with n an int that is not a literal >= 0 is typed float (Python's value "
              "is an int when n >= 0): the plan returns that int as a double"),
    _op("neg", operator.neg, _neg, (beyond64(operator.neg),), _unary, "-{0}", "unary `-`",
        arity=(1, 1), edges=((INT64_MIN,), (0.0,), (True,))),
    _op("pos", operator.pos, _pos, (), _unary, "+{0}", "unary `+`", arity=(1, 1),
        edges=((True,), (-0.0,))),
    _op("abs", abs, _abs, (beyond64(abs),), _unary, "abs({0})", "abs()", arity=(1, 1),
        edges=((INT64_MIN,), (-0.0,), (-math.inf,), (False,))),
)  # fmt: skip

__all__ += ["I63"]
