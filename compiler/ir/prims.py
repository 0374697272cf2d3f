"""The table of primitive operators of the IR.

Each primitive has a Python reference implementation (used for constant
folding and by the reference evaluator) and a flag saying whether it can raise
on some input (division, conversions, ``math`` domain errors). Only total
primitives may be moved across control flow (e.g. floated out of a loop).
"""

from __future__ import annotations

import datetime
import operator
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from looplift.strings import IMPLS as _STRING_IMPLS

from ..primitives import MATH as MATH_TABLE
from ..primitives import MATH_NAMES, OPERATORS, PRIMITIVES, Operator
from ..primitives.operator import NOLIT

__all__ = [
    "DATETIME_ATTRS",
    "DATETIME_METHODS",
    "PRIMS",
    "AUGOPS",
    "BINOPS",
    "UNARYOPS",
    "COMPAREOPS",
    "BUILTIN_FUNCS",
    "MATH_ARITY",
    "MATH_FUNCS",
]


@dataclass(frozen=True, slots=True)
class PrimInfo:
    name: str
    impl: Callable[..., Any]
    total: bool  # never raises (up to 64-bit overflow, checked at run time)
    symbol: str = ""  # infix spelling, for explain output


def _tuple(*xs: Any) -> tuple[Any, ...]:
    return xs


def _table_item(key: Any, name: str, pairs: tuple[tuple[Any, Any], ...], err: str) -> Any:
    """``TABLE[key]`` of a module-level lookup table (``err`` when the key is missing)."""
    import builtins

    table = dict(pairs)
    if key in table:
        return table[key]
    raise getattr(builtins, err)(key)


def _table_get(key: Any, name: str, pairs: tuple[tuple[Any, Any], ...], default: Any) -> Any:
    return dict(pairs).get(key, default)


def _raise(cls: str, msg: Any) -> Any:
    """``raise cls(msg)`` (``raise`` statements end their branch with this value)."""
    import builtins

    raise getattr(builtins, cls)(msg)


PRIMS: dict[str, PrimInfo] = {}


def _add(name: str, impl: Callable[..., Any], total: bool, symbol: str = "") -> None:
    PRIMS[name] = PrimInfo(name, impl, total, symbol)


for _n, _f, _t, _s in [
    ("add", operator.add, True, "+"),
    ("sub", operator.sub, True, "-"),
    ("mul", operator.mul, True, "*"),
    ("truediv", operator.truediv, False, "/"),
    ("floordiv", operator.floordiv, False, "//"),
    ("mod", operator.mod, False, "%"),
    ("pow", operator.pow, False, "**"),
    ("neg", operator.neg, True, "-"),
    ("pos", operator.pos, True, "+"),
    ("not", operator.not_, True, "not "),
    ("eq", operator.eq, True, "=="),
    ("ne", operator.ne, True, "!="),
    ("lt", operator.lt, False, "<"),
    ("le", operator.le, False, "<="),
    ("gt", operator.gt, False, ">"),
    ("ge", operator.ge, False, ">="),
    ("is_none", lambda x: x is None, True, "is None"),
    ("is_not_none", lambda x: x is not None, True, "is not None"),
    ("in", lambda x, *xs: x in xs, True, "in"),
    ("not_in", lambda x, *xs: x not in xs, True, "not in"),
    ("tuple", _tuple, True, ""),
    ("nth", lambda t, i: t[i], False, ""),
    ("abs", abs, True, ""),
    ("min", min, False, ""),
    ("max", max, False, ""),
    ("round", round, False, ""),
    ("int", int, False, ""),
    ("float", float, False, ""),
    ("str", str, True, ""),
    ("bool", bool, True, ""),
    ("len", len, False, ""),
    ("raise", _raise, False, ""),
    ("table_item", _table_item, False, ""),
    ("table_get", _table_get, True, ""),
]:
    _add(_n, _f, _t, _s)

# operators and numeric builtins: the table of primitives holds reference and partiality
# (total: never raises on non-None arguments, 64-bit overflow aside); the symbols above
# are the IR's spelling for explain output
for _p in OPERATORS:
    PRIMS[_p.name] = PrimInfo(_p.name, _p.reference, _p.total, PRIMS[_p.name].symbol)

# a dict a host function returned: ``d.get(k, default)``
_add("dict_get", lambda d, k, default: d.get(k, default), False)

# datetime: constructors (ValueError on fields out of range), attributes and methods
_add("make_datetime", datetime.datetime, False)
_add("make_date", datetime.date, False)
_add("make_timedelta", datetime.timedelta, False)
for _m in "year month day hour minute second microsecond".split():
    _add(f"dt.{_m}", operator.attrgetter(_m), True)
for _m in ("weekday", "isoweekday", "date"):
    _add(f"dt.{_m}", operator.methodcaller(_m), True)
for _m in ("days", "seconds", "microseconds"):
    _add(f"td.{_m}", operator.attrgetter(_m), True)
_add("td.total_seconds", operator.methodcaller("total_seconds"), True)
DATETIME_ATTRS = {
    **{m: f"dt.{m}" for m in "year month day hour minute second microsecond".split()},
    **{m: f"td.{m}" for m in ("days", "seconds", "microseconds")},
}
DATETIME_METHODS = {"weekday": "dt.weekday", "isoweekday": "dt.isoweekday", "date": "dt.date",
                    "total_seconds": "td.total_seconds"}  # fmt: skip


# container values (``states/containers.py``): ordered lists; a dict is its (key, value) items
def _c_max(x: Any, *default: Any) -> Any:
    return max(x, default=default[0]) if default else max(x)


def _c_min(x: Any, *default: Any) -> Any:
    return min(x, default=default[0]) if default else min(x)


for _n, _f, _t in [
    ("c_keys", lambda items: [k for k, _ in items], True),
    ("c_values", lambda items: [v for _, v in items], True),
    ("c_sorted", lambda x, rev: sorted(x, reverse=rev), False),
    ("c_reversed", lambda x: list(reversed(x)), True),
    ("c_slice", lambda x, a, b: x[a:b], False),
    ("c_sum", sum, False),
    ("c_max", _c_max, False),
    ("c_min", _c_min, False),
    ("c_contains", lambda x, v: v in x, False),
    ("c_getitem", lambda items, k: dict(items)[k], False),
    ("c_get", lambda items, k, d: dict(items).get(k, d), False),
    ("c_index", lambda x, i: x[i], False),
    ("c_enumerate", lambda x, start: list(enumerate(x, start)), True),
    ("c_zip", lambda *xs: list(zip(*xs, strict=False)), True),
    ("c_range", lambda n: list(range(n)), True),
    ("c_row", lambda row: [row], True),  # the rows yielded by one element (``each``)
    ("c_concat", lambda *xs: [r for x in xs for r in x], True),
    ("c_empty", lambda: [], True),
    ("c_distinct", lambda x: sorted(set(x)), False),
    ("c_first", lambda x: x[0] if x else max(x), False),  # max([]) raises ValueError
    ("c_mean", statistics.mean, False),
    ("c_fmean", statistics.fmean, False),
    ("c_median", statistics.median, False),
    ("c_median_low", statistics.median_low, False),
    ("c_median_high", statistics.median_high, False),
]:
    _add(_n, _f, _t)

# math: the table of primitives holds reference, partiality and lowering (total = no
# partiality on non-None arguments)
MATH_FUNCS = list(MATH_NAMES)
for _p in MATH_TABLE:
    _add(_p.name, _p.reference, _p.total)
#: how many arguments each ``math`` function takes (fewest, most), from the table
MATH_ARITY = {n: PRIMITIVES[f"math.{n}"].arity for n in MATH_NAMES}

BINOPS = {
    "Add": "add",
    "Subtract": "sub",
    "Multiply": "mul",
    "Divide": "truediv",
    "FloorDivide": "floordiv",
    "Modulo": "mod",
    "Power": "pow",
}
AUGOPS = {
    "AddAssign": "add",
    "SubtractAssign": "sub",
    "MultiplyAssign": "mul",
    "DivideAssign": "truediv",
    "FloorDivideAssign": "floordiv",
    "ModuloAssign": "mod",
    "PowerAssign": "pow",
}
UNARYOPS = {"Minus": "neg", "Plus": "pos", "Not": "not"}
COMPAREOPS = {
    "Equal": "eq",
    "NotEqual": "ne",
    "LessThan": "lt",
    "LessThanEqual": "le",
    "GreaterThan": "gt",
    "GreaterThanEqual": "ge",
    "In": "in",
    "NotIn": "not_in",
}
BUILTIN_FUNCS = {
    "abs": (1, 1),
    "min": (2, None),
    "max": (2, None),
    "round": (1, 2),
    "int": (1, 1),
    "float": (1, 1),
    "str": (1, 1),
    "bool": (1, 1),
    "len": (1, 1),
}


# strings: str methods (``str.strip`` ...), slicing, ``format``, ``in`` on strings, ``re``
# with constant patterns; the implementations are the runtime's (looplift.strings)
for _n, _f in _STRING_IMPLS.items():
    if _n not in PRIMS:
        _add(_n, _f, _n in ("int_ok", "float_ok"))  # a try's tests never raise


def covered(op: str, ts: list[Any]) -> bool:
    """The table's entry renders these argument types (the others are another domain's:
    ``int(s)`` of a str is the strings' rule, ``str(t)`` of a tuple a Python call)."""
    if op == "str":
        return True  # every type: a Python call where the table's lowering is not native
    if op in ("int", "float"):
        return ts[0] != "str"
    return True


def runs_python(
    op: str, args: tuple[Any, ...], type_of: Callable[[Any], Any] | None = None
) -> bool:
    """Does primitive ``op`` run as a vectorized Python function on Spark, for some
    rows at least? (``args`` are IR nodes; literal ones have a ``value``; ``type_of``: their
    types, which the table's operators need: ``str(x)`` of a float runs CPython's.) ``format`` unless it formats an int with a ``d`` spec or aligns a str;
    ``re`` always (Java's regex dialect is not Python's)."""
    from looplift.strings import STR_METHODS

    def lit(i: int) -> Any:
        return getattr(args[i], "value", _NOT_LIT) if i < len(args) else None

    n = len(args)
    prim = PRIMITIVES.get(op)
    if isinstance(prim, Operator):  # native where the table's lowering is exact for the types
        if type_of is None:  # types unknown: what the entry says for every type
            return prim.exact_for is not None or not prim.exact
        ts = [type_of(a) for a in args]
        lits = [getattr(a, "value", NOLIT) if type(a).__name__ == "Lit" else NOLIT for a in args]
        return covered(op, ts) and not prim.lowers_natively(ts, lits)
    if prim is not None:  # the table's entries: native where the lowering is exact
        return not prim.exact
    if op.startswith("re.") or op in ("repr", "ascii"):
        return True
    if op == "format":
        spec = lit(1)
        return not (isinstance(spec, str) and _NATIVE_SPEC.fullmatch(spec))
    if op == "pct":  # "%.2f" % x is format(x, ".2f"); %d and %s are int() and str()
        return str(lit(1)).endswith("f")
    if op == "slice":
        return lit(3) not in (None, 1) and not (lit(3) == -1 and lit(1) is None and lit(2) is None)
    if not op.startswith("str.") or op[4:] not in STR_METHODS:
        return False
    m = op[4:]
    if m in ("strip", "lstrip", "rstrip", "startswith", "endswith", "removeprefix",
             "removesuffix", "join", "zfill"):  # fmt: skip
        return False
    if m in ("lower", "upper"):
        return False  # native (the characters Spark maps unlike CPython are kept as they are)
    if m in ("split", "rsplit"):
        sep, maxsplit = lit(1), lit(2) if n > 2 else -1
        if sep is None and n > 1 and not hasattr(args[1], "value"):
            return True
        return not (sep is None and maxsplit == -1) and not (
            isinstance(sep, str) and sep and isinstance(maxsplit, int)
            and (m == "split" or maxsplit == -1)
        )  # fmt: skip
    if m in ("find", "index"):
        return n != 2
    if m == "count":
        return not (n == 2 and isinstance(lit(1), str))
    if m == "replace":
        return not (n == 3 and isinstance(lit(1), str) and lit(1))
    return True


_NOT_LIT = object()
_NATIVE_SPEC = __import__("re").compile(
    r"[+\- ]?0?(?:[1-9][0-9]*)?,?d?|(?:.?[<>])?(?:[1-9][0-9]*)?s?"
)
