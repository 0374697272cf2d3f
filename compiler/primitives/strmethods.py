"""The string primitives: ``str`` methods, slicing and indexing, ``in``, ``format``,
``%``, ``repr``/``ascii``, ``int``/``float`` of a string, ``re`` with constant patterns and
``match.group``.

One entry per primitive, with

- its arity (the receiver counted: ``str.strip`` takes 1 or 2 arguments);
- its type rule, a function of the argument types and literal values
  (:attr:`Primitive.type_at`: ``re.match``'s result has as many groups as its
  constant pattern);
- its CPython reference (``looplift.strings.IMPLS``);
- its partiality: where CPython raises, and which class, as :class:`Pred` conditions over
  the Python arguments (the string lowerings render their own checks);
- when its native lowering is exact (:attr:`Primitive.native_when`, read from the call
  site: which arguments are literals, and their types where the caller knows them;
  :mod:`.strnative`): the
  backend's renderer (``backend/strsql.py``) lowers natively exactly then, and
  ``runs_python`` (``--explain``) says so from the same function; elsewhere the reference
  runs as a vectorized Python function;
- its edge cases (:attr:`Primitive.edges`): the literal arguments worth testing after the
  receiver, with :class:`Col` for an argument that varies per row; the receivers are
  :data:`STRINGS` (and None).

The entry ``int(str)`` is ``int`` of a string (``float(str)`` likewise): the IR's ``int``
of another type is arithmetic, not in this table.

>>> from looplift.compiler.primitives import PRIMITIVES
>>> p = PRIMITIVES["str.split"]
>>> p.arity, p.type_at(["str", "str"], [None, ","])
((1, 3), (('list', 'str'), False))
>>> p.lowers_natively(["str", "str"], ["a,b", ","]), p.lowers_natively(None, [NOT_LIT, ""])
(True, False)
>>> p.raises(("a b", "")).cls
'ValueError'
>>> PRIMITIVES["re.match"].type_at(["str", "str", "int"], [r"(a)(b)?", NOT_LIT, 0])
(('match', 2), True)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from looplift.strings import IMPLS, STR_METHODS, WHITESPACE, parses
from sqlglot import exp

from .base import NOT_LIT, Primitive, Site
from .grammar import FLOAT_RE, INT_RE
from .partiality import Pred, Raises
from .sqltree import Operands
from .strchecks import (
    Native_,
    bounds_typed,
    equals,
    is_null,
    not_matching,
    out_of_range,
    typed,
)
from .strnative import (
    NATIVE_METHODS,
    Native,
    always,
    findall_native,
    format_native,
    pct_native,
    re_native,
    repr_native,
    slice_native,
)

__all__ = [
    "COL_INTS", "COL_STRS", "Col", "NOT_LIT", "STRINGS", "STRING_NAMES", "STRING_PRIMS", "Site",
    "accepts_none", "element_type", "raises_only_on_none",
]  # fmt: skip


# -- edge values -------------------------------------------------------------------------

_CASE_EXCEPTIONS = "ß İ ŉ ǰ ﬁ ΐ ǅ ΣΑΣ ὈΔΥΣΣΕΎΣ ﬀ ẞ ı ſ K Ω".split()
STRINGS: tuple[str, ...] = (
    "", " ", "a", "abc", "Hello World", "hello wORLD", "a,b,,c", ",", "x\ny\r\nz", "ab" * 3,
    " 12 ", "+1_000", "1__0", "-12", "0012", "1e5", "-1.5", ".5", "nan", "-nan", "inf",
    "-Infinity", "0x1f", "٣", "²", "½", "١٢", "１２", "😀", "a😀b", "\x1c\x1d", "\u0085x",
    "\x1c5", "5\x1f", "\u00857", "\u3000-7\u2028",
    "a" + WHITESPACE + "b", *_CASE_EXCEPTIONS, *WHITESPACE,
)  # fmt: skip
"""The receivers every string entry is tested on (None too, where it is Optional): the
empty string, every Unicode whitespace character, the case-mapping exceptions, an astral
character, digits of other scripts, and numbers as text."""


@dataclass(frozen=True)
class Col:
    """An argument that varies per row (a column), over ``values``."""

    values: tuple[Any, ...]


COL_STRS = Col(("", "a", ",", "ab", " ", "ß", "😀", None))
COL_INTS = Col((0, 1, -1, 3, 10, -100, None))


# -- type rules ----------------------------------------------------------------------------


def _is_list(t: Any) -> bool:
    return isinstance(t, tuple) and t[0] == "list"


def _uniform_tuple(t: Any) -> bool:
    """A tuple whose items all have one type: indexable by a computed index."""
    return isinstance(t, tuple) and t[0] == "tuple" and len(set(t[1])) == 1


def element_type(t: Any) -> tuple[Any, bool] | None:
    """(type, nullable) of ``x[i]`` for a str, list, match, uniform tuple or dict ``x``
    (None for other types)."""
    if t == "str":
        return "str", False
    if _is_list(t):
        return t[1], True
    if isinstance(t, tuple) and t[0] == "match":
        return "str", True
    if _uniform_tuple(t):
        return t[1][0], False
    if isinstance(t, tuple) and t[0] == "dict":  # d[k] of a host function's dict
        return t[2], True
    return None


TypeRule = Callable[[Sequence[Any], Sequence[Any]], "tuple[Any, bool] | None"]


def _const(t: Any, nullable: bool = False) -> TypeRule:
    return lambda ts, lits: (t, nullable)


def _match_type(ts: Sequence[Any], lits: Sequence[Any]) -> tuple[Any, bool]:
    flags = lits[2] if len(lits) > 2 and isinstance(lits[2], int) else 0
    n = re.compile(lits[0], flags).groups if isinstance(lits[0], str) else 0
    return ("match", n), True


def _slice_type(ts: Sequence[Any], lits: Sequence[Any]) -> tuple[Any, bool]:
    t = ts[0]
    return (t if t == "str" or _is_list(t) else "any"), False


def _getitem_type(ts: Sequence[Any], lits: Sequence[Any]) -> tuple[Any, bool] | None:
    return element_type(ts[0])


# -- partiality ----------------------------------------------------------------------------


def _none_receiver(attr: str) -> Raises:
    return Raises("AttributeError", f"'NoneType' object has no attribute '{attr}'",
                  Pred(lambda s, *a: s is None, "the receiver is None", native=is_null(0)))  # fmt: skip


def _not_str(i: int, what: str, optional: bool = False) -> Raises:
    """TypeError where argument ``i`` (when given) is not a str (None allowed when
    ``optional``)."""

    def test(*a: Any) -> bool:
        if i >= len(a) or (optional and a[i] is None):
            return False
        return not isinstance(a[i], str)

    native = typed(i, "str", "none") if optional else typed(i, "str")
    return Raises("TypeError", f"{what} must be str",
                  Pred(test, f"argument {i} is not a str", native=native))  # fmt: skip


def _not_int(i: int, what: str, optional: bool = False) -> Raises:
    def test(*a: Any) -> bool:
        if i >= len(a) or (optional and a[i] is None):
            return False
        return not isinstance(a[i], int)

    native = typed(i, "int", "bool", "none") if optional else typed(i, "int", "bool")
    return Raises("TypeError", f"{what} must be an int",
                  Pred(test, f"argument {i} is not an int", native=native))  # fmt: skip


def _when(cls: str, message: str, test: Callable[..., bool], text: str,
          native: Native_ | None = None, beyond64: bool = False) -> Raises:  # fmt: skip
    return Raises(cls, message, Pred(test, text, native=native), beyond64=beyond64)


_EMPTY_SEP = _when("ValueError", "empty separator",
                   lambda s, *a: len(a) > 0 and a[0] == "", "the separator is ''",
                   equals(1, ""))  # fmt: skip


def _not_found(name: str) -> Raises:
    return _when("ValueError", "substring not found",
                 lambda s, sub, *r: getattr(s, name.replace("index", "find"))(sub, *r) < 0,
                 "the substring is not in the range")  # fmt: skip


def _method_partiality(m: str) -> tuple[Raises, ...]:
    """CPython's checks of ``s.m(...)``, in its order: the receiver, the arguments' types,
    their values."""
    out = [_none_receiver(m)]
    if m in ("strip", "lstrip", "rstrip"):
        out.append(_not_str(1, "chars", optional=True))
    elif m in ("split", "rsplit"):
        out += [_not_str(1, "sep", optional=True), _not_int(2, "maxsplit"), _EMPTY_SEP]
    elif m in ("partition", "rpartition"):
        out += [_not_str(1, "sep"), _EMPTY_SEP]
    elif m in ("startswith", "endswith"):
        out.append(_when("TypeError", f"{m} first arg must be str or a tuple of str",
                         lambda s, p, *r: not (isinstance(p, str) or (isinstance(p, tuple) and all(
                             isinstance(x, str) for x in p))), "the prefix is not a str"))  # fmt: skip
    elif m in ("replace",):
        out += [_not_str(1, "old"), _not_str(2, "new"), _not_int(3, "count")]
    elif m in ("removeprefix", "removesuffix"):
        out.append(_not_str(1, "the affix"))
    elif m in ("find", "rfind", "index", "rindex", "count"):
        bound = lambda i: _when("TypeError", "slice indices must be integers or None",  # noqa: E731
                                lambda *a, i=i: i < len(a) and not (a[i] is None or isinstance(
                                    a[i], int)), f"argument {i} is not an int")  # fmt: skip
        out += [_not_str(1, "sub"), bound(2), bound(3)]
        if m in ("index", "rindex"):
            out.append(_not_found(m))
    elif m == "join":
        out.append(_none_arg(1, "TypeError", "can only join an iterable"))
        out.append(_when("TypeError", "sequence item: expected str instance",
                         lambda s, xs: any(not isinstance(x, str) for x in xs),
                         "an item is not a str"))  # fmt: skip
    elif m == "zfill":
        out.append(_not_int(1, "width"))
    elif m in ("center", "ljust", "rjust"):
        out += [_not_int(1, "width"),
                _when("TypeError", "The fill character must be exactly one character long",
                      lambda s, w, *f: bool(f) and not (isinstance(f[0], str) and len(f[0]) == 1),
                      "the fill character is not one character")]  # fmt: skip
    return tuple(out)


def _none_arg(i: int, cls: str, message: str) -> Raises:
    return _when(cls, message, lambda *a: i < len(a) and a[i] is None, f"argument {i} is None",
                 is_null(i))  # fmt: skip


# -- the entries -----------------------------------------------------------------------------

# literal arguments after the receiver worth testing, per str method
_METHOD_EDGES: dict[str, tuple[tuple[Any, ...], ...]] = {
    "strip": ((), (None,), (" a",), ("",), (COL_STRS,)),
    "lstrip": ((), ("ab",), (COL_STRS,)), "rstrip": ((), ("c ",), (COL_STRS,)),
    "lower": ((),), "upper": ((),), "casefold": ((),), "title": ((),), "capitalize": ((),),
    "swapcase": ((),), "splitlines": ((),),
    "split": ((), (",",), (",", 1), (" ", 0), (None, 1), ("",), (",", -2), (COL_STRS,)),
    "rsplit": ((), (",",), (",", 1), (None, 1), ("",)),
    "partition": ((",",), ("",), (COL_STRS,)), "rpartition": ((",",), (COL_STRS,)),
    "startswith": (("a",), ("",), (("a", "H"),), (COL_STRS,)),
    "endswith": (("c",), ("",), (COL_STRS,)),
    "replace": ((",", ";"), ("", "-"), ("a", "", 1), (COL_STRS, "x")),
    "removeprefix": (("a",), ("",), (COL_STRS,)), "removesuffix": (("c",), (COL_STRS,)),
    "find": (("b",), ("",), ("a", 1), (COL_STRS,)), "rfind": (("b",), ("a", 0, 2)),
    "index": (("b",), ("",), (COL_STRS,)), "rindex": (("b",), ("a", 1)),
    "count": (("a",), ("",), ("ab",), (COL_STRS,)),
    "join": ((("x", "y"),), ((),), (("a", "b", "c"),), (("x", None),)),
    "zfill": ((5,), (0,), (-1,), (COL_INTS,)),
    "center": ((7,), (6, "*"), (COL_INTS,)), "ljust": ((5,), (4, "-")), "rjust": ((5, "0"),),
    **{m: ((),) for m in ("isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace",
                          "islower", "isupper", "istitle", "isascii", "isidentifier")},
}  # fmt: skip

_PATTERNS = (r"(\w+)\s*(\d+)?", r"\s+", r"[a-z]", r"(?i)nan|inf", r"(\d)(\d)?")


def _method_entry(m: str) -> Primitive:
    t, lo, hi = STR_METHODS[m]
    native = NATIVE_METHODS.get(m)
    return Primitive(
        name=f"str.{m}", arity=(lo + 1, hi + 1), params="str", result=_result_name(t),
        reference=IMPLS[f"str.{m}"], partiality=_method_partiality(m), native=None,
        exact=native is not None, type_at=_const(t), native_when=native,
        edges=_METHOD_EDGES[m], domain="str",
    )  # fmt: skip


def _result_name(t: Any) -> str:
    return t if isinstance(t, str) else t[0]


def _entry(name: str, arity: tuple[int, int], result: str, reference: Callable[..., Any],
           partiality: tuple[Raises, ...], type_rule: TypeRule, native_when: Native | None,
           edges: tuple[tuple[Any, ...], ...], params: str = "str") -> Primitive:  # fmt: skip
    return Primitive(name=name, arity=arity, params=params, result=result, reference=reference,
                     partiality=partiality, native=None, exact=native_when is not None,
                     type_at=type_rule, native_when=native_when, edges=edges, domain="str")  # fmt: skip


_NONE_SUBSCRIPT = _none_arg(0, "TypeError", "'NoneType' object is not subscriptable")
_RE_NONE = _none_arg(1, "TypeError", "expected string or bytes-like object")


def _re_entries() -> list[Primitive]:
    pats = tuple((p,) for p in _PATTERNS)
    match = _match_type
    out = [
        _entry(f"re.{f}", (2, 3), "match", IMPLS[f"re.{f}"], (_RE_NONE,), match,
               re_native(f"re.{f}"), pats)  # fmt: skip
        for f in ("match", "search", "fullmatch")
    ]
    out += [
        _entry(
            "re.sub",
            (3, 5),
            "str",
            IMPLS["re.sub"],
            (_none_arg(2, "TypeError", "expected string or bytes-like object"),),
            _const("str"),
            re_native("re.sub"),
            ((r"\s+", " "), (r"(\d)", r"<\1>"), (r"[a-z]", "", 1)),
        ),  # fmt: skip
        _entry(
            "re.findall",
            (2, 3),
            "list",
            IMPLS["re.findall"],
            (_RE_NONE,),
            _const(("list", "str")),
            findall_native,
            ((r"\w+",), (r"\s",), (r"[0-9]+",), (r"(\d)x",), (r"a.$",), (r"\d*",), (r"(?i)a",)),
        ),  # fmt: skip
        _entry(
            "re.split",
            (2, 4),
            "list",
            IMPLS["re.split"],
            (_RE_NONE,),
            _const(("list", "str")),
            None,
            ((r"\s+",), (r",", 1)),
        ),  # fmt: skip
    ]
    return out


def _group_range(o: Operands) -> exp.Expression:
    if len(o.sql) == 1:
        return exp.false()  # group() is group 0
    if o.ts[1] == "bool":
        return exp.true()
    return out_of_range("size", lo_zero=True)(o)


def _group_partiality() -> tuple[Raises, ...]:
    return (
        _none_arg(0, "AttributeError", "'NoneType' object has no attribute 'group'"),
        _when("IndexError", "no such group",
              lambda m, i=0: isinstance(i, bool) or not 0 <= i < len(m), "no such group",
              _group_range),
    )  # fmt: skip


def _int_of(s: Any) -> int:
    return int(s)


def _float_of(s: Any) -> float:
    return float(s)


_INT64 = (-(2**63), 2**63 - 1)


def _other_entries() -> list[Primitive]:
    return [
        _entry(
            "slice",
            (4, 4),
            "str",
            IMPLS["slice"],
            (
                _NONE_SUBSCRIPT,
                _when(
                    "ValueError", "slice step cannot be zero", lambda s, a, b, c: c == 0, "step 0",
                    lambda o: exp.EQ(this=o.raw(3), expression=exp.Literal.number(0)),
                ),
                _when(
                    "TypeError",
                    "slice indices must be integers or None",
                    lambda s, *a: any(not (x is None or isinstance(x, int)) for x in a),
                    "a bound is not an int",
                    bounds_typed,
                ),
            ),
            _slice_type,
            slice_native,
            (
                (None, None, None),
                (1, None, None),
                (None, -1, None),
                (-2, None, None),
                (1, 3, None),
                (3, 1, None),
                (None, None, -1),
                (None, None, 2),
                (COL_INTS, 2, None),
                (None, COL_INTS, None),
            ),
            params="str, int | None, int | None, int | None",
        ),  # fmt: skip
        _entry(
            "getitem",
            (2, 2),
            "str",
            IMPLS["getitem"],
            (
                _NONE_SUBSCRIPT,
                _none_arg(1, "TypeError", "string indices must be integers"),
                _when(
                    "IndexError",
                    "string index out of range",
                    lambda s, i: not -len(s) <= i < len(s),
                    "the index is out of range",
                    out_of_range("char_length"),
                ),
            ),
            _getitem_type,
            always,
            ((0,), (-1,), (1,), (COL_INTS,)),
            params="str, int",
        ),
        _entry(
            "contains",
            (2, 2),
            "bool",
            IMPLS["contains"],
            (
                _none_arg(1, "TypeError", "argument of type 'NoneType' is not iterable"),
                _none_arg(0, "TypeError", "'in <string>' requires string as left operand"),
            ),
            _const("bool"),
            always,
            (("a",), ("",), (COL_STRS,)),
        ),
        _entry(
            "not_contains",
            (2, 2),
            "bool",
            IMPLS["not_contains"],
            (
                _none_arg(1, "TypeError", "argument of type 'NoneType' is not iterable"),
                _none_arg(0, "TypeError", "'in <string>' requires string as left operand"),
            ),
            _const("bool"),
            always,
            (("a",), (COL_STRS,)),
        ),
        _entry(
            "format",
            (2, 2),
            "str",
            IMPLS["format"],
            (
                _when(
                    "TypeError",
                    "unsupported format string passed to NoneType.__format__",
                    lambda x, spec: x is None and spec != "",
                    "a spec for None",
                ),
                _when(
                    "ValueError",
                    "Unknown format code for object of type",
                    lambda x, spec: not parses(lambda sp: format(x, sp), spec),
                    "the spec does not apply to the value",
                ),
            ),
            _const("str"),
            format_native,
            (("",), (">6",), ("*<5",), ("^7",), (".3s",)),
        ),
        _entry(
            "pct",
            (2, 2),
            "str",
            IMPLS["pct"],
            (
                _when(
                    "TypeError",
                    "a number is required",
                    lambda x, conv: conv != "s" and not isinstance(x, (int, float)),
                    "%d/%f of a str",
                ),  # fmt: skip
            ),
            _const("str"),
            pct_native,
            (("s",),),
        ),
        _entry("repr", (1, 1), "str", IMPLS["repr"], (), _const("str"), repr_native, ((),)),
        _entry("ascii", (1, 1), "str", IMPLS["ascii"], (), _const("str"), None, ((),)),
        _entry(
            "int(str)",
            (1, 1),
            "int",
            _int_of,
            (
                _none_arg(0, "TypeError", "int() argument must be a string or a number, not None"),
                _when(
                    "ValueError",
                    "invalid literal for int() with base 10",
                    lambda s: not parses(int, s),
                    "not Python's int grammar",
                    not_matching(INT_RE),
                ),
                _when(
                    "OverflowError",
                    "int() of a string beyond 64 bits",
                    lambda s: not _INT64[0] <= int(s) <= _INT64[1],
                    "beyond 64 bits",
                    beyond64=True,
                ),
            ),
            _const("int"),
            always,
            ((),),
        ),
        _entry(
            "float(str)",
            (1, 1),
            "float",
            _float_of,
            (
                _none_arg(0, "TypeError", "float() argument must be a string or a real number"),
                _when(
                    "ValueError",
                    "could not convert string to float",
                    lambda s: not parses(float, s),
                    "not Python's float grammar",
                    not_matching(FLOAT_RE),
                ),
            ),
            _const("float"),
            always,
            ((),),
        ),
        _entry(
            "match.group",
            (1, 2),
            "str",
            IMPLS["match.group"],
            _group_partiality(),
            _const("str", True),
            always,
            ((r"(\w+)\s*(\d+)?", 0), (r"(\w+)\s*(\d+)?", 2), (r"(\w+)\s*(\d+)?", 3), (r"\s+", 1)),
        ),  # fmt: skip
    ]


def accepts_none(p: Primitive, i: int) -> bool:
    """Does CPython accept None as argument ``i`` of ``p`` (``s.strip(None)``,
    ``s.split(None, 1)``, ``s.find(x, None)``)? Read from the partiality, on the entry's
    first edge that has an argument ``i``."""
    for e in p.edges:
        if len(e) >= i:
            args = [next(v for v in x.values if v is not None) if isinstance(x, Col) else x
                    for x in e]  # fmt: skip
            args[i - 1] = None
            try:
                return p.raises(("a", *args)) is None
            except Exception:  # noqa: BLE001 - a condition that cannot read None
                return False
    return False


def raises_only_on_none(p: Primitive) -> bool:
    """Does ``p`` raise only on a None argument (of the types the language gives it)?"""
    return all(isinstance(r.when, Pred) and r.when.text in _ON_NONE for r in p.partiality)


_ON_NONE = frozenset({"the receiver is None", *(f"argument {i} is None" for i in range(5))})

STRING_PRIMS: tuple[Primitive, ...] = (
    *(_method_entry(m) for m in STR_METHODS),
    *_re_entries(),
    *_other_entries(),
)
STRING_NAMES: frozenset[str] = frozenset(p.name for p in STRING_PRIMS)
