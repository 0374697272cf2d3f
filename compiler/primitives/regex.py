"""Python regular expressions that Java's regex engine (Spark's ``regexp_extract_all``)
matches exactly, translated: the native-exactness rule of ``re.findall`` in the table.

A pattern is translated from CPython's own parse of it (``re._parser``), construct by
construct, or refused (None: the reference runs as a vectorized Python function):

- literals, ``[...]`` classes of literals, ranges and categories (negated too: a class
  with a category is written as the code point ranges CPython's class holds),
  alternation, groups (capturing, non-capturing, atomic), greedy, lazy and
  possessive repeats, backreferences, lookaround, ``^``/``\\A``/``\\Z``;
- ``\\d``, ``\\s``, ``\\w`` and their negations as explicit classes of the characters
  CPython's Unicode tables put in them (``str.isdecimal``, ``str.isspace``,
  ``str.isalnum`` or ``_``; ASCII ones under ``re.ASCII``), never Java's own; a class of
  many ranges as ``[G&&[ranges]]`` with ``G`` a short superset, so that ASCII text is
  decided by a few range tests (Java tests a class's ranges one by one);
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

from .charclass import code_ranges, complement, merge_ranges, ranges_class
from .charclass import esc as _esc

__all__ = ["ascii_java_pattern", "group_reads", "java_pattern", "java_replacement", "refusal"]

try:  # CPython 3.11+
    from re import _constants as C  # noqa: N812
    from re import _parser as P  # noqa: N812
except ImportError:  # pragma: no cover - CPython 3.10
    import sre_constants as C  # type: ignore[no-redef]  # noqa: N812
    import sre_parse as P  # type: ignore[no-redef]  # noqa: N812

_ALLOWED_FLAGS = re.ASCII | re.DOTALL | re.UNICODE
_BUDGET = 4000  # characters of Java regex


class _Refused(Exception):
    """A construct Java would not match as CPython does: its ``args[0]`` says which."""


_FLAG_NAMES = {re.IGNORECASE: "re.IGNORECASE (case folding differs between engines)",
               re.MULTILINE: "re.MULTILINE (line terminators differ between engines)",
               re.VERBOSE: "re.VERBOSE", re.LOCALE: "re.LOCALE"}  # fmt: skip


def java_pattern(pattern: str, flags: int = 0) -> str | None:
    """The Java regex matching exactly what CPython's ``re`` matches (same spans, same
    groups) for ``pattern``, or None when this module cannot promise it."""
    out = _translate(pattern, flags)
    return out if not isinstance(out, _Refused) else None


def ascii_java_pattern(pattern: str, flags: int = 0) -> str | None:
    """The Java regex matching exactly what CPython's ``re`` matches on ASCII strings only:
    every class clipped to its ASCII characters (a few range tests, where the exact class
    of ``\\d`` is ~65 ranges), or None where it is :func:`java_pattern` itself (or that
    refuses the pattern). For a fast path behind an ASCII test of the subject.

    >>> ascii_java_pattern(r"\\d+")
    '\\\\d+'
    >>> ascii_java_pattern(r"[a-z]+") is None, ascii_java_pattern(r"\\s", re.ASCII) is None
    (True, True)
    """
    if java_pattern(pattern, flags) is None:
        return None
    out = _translate(pattern, flags, True)
    return out if isinstance(out, str) and out != java_pattern(pattern, flags) else None


def refusal(pattern: str, flags: int = 0) -> str | None:
    """Why :func:`java_pattern` refuses ``pattern`` (the construct that keeps it in
    Python, for ``--explain``), or None when it translates it.

    >>> refusal(r"\\bx")
    '`\\\\b` (word characters differ between engines)'
    >>> refusal(r"(?i)a"), refusal(r"a+") is None
    ('inline flag re.IGNORECASE (case folding differs between engines)', True)
    """
    out = _translate(pattern, flags)
    return str(out.args[0]) if isinstance(out, _Refused) else None


@cache
def _translate(pattern: str, flags: int, ascii_subject: bool = False) -> str | _Refused:
    bad = flags & ~_ALLOWED_FLAGS
    if bad:
        return _Refused(_flag_name(bad))
    try:
        tree = P.parse(pattern, flags)
    except (re.error, ValueError, OverflowError):
        return _Refused("an invalid pattern")
    bad = tree.state.flags & ~_ALLOWED_FLAGS  # inline flags: (?i), (?m), (?x) ...
    if bad:
        return _Refused("inline flag " + _flag_name(bad))
    if tree.getwidth()[0] == 0:
        return _Refused("a pattern that can match the empty string (engines differ on empty matches)")
    ascii_ = bool(tree.state.flags & re.ASCII) or (2 if ascii_subject else False)
    dotall = bool(tree.state.flags & re.DOTALL)
    try:
        out = _seq(tree, ascii_, dotall)
    except _Refused as e:
        return e
    # Unicode ``\w`` spells out ~11,000 characters of ranges: a Python call is cheaper than
    # copying that into every expression that uses it
    if len(out) > _BUDGET:
        return _Refused(f"a translation longer than {_BUDGET} characters (Unicode `\\w`: "
                        "use re.ASCII)")  # fmt: skip
    return out


def _flag_name(bits: int) -> str:
    return ", ".join(n for f, n in _FLAG_NAMES.items() if bits & f) or f"flags {bits:#x}"


def group_reads(pattern: str, flags: int = 0) -> tuple[str, ...] | str:
    """How Spark's ``regexp_extract`` (``''`` for a group that took no part) reads each
    group of a match exactly, group 0 first: ``"raw"`` for a group that takes part in every
    match, ``"nullif"`` for one that never matches ``''`` (``''`` then means None); or the
    reason (a str) a group is neither.

    >>> group_reads(r"(a)(b)?(c*)")
    ('raw', 'raw', 'nullif', 'raw')
    >>> print(group_reads(r"x(c*)|y"))
    group 1 can match the empty string and may take no part (None in Python, '' in Spark)
    """
    tree = P.parse(pattern, flags)
    out = ["raw"] + [""] * (tree.state.groups - 1)

    def walk(items: object, always: bool) -> None:
        for op, av in items:  # type: ignore[attr-defined]
            if op is C.SUBPATTERN:
                group, _add, _del, sub = av
                if group is not None:
                    out[group] = "raw" if always else "nullif" if sub.getwidth()[0] > 0 else ""
                walk(sub, always)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                walk(av[2], always and av[0] >= 1)
            elif op is getattr(C, "ATOMIC_GROUP", None):
                walk(av, always)
            elif op is C.BRANCH:
                for alt in av[1]:
                    walk(alt, False)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                walk(av[1], False)

    walk(tree, True)
    for k, how in enumerate(out):
        if not how:
            return (f"group {k} can match the empty string and may take no part (None in "
                    "Python, '' in Spark)")  # fmt: skip
    return tuple(out)


def java_replacement(pattern: str, repl: str, flags: int = 0) -> str | None:
    """``re.sub``'s template ``repl`` as a Java replacement string (``$k`` for a group,
    every other character taken literally), or None where CPython rejects it. A group that
    took no part is ``''`` in both.

    >>> print(java_replacement(r"(a)(?P<n>b)", r"<\\1\\g<n>0$>"))
    <$1$2\\0\\$>
    """
    try:
        parsed = P.parse_template(repl, re.compile(pattern, flags))
    except (re.error, ValueError, IndexError):
        return None
    if isinstance(parsed, list):  # CPython 3.12+: literal, group, literal, ...
        pieces = [_repl_lit(x) if i % 2 == 0 else f"${x}" for i, x in enumerate(parsed)]
    else:  # (groups: [(position, group)], literals with None at the groups' positions)
        groups, literals = parsed
        at = dict(groups)
        pieces = [f"${at[i]}" if i in at else _repl_lit(x or "") for i, x in enumerate(literals)]
    return "".join(pieces)


def _repl_lit(s: str) -> str:
    return "".join("\\" + c if c in "\\$" or c.isascii() and c.isdigit() else c for c in s)


_AT_NAMES = {C.AT_BOUNDARY: "\\b", C.AT_NON_BOUNDARY: "\\B"}


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
            raise _Refused("a repeat of a part that can match the empty string")
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
            raise _Refused("a scoped inline flag `(?flags:...)`")
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
        raise _Refused(f"`{_AT_NAMES.get(av, av)}` (word characters differ between engines)")
    if op is C.GROUPREF:
        return f"(?:\\{av})"
    if op in (C.ASSERT, C.ASSERT_NOT):
        direction, sub = av  # type: ignore[misc]
        kind = {(1, True): "?=", (1, False): "?!", (-1, True): "?<=", (-1, False): "?<!"}
        return f"({kind[(direction, op is C.ASSERT)]}{_seq(sub, a, dot)})"
    if op is C.GROUPREF_EXISTS:
        raise _Refused("a conditional group `(?(k)...)`")
    raise _Refused(f"the construct {op}")  # anything newer


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
        else:
            raise _Refused(f"the class item {op}")
    if not cats:
        return "[" + ("^" if negate else "") + "".join(parts) + "]"
    # with a category: the set of code points CPython's class holds, as ranges
    ivs: list[tuple[int, int]] = []
    for op, av in items:
        if op is C.LITERAL:
            ivs.append((av, av))
        elif op is C.RANGE:
            ivs.append((av[0], av[1]))
        elif op is C.CATEGORY:
            ivs.extend(_category(av, a))
    ivs = merge_ranges(ivs)
    out = complement(ivs) if negate else ivs
    if a == 2:  # an ASCII subject: the class's ASCII characters decide
        out = [(lo, min(hi, 0x7F)) for lo, hi in out if lo <= 0x7F]
    return ranges_class(out)


def _category(cat: object, a: bool) -> list[tuple[int, int]]:
    """A category's code point ranges, as CPython's ``re`` has them."""
    name = {C.CATEGORY_DIGIT: "d", C.CATEGORY_NOT_DIGIT: "D", C.CATEGORY_SPACE: "s",
            C.CATEGORY_NOT_SPACE: "S", C.CATEGORY_WORD: "w", C.CATEGORY_NOT_WORD: "W"}.get(cat)  # type: ignore[call-overload]  # fmt: skip
    if name is None:
        raise _Refused(f"the category {cat}")
    ivs = list(_category_ranges(name.lower(), bool(a) and a != 2))  # (2: Unicode, clipped later)
    return complement(ivs) if name.isupper() else ivs


@cache
def _category_ranges(name: str, a: bool) -> tuple[tuple[int, int], ...]:
    """The ranges of ``\\d``/``\\s``/``\\w`` as CPython's ``re`` has them."""
    top = 0x7F if a else sys.maxunicode
    pat = re.compile(f"\\{name}", re.ASCII if a else 0)
    return tuple(code_ranges(c for c in range(top + 1) if pat.fullmatch(chr(c))))
