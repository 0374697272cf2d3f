"""When a string primitive's native lowering is exact at a call site.

Each entry of the string table (:mod:`.strmethods`) has a ``native_when``: a test of the
call site (:class:`~.base.Site`: which arguments are literals, their values, and their
types where the caller knows them). The backend's renderer lowers the call natively
exactly when it holds, and ``--explain`` says why not from the same test; elsewhere the
CPython reference runs as a vectorized Python function. :func:`re_refusal` names the
construct that keeps a ``re`` call in Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .base import Site
from .regex import group_reads, java_pattern, java_replacement, refusal

__all__ = ["INT_SPEC", "NATIVE_METHODS", "STR_SPEC", "Native", "re_refusal"]

INT_SPEC = re.compile(r"(?P<sign>[+\- ]?)(?P<zero>0?)(?P<width>[1-9][0-9]*)?(?P<comma>,?)d?")
STR_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>]))?(?P<width>[1-9][0-9]*)?s?", re.S)

Native = Callable[[Site], bool]


def always(site: Site) -> bool:
    return True


def arg_is(i: int, *types: Any) -> Native:
    return lambda site: site.t(i, types[0]) in types


def strip_native(site: Site) -> bool:
    if site.n == 1 or site.lit(1) is None:
        return True
    return site.t(1, "str") == "str"


def split_native(m: str) -> Native:
    def native(site: Site) -> bool:
        sep = site.lit(1) if site.n > 1 else None
        maxsplit = site.lit(2) if site.n > 2 else -1
        if isinstance(maxsplit, bool) or not isinstance(maxsplit, int):
            return False
        if sep is None:
            return maxsplit == -1
        return isinstance(sep, str) and sep != "" and (m == "split" or maxsplit == -1)

    return native


def affix_native(site: Site) -> bool:
    t = site.t(1, "str")
    return t == "str" or (
        isinstance(t, tuple) and t[0] == "tuple" and all(u == "str" for u in t[1])
    )


def join_native(site: Site) -> bool:
    t = site.t(1, ("list", "str"))
    if isinstance(t, tuple) and t[0] == "tuple":
        return all(u in ("str", "none") for u in t[1])
    return t == ("list", "str")


NATIVE_METHODS: dict[str, Native] = {
    "strip": strip_native, "lstrip": strip_native, "rstrip": strip_native,
    "lower": always, "upper": always,
    "split": split_native("split"), "rsplit": split_native("rsplit"),
    "startswith": affix_native, "endswith": affix_native,
    "removeprefix": arg_is(1, "str"), "removesuffix": arg_is(1, "str"),
    "find": lambda site: site.n == 2 and site.t(1, "str") == "str",
    "index": lambda site: site.n == 2 and site.t(1, "str") == "str",
    "count": lambda site: site.n == 2 and isinstance(site.lit(1), str),
    "replace": lambda site: (site.n == 3 and isinstance(site.lit(1), str) and site.lit(1) != ""
                             and site.t(2, "str") == "str"),
    "join": join_native,
    "zfill": arg_is(1, "int", "bool"),
    # a class of the characters CPython's tables give (at most 3,000 characters of regex)
    "isdigit": always, "isdecimal": always, "isnumeric": always, "isspace": always,
    "splitlines": lambda site: site.n == 1,  # keepends=True: Python
}  # fmt: skip


def slice_native(site: Site) -> bool:
    step = site.lit(3)
    return step in (None, 1) or (step == -1 and site.lit(1) is None and site.lit(2) is None)


def format_native(site: Site) -> bool:
    spec = site.lit(1)
    if not isinstance(spec, str):
        return False
    int_ok = (m := INT_SPEC.fullmatch(spec)) is not None and not (m["zero"] and m["comma"])
    str_ok = STR_SPEC.fullmatch(spec) is not None
    t = site.t(0, None)
    return (int_ok or str_ok) if t is None else (t == "int" and int_ok) or (t == "str" and str_ok)


def pct_native(site: Site) -> bool:  # "%.2f" % x is format(x, ".2f"); %d, %s int(), str()
    return not str(site.lit(1)).endswith("f")


def findall_native(site: Site) -> bool:
    """``re.findall`` of a constant pattern Java matches exactly (``regex.java_pattern``)."""
    pat, flags = site.lit(0), site.lit(2) if site.n > 2 else 0
    return isinstance(pat, str) and isinstance(flags, int) and java_pattern(pat, flags) is not None


def re_refusal(op: str, lits: Sequence[Any]) -> str | None:
    """Why ``re.<f>`` with these literal arguments (:data:`NOT_LIT` where an argument
    varies) runs as a Python function: the construct that keeps it there (None: native, or
    not a ``re`` call the table lowers)."""
    n = len(lits)
    if op in ("re.match", "re.search", "re.fullmatch", "re.findall"):
        pat, flags = lits[0], lits[2] if n > 2 else 0
    elif op == "re.sub":
        pat, flags = lits[0], lits[4] if n > 4 else 0
    else:
        return None
    if not isinstance(pat, str) or isinstance(flags, bool) or not isinstance(flags, int):
        return "a pattern or flags that are not constant"
    why = refusal(pat, flags)
    if why is not None:
        return why
    if op != "re.sub" and op != "re.findall":
        reads = group_reads(pat, flags)
        return reads if isinstance(reads, str) else None
    if op == "re.sub":
        repl, count = lits[1], lits[3] if n > 3 else 0
        if not isinstance(repl, str):
            return "a replacement that is not a constant str"
        if count != 0 or isinstance(count, bool):
            return "a `count`"
        if java_replacement(pat, repl, flags) is None:
            return "an invalid replacement template"
    return None


def re_native(op: str) -> Native:
    """``re.match``/``search``/``fullmatch``/``sub`` of a constant pattern Java matches
    exactly, whose groups ``regexp_extract`` reads exactly (``re.sub``: a constant
    replacement, no ``count``), on a str."""
    s = 2 if op == "re.sub" else 1

    def native(site: Site) -> bool:
        if site.t(s, "str") not in ("str", "none"):
            return False
        return re_refusal(op, [site.lit(i) for i in range(site.n)]) is None

    return native


def repr_native(site: Site) -> bool:
    return site.ts is not None and site.ts[0] == "int" and not site.null(0)
