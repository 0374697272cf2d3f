"""Result types of the string primitives (``str.*``, ``re.*``, slices, ``format``, ``in``):
the table of primitives' type rules (``compiler/primitives/strmethods.py``), asked in the
backend's terms.

A match object has the type ``("match", n)``: the tuple of its ``n + 1`` groups
(an ``array<string>`` on Spark), None when nothing matched.

>>> string_prim_type("str.split", ["str", "str"], [False, False], [None, ","])
(('list', 'str'), False)
>>> string_prim_type("re.match", ["str", "str", "int"], [False] * 3, [r"(a)(b)?", None, 0])
(('match', 2), True)
"""

from __future__ import annotations

from typing import Any

from ..primitives import PRIMITIVES, STRING_NAMES
from ..primitives.strmethods import element_type

__all__ = ["STRING_OPS", "element_type", "string_prim_type"]

# the IR's string primitives (``int(str)`` and ``float(str)`` are the IR's ``int``/``float``)
STRING_OPS = frozenset(n for n in STRING_NAMES if "(" not in n)


def string_prim_type(
    op: str, ts: list[Any], nulls: list[bool], lits: list[Any]
) -> tuple[Any, bool] | None:
    """(type, nullable) of a string primitive, or None when ``op`` is not one (or its
    operand is not a str, list or match); ``lits`` holds the literal value of each argument
    (None where it is not a literal)."""
    if op == "nth":
        return element_type(ts[0])
    entry = PRIMITIVES.get(op)
    if entry is None or entry.type_at is None or op not in STRING_OPS:
        return None
    return entry.type_at(ts, lits)
