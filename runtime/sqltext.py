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

__all__ = ["quote_ident", "sql_string", "sql_literal"]


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
