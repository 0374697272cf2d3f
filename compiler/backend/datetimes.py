"""``datetime`` values in Spark SQL with CPython's semantics: the SQL rules of the
table's datetime entries (``primitives/datetimes.py``: types, references, partiality).

``datetime.datetime`` is a TIMESTAMP (the session runs in UTC, values are
naive UTC), ``datetime.date`` a DATE, ``datetime.timedelta`` an
``INTERVAL DAY TO SECOND`` (what PySpark returns as a timedelta). The
constructors raise what Python raises on fields out of range (TypeError for a float,
OverflowError beyond a C int, ValueError outside the calendar);
``date ± timedelta`` uses the timedelta's (floored) days, as Python does, and a result
outside the years 1..9999 is OverflowError; ``timedelta.days`` floors and
``.seconds`` / ``.microseconds`` are the non-negative rest.
"""

from __future__ import annotations

import re
from typing import Any

from looplift.sqltext import sql_string

from ..errtext import Sql, py_repr_sql, raise_sql
from ..ir.nodes import Expr, Lit
from ..primitives import DATETIMES, PRIMITIVES
from ..primitives.base import NOT_LIT
from ..primitives.charclass import java_class
from ..primitives.datetimes import DATETIME_KINDS, TD_UNITS
from .guarded import PyCallKind
from .rules import Emitter, overload, rule
from .typevocab import spark_type

__all__ = ["datetime_sql", "datetime_arith", "micros"]

MICRO = "INTERVAL '0 00:00:00.000001' DAY TO SECOND"
DAY_US = 86_400_000_000
INT_MAX = 2**31 - 1


def _raise(cls: str, what: str) -> str:
    return raise_sql(cls, what)


def micros(iv: str) -> str:
    """An interval's length in microseconds (BIGINT)."""
    return f"CAST(CAST({iv} AS DECIMAL(24, 6)) * 1000000 AS BIGINT)"


def _days(iv: str) -> str:
    """``timedelta.days``: floored."""
    us = micros(iv)
    return (
        f"(CASE WHEN {us} >= 0 THEN {us} div {DAY_US}L ELSE -((-{us} - 1) div {DAY_US}L) - 1 END)"
    )


def _null_checked(r: Emitter, args: tuple[Expr, ...], x: list[str], sql: str, what: str) -> str:
    """``sql``, raising TypeError where an argument that may be None is."""
    nullable = [s for a, s in zip(args, x, strict=True) if r.ty.may_be_null(a)]
    if not nullable:
        return sql
    test = " OR ".join(f"{s} IS NULL" for s in nullable)
    return f"(CASE WHEN {test} THEN {raise_sql('TypeError', f'{what} with None')} ELSE {sql} END)"


@rule(*(p.name for p in DATETIMES))
def datetime_rule(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """A datetime entry, with Python's error for a None operand (AttributeError for an
    attribute or method, TypeError for a constructor)."""
    entry = PRIMITIVES[op]
    lits = [a.value if isinstance(a, Lit) else NOT_LIT for a in args]
    if not entry.lowers_natively(ts, lits):  # strptime, strftime: the reference, in Python
        return r._pycall(PyCallKind.PRIM, op, args, rtype=spark_type(entry.result_type(ts)))
    if op == "dt.strptime":
        return _strptime(r, args, x, str(lits[1]))
    sql = datetime_sql(op, ts, x)
    if op.startswith(("dt.", "td.")):
        if not r.ty.may_be_null(args[0]):
            return sql
        msg = raise_sql("AttributeError", f"'NoneType' object has no attribute '{op[3:]}'")
        return f"(CASE WHEN {x[0]} IS NULL THEN {msg} ELSE {sql} END)"
    return _null_checked(r, args, x, sql, op[5:] + "()")


def datetime_sql(op: str, ts: list[Any], x: list[str]) -> str:
    if op in ("make_datetime", "make_date"):
        if any(t == "float" for t in ts):
            return _raise("TypeError", "integer argument expected, got float")
        return _make(op, ts, x)
    if op == "make_timedelta":
        return _timedelta(ts, x)
    v = x[0]
    if op.startswith("dt."):
        name = op[3:]
        if name in ("year", "month", "hour", "minute"):
            return f"CAST({name}({v}) AS BIGINT)"
        if name == "day":
            return f"CAST(dayofmonth({v}) AS BIGINT)"
        if name == "second":
            return f"CAST(second({v}) AS BIGINT)"
        if name == "microsecond":
            return f"pmod(unix_micros(CAST({v} AS TIMESTAMP)), 1000000L)"
        if name == "weekday":
            return f"CAST(pmod(dayofweek({v}) + 5, 7) AS BIGINT)"
        if name == "isoweekday":
            return f"CAST(pmod(dayofweek({v}) + 5, 7) + 1 AS BIGINT)"
        if name == "date":
            return f"CAST({v} AS DATE)"
    if op == "td.days":
        return _days(v)
    if op == "td.seconds":
        return f"(pmod({micros(v)}, {DAY_US}L) div 1000000L)"
    if op == "td.microseconds":
        return f"pmod({micros(v)}, 1000000L)"
    if op == "td.total_seconds":
        return f"CAST(CAST({v} AS DECIMAL(24, 6)) AS DOUBLE)"
    raise AssertionError(op)


def _timedelta(ts: list[Any], x: list[str]) -> str:
    """``timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)``:
    the total in microseconds times one microsecond. Python's limit is ±999999999
    days; Spark's interval holds 64-bit microseconds (about ±106751991 days), beyond
    which the product overflows (OverflowError, as SPEC §4 says of 64 bits)."""
    fields = [(v, u, t) for v, u, t in zip(x, TD_UNITS, ts, strict=True) if v not in ("0L", "0")]
    if all(t in ("int", "bool") for t in ts):
        terms = [f"CAST({v} AS BIGINT) * {u}L" for v, u, _ in fields]
        return f"(({' + '.join(terms) or '0L'}) * {MICRO})"
    terms = [f"CAST({v} AS DOUBLE) * {u}.0" for v, u, _ in fields]
    total = f"({' + '.join(terms) or '0.0'})"
    floats = [v for v, _, t in fields if t == "float"]
    nan = " OR ".join(f"isnan({v})" for v in floats) or "FALSE"
    inf = " OR ".join(f"abs({v}) = CAST('Infinity' AS DOUBLE)" for v in floats) or "FALSE"
    return (
        f"(CASE WHEN {nan} THEN {_raise('ValueError', 'cannot convert float NaN to integer')} "
        f"WHEN {inf} THEN {_raise('OverflowError', 'cannot convert float infinity to integer')} "
        f"ELSE (CAST(bround({total}, 0) AS BIGINT) * {MICRO}) END)"
    )


def _small_literal(v: str) -> bool:
    lit = re.fullmatch(r"(-?[0-9]+)L?", v)
    return lit is not None and -INT_MAX - 1 <= int(lit.group(1)) <= INT_MAX


def _outside(v: str, lo: int, hi: int) -> str:
    """``v`` outside ``lo..hi`` (FALSE for a literal inside)."""
    lit = re.fullmatch(r"(-?[0-9]+)L?", v)
    if lit is not None and lo <= int(lit.group(1)) <= hi:
        return "FALSE"
    return f"{v} < {lo} OR {v} > {hi}"


def _make(op: str, ts: list[Any], x: list[str]) -> str:
    y, m, d = x[0], x[1], x[2]
    rest = list(x[3:]) + ["0L"] * (4 - len(x[3:])) if op == "make_datetime" else []
    ints = [v for v, t in zip(x, ts, strict=True) if t != "bool" and not _small_literal(v)]
    big = " OR ".join(f"{v} > {INT_MAX} OR {v} < -{INT_MAX + 1}" for v in ints) or "FALSE"
    whens = [
        (big, _raise("OverflowError", "signed integer is greater than maximum")),
        (_outside(y, 1, 9999), _raise("ValueError", "year is out of range")),
        (_outside(m, 1, 12), _raise("ValueError", "month must be in 1..12")),
        (f"{d} < 1 OR {d} > dayofmonth(last_day(make_date({y}, {m}, 1)))",
         _raise("ValueError", "day is out of range for month")),
    ]  # fmt: skip
    if rest:
        h, mi, s, us = rest
        for v, name, hi in ((h, "hour", 23), (mi, "minute", 59), (s, "second", 59),
                            (us, "microsecond", 999999)):  # fmt: skip
            whens.append((_outside(v, 0, hi), _raise("ValueError", f"{name} must be in 0..{hi}")))
        secs = f"CAST({s} AS DECIMAL(16, 6)) + CAST({us} AS DECIMAL(16, 6)) / 1000000"
        body = f"make_timestamp({y}, {m}, {d}, {h}, {mi}, {secs})"
    else:
        body = f"make_date({y}, {m}, {d})"
    cases = " ".join(f"WHEN {c} THEN {t}" for c, t in whens if c != "FALSE")
    return f"(CASE {cases} ELSE {body} END)"


# re's \d beyond ASCII, each standing in for its value as a private-use character
# (U+E000 + value), so that a regex over the stand-ins reads every script's digits
_DIGITS = "".join(chr(c) for c in range(0x80, 0x110000) if chr(c).isdecimal())
_STAND_INS = "".join(chr(0xE000 + int(c)) for c in _DIGITS)
_TENS = "".join(chr(0xE000 + k) for k in range(10))


def _strptime(r: Emitter, args: tuple[Expr, ...], x: list[str], fmt: str) -> str:
    """``datetime.strptime(s, fmt)`` natively: CPython's regex for the format (``_strptime``)
    with ``\\d`` and ``\\s`` as the characters CPython's ``re`` takes for them (other
    scripts' digits, replaced first by stand-ins that keep their value), its first match,
    which must end where the string ends ("unconverted data remains"), and its fields given
    to the constructor's checks (Feb 29 of a year that is not a leap year, second 60)."""
    import _strptime as cpython
    import re

    from looplift.strings import WHITESPACE

    pattern = cpython._TimeRE_cache.pattern(fmt)
    groups = re.compile(pattern).groupindex
    digit = java_class("0123456789" + _TENS)
    java = (pattern.replace("(?P<", "(?<").replace("\\d", digit)
            .replace("\\s", java_class(WHITESPACE)))  # fmt: skip
    rx = sql_string("^(?:" + java + ")")
    bad = raise_sql("ValueError", "time data ", Sql(py_repr_sql(x[0])),
                    f" does not match format {fmt!r}")
    # a stand-in in the text itself is no digit to CPython, and nothing else matches it
    clash = f"{x[0]} RLIKE {sql_string(java_class(_TENS))}"
    u = f"translate({x[0]}, {sql_string(_DIGITS)}, {sql_string(_STAND_INS)})"

    def build(v: list[str]) -> str:
        s = v[0]

        def field(name: str) -> str:
            if name not in groups:
                return "0L"
            got = f"regexp_extract({s}, {rx}, {groups[name]})"
            return f"CAST(trim(translate({got}, {sql_string(_TENS)}, '0123456789')) AS BIGINT)"

        whole = f"{s} RLIKE {rx} AND length(regexp_extract({s}, {rx}, 0)) = length({s})"
        made = r.bind([field(n) for n in "YmdHMS"],
                      lambda f: _make("make_datetime", ["int"] * 7, [*f, "0L"]))  # fmt: skip
        return f"(CASE WHEN NOT ({whole}) THEN {bad} ELSE {made} END)"

    sql = f"(CASE WHEN {clash} THEN {bad} ELSE {r.bind([u], build)} END)"
    if not r.ty.may_be_null(args[0]):
        return sql
    msg = raise_sql("TypeError", "strptime() argument 1 must be str, not None")
    return f"(CASE WHEN {x[0]} IS NULL THEN {msg} ELSE {sql} END)"


def _is_datetime_arith(ts: list[Any]) -> bool:
    return any(t in DATETIME_KINDS for t in ts)


@overload("add", "sub", "mul", "neg", when=_is_datetime_arith)
def datetime_arith_rule(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any],
                        x: list[str]) -> str:  # fmt: skip
    """``+`` / ``-`` / ``*`` / unary ``-`` with a datetime, date or timedelta operand."""
    sql = datetime_arith(op, ts, x)
    assert sql is not None
    kinds = [t for t in ts if t in ("datetime", "date")]
    if kinds and not (op == "sub" and ts[0] == ts[1]):  # a datetime or date result
        sql = r.bind([sql], lambda v: (
            f"(CASE WHEN year({v[0]}) < 1 OR year({v[0]}) > 9999 THEN "
            f"{_raise('OverflowError', 'date value out of range')} ELSE {v[0]} END)"))  # fmt: skip
    return _null_checked(r, args, x, sql, f"`{op}`")


def datetime_arith(op: str, ts: list[Any], x: list[str]) -> str | None:
    """``+`` / ``-`` / ``*`` / unary ``-`` with a datetime, date or timedelta operand, else None."""
    if not _is_datetime_arith(ts):
        return None
    if op == "neg":
        return f"(- {x[0]})"
    a, b = ts
    if op == "mul":
        return f"({x[0]} * {x[1]})"
    if a == "date" and b == "timedelta":
        sign = "" if op == "add" else "-"
        return f"date_add({x[0]}, CAST({_days(f'({sign}{x[1]})')} AS INT))"
    if op == "add" and a == "timedelta" and b == "date":
        return f"date_add({x[1]}, CAST({_days(x[0])} AS INT))"
    if op == "sub" and a == b == "date":
        return f"CAST(({x[0]} - {x[1]}) AS INTERVAL DAY TO SECOND)"
    sym = "+" if op == "add" else "-"
    return f"({x[0]} {sym} {x[1]})"
