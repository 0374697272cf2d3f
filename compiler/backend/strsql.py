"""String primitives as Spark SQL, exact to CPython, or a vectorized Python function.

The rule of every string primitive of the table of primitives
(``compiler/primitives/strmethods.py``), registered with :func:`.rules.rule`: the table
decides where the native lowering is exact (``Primitive.lowers_natively``, which
``runs_python`` and ``--explain`` read too) and which None arguments CPython accepts;
this module renders the lowering (text: its ``transform`` lambdas and regexes would be
contorted as trees). It sees the emitter only through :class:`.rules.Emitter`.

Native where Spark has an exact equivalent (checked by tests/spark/test_strings.py
against CPython on hypothesis text):

- ``strip``/``lstrip``/``rstrip`` of Python's whitespace (``str.isspace``, not only the
  space) by looplift's kernels (:mod:`looplift.kernels`), of given characters as
  ``trim(... FROM s)``; ``startswith``, ``endswith``, ``removeprefix``, ``removesuffix``,
  ``find``, ``index``, ``count`` and ``replace`` of a non-empty constant, ``split(sep)``
  of a constant separator (a quoted regex), ``split()`` on runs of whitespace, ``join``,
  ``zfill``, ``in``, and ``format`` of ints with ``d`` specs and of strings with
  ``<``/``>`` alignment;
- ``lower``/``upper``: an ASCII string by looplift's kernel; the 55 characters whose case
  mapping differs between CPython's Unicode tables and Spark's stay as they are (as in
  CPython), by splitting the rare strings that hold one around them (:mod:`.strfast`);
- ``re.match``/``search``/``fullmatch``/``findall``/``sub`` of a pattern in the translated
  subset (:mod:`..primitives.regex`);
- slices and indexing: :mod:`.indexing`; ``int(s)``/``float(s)``: :mod:`.strnumbers`;
- everything else (other methods, ``re`` outside the subset, float formatting, ``repr``)
  a Python function whose errors are raised where its value is used.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from typing import Any

from looplift.kernels import STRIP
from looplift.sqltext import sql_string
from looplift.strings import WHITESPACE

from ..errtext import raise_sql
from ..ir.nodes import Expr, Lit
from ..primitives import NOT_LIT, PRIMITIVES
from ..primitives.charclass import java_class
from ..primitives.grammar import _WS
from ..primitives.regex import ascii_java_pattern, group_reads, java_pattern, java_replacement
from ..primitives.strmethods import accepts_none, raises_only_on_none
from ..primitives.strnative import INT_SPEC, STR_SPEC
from .errors import BackendError
from .guarded import PyCallKind
from .indexing import render_index, render_slice
from .rules import Emitter, rule
from .strfast import ascii_first, ascii_root, case_mapped
from .strtypes import STRING_OPS, string_prim_type
from .types import spark_type

__all__ = ["render_string"]

# characters whose upper() / lower() differ between CPython 3.11 (Unicode 14) and Spark 4.3
# (ICU, Unicode 16): computed by comparing both on every code point
_CASE_DIFF = (
    [0x19B, 0x264, 0x1C89, 0x1C8A, 0xA7CB, 0xA7CC, 0xA7CD, 0xA7CE, 0xA7CF, 0xA7D2, 0xA7D3,
     0xA7D4, 0xA7D5, 0xA7DA, 0xA7DB, 0xA7DC]
    + list(range(0x10D50, 0x10D66)) + list(range(0x10D70, 0x10D86))
    + list(range(0x16EA0, 0x16EB9)) + list(range(0x16EBB, 0x16ED4))
)  # fmt: skip


#: str.splitlines' boundaries (``\r\n`` first: one boundary)
_LINE_BREAK = "\\r\\n|" + java_class("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_CLASS_TESTS = ("isdigit", "isdecimal", "isnumeric", "isspace")


@cache
def _class_test(m: str) -> str:
    """``s.isdigit()`` ... as a Java regex over the characters CPython's tables put in the
    class (``\\z``: Java's ``$`` would also match before a final newline)."""
    return "\\A" + java_class([c for c in range(sys.maxunicode + 1) if getattr(chr(c), m)()]) + "+\\z"
_CASE_GUARD = java_class(_CASE_DIFF)
_NOT_CASE_GUARD = java_class(_CASE_DIFF, negate=True)
_INT_SPEC = INT_SPEC  # the specs format() renders natively (the table decides)
_STR_SPEC = STR_SPEC


def _raise(what: str, cls: str) -> str:
    return raise_sql(cls, what)


def _regex_quote(s: str) -> str:
    """``s`` as a Java regex matching it literally."""
    out = []
    for ch in s:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        elif ch.isascii() and ch.isprintable():
            out.append("\\" + ch)
        else:
            out.append(f"\\x{{{ord(ch):x}}}")
    return "".join(out)


def _lit(e: Expr) -> Any:
    return e.value if isinstance(e, Lit) else None


def _is_lit_str(e: Expr, nonempty: bool = True) -> bool:
    return isinstance(e, Lit) and isinstance(e.value, str) and (bool(e.value) or not nonempty)


def _need(r: Emitter, args: tuple[Expr, ...], x: list[str], sql: str, meth: str) -> str:
    """Python's errors for a method call: AttributeError on a None receiver, TypeError
    on a None argument where the table says CPython raises one (``s.strip(None)`` strips
    whitespace)."""
    entry = PRIMITIVES[f"str.{meth}"]
    strict = tuple(a for i, a in enumerate(args[1:], 1) if not accepts_none(entry, i))
    sql = r._raise_if_null(strict, sql, f"str.{meth}()")
    if r.ty.may_be_null(args[0]):
        msg = f"'NoneType' object has no attribute '{meth}'"
        return f"(CASE WHEN {x[0]} IS NULL THEN {_raise(msg, 'AttributeError')} ELSE {sql} END)"
    return sql


# Python functions that cannot raise on str arguments that are not None (the table's
# partiality says so)
_TOTAL = frozenset(n for n in STRING_OPS if raises_only_on_none(PRIMITIVES[n]))


def _python(r: Emitter, op: str, args: tuple[Expr, ...], t: Any) -> str:
    total = (
        op in _TOTAL
        and not any(r.ty.may_be_null(a) for a in args if r._t(a) in ("str", "none"))
        and all(r._t(a) in ("str", "int") for a in args)
    )
    return r._pycall(PyCallKind.PRIM, op, args, rtype=spark_type(t), total=total)


@rule(*sorted(STRING_OPS))
def render_string(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """SQL of one string primitive: its native lowering where the table of primitives says
    it is exact at this call site (``Primitive.lowers_natively``, which ``runs_python``
    and ``--explain`` read too), else its CPython reference as a Python function."""
    lits = [_lit(a) for a in args]
    t, _ = string_prim_type(op, ts, [False] * len(args), lits) or ("any", True)
    entry = PRIMITIVES[op]
    site_lits = [a.value if isinstance(a, Lit) else NOT_LIT for a in args]
    native_ok = entry.lowers_natively(ts, site_lits, [r.ty.may_be_null(a) for a in args])
    if op.startswith("str."):
        if ts[0] not in ("str", "none"):
            raise BackendError(f"`.{op[4:]}()` is a str method; its receiver here is {ts[0]}")
        native = _method(r, op[4:], args, ts, x) if native_ok else None
        if native is not None:
            return _need(r, args, x, native, op[4:])
        return _python(r, op, args, t)
    if op in ("contains", "not_contains"):
        body = _contains(r, args, ts, x)
        return body if op == "contains" else f"(NOT {body})"
    if op == "slice":
        native = render_slice(r, args, ts, x) if native_ok else None
        return native if native is not None else _python(r, op, args, t)
    if op in ("getitem", "match.group"):
        if op == "match.group" and not (isinstance(ts[0], tuple) and ts[0][0] == "match"):
            raise BackendError("`.group()` is a method of match objects (re.match(...))")
        return render_index(r, args[0], args[1], ts[0], x[0], x[1])
    if op == "format":
        native = _format(r, args, ts, x) if native_ok else None
        return native if native is not None else _python(r, op, args, t)
    if op == "pct":
        return _percent(r, args, ts, x)
    if op == "repr" and native_ok:
        return f"CAST({x[0]} AS STRING)"
    if op == "re.findall" and native_ok:
        return _findall(r, args, x)
    if op in _MATCHES and native_ok:
        return _match(r, op, args, x)
    if op == "re.sub" and native_ok:
        return _sub(r, args, x)
    return _python(r, op, args, t)  # re.*, repr, ascii


def _method(r: Emitter, m: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str | None:
    s = x[0]
    n = len(args)
    if m in ("strip", "lstrip", "rstrip"):
        where = {"strip": "BOTH", "lstrip": "LEADING", "rstrip": "TRAILING"}[m]
        if n == 1 or (isinstance(args[1], Lit) and args[1].value is None):
            return f"{STRIP[m]}({s})"  # a JVM kernel, or its SQL form (looplift.kernels)
        if ts[1] == "str" and not r.ty.may_be_null(args[1]):
            chars = x[1]
        elif ts[1] == "str":  # s.strip(None) strips whitespace
            chars = f"coalesce({x[1]}, {sql_string(WHITESPACE)})"
        else:
            return None
        return f"trim({where} {chars} FROM {s})"
    if m in ("lower", "upper"):
        # the characters whose mapping differs keep themselves, as in CPython: only strings
        # holding one are split around them (rare; the common path is one RLIKE and lower)
        piece = f"({_CASE_GUARD}|{_NOT_CASE_GUARD}+)"  # matched by code point
        rare = (f"array_join(transform(regexp_extract_all({s}, {sql_string(piece)}, 1), _c -> CASE WHEN _c RLIKE "
                f"{sql_string('^' + _CASE_GUARD + '$')} THEN _c ELSE {m}(_c) END), '')")  # fmt: skip
        return case_mapped(m, s, _CASE_GUARD, rare)
    if m in ("split", "rsplit"):
        sep = args[1] if n > 1 else Lit(None)
        maxsplit = _lit(args[2]) if n > 2 else -1
        if not isinstance(maxsplit, int) or isinstance(maxsplit, bool):
            return None
        if isinstance(sep, Lit) and sep.value is None:
            if maxsplit != -1:
                return None
            return f"filter(split({s}, {sql_string(_WS + '+')}, -1), _w -> _w != '')"
        if not _is_lit_str(sep) or (m == "rsplit" and maxsplit != -1):
            return None
        limit = -1 if maxsplit < 0 else maxsplit + 1
        return f"split({s}, {sql_string(_regex_quote(sep.value))}, {limit})"
    if m in ("startswith", "endswith"):
        if isinstance(ts[1], tuple) and ts[1][0] == "tuple" and all(u == "str" for u in ts[1][1]):
            elems = _tuple_elems(r, args[1])
            if elems is None:
                return None
            return "(" + " OR ".join(f"{m}({s}, {e})" for e in elems) + ")" if elems else "FALSE"
        if ts[1] != "str":
            return None
        return f"{m}({s}, {x[1]})"
    if m in ("removeprefix", "removesuffix") and ts[1] == "str":
        p = x[1]
        if m == "removeprefix":
            return f"(CASE WHEN startswith({s}, {p}) THEN substr({s}, char_length({p}) + 1) ELSE {s} END)"
        return (f"(CASE WHEN endswith({s}, {p}) THEN substr({s}, 1, char_length({s}) - "
                f"char_length({p})) ELSE {s} END)")  # fmt: skip
    if m in ("find", "index") and n == 2 and ts[1] == "str":
        pos = f"(CAST(instr({s}, {x[1]}) AS BIGINT) - 1)"
        if m == "find":
            return pos
        return f"(CASE WHEN instr({s}, {x[1]}) = 0 THEN {_raise('substring not found', 'ValueError')} ELSE {pos} END)"
    if m == "count" and n == 2 and isinstance(args[1], Lit) and isinstance(args[1].value, str):
        if args[1].value == "":
            return f"(CAST(char_length({s}) AS BIGINT) + 1)"
        return (f"CAST((char_length({s}) - char_length(replace({s}, {x[1]}, ''))) "
                f"DIV {len(args[1].value)} AS BIGINT)")  # fmt: skip
    if m == "replace" and n == 3 and _is_lit_str(args[1]) and ts[2] == "str":
        return f"replace({s}, {x[1]}, {x[2]})"
    if m == "join":
        return _join(r, args, ts, x)
    if m == "splitlines" and n == 1:  # at Python's line boundaries; no last empty line
        lines = f"split({s}, {sql_string(_LINE_BREAK)}, -1)"
        return (f"(CASE WHEN element_at({lines}, -1) = '' THEN slice({lines}, 1, size({lines}) - 1) "
                f"ELSE {lines} END)")  # fmt: skip
    if m in _CLASS_TESTS:  # every character in CPython's class, and at least one
        return f"({s} RLIKE {sql_string(_class_test(m))})"
    if m == "zfill" and ts[1] in ("int", "bool"):
        w = f"CAST({x[1]} AS INT)"
        return (
            f"(CASE WHEN char_length({s}) >= {x[1]} THEN {s} "
            f"WHEN startswith({s}, '+') OR startswith({s}, '-') THEN "
            f"concat(substr({s}, 1, 1), lpad(substr({s}, 2), {w} - 1, '0')) "
            f"ELSE lpad({s}, {w}, '0') END)"
        )
    return None


def _findall(r: Emitter, args: tuple[Expr, ...], x: list[str]) -> str:
    """``re.findall`` of a pattern Java matches as Python does (the table decides): every
    match, or its one group (``''`` where the group took no part, as in Python)."""
    pat, fl = _lit(args[0]), _lit(args[2])
    java = java_pattern(pat, fl)
    assert java is not None
    group = 1 if re.compile(pat, fl).groups else 0
    sql = f"regexp_extract_all({x[1]}, {sql_string(java)}, {group})"
    if r.ty.may_be_null(args[1]):
        err = _raise("expected string or bytes-like object, got 'NoneType'", "TypeError")
        return f"(CASE WHEN {x[1]} IS NULL THEN {err} ELSE {sql} END)"
    return sql


_NONE_STRING = ("expected string or bytes-like object, got 'NoneType'", "TypeError")
# how each function anchors the pattern (Java's ``\z``: the very end, not before a "\n")
_MATCHES = {"re.search": "{}", "re.match": "\\A(?:{})", "re.fullmatch": "\\A(?:{})\\z"}


def _match(r: Emitter, op: str, args: tuple[Expr, ...], x: list[str]) -> str:
    """``re.search``/``match``/``fullmatch`` of a pattern Java matches as Python does, as
    the match object's model (the array of its groups, NULL: no match): ``regexp_like``,
    then ``regexp_extract`` of each group, ``''`` read as None where the group cannot
    match ``''`` (the table decides that every group reads exactly)."""
    pat, fl = _lit(args[0]), _lit(args[2])
    java = java_pattern(pat, fl)
    reads = group_reads(pat, fl)
    assert java is not None and not isinstance(reads, str)
    p = sql_string(_MATCHES[op].format(java))

    def build(v: list[str]) -> str:
        groups = [f"regexp_extract({v[1]}, {p}, {k})" for k in range(len(reads))]
        groups = [g if how == "raw" else f"nullif({g}, '')" for g, how in zip(groups, reads, strict=True)]
        sql = f"CASE WHEN regexp_like({v[1]}, {p}) THEN array({', '.join(groups)}) END"
        if r.ty.may_be_null(args[1]):
            return f"(CASE WHEN {v[1]} IS NULL THEN {_raise(*_NONE_STRING)} ELSE {sql} END)"
        return f"({sql})"

    return r.bind(x, build)


#: the longest subject SQL written twice for an ASCII fast path (once per branch)
_FAST_SUBJECT = 1000


def _sub(r: Emitter, args: tuple[Expr, ...], x: list[str]) -> str:
    """``re.sub(p, repl, s)`` of a pattern Java matches as Python does and a constant
    template (``\\1``, ``\\g<name>`` as Java's ``$1``): ``regexp_replace``."""
    pat, repl, fl = _lit(args[0]), _lit(args[1]), _lit(args[4])
    java, jrepl = java_pattern(pat, fl), java_replacement(pat, repl, fl)
    assert java is not None and jrepl is not None
    sql = f"regexp_replace({x[2]}, {sql_string(java)}, {sql_string(jrepl)})"
    fast = ascii_java_pattern(pat, fl)
    s = r._operand_sql(args[2], whole=True)  # type: ignore[attr-defined]  # (not bound)
    if fast is not None and len(s) <= _FAST_SUBJECT:  # ASCII text: backend/strfast.py
        full = f"regexp_replace({s}, {sql_string(java)}, {sql_string(jrepl)})"
        quick = f"regexp_replace({s}, {sql_string(fast)}, {sql_string(jrepl)})"
        sql = ascii_first(ascii_root(r, args[2]), quick, full)
    if r.ty.may_be_null(args[2]):
        return f"(CASE WHEN {x[2]} IS NULL THEN {_raise(*_NONE_STRING)} ELSE {sql} END)"
    return sql


def _tuple_elems(r: Emitter, e: Expr) -> list[str] | None:
    from ..ir.nodes import Apply, Prim, Var

    target = e
    while isinstance(target, Var) and r.resolve(target.name) is None:
        b = r.a.bound.get(target.name)
        if b is None or b.value is None:
            return None
        target = b.value
    if isinstance(target, Apply) and target.fn == Prim("tuple"):
        return [r._expr(a) for a in target.args]
    return None


def _join(r: Emitter, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str | None:
    t = ts[1]
    if isinstance(t, tuple) and t[0] == "tuple":
        if not all(u in ("str", "none") for u in t[1]):
            raise BackendError("`join` takes strings; convert the other values with str()")
        elems = _tuple_elems(r, args[1])
        if elems is None:
            return None
        body = f"concat_ws({', '.join([x[0], *elems])})" if elems else "''"
        test = " OR ".join(f"{e} IS NULL" for e in elems)
        if not test:
            return body
        err = _raise("sequence item: expected str instance, NoneType found", "TypeError")
        return f"(CASE WHEN {test} THEN {err} ELSE {body} END)"
    if isinstance(t, tuple) and t[0] == "list" and t[1] == "str":
        err = _raise("sequence item: expected str instance, NoneType found", "TypeError")
        return (f"(CASE WHEN exists({x[1]}, _j -> _j IS NULL) THEN {err} "
                f"ELSE array_join({x[1]}, {x[0]}) END)")  # fmt: skip
    return None


def _contains(r: Emitter, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    t = ts[1]
    if t == "str":
        if ts[0] != "str":
            raise BackendError(f"`in <string>` requires a str on the left, not {ts[0]}")
        return r._raise_if_null(args, f"contains({x[1]}, {x[0]})", "`in`")
    if isinstance(t, tuple) and t[0] == "list":
        return r._raise_if_null(
            args[1:], f"coalesce(array_contains({x[1]}, {x[0]}), FALSE)", "`in`"
        )
    if isinstance(t, tuple) and t[0] == "dict":
        from .maps import map_contains

        return map_contains(r, args, ts, x)
    raise BackendError(
        "`in` is supported against a string, a list of strings or a literal tuple `(1, 2)`"
    )


def _format(r: Emitter, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str | None:
    spec = _lit(args[1])
    if not isinstance(spec, str):
        return None
    body = _format_value(args, ts, x, spec)
    if body is None or not r.ty.may_be_null(args[0]):
        return body
    # format(None, "") is 'None'; any other spec raises
    none = ("'None'" if spec == "" else
            _raise("unsupported format string passed to NoneType.__format__", "TypeError"))  # fmt: skip
    return f"(CASE WHEN {x[0]} IS NULL THEN {none} ELSE {body} END)"


def _format_value(args: tuple[Expr, ...], ts: list[Any], x: list[str], spec: str) -> str | None:
    if ts[0] == "int":
        m = _INT_SPEC.fullmatch(spec)
        if m is None or (m["zero"] and m["comma"]):
            return None
        flags = {"+": "+", " ": " ", "-": ""}.get(m["sign"], "") + (m["comma"] and ",")
        flags += "0" if m["zero"] and m["width"] else ""
        return f"format_string({sql_string('%' + flags + (m['width'] or '') + 'd')}, {x[0]})"
    if ts[0] == "str":
        m = _STR_SPEC.fullmatch(spec)
        if m is None:
            return None
        if not m["width"]:
            return x[0]
        w = int(m["width"])
        fn = "lpad" if m["align"] == ">" else "rpad"
        fill = sql_string(m["fill"] or " ")
        return (
            f"(CASE WHEN char_length({x[0]}) >= {w} THEN {x[0]} ELSE {fn}({x[0]}, {w}, {fill}) END)"
        )
    return None


def _percent(r: Emitter, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """One conversion of a constant ``%`` format, as what Python's ``%`` is for the value's
    type: ``%d`` is ``str(int(x))`` (a float truncated, a bool 1 or 0), ``%s`` is ``str(x)``,
    ``%f`` / ``%.Nf`` is ``format(x, ".Nf")``; each rendered as those are."""
    conv, t = _lit(args[1]), ts[0]
    if isinstance(t, tuple):
        raise BackendError(f"`%` formatting of a {t[0]} value is not supported (a tuple on the "
                           "right of `%` is its list of values)", hint="format each item")  # fmt: skip
    if conv == "s":
        return r._op_str((args[0],), [t], [x[0]])
    if t not in ("int", "float", "bool", "none"):
        raise BackendError(f"`%{conv}` formats a number, and this value is {t} (Python raises "
                           "TypeError)", hint=f"use `%s`, or convert it first: `'%{conv}' % "
                           f"{'int' if conv == 'd' else 'float'}(s)`")  # fmt: skip
    if conv == "d":
        whole = r._op_int((args[0],), [t], [x[0]])
        return r._op_str((args[0],), ["int"], [whole])  # int() raised on None already
    return r._prim("format", (args[0], Lit(".6f" if conv == "f" else conv)))
