"""The ``math`` module's functions: one :class:`Primitive` each.

Where CPython raises (``Modules/mathmodule.c``):

- ``math_1`` functions (sqrt, exp, expm1, log1p, sin ... tanh) raise ValueError
  ("math domain error") where the C result is NaN for a non-NaN argument, or infinite
  for a finite one (OverflowError, "math range error", for the functions that can
  overflow). Written here on the argument: ``sin`` of an infinity, ``sqrt`` below zero,
  ``exp`` above the largest argument with a finite result (found by bisection with
  CPython on this C library; the edge tests probe it and its neighbours).
- ``pow`` decides overflow on the C result: the condition reads the native
  :class:`Result` (``model`` is the same C function in NumPy, which never raises).
  ``hypot`` never raises (an overflow is inf).
- ``floor``, ``ceil``, ``trunc`` of a float convert to int: NaN is a ValueError, an
  infinity an OverflowError, and beyond 64 bits the plan raises OverflowError where
  Python would return a big int. Of an int they return the int itself.
- ``log(x, base)`` divides two logs: ZeroDivisionError for base 1.

Native lowering notes (Spark 4.3, ANSI on; Spark's functions are Java's):

- ``log2`` is ``ln(x) / ln(2)`` in Spark, one ulp off at powers of two
  (``log2(2**29)`` is 29.000000000000004); the lowering returns the exact exponent
  there, so ``math.floor(math.log2(x))`` buckets agree.
- Spark's ``atan2`` adds 0.0 to both arguments (no negative zero): a zero ``y`` is
  handled in the lowering, with the sign read by ``signbit`` below.
- Java's ``pow(1, NaN)`` and ``pow(-1, ±inf)`` are NaN where C99 (and CPython) give 1.
- ``fmod`` is Spark's ``%`` on doubles (Java's remainder is C's ``fmod``), behind the
  domain check (Spark's ``%`` by zero would raise ZeroDivisionError's condition).
- The sign of a NaN is not observable in Spark SQL: ``copysign(x, -nan)`` is ``|x|``
  (CPython: ``-|x|``). A negative NaN does not arise from the language's arithmetic.
"""

from __future__ import annotations

import math
from typing import Any

from sqlglot import exp

from .base import Primitive
from .partiality import Abs, All, Any_, Arg, Cmp, IsInf, IsNan, NonInteger, Not, Num, Raises, Result
from .sqltree import INF, Operands, call, num

__all__ = ["MATH"]

DOMAIN = "math domain error"
RANGE = "math range error"
X, Y = Arg(0), Arg(1)
# the largest arguments with a finite result (glibc, as CPython calls it)
EXP_MAX = float.fromhex("0x1.62e42fefa39efp+9")  # 709.782712893384: exp, expm1
SINH_MAX = float.fromhex("0x1.633ce8fb9f87dp+9")  # 710.4758600739439: sinh, cosh
INT64_END = 2.0**63  # floats from here on (and below -2**63) have no 64-bit floor


def _np(name: str) -> Any:
    """A NumPy ufunc as a plain float function, IEEE results, no warnings (imported when
    a condition is evaluated in Python: the tests, not the compiler)."""

    def model(*xs: float) -> float:
        import numpy as np

        with np.errstate(all="ignore"):
            return float(getattr(np, name)(*(np.float64(x) for x in xs)))

    return model


def _fn(name: str) -> Any:
    """``name(x)`` of the argument as a double."""
    return lambda o: call(name, o.d(0))


def _fn2(name: str) -> Any:
    return lambda o: call(name, o.d(0), o.d(1))


def _signbit(v: exp.Expression) -> exp.Expression:
    """Is the sign bit of ``v`` set (-0.0 included, read from its text; NaN: no)?"""
    zero_neg = exp.and_(
        exp.EQ(this=v.copy(), expression=num(0)),
        call("startswith", exp.cast(v.copy(), "string"), exp.Literal.string("-")),
    )
    return exp.paren(exp.or_(exp.LT(this=v.copy(), expression=num(0)), zero_neg))


def _copysign(mag: exp.Expression, sign: exp.Expression) -> exp.Expression:
    """``|mag|`` with the sign of ``sign`` (``mag`` non-negative: as it is)."""
    m = mag if isinstance(mag, exp.Literal) or mag.name == "pi" else call("abs", mag)
    return exp.Case().when(_signbit(sign), exp.Neg(this=m.copy())).else_(m)


def _to_int(name: str) -> Any:
    """floor / ceil / trunc: an int (or bool) is its own value; a float, Spark's
    bigint result (in range: the partiality checks NaN, infinities and 64 bits)."""

    def lower(o: Operands) -> exp.Expression:
        if o.ts[0] == "int":
            return o.raw(0)
        if o.ts[0] == "bool":
            return exp.cast(o.raw(0), "bigint")
        if name == "trunc":
            return exp.cast(o.d(0), "bigint")
        return call(name, o.d(0))

    return lower


def _log(o: Operands) -> exp.Expression:
    if len(o.sql) == 2:
        return exp.Div(this=call("ln", o.d(0)), expression=call("ln", o.d(1)))
    return call("ln", o.d(0))


def _log2(o: Operands) -> exp.Expression:
    """Spark's ``log2`` is ``ln(x) / ln(2)``: at a power of two, the exact exponent."""
    k = call("rint", call("log2", o.d(0)))
    power = call("power", num(2.0), k.copy())
    return exp.Case().when(exp.EQ(this=o.d(0), expression=power), k).else_(call("log2", o.d(0)))


def _pow(o: Operands) -> exp.Expression:
    """C99's ``pow(1, y) = 1`` and ``pow(-1, ±inf) = 1`` (Java: NaN for NaN / inf ``y``)."""
    x, y = o.d(0), o.d(1)
    one = exp.or_(
        exp.EQ(this=x, expression=num(1)),
        exp.and_(exp.EQ(this=x.copy(), expression=num(-1)),
                 exp.EQ(this=call("abs", y), expression=INF.copy())),
    )  # fmt: skip
    return exp.Case().when(one, exp.Literal.number("1.0D")).else_(call("power", x.copy(), y.copy()))


def _atan2(o: Operands) -> exp.Expression:
    """``atan2(±0, x)``: ±0 for x > 0 or +0, ±pi for x < 0 or -0 (Spark loses zero signs)."""
    y, x = o.d(0), o.d(1)
    # ±0 is y itself (a literal -0.0 would not do: Spark's optimizer takes it for 0.0)
    zero_y = exp.Case().when(_signbit(x), _copysign(call("pi"), y.copy())).else_(y.copy())
    cond = exp.and_(exp.EQ(this=y.copy(), expression=num(0)), exp.not_(call("isnan", x.copy())))
    return exp.Case().when(cond, zero_y).else_(call("atan2", y.copy(), x.copy()))


def _fmod(o: Operands) -> exp.Expression:
    """Spark's ``%`` (Java's, C's fmod) raises on a zero divisor even for doubles; past
    the domain check a zero divisor means a NaN dividend, and the result is NaN."""
    nan = exp.cast(exp.Literal.string("NaN"), "double")
    return (
        exp.Case()
        .when(exp.EQ(this=o.d(1), expression=num(0)), nan)
        .else_(exp.Mod(this=o.d(0), expression=o.d(1)))
    )


def _entry(name: str, native: Any, *partiality: Raises, arity: tuple[int, int] = (1, 1),
           result: str = "float", model: Any = None, edges: tuple = (), exact: bool = True,
           raw: Any = None, notes: str = "") -> Primitive:  # fmt: skip
    return Primitive(
        name=f"math.{name}",
        arity=arity,
        params="real",
        result=result,
        reference=getattr(math, name),
        partiality=partiality,
        native=native,
        exact=exact,
        model=model,
        raw=raw,
        edges=edges,
        notes=notes,
    )


def _domain(when: Any, on: str = "any") -> Raises:
    return Raises("ValueError", DOMAIN, when, on)


def _range(when: Any) -> Raises:
    return Raises("OverflowError", RANGE, when)


_BOTH_FINITE = All(Not(IsInf(X)), Not(IsNan(X)), Not(IsInf(Y)), Not(IsNan(Y)))
_TO_INT = (
    Raises("ValueError", "cannot convert float NaN to integer", IsNan(X), on="float"),
    # an infinity (CPython raises), or a float whose integer needs more than 64 bits
    Raises("OverflowError", "cannot convert float infinity to integer, or to 64 bits",
           Not(All(Cmp(">=", X, Num(-INT64_END)), Cmp("<", X, Num(INT64_END)))),
           on="float", beyond64=True, cpython=IsInf(X)),
)  # fmt: skip


def _overflows_above(term: Any, limit: float) -> Raises:
    """OverflowError for finite arguments above ``limit`` (an infinity is fine)."""
    return _range(All(Cmp(">", term, Num(limit)), Cmp("<", term, Num(math.inf))))


MATH: tuple[Primitive, ...] = (
    _entry("sqrt", _fn("sqrt"), _domain(Cmp("<", X, Num(0))), edges=((4.0,), (2,), (-1e-300,))),
    _entry("exp", _fn("exp"), _overflows_above(X, EXP_MAX),
           edges=((710.0,), (-745.2,), (-746.0,), (1000,))),
    _entry("log", _log,
           _domain(Cmp("<=", X, Num(0))),
           _domain(Cmp("<=", Y, Num(0))),
           Raises("ZeroDivisionError", "float division by zero", Cmp("==", Y, Num(1))),
           arity=(1, 2),
           edges=((8.0, 2.0), (1000, 10), (5.0, 1.0), (math.nan, 1.0), (2**62, 2), (0.5, 0.5),
                  (math.inf, math.inf), (1.0, 0.0), (-1.0, math.nan))),
    _entry("log2", _log2, _domain(Cmp("<=", X, Num(0))),
           edges=((2.0**29,), (2**62,), (2.0**-1074,), (3,), (2**63 - 1,))),
    _entry("log10", _fn("log10"), _domain(Cmp("<=", X, Num(0))), edges=((1000.0,), (1e-300,))),
    _entry("log1p", _fn("log1p"), _domain(Cmp("<=", X, Num(-1))), edges=((-0.9999999,), (1e-20,))),
    _entry("expm1", _fn("expm1"), _overflows_above(X, EXP_MAX),
           edges=((1e-20,), (-800.0,))),
    _entry("floor", _to_int("floor"), *_TO_INT, result="int",
           edges=((-2.5,), (9.223372036854775e18,), (2**63 - 1,), (-(2**63),))),
    _entry("ceil", _to_int("ceil"), *_TO_INT, result="int",
           edges=((-2.5,), (-9.223372036854775e18,), (2**63 - 1,), (-0.5,))),
    _entry("trunc", _to_int("trunc"), *_TO_INT, result="int",
           edges=((-2.5,), (2.5,), (-9.2233720368547748e18,), (2**63 - 1,))),
    _entry("fabs", _fn("abs"), edges=((-3,), (-0.0,))),
    _entry("sin", _fn("sin"), _domain(IsInf(X)), edges=((1e300,), (math.pi,))),
    _entry("cos", _fn("cos"), _domain(IsInf(X)), edges=((1e300,), (math.pi / 2,))),
    _entry("tan", _fn("tan"), _domain(IsInf(X)), edges=((math.pi / 2,), (1e300,))),
    _entry("asin", _fn("asin"), _domain(Cmp(">", Abs(X), Num(1))), edges=((0.5,), (-1,))),
    _entry("acos", _fn("acos"), _domain(Cmp(">", Abs(X), Num(1))), edges=((0.5,), (-1,))),
    _entry("atan", _fn("atan"), edges=((1e300,), (-1,))),
    _entry("atan2", _atan2, arity=(2, 2),
           edges=((-0.0, -0.0), (0.0, -0.0), (-0.0, -1.0), (0.0, -1.0), (-0.0, 1.0),
                  (math.inf, -math.inf), (-math.inf, math.inf), (1.0, -0.0), (0, -1))),
    _entry("sinh", _fn("sinh"), _overflows_above(Abs(X), SINH_MAX),
           edges=((-711.0,), (1e-300,))),
    _entry("cosh", _fn("cosh"), _overflows_above(Abs(X), SINH_MAX),
           edges=((-711.0,), (1e-300,))),
    _entry("tanh", _fn("tanh"), edges=((20.0,), (-1e-300,))),
    _entry("hypot", _fn2("hypot"), arity=(2, 2),  # CPython returns inf, never raises
           edges=((1.5e308, 1.5e308), (1e308, 1e308), (math.inf, math.nan), (3, 4),
                  (2**62, 2**62))),
    _entry("pow", _pow,
           _domain(All(Cmp("==", X, Num(0)), Cmp("<", Y, Num(0)), Not(IsInf(Y)))),
           _domain(All(Cmp("<", X, Num(0)), Not(IsInf(X)), NonInteger(Y))),
           _range(All(IsInf(Result()), _BOTH_FINITE)),
           arity=(2, 2), model=_np("power"), raw=_fn2("power"),
           edges=((-8.0, 1 / 3), (0.0, -1.0), (-0.0, -1.0), (10.0, 400.0), (1.0, math.nan),
                  (-1.0, math.inf), (-1.0, -math.inf), (math.nan, 0.0), (0.0, -math.inf),
                  (-math.inf, 0.5), (-math.inf, 3.0), (2, 1024), (-2, 1025), (1e-300, -2.0),
                  (2, 0.5), (-2, 3), (0, -1), (0, 0))),
    _entry("copysign", lambda o: _copysign(o.d(0), o.d(1)), arity=(2, 2),
           edges=((1.0, -0.0), (-1.0, 0.0), (math.inf, -1.0), (math.nan, -1.0), (3, -2),
                  (1.0, math.nan))),
    _entry("isnan", _fn("isnan"), result="bool", edges=((2**63 - 1,),)),
    _entry("isinf", lambda o: exp.EQ(this=call("abs", o.d(0)), expression=INF.copy()),
           result="bool", edges=((2**63 - 1,),)),
    _entry("isfinite",
           lambda o: exp.and_(exp.not_(call("isnan", o.d(0))),
                              exp.NEQ(this=call("abs", o.d(0)), expression=INF.copy())),
           result="bool", edges=((2**63 - 1,),)),  # fmt: skip
    _entry("degrees", _fn("degrees"), edges=((1e308,), (math.pi,))),
    _entry("radians", _fn("radians"), edges=((180,), (1e308,))),
    _entry("fmod", _fmod,
           _domain(Any_(All(Cmp("==", Y, Num(0)), Not(IsNan(X))),
                        All(IsInf(X), Not(IsNan(Y))))),
           arity=(2, 2),
           edges=((1.0, 0.0), (math.inf, 1.0), (math.nan, 0.0), (math.inf, math.nan),
                  (1.0, math.inf), (-7.5, 2.0), (7, -2), (5, 0), (-0.0, 1.0))),
)  # fmt: skip
