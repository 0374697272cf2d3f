"""Quoting for generated Spark SQL: identifiers, string and other literals.

Generated SQL never embeds user text unescaped: identifiers go through
:func:`quote_ident`, values through :func:`sql_literal`.

>>> quote_ident("a`b"), sql_string("it's")
('`a``b`', "'it\\\\'s'")
"""

from __future__ import annotations

import datetime
import math
from typing import Any

__all__ = ["PARAM_MARK", "bind_columns", "bind_params", "quote_ident", "sql_literal", "sql_string"]


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

PARAM_MARK = "\x01"  # \x01name\x01: the scalar parameter `name` (generated SQL)
COLUMN_MARK = "\x02"  # \x02i\x02: the i-th field argument (aggregate expressions)


def bind_params(sql: str, params: dict[str, Any]) -> str:
    """Generated SQL with its scalar-parameter markers replaced by the values' SQL literals
    (the one place they are bound); a marker left unbound is an error."""
    for name, value in params.items():
        sql = sql.replace(f"{PARAM_MARK}{name}{PARAM_MARK}", sql_literal(value))
    if PARAM_MARK in sql:
        raise ValueError("looplift: a scalar parameter of the plan was not given")
    return sql


def bind_columns(sql: str, columns: list[str]) -> str:
    """An aggregate expression with its field markers replaced by column SQL, in order."""
    for i, c in enumerate(columns):
        sql = sql.replace(f"{COLUMN_MARK}{i}{COLUMN_MARK}", c)
    if COLUMN_MARK in sql:
        raise ValueError("looplift: a field of the aggregate expression was not given")
    return sql
