"""Fast paths of exact string lowerings: the common rows decided by a cheap test first,
the exact (slower) path only for the rows that need it (issue 27, item 4).

Each form is exact on every string: the fast path is taken only where it gives CPython's
answer, which the test proves for that row. The operand is written so that Spark
evaluates it once (it appears in the first condition of a ``CASE`` and in every other
condition, where Spark's subexpression elimination computes it once per row).

- ``lower``/``upper``: an ASCII string (``length(s) = octet_length(s)``: one character a
  byte) has no character whose case mapping differs between CPython and Spark, so the
  plain ``lower(s)`` is exact; other strings are tested for those characters first;
- ``strip``/``rstrip`` (whitespace): Spark's ``trim(... FROM s)`` with a set of characters
  builds two position arrays of the whole string to trim its end; where the last
  character is a printable ASCII one or C1 ``\\x80``-``\\x84`` (not whitespace: a code point
  in [0x21, 0x84]) there is nothing to trim at the end, and only the start is trimmed;
- ``int(s)``: a string of ASCII whitespace, a sign and at most 18 ASCII digits is a plain
  ``CAST`` (Spark trims those whitespace characters itself); others go through Python's
  full grammar.

>>> print(case_mapped("lower", "`s`", "[\\\\x{19b}]", "RARE"))
(CASE WHEN length(`s`) <> octet_length(`s`) AND `s` RLIKE '[\\\\x{19b}]' THEN RARE ELSE lower(`s`) END)
"""

from __future__ import annotations

from looplift.sqltext import sql_string

__all__ = ["case_mapped", "stripped", "last_char_not_space", "INT_FAST"]

#: ``int(s)`` that a plain CAST reads as Python does: ASCII whitespace, a sign, 1-18 digits
INT_FAST = "^[ \\t\\n\\x0b\\f\\r]*[+-]?[0-9]{1,18}[ \\t\\n\\x0b\\f\\r]*$"


def case_mapped(m: str, s: str, guard: str, rare: str) -> str:
    """``s.lower()`` / ``s.upper()``: ``rare`` (the split around the characters whose
    mapping differs) only for non-ASCII strings holding one of them (``guard``)."""
    return (f"(CASE WHEN length({s}) <> octet_length({s}) AND {s} RLIKE {sql_string(guard)} "
            f"THEN {rare} ELSE {m}({s}) END)")  # fmt: skip


def last_char_not_space(s: str) -> str:
    """Is the last character of ``s`` one of U+0021..U+0084 (none of them is whitespace,
    and the empty string is not)? ``ascii`` gives the first code point of its argument;
    the range test is written with one use of it, so it is computed once."""
    return f"(abs(2 * ascii(substr({s}, -1)) - 165) <= 99)"


def stripped(where: str, chars: str, s: str) -> str:
    """``s.strip()`` / ``s.rstrip()`` / ``s.lstrip()`` with Python's whitespace ``chars``
    (a SQL string; no other set: U+0021..U+0084 must not be in it): the end is trimmed
    only where its last character may be whitespace."""
    full = f"trim({where} {chars} FROM {s})"
    if where == "LEADING":  # (Spark's left trim stops at the first other character)
        return full
    rest = f"trim(LEADING {chars} FROM {s})" if where == "BOTH" else s
    return f"(CASE WHEN {last_char_not_space(s)} THEN {rest} ELSE {full} END)"
