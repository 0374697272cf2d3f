"""Python regular expressions that Java's regex engine (Spark's ``regexp_extract_all``)
matches exactly, translated: the native-exactness rule of ``re.findall`` in the table.

A pattern is translated from CPython's own parse of it (``re._parser``), construct by
construct, or refused (None: the reference runs as a vectorized Python function):

- literals, ``[...]`` classes of literals and ranges (not negated when they hold a
  category), alternation, groups (capturing, non-capturing, atomic), greedy, lazy and
  possessive repeats, backreferences, lookaround, ``^``/``\\A``/``\\Z``;
- ``\\d``, ``\\s``, ``\\w`` and their negations as explicit classes of the characters
  CPython's Unicode tables put in them (``str.isdecimal``, ``str.isspace``,
  ``str.isalnum`` or ``_``; ASCII ones under ``re.ASCII``), never Java's own;
- ``.`` as "anything but ``\\n``" (Java's ``.`` stops at every line terminator) and
  ``$`` as "at the end, or before a final ``\\n``" (Java's ``$`` also before ``\\r``);
- refused: flags other than ``re.ASCII`` and ``re.DOTALL`` (case folding and
  ``MULTILINE`` differ), ``\\b``/``\\B`` (their word characters differ), conditional
  groups, patterns that can match the empty string and repeats of a part that can
  (where engines differ on empty matches), and patterns whose translation exceeds
  4,000 characters (Unicode ``\\w`` alone is 11,000: ``re.ASCII`` makes it ``[0-9A-Za-z_]``).

>>> java_pattern(r"[0-9]+")
'[0-9]+'
>>> java_pattern(r"a.b$")
'a[^\\\\n]b(?=\\\\n?\\\\z)'
>>> java_pattern(r"x*") is None, java_pattern(r"\\bx") is None
(True, True)
"""

from __future__ import annotations

import re
import sys
from functools import cache

__all__ = ["java_pattern"]

try:  # CPython 3.11+
    from re import _constants as C  # noqa: N812
    from re import _parser as P  # noqa: N812
except ImportError:  # pragma: no cover - CPython 3.10
    import sre_constants as C  # type: ignore[no-redef]  # noqa: N812
    import sre_parse as P  # type: ignore[no-redef]  # noqa: N812

_ALLOWED_FLAGS = re.ASCII | re.DOTALL | re.UNICODE
_BUDGET = 4000  # characters of Java regex


class _Refused(Exception):
    pass


def java_pattern(pattern: str, flags: int = 0) -> str | None:
    """The Java regex matching exactly what CPython's ``re`` matches (same spans, same
    groups) for ``pattern``, or None when this module cannot promise it."""
    if flags & ~_ALLOWED_FLAGS:
        return None
    try:
        tree = P.parse(pattern, flags)
    except (re.error, ValueError, OverflowError):
        return None
    if tree.state.flags & ~_ALLOWED_FLAGS:  # inline flags: (?i), (?m), (?x) ...
        return None
    if tree.getwidth()[0] == 0:
        return None
    ascii_ = bool(tree.state.flags & re.ASCII)
    dotall = bool(tree.state.flags & re.DOTALL)
    try:
        out = _seq(tree, ascii_, dotall)
    except _Refused:
        return None
    # Unicode ``\w`` spells out ~11,000 characters of ranges: a Python call is cheaper than
    # copying that into every expression that uses it
    return out if len(out) <= _BUDGET else None


def _esc(c: int) -> str:
    ch = chr(c)
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{{{c:x}}}"


def _seq(items: object, a: bool, dot: bool) -> str:
    return "".join(_item(op, av, a, dot) for op, av in items)  # type: ignore[attr-defined]


def _item(op: object, av: object, a: bool, dot: bool) -> str:
    if op is C.LITERAL:
        return _esc(av)  # type: ignore[arg-type]
    if op is C.NOT_LITERAL:
        return f"[^{_esc(av)}]"  # type: ignore[arg-type]
    if op is C.ANY:
        return "[\\x{0}-\\x{10ffff}]" if dot else "[^\\n]"
    if op is C.IN:
        return _class(av, a)  # type: ignore[arg-type]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av  # type: ignore[misc]
        if sub.getwidth()[0] == 0:
            raise _Refused
        atom = len(sub) == 1 and sub[0][0] in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.SUBPATTERN)
        body = _seq(sub, a, dot) if atom else f"(?:{_seq(sub, a, dot)})"
        hi_s = "" if hi is C.MAXREPEAT else str(hi)
        q = {(0, ""): "*", (1, ""): "+", (0, "1"): "?"}.get((lo, hi_s))
        if q is None:
            q = f"{{{lo},{hi_s}}}" if hi_s != str(lo) else f"{{{lo}}}"
        suffix = "?" if op is C.MIN_REPEAT else "+" if op is not C.MAX_REPEAT else ""
        return body + q + suffix
    if op is C.SUBPATTERN:
        group, add, delete, sub = av  # type: ignore[misc]
        if add or delete:
            raise _Refused
        inner = _seq(sub, a, dot)
        return f"({inner})" if group is not None else f"(?:{inner})"
    if op is getattr(C, "ATOMIC_GROUP", None):
        return f"(?>{_seq(av, a, dot)})"
    if op is C.BRANCH:
        _, alts = av  # type: ignore[misc]
        return "(?:" + "|".join(_seq(x, a, dot) for x in alts) + ")"
    if op is C.AT:
        if av is C.AT_BEGINNING or av is C.AT_BEGINNING_STRING:
            return "\\A"
        if av is C.AT_END:
            return "(?=\\n?\\z)"
        if av is C.AT_END_STRING:
            return "\\z"
        raise _Refused  # \b, \B
    if op is C.GROUPREF:
        return f"(?:\\{av})"
    if op in (C.ASSERT, C.ASSERT_NOT):
        direction, sub = av  # type: ignore[misc]
        kind = {(1, True): "?=", (1, False): "?!", (-1, True): "?<=", (-1, False): "?<!"}
        return f"({kind[(direction, op is C.ASSERT)]}{_seq(sub, a, dot)})"
    raise _Refused  # GROUPREF_EXISTS and anything newer


def _class(items: list, a: bool) -> str:
    negate = False
    parts: list[str] = []
    cats = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            parts.append(_esc(av))
        elif op is C.RANGE:
            parts.append(f"{_esc(av[0])}-{_esc(av[1])}")
        elif op is C.CATEGORY:
            cats = True
            parts.append(_category(av, a))
        else:
            raise _Refused
    if negate and cats:
        raise _Refused  # Java's negation of nested classes: avoided
    if len(parts) == 1 and cats and not negate:
        return parts[0]
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


def _category(cat: object, a: bool) -> str:
    """A category as a (nested) Java class of CPython's characters."""
    name = {C.CATEGORY_DIGIT: "d", C.CATEGORY_NOT_DIGIT: "D", C.CATEGORY_SPACE: "s",
            C.CATEGORY_NOT_SPACE: "S", C.CATEGORY_WORD: "w", C.CATEGORY_NOT_WORD: "W"}.get(cat)  # type: ignore[call-overload]  # fmt: skip
    if name is None:
        raise _Refused
    body = _category_body(name.lower(), a)
    return f"[^{body}]" if name.isupper() else f"[{body}]"


@cache
def _category_body(name: str, a: bool) -> str:
    """The ranges of ``\\d``/``\\s``/``\\w`` as CPython's ``re`` has them."""
    top = 0x7F if a else sys.maxunicode
    pat = re.compile(f"\\{name}", re.ASCII if a else 0)
    cps = [c for c in range(top + 1) if pat.fullmatch(chr(c))]
    out, i = [], 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1:
            j += 1
        out.append(_esc(cps[i]) + (f"-{_esc(cps[j])}" if cps[j] > cps[i] else ""))
        i = j + 1
    return "".join(out)
