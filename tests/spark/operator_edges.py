"""Edge cases and test algorithms generated from the table's operators and builtins
(``Operator`` entries: arithmetic, comparisons, ``round``, ``int``, ``float``, ``str``,
``bool``), as ``primitive_edges.py`` does for ``math``.

For every entry, arity and argument types (all floats, all ints, and for two arguments
an int with a float and a bool with an int; for one argument a bool): the generic edge
values of each type (NaN, ±inf, ±0.0, subnormals, the largest float; ±2**63 and
neighbours, 2**53 + 1), the entry's own ``edges`` of those types. CPython's outcome on
each (a value, or the class it raises; an int beyond 64 bits counts as OverflowError; a
complex result, which the language has no type for, as ValueError) is the expectation.

The algorithms are generated as source, one per entry, signature and context (the
contexts of ``primitive_edges.py``): the call is the entry's ``spelling`` (``x0 // x1``).
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from looplift.compiler.primitives import OPERATORS, Operator, TypeRefused

from tests.spark.primitive_edges import Int64Overflow, _dedup, context_row, raises

__all__ = ["CONTEXTS", "OSig", "all_signatures", "context_row", "edge_inputs", "outcome",
           "raises", "source", "module_source", "algo_name"]  # fmt: skip

MAX = sys.float_info.max
TINY = 5e-324
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FLOATS = (math.nan, math.inf, -math.inf, 0.0, -0.0, TINY, -TINY, sys.float_info.min, MAX, -MAX,
          1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 2.0, 3.0, 1 / 3, 1e16, 9.223372036854775807e18,
          -9.223372036854775808e18, 9.2233720368547748e18)  # fmt: skip
FLOATS2 = (math.nan, math.inf, -math.inf, 0.0, -0.0, TINY, MAX, -MAX, 1.0, -1.0, 0.5, -2.5,
           3.0, 0.1, 9.007199254740992e15, 9.223372036854775807e18)  # fmt: skip
INTS = (0, 1, -1, 2, 3, -7, 10, 2**53, 2**53 + 1, -(2**53 + 1), 2**62, INT64_MAX,
        INT64_MAX - 1, INT64_MIN, INT64_MIN + 1)  # fmt: skip
INTS2 = (0, 1, -1, 2, -3, 7, 2**31, 2**53 + 1, INT64_MAX, INT64_MIN)
SMALL = (0, 1, 2, -1, -2, 3, 15, -20, 400)  # round's ndigits (10 ** n of a huge n hangs)
BOOLS = (False, True)
VALUES = {"float": (FLOATS, FLOATS2), "int": (INTS, INTS2), "bool": (BOOLS, BOOLS)}
CONTEXTS = ("scalar", "guard", "group", "fold", "sql")
ZERO = {"float": "0.0", "int": "0", "bool": "False", "str": "''"}
PY = {"float": float, "int": int, "bool": bool}


@dataclass(frozen=True)
class OSig:
    """One generated signature of an operator: its argument types."""

    prim: Operator
    ts: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.ts)

    @property
    def ident(self) -> str:
        return f"op_{self.prim.name}_{'_'.join(self.ts)}"

    @property
    def result(self) -> str:
        return self.prim.result_type(list(self.ts))

    def call(self, xs: list[str]) -> str:
        text = self.prim.spelling.format(*xs)
        if self.prim.name == "round" and self.n == 2:
            text = f"round({xs[0]}, {xs[1]})"
        return text


def signatures(prim: Operator) -> list[OSig]:
    lo, hi = prim.arity
    out = []
    for n in range(lo, hi + 1):
        if prim.name == "round" and n == 2:
            out += [OSig(prim, ("float", "int")), OSig(prim, ("int", "int"))]
            continue
        combos = [("float",) * n, ("int",) * n]
        combos += [("int", "float"), ("bool", "int")] if n == 2 else [("bool",)]
        if n == 2 and "float" not in prim.covers:  # bitwise: two bools are a signature too
            combos.append(("bool", "bool"))
        out += [OSig(prim, c) for c in combos if _typed(prim, c)]
    return out


def _typed(prim: Operator, ts: tuple[str, ...]) -> bool:
    """Does the entry's type rule take ``ts`` (bitwise operators refuse floats: CPython's
    TypeError, reported at compile time)?"""
    try:
        prim.result_type(list(ts))
    except TypeRefused:
        return False
    return True


def all_signatures() -> Iterator[OSig]:
    for prim in OPERATORS:
        yield from signatures(prim)


def _fits(v: Any, t: str) -> bool:
    return type(v) is PY[t]


def edge_inputs(sig: OSig) -> list[tuple]:
    """Argument tuples of ``sig``: the generic edges of each type, the entry's own."""
    if sig.n == 1:
        cases = [(v,) for v in VALUES[sig.ts[0]][0]]
    else:
        pools = [VALUES[t][1] for t in sig.ts]
        if sig.prim.name == "round":
            pools[1] = SMALL
        cases = list(itertools.product(*pools))
    cases += [e for e in sig.prim.edges if len(e) == sig.n and all(map(_fits, e, sig.ts))]
    cases = _dedup([c for c in cases if not _huge(sig, c)])
    # NaNs as distinct objects, as from data (``x in (y,)`` is true for the same object)
    return [tuple(float("nan") if isinstance(v, float) and v != v else v for v in c)
            for c in cases]  # fmt: skip


def loose(sig: OSig) -> bool:
    """Compared to the harness' tolerance, not exactly: ``int / int`` (each operand
    converted to a double first), a float power (Java's ``pow`` is within one ulp of C's
    for a fractional exponent); ``min`` / ``max`` of a bool and an int return the bool
    object in CPython where the compiled result is typed int (``False`` as 0)."""
    name = sig.prim.name
    if name == "truediv":
        return "float" not in sig.ts
    if name == "pow":
        return "float" in sig.ts
    return name in ("min", "max") and "bool" in sig.ts


def _huge(sig: OSig, args: tuple) -> bool:
    """``x ** y`` of ints with a large ``y`` and ``x << y``: CPython would compute an int
    of ``y`` bits (the algorithms run as Python too); 64 < y <= 200 probes the same
    clause."""
    if sig.prim.name == "lshift":
        x, y = args
        return x != 0 and y > 200
    if sig.prim.name != "pow" or "float" in sig.ts:
        return False
    x, y = args
    return abs(x) > 1 and y > 200


def outcome(prim: Operator, args: tuple) -> Any:
    """CPython's result, or the exception class it raises."""
    try:
        value = prim.reference(*args)
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return type(e)
    if isinstance(value, complex):
        return ValueError  # no complex numbers in the language: the plan raises
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            return Int64Overflow
    return value


# -- generated source -------------------------------------------------------------------

HEADER = """# generated by tests/spark/operator_edges.py
from looplift import RowStream, dataflow, group_by

"""


def algo_name(context: str, sig: OSig, optional: bool = False) -> str:
    return f"{context}_{sig.ident}{'_opt' if optional else ''}"


def source(context: str, sig: OSig, optional: bool = False) -> str:
    xs = [f"x{i}" for i in range(sig.n)]
    ts = [f"{t} | None" if optional else t for t in sig.ts]
    call = sig.call(xs)
    r = sig.result
    name = algo_name(context, sig, optional)
    params = ", ".join(f"{x}: {t}" for x, t in zip(xs, ts, strict=True))
    if context == "scalar":
        return f"@dataflow\ndef {name}({params}) -> {r}:\n    return {call}\n"
    if context == "guard":
        return (f"@dataflow\ndef {name}(c: bool, {params}) -> {r}:\n    r = {ZERO[r]}\n"
                f"    if c:\n        r = {call}\n    return r\n")  # fmt: skip
    if context == "group":
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, "
                f"{', '.join(ts)}]):\n    for k, g in group_by(0, rows):\n"
                f"        for _k, {', '.join(xs)} in g:\n            yield k, {call}\n")  # fmt: skip
    if context == "fold":
        step = f"acc + (1 if {call} else 0)" if r == "bool" else f"acc + {call}"
        zero = ZERO["int" if r == "bool" else r]
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, int, "
                f"{', '.join(ts)}]):\n    for k, g in group_by(0, rows, order_by=1):\n"
                f"        acc = {zero}\n        for _k, _i, {', '.join(xs)} in g:\n"
                f"            acc = {step}\n        yield k, acc\n")  # fmt: skip
    raise ValueError(context)


def contexts_of(sig: OSig) -> tuple[str, ...]:
    """A str result is not folded (``acc + str(x)`` is a string fold, another test's)."""
    return tuple(c for c in CONTEXTS if not (c == "fold" and sig.result == "str"))


def module_source(sigs: list[OSig]) -> str:
    parts = [HEADER]
    for sig in sigs:
        for context in contexts_of(sig):
            if context != "sql":
                parts.append(source(context, sig) + "\n")
        parts.append(source("scalar", sig, optional=True) + "\n")
    return "\n".join(parts)
