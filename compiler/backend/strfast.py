"""Fast paths of exact string lowerings: the common rows decided by a cheap test first,
the exact (slower) path only for the rows that need it (issue 27, item 4).

Each form is exact on every string: the fast path is taken only where it gives CPython's
answer, which the test proves for that row. The operand is written so that Spark
evaluates it once (it appears in the first condition of a ``CASE`` and in every other
condition, where Spark's subexpression elimination computes it once per row).

- ``lower``/``upper``: an ASCII string has no character whose case mapping differs
  between CPython and Spark: looplift's kernel maps it (``looplift_lower_ascii``, null on
  other strings; :mod:`looplift.kernels`); other strings are tested for those characters,
  and take Spark's ``lower(s)`` where they hold none;
- ``strip``/``lstrip``/``rstrip``: looplift's kernels (:mod:`looplift.kernels`);
- ``int(s)``: a string of ASCII whitespace, a sign and at most 18 ASCII digits is a plain
  ``CAST`` (Spark trims those whitespace characters itself); others go through Python's
  full grammar;
- a regex whose classes hold non-ASCII characters (``\\d`` is ~65 ranges, which Java tests
  one by one): on ASCII text, the same regex with each class clipped to its ASCII
  characters (``regex.ascii_java_pattern``), tested on the column the text comes from.

>>> print(case_mapped("lower", "`s`", "[\\\\x{19b}]", "RARE"))
coalesce(looplift_lower_ascii(`s`), CASE WHEN `s` RLIKE '[\\\\x{19b}]' THEN RARE ELSE lower(`s`) END)
"""

from __future__ import annotations

from typing import Any

from looplift.kernels import IS_ASCII, LOWER_ASCII
from looplift.sqltext import sql_string

from ..ir.nodes import Apply, Expr, Lit, Prim, Var

__all__ = [
    "case_mapped",
    "INT_FAST",
    "ascii_root",
    "ascii_first",
]

#: ``int(s)`` that a plain CAST reads as Python does: ASCII whitespace, a sign, 1-18 digits
INT_FAST = "^[ \\t\\n\\x0b\\f\\r]*[+-]?[0-9]{1,18}[ \\t\\n\\x0b\\f\\r]*\\z"  # \\z: see grammar.py


def case_mapped(m: str, s: str, guard: str, rare: str) -> str:
    """``s.lower()`` / ``s.upper()``: an ASCII string by looplift's kernel (null on other
    strings, which go on), ``rare`` (the split around the characters whose mapping differs)
    only for strings holding one of them (``guard``)."""
    return (f"coalesce({LOWER_ASCII[m]}({s}), CASE WHEN {s} RLIKE {sql_string(guard)} "
            f"THEN {rare} ELSE {m}({s}) END)")  # fmt: skip


def ascii_root(r: Any, e: Expr, depth: int = 0) -> str | None:
    """SQL of a value whose being ASCII makes ``e`` ASCII (``e`` itself when it is a column
    or parameter; the subject of an ``re.sub`` with an ASCII template, followed down), so
    that a regex on ``e`` can test ASCII on it without computing ``e`` once more; None
    where there is none."""
    if depth > 20:
        return None
    if isinstance(e, Var) and e.name not in r.local:
        b = r.a.bound.get(e.name)
        if b is None or b.value is None:  # a parameter or a row field: a column
            return r.expr(e)
        e = b.value
    if (isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.op == "re.sub"
            and isinstance(e.args[1], Lit) and isinstance(e.args[1].value, str)
            and e.args[1].value.isascii()):  # fmt: skip
        return ascii_root(r, e.args[2], depth + 1)
    if isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.op in _ASCII_KEEPING:
        return ascii_root(r, e.args[0], depth + 1)  # (of ASCII text, ASCII text)
    return None


_ASCII_KEEPING = frozenset(("str.strip", "str.lstrip", "str.rstrip", "str.lower", "str.upper"))


def ascii_first(root: str | None, fast: str | None, full: str) -> str:
    """``full``, behind ``fast`` (the same regex on ASCII text) where ``root`` is ASCII."""
    if root is None or fast is None:
        return full
    # looplift_is_ascii: length(root) = octet_length(root) without counting the characters
    return f"(CASE WHEN {IS_ASCII}({root}) THEN {fast} ELSE {full} END)"
