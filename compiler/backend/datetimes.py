"""``datetime`` values in Spark SQL with CPython's semantics.

``datetime.datetime`` is a TIMESTAMP (the session runs in UTC, values are
naive UTC), ``datetime.date`` a DATE, ``datetime.timedelta`` an
``INTERVAL DAY TO SECOND`` (what PySpark returns as a timedelta). The
constructors raise ValueError on fields out of range, as Python does;
``date ± timedelta`` uses the timedelta's (floored) days, as Python does;
``timedelta.days`` floors and ``.seconds`` / ``.microseconds`` are the
non-negative rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from looplift.sqltext import sql_string

from ..ir.nodes import Expr

if TYPE_CHECKING:
    from .sql import SqlRenderer

__all__ = ["DATETIME_OPS", "datetime_sql", "datetime_arith"]

MICRO = "INTERVAL '0 00:00:00.000001' DAY TO SECOND"
DAY_US = 86_400_000_000

DATETIME_OPS = frozenset(
    """make_datetime make_date make_timedelta dt.year dt.month dt.day dt.hour dt.minute
    dt.second dt.microsecond dt.weekday dt.isoweekday dt.date td.days td.seconds
    td.microseconds td.total_seconds""".split()
)

# timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks) in microseconds
_TD_UNITS = (DAY_US, 1_000_000, 1, 1_000, 60_000_000, 3_600_000_000, 7 * DAY_US)


def _value_error(what: str) -> str:
    return f"raise_error({sql_string(f'ValueError: {what} (Python raises ValueError)')})"


def micros(iv: str) -> str:
    """An interval's length in microseconds (BIGINT)."""
    return f"CAST(CAST({iv} AS DECIMAL(24, 6)) * 1000000 AS BIGINT)"


def _days(iv: str) -> str:
    """``timedelta.days``: floored."""
    us = micros(iv)
    return (
        f"(CASE WHEN {us} >= 0 THEN {us} div {DAY_US}L ELSE -((-{us} - 1) div {DAY_US}L) - 1 END)"
    )


def datetime_sql(r: SqlRenderer, op: str, args: tuple[Expr, ...], ts: list[Any],
                 x: list[str]) -> str:  # fmt: skip
    if op in ("make_datetime", "make_date"):
        if any(t == "float" for t in ts):
            what = "datetime" if op == "make_datetime" else "date"
            msg = sql_string(f"TypeError: {what}() takes integer fields (Python raises TypeError)")
            return f"raise_error({msg})"
        return _make(op, x)
    if op == "make_timedelta":
        if all(t in ("int", "bool") for t in ts):
            terms = [f"CAST({v} AS BIGINT) * {u}L" for v, u in zip(x, _TD_UNITS, strict=True)
                     if v not in ("0L", "0")]  # fmt: skip
            total = " + ".join(terms) or "0L"
        else:
            terms = [f"CAST({v} AS DOUBLE) * {u}.0" for v, u in zip(x, _TD_UNITS, strict=True)
                     if v not in ("0L", "0")]  # fmt: skip
            total = f"CAST(bround({' + '.join(terms) or '0.0'}, 0) AS BIGINT)"
        return f"(({total}) * {MICRO})"
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


def _make(op: str, x: list[str]) -> str:
    y, m, d = x[0], x[1], x[2]
    rest = list(x[3:]) + ["0L"] * (4 - len(x[3:])) if op == "make_datetime" else []
    first = f"{y} < 1 OR {y} > 9999 OR {m} < 1 OR {m} > 12"
    second = [f"{d} < 1 OR {d} > dayofmonth(last_day(make_date({y}, {m}, 1)))"]
    if rest:
        h, mi, s, us = rest
        second.append(f"{h} < 0 OR {h} > 23 OR {mi} < 0 OR {mi} > 59 OR {s} < 0 OR {s} > 59 "
                      f"OR {us} < 0 OR {us} > 999999")  # fmt: skip
        secs = f"CAST({s} AS DECIMAL(16, 6)) + CAST({us} AS DECIMAL(16, 6)) / 1000000"
        body = f"make_timestamp({y}, {m}, {d}, {h}, {mi}, {secs})"
    else:
        body = f"make_date({y}, {m}, {d})"
    return (
        f"(CASE WHEN {first} THEN {_value_error('year or month is out of range')} "
        f"WHEN {' OR '.join(second)} THEN {_value_error('a field is out of range')} "
        f"ELSE {body} END)"
    )


def datetime_arith(op: str, ts: list[Any], x: list[str]) -> str | None:
    """``+`` / ``-`` / ``*`` / unary ``-`` with a datetime, date or timedelta operand, else None."""
    kinds = {"datetime", "date", "timedelta"}
    if not any(t in kinds for t in ts):
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


def datetime_type(op: str, ts: list[Any]) -> Any:
    """The type of a datetime operation (``None`` when ``op`` is not one)."""
    if op == "make_datetime":
        return "datetime"
    if op == "make_date" or op == "dt.date":
        return "date"
    if op == "make_timedelta":
        return "timedelta"
    if op == "td.total_seconds":
        return "float"
    if op.startswith(("dt.", "td.")):
        return "int"
    kinds = ("datetime", "date", "timedelta")
    if op in ("add", "sub", "neg", "mul") and any(t in kinds for t in ts):
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
    return None
