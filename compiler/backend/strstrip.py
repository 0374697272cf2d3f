"""``s.strip()`` / ``s.lstrip()`` / ``s.rstrip()`` of Python's whitespace, exact, with the
common rows decided by tests of the string's two ends that cost no scan (issue 27, item 4).

Spark's ``trim(s)`` removes spaces only; ``trim(BOTH <the 29 characters> FROM s)`` is
exact but copies the string and, for its end, builds two position arrays of it (about
3.5x ``trim(s)``). The forms here take it only where a cheap test cannot decide:

- spaces first: ``t = trim(s)`` (``rtrim(s)`` for ``rstrip``) reads the ends' bytes in
  place, and returns ``s`` itself when no space is at either end. Python's strip of ``s``
  is ``t`` whenever ``t`` starts and ends with a character that is not whitespace, so a
  row ending in spaces (``"end "``) takes the common path too;
- the first character: string comparisons read the first bytes only (UTF-8 orders as code
  points), so ``t >= '!' AND t < '\\u0085'`` says "the first character is one of
  U+0021..U+0084", none of them whitespace (with two more ranges of non-whitespace);
- the last character: ``substr(CAST(t AS BINARY), -1)`` is the last byte (the cast copies
  the bytes, no scan of characters). Whitespace ends in one of 26 bytes
  (:data:`WS_LAST_BYTES`); a string ending in any other byte ends in a character that
  is not whitespace. (29 ``endswith(t, c)``, which compare in place, cost more: each
  is a call, and a row that ends in none of them makes all 29; see
  docs/performance.md.)

Spark evaluates the first condition of a ``CASE`` on every row and shares its
subexpressions with the rest (``t`` and its bytes are made once); ``x BETWEEN a AND b``
computes ``x`` once. ``lstrip`` tests ``s``'s first character only (no copy at all).

>>> print(stripped("LEADING", "W", "`s`"))
(CASE WHEN (`s` >= '!' AND (`s` < '\\u0085' OR `s` >= '\\u00a1' AND `s` < '\\u1680' OR `s` >= '\\u3001')) THEN `s` ELSE trim(LEADING W FROM `s`) END)
>>> print(stripped("TRAILING", "W", "`s`"))  # doctest: +ELLIPSIS
(CASE WHEN substr(CAST(rtrim(`s`) AS BINARY), -1) BETWEEN X'21' AND X'7F' THEN rtrim(`s`) WHEN (substr(CAST(rtrim(`s`) AS BINARY), -1) BETWEEN X'00' AND X'08' OR ...) THEN rtrim(`s`) ELSE trim(TRAILING W FROM `s`) END)
"""

from __future__ import annotations

from looplift.strings import WHITESPACE

from ..primitives.charclass import code_ranges

__all__ = ["stripped", "WS_LAST_BYTES", "FIRST_OK_RANGES"]

#: the last byte of each whitespace character's UTF-8 form
WS_LAST_BYTES = frozenset(c.encode()[-1] for c in WHITESPACE)
#: code point ranges [lo, hi) holding no whitespace, tested on the first character
#: (hi None: no end); the first is the printable ASCII, the others Latin-1 letters and the
#: scripts before U+1680, and everything after the ideographic space U+3000
FIRST_OK_RANGES = ((0x21, 0x85), (0xA1, 0x1680), (0x3001, None))
assert not any(lo <= ord(c) < (hi or 0x110000) for lo, hi in FIRST_OK_RANGES for c in WHITESPACE)
#: printable ASCII (and DEL): the common last byte
_PRINTABLE = (0x21, 0x7F)
assert not any(_PRINTABLE[0] <= b <= _PRINTABLE[1] for b in WS_LAST_BYTES)


def _byte_in(x: str, ranges: list[tuple[int, int]]) -> str:
    """``x`` (a one-byte binary) in one of ``ranges``, in SQL."""
    parts = [f"{x} = X'{lo:02X}'" if lo == hi else f"{x} BETWEEN X'{lo:02X}' AND X'{hi:02X}'"
             for lo, hi in ranges]  # fmt: skip
    return "(" + " OR ".join(parts) + ")"


#: last bytes of characters that are not whitespace, besides printable ASCII (other control
#: characters, and the continuation bytes no whitespace character ends in)
_OTHER_OK = code_ranges(set(range(256)) - WS_LAST_BYTES - set(range(_PRINTABLE[0], _PRINTABLE[1] + 1)))


def _lit(cp: int) -> str:
    return "'!'" if cp == 0x21 else f"'\\u{cp:04x}'"


def first_ok(s: str) -> str:
    """Is the first character of ``s`` one that is not whitespace (one of
    :data:`FIRST_OK_RANGES`)? False on the empty string."""
    (lo0, hi0), *rest = FIRST_OK_RANGES
    alts = [f"{s} < {_lit(hi0)}"] + [
        f"{s} >= {_lit(lo)}" + (f" AND {s} < {_lit(hi)}" if hi is not None else "")
        for lo, hi in rest
    ]
    return f"({s} >= {_lit(lo0)} AND (" + " OR ".join(alts) + "))"


def stripped(where: str, chars: str, s: str) -> str:
    """``s.strip()`` (``BOTH``), ``s.lstrip()`` (``LEADING``) or ``s.rstrip()``
    (``TRAILING``) with Python's whitespace ``chars`` (a SQL string)."""
    full = f"trim({where} {chars} FROM {s})"
    if where == "LEADING":
        return f"(CASE WHEN {first_ok(s)} THEN {s} ELSE {full} END)"
    t = f"trim({s})" if where == "BOTH" else f"rtrim({s})"
    last = f"substr(CAST({t} AS BINARY), -1)"
    common = f"{last} BETWEEN X'{_PRINTABLE[0]:02X}' AND X'{_PRINTABLE[1]:02X}'"
    other = _byte_in(last, _OTHER_OK)  # rarer: a control character, a non-ASCII letter
    if where == "BOTH":
        common, other = f"{common} AND {first_ok(t)}", f"{first_ok(t)} AND {other}"
    return f"(CASE WHEN {common} THEN {t} WHEN {other} THEN {t} ELSE {full} END)"
