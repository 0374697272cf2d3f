"""Python implementations of the string primitives: ``str`` methods, slicing,
``format``, ``int``/``float`` of a string and ``re`` with constant patterns.

They are the reference the compiler's primitives evaluate with, and the
vectorized Python functions a plan calls where Spark has no exact native
expression (``looplift.spark.register_pycalls``). A match object is modelled
as the tuple of its groups (group 0 first), or None when nothing matched, so
that it travels through Spark as an ``array<string>``.

>>> IMPLS["str.split"]("a,b,,c", ",")
['a', 'b', '', 'c']
>>> IMPLS["match.group"](IMPLS["re.match"](r"(\\w+)-(\\d+)?", "ab-"), 2) is None
True
>>> IMPLS["slice"]("hello", -3, None, None)
'llo'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["IMPLS", "STR_METHODS", "WHITESPACE", "match_groups", "parses"]

# str methods the language accepts: name -> (result type, fewest and most arguments)
# (``list`` results are lists of str; ``tuple3`` a 3-tuple of str)
STR_METHODS: dict[str, tuple[Any, int, int]] = {
    "strip": ("str", 0, 1), "lstrip": ("str", 0, 1), "rstrip": ("str", 0, 1),
    "lower": ("str", 0, 0), "upper": ("str", 0, 0), "casefold": ("str", 0, 0),
    "title": ("str", 0, 0), "capitalize": ("str", 0, 0), "swapcase": ("str", 0, 0),
    "split": (("list", "str"), 0, 2), "rsplit": (("list", "str"), 0, 2),
    "splitlines": (("list", "str"), 0, 0),
    "partition": (("tuple", ("str", "str", "str")), 1, 1),
    "rpartition": (("tuple", ("str", "str", "str")), 1, 1),
    "startswith": ("bool", 1, 1), "endswith": ("bool", 1, 1),
    "replace": ("str", 2, 3), "removeprefix": ("str", 1, 1), "removesuffix": ("str", 1, 1),
    "find": ("int", 1, 3), "rfind": ("int", 1, 3), "index": ("int", 1, 3),
    "rindex": ("int", 1, 3), "count": ("int", 1, 3),
    "join": ("str", 1, 1), "zfill": ("str", 1, 1),
    "center": ("str", 1, 2), "ljust": ("str", 1, 2), "rjust": ("str", 1, 2),
    "isdigit": ("bool", 0, 0), "isdecimal": ("bool", 0, 0), "isnumeric": ("bool", 0, 0),
    "isalpha": ("bool", 0, 0), "isalnum": ("bool", 0, 0), "isspace": ("bool", 0, 0),
    "islower": ("bool", 0, 0), "isupper": ("bool", 0, 0), "istitle": ("bool", 0, 0),
    "isascii": ("bool", 0, 0), "isidentifier": ("bool", 0, 0),
}  # fmt: skip

# the characters str.split() / str.strip() treat as whitespace (str.isspace)
WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


def _method(name: str) -> Callable[..., Any]:
    def call(s: Any, *args: Any) -> Any:
        return getattr(s, name)(*args)  # None raises AttributeError, as in Python

    call.__name__ = name
    return call


def match_groups(m: re.Match[str] | None) -> tuple[str | None, ...] | None:
    """A match object as the tuple of its groups (None: no match)."""
    if m is None:
        return None
    return tuple(m.group(i) for i in range(m.re.groups + 1))


def _re_match(pattern: str, s: str, flags: int = 0) -> Any:
    return match_groups(re.match(pattern, s, flags))


def _re_search(pattern: str, s: str, flags: int = 0) -> Any:
    return match_groups(re.search(pattern, s, flags))


def _re_fullmatch(pattern: str, s: str, flags: int = 0) -> Any:
    return match_groups(re.fullmatch(pattern, s, flags))


def _group(m: Any, i: int = 0) -> Any:
    if m is None:
        raise AttributeError("'NoneType' object has no attribute 'group'")
    if isinstance(i, bool) or not 0 <= i < len(m):
        raise IndexError("no such group")
    return m[i]


def _re_sub(pattern: str, repl: str, s: str, count: int = 0, flags: int = 0) -> str:
    return re.sub(pattern, repl, s, count=count, flags=flags)


def _re_findall(pattern: str, s: str, flags: int = 0) -> list[str]:
    return re.findall(pattern, s, flags)


def _re_split(pattern: str, s: str, maxsplit: int = 0, flags: int = 0) -> list[Any]:
    return re.split(pattern, s, maxsplit=maxsplit, flags=flags)


def _contains(x: Any, s: Any) -> bool:
    return x in s


def _not_contains(x: Any, s: Any) -> bool:
    return x not in s


def _slice(s: Any, lo: Any, hi: Any, step: Any) -> Any:
    return s[lo:hi:step]


def _getitem(s: Any, i: Any) -> Any:
    return s[i]


def parses(conv: Callable[[str], Any], s: str) -> bool:
    """Does ``conv(s)`` return (rather than raise ValueError)?"""
    try:
        conv(s)
    except ValueError:
        return False
    return True


def int_ok(x: Any) -> bool:
    """Does ``int(x)`` succeed, or fail other than with ValueError? (A ``try``'s test.)"""
    if isinstance(x, str):
        return parses(int, x)
    return not (isinstance(x, float) and x != x)  # int(nan) is a ValueError


def float_ok(x: Any) -> bool:
    """Does ``float(x)`` succeed, or fail other than with ValueError?"""
    return not isinstance(x, str) or parses(float, x)


def percent(x: Any, conv: str) -> str:
    """One conversion of a constant ``%`` format (``"%d" % x``): ``conv`` is ``d``, ``s``,
    ``f`` or ``.<digits>f``."""
    return ("%" + conv) % (x,)


IMPLS: dict[str, Callable[..., Any]] = {
    **{f"str.{name}": _method(name) for name in STR_METHODS},
    "re.match": _re_match,
    "re.search": _re_search,
    "re.fullmatch": _re_fullmatch,
    "re.sub": _re_sub,
    "re.findall": _re_findall,
    "re.split": _re_split,
    "match.group": _group,
    "contains": _contains,
    "not_contains": _not_contains,
    "slice": _slice,
    "getitem": _getitem,
    "int_ok": int_ok,
    "float_ok": float_ok,
    "format": format,
    "pct": percent,
    "repr": repr,
    "ascii": ascii,
    "int": int,
    "float": float,
    "str": str,
}
