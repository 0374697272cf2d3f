"""``int(s)`` and ``float(s)`` of a string as Spark SQL: CPython's grammar (a sign,
underscores, Unicode digits and whitespace), its ValueError, and OverflowError beyond 64
bits. A number Spark prints as Python does, or one of ASCII whitespace, a sign and at most
18 ASCII digits, is a plain ``CAST`` (no regex on the common rows); other strings are
tested against the grammar (:mod:`..primitives.grammar`).
"""

from __future__ import annotations

from looplift.sqltext import sql_string
from looplift.strings import WHITESPACE

from ..errtext import Sql, py_repr_sql, raise_sql
from ..primitives.charclass import java_class
from ..primitives.grammar import _FLOAT_RE, _INT_RE, _UDIGIT_VALUES, _UDIGITS
from .strfast import INT_FAST

__all__ = ["render_int", "render_float"]


def _raise(what: str, cls: str) -> str:
    return raise_sql(cls, what)


def _normalized_number(s: str) -> str:
    """``s`` without whitespace and underscores, other digits as ASCII ones."""
    stripped = f"regexp_replace({s}, {sql_string(java_class(WHITESPACE + '_'))}, '')"
    return f"translate({stripped}, {sql_string(_UDIGITS)}, {sql_string(_UDIGIT_VALUES)})"


_INT_NONE = "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
_FLOAT_NONE = "float() argument must be a string or a real number, not 'NoneType'"


def render_int(s: str) -> str:
    """``int(s)`` of a string: Python's grammar (sign, underscores, Unicode digits and
    whitespace), ValueError otherwise, OverflowError beyond 64 bits."""
    bad = raise_sql("ValueError", "invalid literal for int() with base 10: ", Sql(py_repr_sql(s)))
    big = raise_sql("OverflowError", "int() of a string beyond 64 bits (Python gives a big int)",
                    detail=["int(", Sql(py_repr_sql(s)), ")"])  # fmt: skip
    num = _normalized_number(s)
    v = f"try_cast({s} AS BIGINT)"
    return (  # a number written as Python and Spark both print it (no regex to test); else
        # one that fits in 64 bits: a plain CAST (which trims the ASCII whitespace itself)
        f"(CASE WHEN CAST({v} AS STRING) = {s} THEN {v} "
        f"WHEN {s} RLIKE {sql_string(INT_FAST)} THEN CAST({s} AS BIGINT) "
        f"WHEN {s} IS NULL THEN {_raise(_INT_NONE, 'TypeError')} "
        f"WHEN NOT ({s} RLIKE {sql_string(_INT_RE)}) THEN {bad} "
        f"ELSE coalesce(try_cast({num} AS BIGINT), {big}) END)"
    )


def render_float(s: str) -> str:
    """``float(s)`` of a string: Python's grammar, ValueError otherwise."""
    bad = raise_sql("ValueError", "could not convert string to float: ", Sql(py_repr_sql(s)))
    # Spark reads inf, +inf, -inf, infinity and nan, but not a signed nan
    num = f"regexp_replace({_normalized_number(s)}, '^[+-](?=[nN])', '')"
    ascii_ws = "[ \\t\\n\\x0b\\f\\r]"
    fast = f"^{ascii_ws}*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?{ascii_ws}*\\z"
    return (
        f"(CASE WHEN {s} RLIKE {sql_string(fast)} THEN CAST(trim(BOTH ' \\t\\n\\u000b\\u000c\\r' "
        f"FROM {s}) AS DOUBLE) "
        f"WHEN {s} IS NULL THEN {_raise(_FLOAT_NONE, 'TypeError')} "
        f"WHEN NOT ({s} RLIKE {sql_string(_FLOAT_RE)}) THEN {bad} ELSE CAST({num} AS DOUBLE) END)"
    )
