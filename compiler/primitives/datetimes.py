"""``datetime``: the constructors, the attributes and methods of datetimes, dates and
timedeltas, as entries of the table (their SQL is the rule of ``backend/datetimes.py``).

Types: ``datetime.datetime`` is ``"datetime"`` (a TIMESTAMP, naive UTC), ``date`` is
``"date"`` and ``timedelta`` is ``"timedelta"`` (an INTERVAL DAY TO SECOND: 64-bit
microseconds, about ±106751991 days, where Python allows ±999999999 days).

Partiality, in the order CPython checks (``Modules/_datetimemodule.c``):

- the constructors take integer fields: a float is a TypeError; a field beyond a C int an
  OverflowError ("signed integer is greater than maximum"); then ValueError for a year
  outside 1..9999, a month outside 1..12, a day beyond the month's last (Feb 29 of a
  year that is not a leap year: 1900 is not, 2000 is), an hour outside 0..23, a minute
  or second outside 0..59, a microsecond outside 0..999999;
- ``timedelta`` normalizes its fields: NaN is a ValueError, an infinity an
  OverflowError, and a result beyond ±999999999 days an OverflowError; beyond Spark's
  interval (``beyond64``) the plan raises OverflowError where Python returns;
- arithmetic (:func:`arith_type`; ``+``/``-`` are the arithmetic entries') leaving the
  years 1..9999 is OverflowError "date value out of range" (the rule checks it);
- ``datetime.strptime(s, FORMAT)`` (a constant format) raises ValueError where the whole
  string does not match the format ("unconverted data remains" when text follows) or
  names no date (Feb 29 of a year that is not a leap year); it accepts what Spark's
  parsers do not (one-digit fields, other scripts' digits, ``%j``, ``%U``): its native
  lowering is CPython's own regex for the format (numeric formats only,
  :func:`native_strptime_format`), elsewhere its reference as a vectorized Python
  function, as is ``t.strftime(FORMAT)``'s (``exact=False``) (Python's ``%Y`` of a year below 1000 is not zero-padded,
  ``%a``/``%b`` follow the C locale).

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["make_date"].raises((1900, 2, 29)).message
'day is out of range for month'
>>> PRIMITIVES["dt.year"].result_type(["date"]), PRIMITIVES["dt.date"].total
('int', True)
"""

from __future__ import annotations

import calendar
import datetime
import math
import operator
from collections.abc import Sequence
from typing import Any

from looplift.pyprims import strftime, strptime
from sqlglot import exp

from .base import Primitive
from .partiality import Pred, Raises
from .sqltree import Operands

__all__ = ["DATETIMES", "DATETIME_KINDS", "TD_MAX_DAYS", "SPARK_TD_MAX_US", "arith_type",
           "native_strptime_format"]

DATETIME_KINDS = ("datetime", "date", "timedelta")
TD_MAX_DAYS = 999_999_999  # Python's timedelta
SPARK_TD_MAX_US = 2**63 - 1  # Spark's INTERVAL DAY TO SECOND: 64-bit microseconds
C_INT = (-(2**31), 2**31 - 1)
# timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks) in microseconds
TD_UNITS = (86_400_000_000, 1_000_000, 1, 1_000, 60_000_000, 3_600_000_000, 7 * 86_400_000_000)


def _ints(*xs: Any) -> bool:
    return all(isinstance(x, int) for x in xs)


def _day_bad(y: int, m: int, d: int, *_: Any) -> bool:
    return (
        _ints(y, m, d)
        and 1 <= y <= 9999
        and 1 <= m <= 12
        and not (1 <= d <= calendar.monthrange(y, m)[1])
    )


def _n(v: int) -> exp.Expression:
    return exp.Literal.number(v) if v >= 0 else exp.Neg(this=exp.Literal.number(-v))


def _outside(x: exp.Expression, lo: int, hi: int) -> exp.Expression:
    return exp.or_(exp.LT(this=x, expression=_n(lo)), exp.GT(this=x.copy(), expression=_n(hi)))


def _float_field(o: Operands) -> exp.Expression:
    return exp.true() if any(t == "float" for t in o.ts) else exp.false()


def _beyond_c_int(o: Operands) -> exp.Expression:
    return exp.or_(*(_outside(o.raw(i), *C_INT) for i in range(len(o.sql))))


def _field(i: int, lo: int, hi: int) -> Any:
    return lambda o: _outside(o.raw(i), lo, hi) if i < len(o.sql) else exp.false()


def _last_day(o: Operands) -> exp.Expression:
    """The month's last day, by arithmetic (no function that raises on a bad date)."""
    y, m = o.raw(0), o.raw(1)

    def div(k: int) -> exp.Expression:
        return exp.EQ(this=exp.Mod(this=y.copy(), expression=_n(k)), expression=_n(0))

    leap = exp.or_(exp.and_(div(4), exp.not_(div(100))), div(400))
    feb = exp.Case().when(leap, _n(29)).else_(_n(28))
    short = exp.In(this=m.copy(), expressions=[_n(4), _n(6), _n(9), _n(11)])
    return exp.Case().when(exp.EQ(this=m.copy(), expression=_n(2)), feb).when(
        short, _n(30)).else_(_n(31))  # fmt: skip


def _day_outside(o: Operands) -> exp.Expression:
    d = o.raw(2)
    return exp.or_(exp.LT(this=d, expression=_n(1)),
                   exp.GT(this=d.copy(), expression=exp.paren(_last_day(o))))  # fmt: skip


def _constructor_clauses(fields: tuple[str, ...]) -> tuple[Raises, ...]:
    out = [
        Raises("TypeError", "integer argument expected, got float",
               Pred(lambda *xs: any(isinstance(x, float) for x in xs), "a float field",
                    native=_float_field)),
        Raises("OverflowError", "signed integer is greater than maximum",
               Pred(lambda *xs: _ints(*xs) and any(not C_INT[0] <= x <= C_INT[1] for x in xs),
                    "a field beyond a C int", native=_beyond_c_int)),
        Raises("ValueError", "year is out of range",
               Pred(lambda y, *_: not 1 <= y <= 9999, "year outside 1..9999",
                    native=_field(0, 1, 9999))),
        Raises("ValueError", "month must be in 1..12",
               Pred(lambda y, m, *_: not 1 <= m <= 12, "month outside 1..12",
                    native=_field(1, 1, 12))),
        Raises("ValueError", "day is out of range for month",
               Pred(_day_bad, "day outside 1..last day of the month", native=_day_outside)),
    ]  # fmt: skip
    bounds = {"hour": 23, "minute": 59, "second": 59, "microsecond": 999_999}
    for i, f in enumerate(fields[3:], start=3):
        hi = bounds[f]
        out.append(Raises("ValueError", f"{f} must be in 0..{hi}",
                          Pred(lambda *xs, i=i, hi=hi: len(xs) > i and not 0 <= xs[i] <= hi,
                               f"{f} outside 0..{hi}", native=_field(i, 0, hi))))  # fmt: skip
    return tuple(out)


def _td_us(*xs: Any) -> float:
    return sum(x * u for x, u in zip(xs, TD_UNITS, strict=False))


def _td_nan(*xs: Any) -> bool:
    return any(isinstance(x, float) and math.isnan(x) for x in xs)


def _td_inf(*xs: Any) -> bool:
    return any(isinstance(x, float) and math.isinf(x) for x in xs)


def _td_days(*xs: Any) -> float:
    return _td_us(*xs) // TD_UNITS[0]


TIMEDELTA_CLAUSES = (
    Raises("ValueError", "cannot convert float NaN to integer", Pred(_td_nan, "a NaN field")),
    Raises("OverflowError", "cannot convert float infinity to integer",
           Pred(_td_inf, "an infinite field")),
    Raises("OverflowError", f"must have magnitude <= {TD_MAX_DAYS}",
           Pred(lambda *xs: abs(_td_days(*xs)) > TD_MAX_DAYS, "beyond ±999999999 days")),
    Raises("OverflowError", "beyond Spark's interval (64-bit microseconds)",
           Pred(lambda *xs: abs(round(_td_us(*xs))) > SPARK_TD_MAX_US, "beyond 64 bits"),
           beyond64=True),
)  # fmt: skip


def _no_parse(s: Any, fmt: Any) -> bool:
    if not isinstance(s, str):
        return False
    try:
        datetime.datetime.strptime(s, fmt)
    except ValueError:
        return True
    return False


STRPTIME_CLAUSES = (
    Raises("ValueError", "time data does not match format",
           Pred(_no_parse, "the whole string does not match the format, or names no date")),
)  # fmt: skip
_ISO, _US, _NUM = "%Y-%m-%d", "%m/%d/%Y %H:%M:%S", "%Y%m%d"
_EDGES_STRPTIME = tuple((s, _ISO) for s in (
    "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "2023-1-5", "2023-01-05 ", " 2023-01-05",
    "", "2023-13-01", "2023-00-10", "0999-01-01", "10000-01-01", "\u0662\u0660\u0662\u0663-01-01",
    "2023-01-32", "2023/01/05")) + tuple((s, _US) for s in (
    "12/31/1999 23:59:59", "12/31/1999 24:00:00", "2/3/2001 1:2:3", "12/31/1999  23:59:59",
    "12/31/1999 23:59:60", "12/31/1999", "12/31/1999\u300023:59:59", "12/31/1999\t23:59:59",
    "\U0001d7cf2/31/1999 23:59:59")) + tuple((s, _NUM) for s in (
    "2023111", "20231231", "202311", "2023 1 1", "20230229", "20240229"))  # fmt: skip


def native_strptime_format(fmt: Any) -> bool:
    """Does ``strptime`` with this constant format have an exact native lowering? Formats of
    ``%Y``, ``%m``, ``%d`` (each once, all three) and ``%H``, ``%M``, ``%S`` (at most once)
    between literal characters that are no letters and no ``%``: CPython's own regex for
    the format (``_strptime``), with its digit and whitespace classes spelled out, matched
    as CPython matches it (the first match, which must end at the end of the string)."""
    if not isinstance(fmt, str):
        return False
    seen: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%":
            d = fmt[i + 1: i + 2]
            if d not in "YmdHMS" or not d or d in seen:
                return False
            seen.append(d)
            i += 2
            continue
        if c.isalpha() or c == "\\":
            return False
        i += 1
    return {"Y", "m", "d"} <= set(seen)


def _const(t: str) -> Any:
    return lambda ts: t


_FIELDS = ("year", "month", "day", "hour", "minute", "second", "microsecond")
_EDGES_DATE = ((2000, 2, 29), (1900, 2, 29), (2023, 2, 29), (2024, 2, 29), (2023, 0, 1),
               (2023, 13, 1), (2023, 1, 0), (2023, 1, 32), (2023, 4, 31), (0, 1, 1), (1, 1, 1),
               (9999, 12, 31), (10000, 1, 1), (-1, 1, 1), (2**31, 1, 1), (2023, 2**31, 1),
               (2**31 - 1, 1, 1), (2023, 12, 31))  # fmt: skip
_EDGES_DT = tuple((*d, 0, 0, 0, 0) for d in _EDGES_DATE[:6]) + (
    (2023, 1, 1, 24, 0, 0, 0), (2023, 1, 1, 23, 59, 59, 999_999), (2023, 1, 1, -1, 0, 0, 0),
    (2023, 1, 1, 0, 60, 0, 0), (2023, 1, 1, 0, 0, 60, 0), (2023, 1, 1, 0, 0, 0, -1),
    (2023, 1, 1, 0, 0, 0, 1_000_000), (9999, 12, 31, 23, 59, 59, 999_999), (1, 1, 1, 0, 0, 0, 0),
)  # fmt: skip
_Z = (0,) * 6
_EDGES_TD = ((TD_MAX_DAYS, *_Z), (-TD_MAX_DAYS, *_Z), (TD_MAX_DAYS + 1, *_Z),
             (-TD_MAX_DAYS - 1, *_Z), (106_751_991, *_Z), (106_751_992, *_Z),
             (-106_751_992, *_Z), (0, -1, 0, 0, 0, 0, 0), (0, 0, -1, 0, 0, 0, 0),
             (0, 86_400, 0, 0, 0, 0, 0), (-1, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, -25, 0),
             (0, 0, 0, 0, 0, 0, 1), (1.5, 0, 0, 0, 0, 0, 0), (0, 0.5e-6, 0, 0, 0, 0, 0),
             (0, 1.5e-6, 0, 0, 0, 0, 0), (math.nan, 0, 0, 0, 0, 0, 0),
             (math.inf, 0, 0, 0, 0, 0, 0), (-0.5, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0))  # fmt: skip
_DTS = (
    datetime.datetime(2000, 2, 29, 23, 59, 59, 999_999),
    datetime.datetime(1, 1, 1),
    datetime.datetime(9999, 12, 31, 23, 59, 59, 999_999),
    datetime.datetime(2023, 1, 1),
)
_DTS_TEXT = (datetime.datetime(2000, 2, 29, 23, 59, 59, 999_999), datetime.datetime(1999, 12, 31),
             datetime.datetime(9999, 12, 31, 1, 2, 3), datetime.datetime(2024, 1, 1, 0, 0, 0, 7))  # fmt: skip
_EDGES_STRFTIME = tuple((t, f) for t in _DTS_TEXT for f in ("%Y-%m-%d %H:%M:%S.%f", "%d.%m.%y %j"))
_DATES = (datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(2000, 2, 29),
          datetime.date(2023, 1, 1))  # fmt: skip
_TDS = (datetime.timedelta(0), datetime.timedelta(microseconds=-1),
        datetime.timedelta(days=-1, microseconds=1), datetime.timedelta(days=106_751_991),
        datetime.timedelta(days=-106_751_991), datetime.timedelta(seconds=86_399.999999))  # fmt: skip


def _entries() -> list[Primitive]:
    out = [
        Primitive("make_datetime", (3, 7), "int", "datetime", datetime.datetime,
                  _constructor_clauses(_FIELDS), None, True, edges=_EDGES_DT,
                  type_rule=_const("datetime"), lowering="rule", domain="datetime"),
        Primitive("make_date", (3, 3), "int", "date", datetime.date,
                  _constructor_clauses(_FIELDS[:3]), None, True, edges=_EDGES_DATE,
                  type_rule=_const("date"), lowering="rule", domain="datetime"),
        Primitive("make_timedelta", (7, 7), "real", "timedelta", datetime.timedelta,
                  TIMEDELTA_CLAUSES, None, True, edges=_EDGES_TD,
                  type_rule=_const("timedelta"), lowering="rule", domain="datetime",
                  notes="fields as (days, seconds, microseconds, milliseconds, minutes, hours, "
                        "weeks); a float total is rounded half to even, as Python rounds"),
    ]  # fmt: skip
    for m in _FIELDS:
        on = _DATES if m in ("year", "month", "day") else ()
        out.append(Primitive(f"dt.{m}", (1, 1), "datetime", "int", operator.attrgetter(m), (),
                             None, True, edges=tuple((v,) for v in _DTS + on),
                             type_rule=_const("int"), lowering="rule", domain="datetime",
                             none_raises="AttributeError"))  # fmt: skip
    for m, t in (("weekday", "int"), ("isoweekday", "int"), ("date", "date")):
        on = _DATES if m != "date" else ()
        out.append(Primitive(f"dt.{m}", (1, 1), "datetime", t, operator.methodcaller(m), (),
                             None, True, edges=tuple((v,) for v in _DTS + on),
                             type_rule=_const(t), lowering="rule", domain="datetime",
                             none_raises="AttributeError"))  # fmt: skip
    for m in ("days", "seconds", "microseconds"):
        out.append(Primitive(f"td.{m}", (1, 1), "timedelta", "int", operator.attrgetter(m), (),
                             None, True, edges=tuple((v,) for v in _TDS),
                             type_rule=_const("int"), lowering="rule", domain="datetime",
                             none_raises="AttributeError"))  # fmt: skip
    out.append(Primitive("td.total_seconds", (1, 1), "timedelta", "float",
                         operator.methodcaller("total_seconds"), (), None, True,
                         edges=tuple((v,) for v in _TDS), type_rule=_const("float"),
                         lowering="rule", domain="datetime", none_raises="AttributeError"))  # fmt: skip
    out.append(Primitive("dt.strptime", (2, 2), "str", "datetime", strptime, STRPTIME_CLAUSES,
                         None, True, edges=_EDGES_STRPTIME, type_rule=_const("datetime"),
                         lowering="rule", domain="datetime",
                         native_when=lambda site: len(site.lits) > 1 and native_strptime_format(site.lits[1]),
                         notes="a constant format; native for the numeric formats of "
                               "native_strptime_format (CPython's regex, the constructor's "
                               "checks), else Python's parser as a vectorized Python function "
                               "(Spark's parsers accept other strings)"))  # fmt: skip
    out.append(Primitive("dt.strftime", (2, 2), "datetime", "str", strftime, (), None, False,
                         edges=_EDGES_STRFTIME, type_rule=_const("str"), lowering="rule",
                         domain="datetime", notes="a constant format; Python's formatting"))  # fmt: skip
    return out


DATETIMES: tuple[Primitive, ...] = tuple(_entries())


def arith_type(op: str, ts: Sequence[Any]) -> Any:
    """The type of ``+``, ``-``, ``*`` or unary ``-`` with a datetime, date or timedelta
    operand (None when no operand is one): ``datetime - datetime`` is a timedelta,
    ``date ± timedelta`` a date, ``timedelta * int`` a timedelta."""
    if op not in ("add", "sub", "neg", "mul") or not any(t in DATETIME_KINDS for t in ts):
        return None
    if op in ("neg", "mul"):
        return "timedelta"
    a, b = ts
    if op == "sub" and a == b and a in ("datetime", "date"):
        return "timedelta"
    if a in ("datetime", "date"):
        return a
    if b in ("datetime", "date"):
        return b
    return "timedelta"


def datetime_type(op: str, ts: Sequence[Any]) -> Any:
    """The type of a datetime entry or of arithmetic on datetimes (None: neither)."""
    from . import PRIMITIVES

    entry = PRIMITIVES.get(op)
    if entry is not None and entry.domain == "datetime":
        return entry.result_type(ts)
    return arith_type(op, ts)
