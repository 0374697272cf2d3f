"""A match object read where it is used, never built (issue 27, item 2).

``m = P.match(s)`` of a pattern Java matches as CPython does (the table of primitives
decides) is modelled as the array of its groups (``strsql._match``). A program that only
tests it (``if m:``) and reads constant groups (``m.group(2)``) needs no array: the test
is one ``regexp_like(s, p)``, each group read one ``regexp_extract(s, p, k)`` of only
the groups that are read, without the "is it None" check where an enclosing condition
is that test (the plan filters on it once, :mod:`.outputs`). Other uses of ``m`` still
read the array.

Transforms this::

    CASE WHEN regexp_like(s, p) THEN array(regexp_extract(s, p, 0), ...) END AS m
    ... WHERE m IS NOT NULL ... element_at(m, 2)

into::

    WHERE looplift_regex_like(s, p) ... looplift_regex_group(s, p, 1)

The two are looplift's kernels of Spark's ``regexp_like`` and ``regexp_extract``
(:mod:`looplift.kernels`, ``Regex.java``): the same values, but the row's match is run
once, by the filter's test, and each group read after it takes the groups of that match.
Spark's functions would run the pattern once per call: six times for a test and five
groups.
"""

from __future__ import annotations

import re
from typing import Any

from looplift.kernels import REGEX
from looplift.sqltext import sql_string

from ..errtext import raise_sql
from ..ir.nodes import Apply, Expr, Lit, Prim, Var
from ..primitives import NOT_LIT, PRIMITIVES
from ..primitives.regex import ascii_java_pattern, group_reads, java_pattern
from .errors import BackendError
from .strfast import ascii_first, ascii_root

__all__ = ["match_call", "match_test", "group_read"]

# how each function anchors the pattern (Java's ``\z``: the very end, not before a "\n")
MATCHES = {"re.search": "{}", "re.match": "\\A(?:{})", "re.fullmatch": "\\A(?:{})\\z"}
_NONE_STRING = "expected string or bytes-like object, got 'NoneType'"


def match_call(r: Any, e: Expr) -> Apply | None:
    """The native ``re.match``/``search``/``fullmatch`` call the variable ``e`` is bound
    to (a constant pattern and flags, lowered natively at that site), else None."""
    if not isinstance(e, Var) or e.name in r.local:
        return None
    b = r.a.bound.get(e.name)
    v = b.value if b is not None else None
    if not (isinstance(v, Apply) and isinstance(v.fn, Prim) and v.fn.op in MATCHES):
        return None
    pat, flags = v.args[0], v.args[2]
    if not (isinstance(pat, Lit) and isinstance(pat.value, str) and isinstance(flags, Lit)):
        return None
    ts = [r._t(a) for a in v.args]
    lits = [a.value if isinstance(a, Lit) else NOT_LIT for a in v.args]
    if not PRIMITIVES[v.fn.op].lowers_natively(ts, lits, [r.ty.may_be_null(a) for a in v.args]):
        return None
    if java_pattern(pat.value, flags.value) is None or isinstance(
        group_reads(pat.value, flags.value), str
    ):
        return None
    return v


def _parts(r: Any, call: Apply) -> tuple[str, str, str | None, str | None]:
    """The subject's SQL, the pattern, and for ASCII text: the pattern with its classes
    clipped to ASCII and the column whose being ASCII says the subject is (or Nones)."""
    pat, flags = call.args[0].value, call.args[2].value  # type: ignore[attr-defined]
    java = java_pattern(pat, flags)
    assert java is not None and isinstance(call.fn, Prim)
    anchored = MATCHES[call.fn.op]
    s = r.expr(call.args[1])
    fast = ascii_java_pattern(pat, flags)
    root = ascii_root(r, call.args[1]) if fast is not None else None
    quick = sql_string(anchored.format(fast)) if fast is not None and root is not None else None
    return s, sql_string(anchored.format(java)), quick, root


def match_test(r: Any, call: Apply) -> str:
    """``bool(m)``: does the pattern match (TypeError where the string is None, as the
    call raises in CPython)."""
    s, p, quick, root = _parts(r, call)
    like = REGEX["like"]
    test = ascii_first(root, quick and f"{like}({s}, {quick})", f"{like}({s}, {p})")
    if r.ty.may_be_null(call.args[1]):
        return (
            f"(CASE WHEN {s} IS NULL THEN {raise_sql('TypeError', _NONE_STRING)} ELSE {test} END)"
        )
    return test


def group_read(r: Any, call: Apply, k: Expr) -> str | None:
    """``m.group(k)`` of a constant group number: that group's ``regexp_extract`` (None
    where the group took no part); AttributeError where ``m`` is None, unless an
    enclosing condition is the match test. None: not a constant group of the pattern."""
    if not (isinstance(k, Lit) and type(k.value) is int):
        return None
    pat, flags = call.args[0].value, call.args[2].value  # type: ignore[attr-defined]
    reads = group_reads(pat, flags)
    if not 0 <= k.value < len(reads) or k.value >= re.compile(pat, flags).groups + 1:
        return None
    try:
        s, p, quick, root = _parts(r, call)
    except BackendError:  # the string is not a value of this frame: the array is
        return None
    group = REGEX["group"]
    fast = quick and f"{group}({s}, {quick}, {k.value})"
    got = ascii_first(root, fast, f"{group}({s}, {p}, {k.value})")
    if reads[k.value] != "raw":
        got = f"nullif({got}, '')"
    test = match_test(r, call)
    if any(test in _conjuncts(c) or f"coalesce({test}, FALSE)" in _conjuncts(c) for c in r.conds):
        return got
    err = raise_sql("AttributeError", "'NoneType' object has no attribute 'group'")
    return f"(CASE WHEN {test} THEN {got} ELSE {err} END)"


def _conjuncts(cond: str) -> set[str]:
    """The parts of an enclosing condition (guards are ``a AND (NOT b) AND ...``)."""
    return {part.strip() for part in cond.split(" AND ")}
