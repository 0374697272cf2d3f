"""The table of primitive operators of the IR.

Each primitive has a Python reference implementation (used for constant
folding and by the reference evaluator) and a flag saying whether it can raise
on some input (division, conversions, ``math`` domain errors). Only total
primitives may be moved across control flow (e.g. floated out of a loop).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["PRIMS", "AUGOPS", "BINOPS", "UNARYOPS", "COMPAREOPS", "BUILTIN_FUNCS", "MATH_FUNCS"]


@dataclass(frozen=True, slots=True)
class PrimInfo:
    name: str
    impl: Callable[..., Any]
    total: bool  # never raises (up to 64-bit overflow, checked at run time)
    symbol: str = ""  # infix spelling, for explain output


def _tuple(*xs: Any) -> tuple[Any, ...]:
    return xs


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
]:
    _add(_n, _f, _t, _s)

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
]:
    _add(_n, _f, _t)

MATH_FUNCS = (
    "sqrt exp log log2 log10 log1p expm1 floor ceil trunc fabs sin cos tan asin acos atan "
    "atan2 sinh cosh tanh hypot pow copysign isnan isinf isfinite degrees radians fmod"
).split()
for _m in MATH_FUNCS:
    _add(f"math.{_m}", getattr(math, _m), _m in {"fabs", "isnan", "isinf", "isfinite"})

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
