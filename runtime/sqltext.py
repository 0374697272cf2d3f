"""Quoting for generated Spark SQL: identifiers, string and other literals.

Generated SQL never embeds user text unescaped: identifiers go through
:func:`quote_ident`, values through :func:`sql_literal`.

>>> quote_ident("a`b"), sql_string("it's")
('`a``b`', "'it\\\\'s'")
"""

from __future__ import annotations

import datetime
import itertools
import math
from typing import Any

__all__ = [
    "PARAM_MARK",
    "bind_columns",
    "bind_params",
    "param_ref",
    "quote_ident",
    "sql_literal",
    "sql_string",
]


def quote_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_string(s: str) -> str:
    """A Spark SQL string literal. Backslashes are escapes in Spark's parser; control
    characters are written as escapes so generated text stays printable."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif ord(ch) < 32 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def sql_literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"integer {v} does not fit in 64 bits")
        return f"{v}L" if v != -(2**63) else "CAST(-9223372036854775808 AS BIGINT)"
    if isinstance(v, float):
        if math.isnan(v):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(v):
            return "CAST('Infinity' AS DOUBLE)" if v > 0 else "CAST('-Infinity' AS DOUBLE)"
        return f"{v!r}D"
    if isinstance(v, str):
        return sql_string(v)
    if isinstance(v, datetime.datetime):
        return f"TIMESTAMP {sql_string(v.isoformat(sep=' '))}"
    if isinstance(v, datetime.date):
        return f"DATE {sql_string(v.isoformat())}"
    raise TypeError(f"value {v!r} has no Spark SQL literal")


# -- markers in generated SQL -----------------------------------------------------------

PARAM_MARK = ":"  # :name, the scalar parameter `name` (Spark's named parameter marker syntax)
COLUMN_MARK = "\x02"  # \x02i\x02: the i-th field argument (aggregate expressions)


def param_ref(name: str) -> str:
    """How generated SQL refers to scalar parameter ``name`` (bound by :func:`bind_params`)."""
    return f"{PARAM_MARK}{name}"


def bind_params(sql: str, params: dict[str, Any]) -> str:
    """Generated SQL with its ``:name`` parameter markers replaced by the values' SQL
    literals (the one place they are bound). Markers are found by Spark SQL's tokens, so
    a ``:`` inside a string literal or a quoted identifier is never taken for one; a
    marker left unbound is an error naming it."""
    if PARAM_MARK not in sql:
        return sql
    from sqlglot.dialects.spark import Spark
    from sqlglot.tokens import TokenType

    tokens = Spark().tokenize(sql)
    out, pos = [], 0
    for colon, name in itertools.pairwise(tokens):
        if colon.token_type != TokenType.COLON or name.start != colon.end + 1:
            continue
        text = sql[name.start : name.end + 1]
        if not text.isidentifier():
            continue
        if text not in params:
            raise ValueError(f"looplift: the scalar parameter {text!r} of the plan was not given")
        out.append(sql[pos : colon.start])
        out.append(sql_literal(params[text]))
        pos = name.end + 1
    out.append(sql[pos:])
    return "".join(out)


def bind_columns(
    sql: str, columns: list[str], checked: tuple[int, ...] = (), per_row: bool = False
) -> str:
    """An aggregate expression with its field markers replaced by column SQL, in order.

    The columns at ``checked`` carry a null check (``coalesce(x, raise_error(...))``);
    one the expression does not read is still checked on every row, by a ``bool_or``
    next to it, so that a null there stops the query as it does in a compiled plan.
    ``per_row``: the expression calls a grouped pandas UDF, which Spark runs beside no
    other aggregate, so the check goes into the columns it reads, evaluated per row."""
    unused = [i for i in checked if f"{COLUMN_MARK}{i}{COLUMN_MARK}" not in sql]
    guard = " OR ".join(f"({columns[i]}) IS NULL" for i in unused) if per_row else ""
    for i, c in enumerate(columns):
        value = f"(CASE WHEN {guard} THEN NULL ELSE {c} END)" if guard else c
        sql = sql.replace(f"{COLUMN_MARK}{i}{COLUMN_MARK}", value)
    if COLUMN_MARK in sql:
        raise ValueError("looplift: a field of the aggregate expression was not given")
    if per_row:
        return sql
    for i in unused:  # after the markers: the columns are the user's SQL, never scanned
        sql = f"(CASE WHEN bool_or(({columns[i]}) IS NULL) THEN NULL ELSE {sql} END)"
    return sql
