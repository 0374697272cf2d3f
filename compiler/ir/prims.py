"""The table of primitive operators of the IR.

Each primitive has a Python reference implementation (used for constant
folding and by the reference evaluator) and a flag saying whether it can raise
on some input (division, conversions, ``math`` domain errors). Only total
primitives may be moved across control flow (e.g. floated out of a loop).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from looplift.strings import IMPLS as _STRING_IMPLS
from looplift.windows import session_prim

from ..primitives import CONTAINERS as CONTAINER_TABLE
from ..primitives import DATETIMES as DATETIME_TABLE
from ..primitives import MATH as MATH_TABLE
from ..primitives import MATH_NAMES, NOT_LIT, OPERATORS, PRIMITIVES, STRING_PRIMS, Operator
from ..primitives.combinatorics import COMBINATORICS
from ..primitives.windows import WINDOWS

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


def _raise_code(spec: str, *args: Any) -> int:
    """A ``try``'s test of one call (``backend/trysql.py``): 0 where ``op(*args)`` returns,
    1 + the index of the first handler that catches what it raises, else -1."""
    import builtins

    op, *handlers = spec.removeprefix("!").split("|")
    fn = getattr(builtins, op) if op in ("int", "float") else PRIMS[op].impl
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - which handler catches it is the answer
        for k, names in enumerate(handlers):
            if any(isinstance(e, getattr(builtins, n, ())) for n in names.split(",")):
                return k + 1
        return -1
    return 0


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
    ("bitand", operator.and_, True, "&"),
    ("bitor", operator.or_, True, "|"),
    ("bitxor", operator.xor, True, "^"),
    ("lshift", operator.lshift, False, "<<"),
    ("rshift", operator.rshift, False, ">>"),
    ("invert", operator.invert, True, "~"),
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
    ("raise_code", _raise_code, False, ""),
]:
    _add(_n, _f, _t, _s)

# operators and numeric builtins: the table of primitives holds reference and partiality
# (total: never raises on non-None arguments, 64-bit overflow aside); the symbols above
# are the IR's spelling for explain output
for _p in OPERATORS:
    PRIMS[_p.name] = PrimInfo(_p.name, _p.reference, _p.total, PRIMS[_p.name].symbol)

# datetimes (constructors, attributes, methods) and container reads (``c_*`` on the
# values of ``states/containers.py``, ``dict_get`` on a dict a host function returned):
# the table of primitives holds reference, partiality, type rule and lowering
for _p in (*DATETIME_TABLE, *CONTAINER_TABLE, *COMBINATORICS, *WINDOWS):
    _add(_p.name, _p.reference, _p.total)
# ``session(ts, gap=...)``: a group key part only (a row's session depends on the other
# rows), not a primitive of the table; its reference makes the key's Session marker
_add("win.session", session_prim, False)
DATETIME_ATTRS = {
    **{m: f"dt.{m}" for m in "year month day hour minute second microsecond".split()},
    **{m: f"td.{m}" for m in ("days", "seconds", "microseconds")},
}
DATETIME_METHODS = {"weekday": "dt.weekday", "isoweekday": "dt.isoweekday", "date": "dt.date",
                    "total_seconds": "td.total_seconds"}  # fmt: skip

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
    "BitAnd": "bitand",
    "BitOr": "bitor",
    "BitXor": "bitxor",
    "LeftShift": "lshift",
    "RightShift": "rshift",
}
AUGOPS = {
    "AddAssign": "add",
    "SubtractAssign": "sub",
    "MultiplyAssign": "mul",
    "DivideAssign": "truediv",
    "FloorDivideAssign": "floordiv",
    "ModuloAssign": "mod",
    "PowerAssign": "pow",
    "BitAndAssign": "bitand",
    "BitOrAssign": "bitor",
    "BitXorAssign": "bitxor",
    "LeftShiftAssign": "lshift",
    "RightShiftAssign": "rshift",
}
UNARYOPS = {"Minus": "neg", "Plus": "pos", "Not": "not", "BitInvert": "invert"}
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
# with constant patterns: the table of primitives' entries (references from
# looplift.strings); ``int_ok``/``float_ok`` (a try's tests) never raise
for _p in STRING_PRIMS:
    if "(" not in _p.name:  # ``int(str)``/``float(str)`` are the IR's ``int``/``float``
        _add(_p.name, _p.reference, _p.total)
for _n, _f in _STRING_IMPLS.items():
    if _n not in PRIMS:
        _add(_n, _f, _n in ("int_ok", "float_ok"))


def covered(op: str, ts: list[Any]) -> bool:
    """The table's entry renders these argument types (the others are another domain's:
    ``int(s)`` of a str is the strings' rule, ``str(t)`` of a tuple a Python call)."""
    if op == "str":
        return True  # every type: a Python call where the table's lowering is not native
    if op in ("int", "float"):
        return ts[0] != "str"
    return True


def runs_python(
    op: str,
    args: tuple[Any, ...],
    type_of: Callable[[Any], Any] | None = None,
    nulls: list[bool] | None = None,
    ts: list[Any] | None = None,
) -> bool:
    """Does primitive ``op`` run as a vectorized Python function on Spark, for some rows at
    least? (``args`` are IR nodes; ``type_of`` or ``ts`` their types and ``nulls`` whether
    each may be None, where the caller knows them.) The table of primitives decides: an
    entry whose lowering is not exact at this call site (``Primitive.lowers_natively``)
    runs its CPython reference; the backend's renderers read the same decision."""
    from .nodes import Lit

    entry = PRIMITIVES.get(op)
    if entry is None:
        return False
    if ts is None and type_of is not None:
        ts = [type_of(a) for a in args]
    lits = [a.value if isinstance(a, Lit) else NOT_LIT for a in args]
    if isinstance(entry, Operator):  # native where the lowering is exact for the types
        if ts is None:  # types unknown: what the entry says for every type
            return entry.exact_for is not None or not entry.exact
        return covered(op, ts) and not entry.lowers_natively(ts, lits)
    return not entry.lowers_natively(ts, lits, nulls)
