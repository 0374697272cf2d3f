"""Positions in a value, as Spark SQL with CPython's errors: ``s[i]`` of a string, list,
tuple or match object (``m.group(i)``), slices of strings and lists, and the truthiness
of a match object or a container. The string renderer (:mod:`.strsql`) and the expression
emitter (:mod:`.sql`) call these.
"""

from __future__ import annotations

from typing import Any

from ..errtext import raise_sql
from ..ir.nodes import Expr, Lit
from .errors import BackendError
from .rules import Emitter

__all__ = ["render_index", "render_slice", "truthy"]


def _raise(what: str, cls: str) -> str:
    return raise_sql(cls, what)


def _lit(e: Expr) -> Any:
    return e.value if isinstance(e, Lit) else None


def _bounds(x: str, n: str, default: str) -> str:
    """Python's slice bound ``x`` (SQL, may be NULL) as a 0-based index in ``[0, n]``."""
    return (f"(CASE WHEN {x} IS NULL THEN {default} WHEN {x} < 0 THEN greatest({x} + {n}, 0) "
            f"ELSE least({x}, {n}) END)")  # fmt: skip


def render_slice(r: Emitter, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str | None:
    t = ts[0]
    is_str = t == "str"
    is_list = isinstance(t, tuple) and t[0] == "list"
    if not (is_str or is_list):
        raise BackendError(f"slicing is supported on strings and lists, not {t}")
    step = _lit(args[3]) if isinstance(args[3], Lit) else "?"
    s = x[0]
    n = f"char_length({s})" if is_str else f"size({s})"
    if step == -1 and all(isinstance(a, Lit) and a.value is None for a in args[1:3]):
        body = f"reverse({s})"
    elif step not in (None, 1):
        return None
    elif (short := _short_slice(s, args[1], args[2], is_str)) is not None:
        body = short
    else:
        if any(u not in ("int", "bool", "none") for u in ts[1:3]):
            raise BackendError("slice bounds must be ints")
        lo = "0" if _lit(args[1]) is None and isinstance(args[1], Lit) else _bounds(x[1], n, "0")
        hi = n if _lit(args[2]) is None and isinstance(args[2], Lit) else _bounds(x[2], n, n)
        a = args[1]
        if isinstance(a, Lit) and isinstance(a.value, int) and a.value >= 0:
            lo = f"least({a.value}, {n})"
        length = f"greatest({hi} - {lo}, 0)"
        fn = "substr" if is_str else "slice"
        body = f"{fn}({s}, {lo} + 1, {length})"
    if r.ty.may_be_null(args[0]):
        err = _raise("'NoneType' object is not subscriptable", "TypeError")
        return f"(CASE WHEN {s} IS NULL THEN {err} ELSE {body} END)"
    return body


def _short_slice(s: str, lo: Expr, hi: Expr, is_str: bool) -> str | None:
    """A slice with literal bounds that needs ``s`` once (or twice)."""
    a, b = _lit(lo), _lit(hi)
    if not (isinstance(lo, Lit) and isinstance(hi, Lit)):
        return None
    if any(isinstance(v, bool) or not (v is None or isinstance(v, int)) for v in (a, b)):
        return None
    big = 2147483647
    if a is None and b is None:
        return s
    if is_str:
        if b is None:
            return f"substr({s}, {a + 1})" if a >= 0 else f"right({s}, {-a})"
        if a is None and b >= 0:
            return f"substr({s}, 1, {b})"
        if a is not None and a >= 0 and b >= 0:
            return f"substr({s}, {a + 1}, {max(b - a, 0)})"
        return None
    if b is None and a >= 0:
        return f"slice({s}, {a + 1}, {big})"
    if a is None and b >= 0:
        return f"slice({s}, 1, {b})"
    if a is not None and a >= 0 and b >= 0:
        return f"slice({s}, {a + 1}, {max(b - a, 0)})" if b > a else f"slice({s}, 1, 0)"
    return None


def render_index(r: Emitter, base: Expr, idx: Expr, t: Any, s: str, i: str) -> str:
    """``s[i]`` of a str, list or match object (``m.group(i)``), with Python's errors."""
    if isinstance(t, tuple) and t[0] == "dict":
        from .maps import map_index

        return map_index(r, base, idx, t, s, i)
    if isinstance(t, tuple) and t[0] == "match":
        n, what, cls = f"size({s})", "no such group", "IndexError"
        none = _raise("'NoneType' object has no attribute 'group'", "AttributeError")
        lo = "0"  # group(-1) is an error
    elif isinstance(t, tuple) and t[0] == "list":
        n, what, cls = f"size({s})", "list index out of range", "IndexError"
        none = _raise("'NoneType' object is not subscriptable", "TypeError")
        lo = f"(- {n})"
    elif isinstance(t, tuple) and t[0] == "tuple" and len(set(t[1])) == 1:
        # a tuple of one item type indexed by a computed index: an array of its fields
        k = idx.value if isinstance(idx, Lit) and type(idx.value) is int else None
        if k is not None and -len(t[1]) <= k < len(t[1]):
            return f"{s}.`_{k % len(t[1]) + 1}`"
        s = f"array({', '.join(f'{s}._{k + 1}' for k in range(len(t[1])))})"
        n, what, cls = f"size({s})", "tuple index out of range", "IndexError"
        none = _raise("'NoneType' object is not subscriptable", "TypeError")
        lo = f"(- {n})"
    elif t == "str":
        n, what, cls = f"char_length({s})", "string index out of range", "IndexError"
        none = _raise("'NoneType' object is not subscriptable", "TypeError")
        lo = f"(- {n})"
    else:
        raise BackendError(f"indexing a value of type {t}")
    v = idx.value if isinstance(idx, Lit) and isinstance(idx.value, int) else None
    if v is not None and t != "str" and (v >= 0 or lo != "0"):
        # ANSI element_at raises INVALID_ARRAY_INDEX_IN_ELEMENT_AT (Python's IndexError)
        body = f"element_at({s}, {v + 1 if v >= 0 else v})"
    elif v is not None and t == "str":
        short = f"char_length({s}) <= {v}" if v >= 0 else f"char_length({s}) < {-v}"
        body = f"(CASE WHEN {short} THEN {_raise(what, cls)} ELSE substr({s}, {v + 1 if v >= 0 else v}, 1) END)"
    else:
        pos = f"(CASE WHEN {i} < 0 THEN {i} + {n} ELSE {i} END)"
        get = (f"substr({s}, {pos} + 1, 1)" if t == "str"
               else f"element_at({s}, CAST({pos} + 1 AS INT))")  # fmt: skip
        body = f"(CASE WHEN {i} >= {n} OR {i} < {lo} THEN {_raise(what, cls)} ELSE {get} END)"
    tests = []
    if r.ty.may_be_null(base):
        tests.append(f"WHEN {s} IS NULL THEN {none}")
    if r.ty.may_be_null(idx):
        tests.append(
            f"WHEN {i} IS NULL THEN {_raise('indices must be integers, not None', 'TypeError')}"
        )
    if tests:
        return f"(CASE {' '.join(tests)} ELSE {body} END)"
    return body


def truthy(sql: str, t: Any) -> str | None:
    """Python truthiness of a match object (None is falsy) or a list (empty is falsy)."""
    if isinstance(t, tuple) and t[0] == "match":
        return f"({sql} IS NOT NULL)"
    if isinstance(t, tuple) and t[0] in ("list", "dict"):
        return f"(size({sql}) > 0)"
    return None
