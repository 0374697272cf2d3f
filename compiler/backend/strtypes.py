"""Result types of the string primitives (``str.*``, ``re.*``, slices, ``format``, ``in``).

A match object has the type ``("match", n)``: the tuple of its ``n + 1`` groups
(an ``array<string>`` on Spark), None when nothing matched.

>>> string_prim_type("str.split", ["str", "str"], [False, False], [None, ","])
(('list', 'str'), False)
>>> string_prim_type("re.match", ["str", "str", "int"], [False] * 3, [r"(a)(b)?", None, 0])
(('match', 2), True)
"""

from __future__ import annotations

import re
from typing import Any

from looplift.strings import STR_METHODS

__all__ = ["STRING_OPS", "string_prim_type"]

STRING_OPS = frozenset(
    {f"str.{m}" for m in STR_METHODS}
    | {"re.match", "re.search", "re.fullmatch", "re.sub", "re.findall", "re.split"}
    | {"match.group", "slice", "getitem", "format", "pct", "repr", "ascii", "contains",
       "not_contains"}
)


def string_prim_type(
    op: str, ts: list[Any], nulls: list[bool], lits: list[Any]
) -> tuple[Any, bool] | None:
    """(type, nullable) of a string primitive, or None when ``op`` is not one; ``lits``
    holds the literal value of each argument (None where it is not a literal)."""
    if op.startswith("str."):
        t = STR_METHODS[op[4:]][0]
        return t, False  # a None receiver raises
    if op in ("re.match", "re.search", "re.fullmatch"):
        n = re.compile(lits[0], lits[2] or 0).groups if isinstance(lits[0], str) else 0
        return ("match", n), True
    if op == "match.group":
        return "str", True
    if op == "re.sub":
        return "str", False
    if op in ("re.findall", "re.split"):
        return ("list", "str"), False
    if op in ("format", "pct", "repr", "ascii"):
        return "str", False
    if op in ("contains", "not_contains"):
        return "bool", False
    if op == "slice":
        t = ts[0]
        return (t if t == "str" or _is_list(t) else "any"), False
    if op in ("getitem", "nth"):
        return element_type(ts[0])
    return None


def element_type(t: Any) -> tuple[Any, bool] | None:
    """The type of ``x[i]`` for a str, list or match ``x`` (None for other types)."""
    if t == "str":
        return "str", False
    if _is_list(t):
        return t[1], True
    if isinstance(t, tuple) and t[0] == "match":
        return "str", True
    if _uniform_tuple(t):
        return t[1][0], False
    if isinstance(t, tuple) and t[0] == "dict":  # d[k] of a host function's dict
        return t[2], True
    return None


def _uniform_tuple(t: Any) -> bool:
    """A tuple whose items all have one type: indexable by a computed index."""
    return isinstance(t, tuple) and t[0] == "tuple" and len(set(t[1])) == 1


def _is_list(t: Any) -> bool:
    return isinstance(t, tuple) and t[0] == "list"
