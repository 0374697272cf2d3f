"""Comparisons, ``not``, ``is None``, ``in``, ``min`` and ``max``: one :class:`Operator` each.

Covers bools, ints and floats (any mix), and two strs (Spark compares UTF-8 bytes,
which orders as code points do); ``==``, ``!=``, ``is None`` and ``in`` take a None
(``None == None``), ``<`` ... and ``min`` / ``max`` raise TypeError on one.

Native lowering notes (Spark 4.3):

- NaN: Spark orders it above every number and makes it equal to itself; in Python
  every comparison with NaN is false (``!=`` true). ``a < b`` gets ``NOT isnan(b)``
  (``NaN < b`` is already false in Spark), ``a > b`` ``NOT isnan(a)``, ``==`` a test on
  one side. A float literal other than NaN needs no test.
- An int against a float: Spark converts the int to a double (``2**53 + 1 == 2.0**53``
  is true there, false in Python). The lowering compares exactly: NaN, floats beyond
  the 64-bit range, else the int with the float's ``ceil`` / ``floor`` as a bigint
  (``==``: an integral float, cast).
- ``-0.0 == 0.0`` in both.
- ``min`` / ``max`` are CPython's loop: the first argument, replaced by each later one
  that compares less / greater. NaN never compares, so it is kept only where it comes
  first (``max(nan, 1.0)`` is NaN, ``max(1.0, nan)`` 1.0); of equal values (``0.0`` and
  ``-0.0``) the first is kept. Spark's ``greatest`` is neither: used for ints only.
- ``x in (a, b)`` is CPython's ``x is a or x == a or ...``: NaN is in a tuple only as
  the same object. The lowering knows identity only where the same operand appears
  (``x in (x, y)``); a NaN from the data is another object, so it is in no tuple
  (Python agrees unless the very object is in the tuple, e.g. through a variable
  holding the same value, which the plan does not track).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from .base import NOT_LIT
from .operator import INT64_MAX, INT64_MIN, IsNone, NumPred, Operator, none
from .partiality import Raises
from .sqltree import Operands, call, num
from .typerules import unify

__all__ = ["COMPARE", "compare", "truthy"]

_CHEAP = re.compile(r"[\w.`:]+|-?[0-9][0-9.eE+-]*[DL]?|\(?CAST\([\w.`:]+ AS \w+\)\)?")
_NUMBER_SQL = re.compile(r"-?[0-9][0-9.eE+-]*[DL]?|CAST\('-?Infinity' AS DOUBLE\)")
_NODES = {"eq": exp.EQ, "ne": exp.NEQ, "lt": exp.LT, "le": exp.LTE, "gt": exp.GT, "ge": exp.GTE}
_MIRROR = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_TWO63 = 2.0**63


def may_be_nan(o: Operands, i: int) -> bool:
    """Operand ``i`` is a float that may be NaN (not a literal number)."""
    if o.ts[i] != "float":
        return False
    lit = o.lits[i]  # type: ignore[attr-defined]
    if lit is not NOT_LIT and isinstance(lit, float) and lit == lit:
        return False
    return not _NUMBER_SQL.fullmatch(o.sql[i])


def _side(o: Operands, i: int) -> exp.Expression:
    return exp.cast(o.raw(i), "bigint") if o.ts[i] == "bool" else o.raw(i)


def _mixed(op: str, i: exp.Expression, f: exp.Expression) -> exp.Expression:
    """``i <op> f`` for a 64-bit int ``i`` and a double ``f``, exactly."""
    truth = lambda b: exp.true() if b else exp.false()  # noqa: E731
    if op in ("eq", "ne"):
        integral = exp.and_(exp.EQ(this=call("rint", f.copy()), expression=f.copy()),
                            exp.EQ(this=i.copy(), expression=exp.cast(f.copy(), "bigint")))  # fmt: skip
        core = integral if op == "eq" else exp.not_(exp.paren(integral))
    else:
        g = call("ceil" if op in ("lt", "ge") else "floor", f.copy())
        core = _NODES[op](this=i.copy(), expression=g)
    return (exp.Case().when(call("isnan", f.copy()), truth(op == "ne"))
            .when(exp.GTE(this=f.copy(), expression=num(_TWO63)), truth(op in ("lt", "le", "ne")))
            .when(exp.LT(this=f.copy(), expression=num(-_TWO63)), truth(op in ("gt", "ge", "ne")))
            .else_(core))  # fmt: skip


def compare(op: str, o: Operands, a: int = 0, b: int = 1) -> exp.Expression:
    """Python's ``o[a] <op> o[b]`` (operands not None; ``==`` / ``!=`` see
    :func:`_equality` for None)."""
    ta, tb = o.ts[a], o.ts[b]
    x, y = _side(o, a), _side(o, b)
    if {ta, tb} == {"int", "float"} or {ta, tb} == {"bool", "float"}:
        (i, f, op) = (y, x, _MIRROR[op]) if ta == "float" else (x, y, op)
        if _CHEAP.fullmatch(f.sql(dialect="spark")):
            return _mixed(op, i, f)
        # the float is repeated: computed once, with the int (no Python call in a lambda)
        value = call("named_struct", exp.Literal.string("i"), i, exp.Literal.string("f"), f)
        ref = lambda k: exp.Dot(this=exp.var("__c"), expression=exp.to_identifier(k))  # noqa: E731
        lam = exp.Lambda(
            this=_mixed(op, ref("i"), ref("f")), expressions=[exp.to_identifier("__c")]
        )
        return exp.Bracket(this=call("transform", call("array", value), lam),
                           expressions=[exp.Literal.number(0)])  # fmt: skip
    out = _NODES[op](this=x, expression=y)
    if op in ("lt", "le") and may_be_nan(o, b):
        return exp.and_(out, exp.not_(call("isnan", y.copy())))
    if op in ("gt", "ge") and may_be_nan(o, a):
        return exp.and_(out, exp.not_(call("isnan", x.copy())))
    if op in ("eq", "ne"):
        nan = [i for i in (a, b) if may_be_nan(o, i)]
        if nan:
            test = call("isnan", _side(o, nan[0]))
            return exp.and_(out, exp.not_(test)) if op == "eq" else exp.or_(out, test)
    return out


def _nullable(o: Operands, i: int) -> bool:
    return bool(o.nullable[i])  # type: ignore[attr-defined]


def _mixed_kinds(o: Operands) -> bool:
    return {o.ts[0], o.ts[1]} in ({"int", "float"}, {"bool", "float"})


def _equality(op: str) -> Any:
    def lower(o: Operands) -> exp.Expression:
        if not (_nullable(o, 0) or _nullable(o, 1)):
            return exp.paren(compare(op, o))
        if not _mixed_kinds(o):  # None == None; None == x is false; NaN never equal
            out: exp.Expression = exp.NullSafeEQ(this=_side(o, 0), expression=_side(o, 1))
            nan = [i for i in (0, 1) if may_be_nan(o, i)]
            if nan:
                out = exp.and_(out, exp.not_(call("isnan", _side(o, nan[0]))))
            return exp.paren(out) if op == "eq" else exp.paren(exp.not_(exp.paren(out)))
        n0 = exp.Is(this=o.raw(0), expression=exp.Null())
        n1 = exp.Is(this=o.raw(1), expression=exp.Null())
        core = exp.Case().when(exp.or_(n0, n1), exp.and_(n0.copy(), n1.copy()))
        core = core.else_(exp.paren(compare("eq", o)))
        return core if op == "eq" else exp.not_(exp.paren(core))

    return lower


def truthy(o: Operands, i: int = 0) -> exp.Expression | None:
    """Python's truthiness of operand ``i``: of a bool, int, float, str or None (None for
    other types: the renderer's)."""
    t, x = o.ts[i], o.raw(i)
    if t == "bool":
        out: exp.Expression = x
    elif t in ("int", "float"):
        out = exp.paren(exp.NEQ(this=x, expression=num(0)))
    elif t == "str":
        out = exp.paren(exp.NEQ(this=x, expression=exp.Literal.string("")))
    elif t == "none":
        return exp.false()
    else:
        return None
    if _nullable(o, i):
        return call("coalesce", out, exp.false())
    return out


def _not(o: Operands) -> exp.Expression:
    t = truthy(o)
    assert t is not None
    return exp.paren(exp.not_(t))


def _in(o: Operands) -> exp.Expression:
    """``x in (a, ...)``: ``x is a or x == a or ...``."""
    n = len(o.sql)
    if n == 1:
        return exp.false()
    same = [j for j in range(1, n) if o.sql[j] == o.sql[0]]
    if same:  # x is x
        return exp.true()
    if _nullable(o, 0) or any(o.ts[j] != o.ts[0] for j in range(1, n)):
        parts = [exp.paren(_equality("eq")(_pair(o, j))) for j in range(1, n)]
        return exp.paren(exp.or_(*parts))
    out: exp.Expression = exp.In(this=_side(o, 0), expressions=[_side(o, j) for j in range(1, n)])
    if may_be_nan(o, 0):
        out = exp.and_(out, exp.not_(call("isnan", o.raw(0))))
    return exp.paren(out)


def _pair(o: Operands, j: int) -> Operands:
    """The operands ``(o[0], o[j])``."""
    p = Operands([o.sql[0], o.sql[j]], [o.ts[0], o.ts[j]])
    p.lits = [o.lits[0], o.lits[j]]  # type: ignore[attr-defined]
    p.nullable = [o.nullable[0], o.nullable[j]]  # type: ignore[attr-defined]
    return p


def _extreme(op: str) -> Any:
    """CPython's ``max`` (``min``): the first argument, replaced by each later one that
    compares greater (less)."""

    def lower(o: Operands) -> exp.Expression:
        n = len(o.sql)
        if all(t in ("int", "bool") for t in o.ts):
            return call("greatest" if op == "gt" else "least", *(_side(o, i) for i in range(n)))
        best, best_t, best_sql, best_lit = _side(o, 0), o.ts[0], o.sql[0], o.lits[0]  # type: ignore[attr-defined]
        for i in range(1, n):
            p = Operands([o.sql[i], best_sql], [o.ts[i], best_t])
            p.lits = [o.lits[i], best_lit]  # type: ignore[attr-defined]
            p.nullable = [False, False]  # type: ignore[attr-defined]
            test = compare(op, p)
            best = exp.Case().when(test, _side(o, i)).else_(best)
            best_sql = best.sql(dialect="spark", normalize_functions="lower")
            best_t, best_lit = unify(best_t, o.ts[i]), NOT_LIT
            best_sql = f"({best_sql})"
        return best

    return lower


def _cmp_type(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    return "bool"


def _extreme_type(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
    t = ts[0]
    for x in ts[1:]:
        t = unify(t, x)
    return t


def _entry(name: str, ref: Any, native: Any, spelling: str, partiality: tuple[Raises, ...] = (),
           rule: Any = _cmp_type, arity: tuple[int, int] = (2, 2), nulls: str = "raise",
           edges: tuple = (), covers: str = "bool, int, float (any mix); str with str",
           **kw: Any) -> Operator:  # fmt: skip
    return Operator(
        name=name, arity=arity, params="real", result="any", reference=ref,
        partiality=partiality, native=native, exact=True, edges=edges, rule=rule,
        spelling=spelling, nulls=nulls, covers=covers, **kw,
    )  # fmt: skip


_NAN = float("nan")
_INF = float("inf")
_CMP_EDGES = ((2**53 + 1, 2.0**53), (2.0**53, 2**53 + 1), (INT64_MAX, 2.0**63), (INT64_MIN, -(2.0**63)),
              (INT64_MAX, _INF), (INT64_MIN, -_INF), (1, _NAN), (_NAN, 1), (_NAN, _NAN),
              (-0.0, 0.0), (True, 1), (False, 0.0), (3, 2.5), (-3, -2.5), (2.5, 2),
              (INT64_MAX - 1, 9.223372036854775e18), (9.223372036854775e18, INT64_MAX))  # fmt: skip


def _kind(v: Any) -> str:
    return "number" if isinstance(v, (bool, int, float)) else type(v).__name__


def kinds(symbol: str) -> Raises:
    """TypeError ordering values of different kinds (``1 < "a"``): the typer's and
    Spark's analysis refuse such plans, so no check is rendered."""
    return Raises("TypeError", f"'{symbol}' not supported between instances of different "
                  "kinds", NumPred(lambda *xs: len({_kind(v) for v in xs}) > 1,
                                   "operands of different kinds (refused before the plan runs)",
                                   native=lambda o: exp.false()))  # fmt: skip


def _ordering(name: str, symbol: str) -> Operator:
    what = f"comparison `{symbol}`"
    return _entry(name, getattr(operator, name), lambda o, n=name: exp.paren(compare(n, o)),
                  f"{{0}} {symbol} {{1}}", (*none(2, what), kinds(symbol)),
                  edges=_CMP_EDGES)  # fmt: skip


COMPARE: tuple[Operator, ...] = (
    _entry("eq", operator.eq, _equality("eq"), "{0} == {1}", nulls="total", edges=_CMP_EDGES),
    _entry("ne", operator.ne, _equality("ne"), "{0} != {1}", nulls="total", edges=_CMP_EDGES),
    _ordering("lt", "<"),
    _ordering("le", "<="),
    _ordering("gt", ">"),
    _ordering("ge", ">="),
    _entry("not", operator.not_, _not, "not {0}", arity=(1, 1), nulls="total",
           covers="bool, int, float, str, None (others: the renderer's truthiness)",
           edges=((_NAN,), (-0.0,), (0,), (INT64_MIN,))),
    _entry("is_none", lambda x: x is None, lambda o: exp.paren(exp.Is(this=o.raw(0), expression=exp.Null())),
           "{0} is None", arity=(1, 1), nulls="total", covers="any", edges=((_NAN,), (0,))),
    _entry("is_not_none", lambda x: x is not None,
           lambda o: exp.paren(exp.not_(exp.Is(this=o.raw(0), expression=exp.Null()))),
           "{0} is not None", arity=(1, 1), nulls="total", covers="any", edges=((_NAN,), (0,))),
    _entry("in", lambda x, *xs: x in xs, _in, "{0} in ({1},)", nulls="total", variadic=True,
           edges=((_NAN, _NAN), (2**53 + 1, 2.0**53), (1, True), (-0.0, 0.0))),
    _entry("not_in", lambda x, *xs: x not in xs, lambda o: exp.paren(exp.not_(_in(o))),
           "{0} not in ({1},)", nulls="total", variadic=True,
           edges=((_NAN, _NAN), (2**53 + 1, 2.0**53), (1, True), (-0.0, 0.0))),
    _entry("min", min, _extreme("lt"), "min({0}, {1})", (*none(2, "min()"), kinds("<")), rule=_extreme_type,
           variadic=True, covers="bool, int, float (any mix), two or more arguments",
           edges=((_NAN, 1.0), (1.0, _NAN), (0.0, -0.0), (-0.0, 0.0), (2**53 + 1, 2.0**53),
                  (INT64_MIN, -_INF))),
    _entry("max", max, _extreme("gt"), "max({0}, {1})", (*none(2, "max()"), kinds(">")), rule=_extreme_type,
           variadic=True, covers="bool, int, float (any mix), two or more arguments",
           edges=((_NAN, 1.0), (1.0, _NAN), (0.0, -0.0), (-0.0, 0.0), (2.0**53, 2**53 + 1),
                  (INT64_MAX, _INF))),
)  # fmt: skip

_ = IsNone  # re-exported for the renderer's None checks
