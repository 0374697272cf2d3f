"""Edge cases and test algorithms generated from the table of primitives.

For every entry of ``looplift.compiler.primitives`` and every arity it takes, the
argument tuples worth testing: the generic edge values of the argument type (NaN,
±inf, ±0.0, subnormals, the largest float; ±2**63 and neighbours, 2**53 ± 1 for ints),
the numbers the entry's partiality compares with and their neighbours (read from the
table), and the entry's own ``edges``. CPython's outcome on each (a value, or the class
it raises; an int beyond 64 bits counts as OverflowError) is the expectation.

The algorithms are generated as source (the compiler reads source files), one per
entry, arity, argument type and context:

- ``scalar``: ``return math.f(x0)``, called on Columns;
- ``guard``: ``r = <zero>; if c: r = math.f(x0)`` (rows with ``c`` false must not raise);
- ``group``: a table algorithm yielding ``math.f(x0)`` per row of each group;
- ``fold``: an ordered group loop carrying ``acc = acc + math.f(x0)`` (bools counted);
- ``sql``: the scalar algorithm called from ``looplift.sql``.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from looplift.compiler.primitives import PRIMITIVES, Operator, Primitive

MAX = sys.float_info.max
TINY = 5e-324  # the smallest subnormal
FLOATS = (math.nan, math.inf, -math.inf, 0.0, -0.0, TINY, -TINY, sys.float_info.min, MAX, -MAX,
          1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0, -8.0, 1 / 3, 1e-300, 100.5, -100.5)  # fmt: skip
FLOATS2 = (math.nan, math.inf, -math.inf, 0.0, -0.0, TINY, MAX, -MAX, 1.0, -1.0, 0.5, -0.5,
           2.0, -3.0, 1 / 3, 1e300)  # fmt: skip
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INTS = (0, 1, -1, 2, 3, 10, -8, 2**53, 2**53 + 1, -(2**53 + 1), 2**62, INT64_MAX,
        INT64_MAX - 1, INT64_MIN, INT64_MIN + 1)  # fmt: skip
INTS2 = (0, 1, -1, 2, -3, 10, 2**53 + 1, INT64_MAX, INT64_MIN)
CONTEXTS = ("scalar", "guard", "group", "fold", "sql")
ZERO = {"float": "0.0", "int": "0", "bool": "False"}


@dataclass(frozen=True)
class Sig:
    """One generated signature of an entry: its arity and argument type."""

    prim: Primitive
    n: int
    t: str  # "float" or "int"

    @property
    def ident(self) -> str:
        return f"{self.prim.name.removeprefix('math.')}_{self.n}_{self.t}"

    @property
    def fn(self) -> str:
        return self.prim.name.removeprefix("math.")


def signatures(prim: Primitive) -> list[Sig]:
    lo, hi = prim.arity
    return [Sig(prim, n, t) for n in range(lo, hi + 1) for t in ("float", "int")]


def boundaries(prim: Primitive) -> list[float]:
    """The partiality's constants, their negations and their neighbours."""
    out: list[float] = []
    for r in prim.partiality:
        for c in sorted(r.when.constants()):
            for v in (c, -c):
                out += [v, math.nextafter(v, -math.inf), math.nextafter(v, math.inf)]
    return out


def _dedup(xs: list[tuple]) -> list[tuple]:
    seen, out = set(), []
    for x in xs:
        key = tuple((type(v).__name__, repr(v)) for v in x)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def edge_inputs(sig: Sig) -> list[tuple]:
    """Argument tuples of ``sig``: generic edges, the table's boundaries, its edges."""
    prim, n = sig.prim, sig.n
    own = [e for e in prim.edges if len(e) == n]
    if sig.t == "float":
        base = FLOATS if n == 1 else FLOATS2
        values = [*base, *boundaries(prim)] if n == 1 else list(base)
        cases = list(itertools.product(values, repeat=n))
        cases += [tuple(float(v) for v in e) for e in own]
        if n == 2:  # the boundaries against a plain value on the other side
            cases += [(b, 2.0) for b in boundaries(prim)] + [(2.0, b) for b in boundaries(prim)]
    else:
        base = INTS if n == 1 else INTS2
        cases = list(itertools.product(base, repeat=n))
        ints = [int(b) for b in boundaries(prim) if math.isfinite(b) and b == int(b)]
        cases += [tuple([b] * n) for b in ints if INT64_MIN <= b <= INT64_MAX]
        cases += [e for e in own if all(type(v) is int for v in e)]
    return _dedup(cases)


class Int64Overflow(OverflowError):
    """CPython returns an int beyond 64 bits: the plan must raise OverflowError."""


def outcome(prim: Primitive, args: tuple) -> Any:
    """CPython's result, or the exception class it raises."""
    try:
        value = prim.reference(*args)
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return type(e)
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            return Int64Overflow
    return value


def raises(v: Any) -> bool:
    return isinstance(v, type) and issubclass(v, BaseException)


def all_signatures() -> Iterator[Sig]:
    for prim in PRIMITIVES.values():
        if not isinstance(prim, Operator):  # operators: operator_edges.py
            yield from signatures(prim)


# -- generated source -------------------------------------------------------------------

HEADER = """# generated by tests/spark/primitive_edges.py
import math

from looplift import RowStream, dataflow, group_by

"""


def algo_name(context: str, sig: Sig, optional: bool = False) -> str:
    return f"{context}_{sig.ident}{'_opt' if optional else ''}"


def source(context: str, sig: Sig, optional: bool = False) -> str:
    t = f"{sig.t} | None" if optional else sig.t
    xs = [f"x{i}" for i in range(sig.n)]
    call = f"math.{sig.fn}({', '.join(xs)})"
    r = sig.prim.result_type([sig.t] * sig.n)
    name = algo_name(context, sig, optional)
    params = ", ".join(f"{x}: {t}" for x in xs)
    if context == "scalar":
        return f"@dataflow\ndef {name}({params}) -> {r}:\n    return {call}\n"
    if context == "guard":
        return (f"@dataflow\ndef {name}(c: bool, {params}) -> {r}:\n    r = {ZERO[r]}\n"
                f"    if c:\n        r = {call}\n    return r\n")  # fmt: skip
    if context == "group":
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, "
                f"{', '.join([t] * sig.n)}]):\n    for k, g in group_by(0, rows):\n"
                f"        for _k, {', '.join(xs)} in g:\n            yield k, {call}\n")  # fmt: skip
    if context == "fold":
        # a bool result is counted (a bool carry is a Python reducer's, not this test's)
        step = f"acc + (1 if {call} else 0)" if r == "bool" else f"acc + {call}"
        zero = ZERO["int" if r == "bool" else r]
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, int, "
                f"{', '.join([t] * sig.n)}]):\n    for k, g in group_by(0, rows, order_by=1):\n"
                f"        acc = {zero}\n        for _k, _i, {', '.join(xs)} in g:\n"
                f"            acc = {step}\n        yield k, acc\n")  # fmt: skip
    raise ValueError(context)


def module_source(sigs: list[Sig], contexts: tuple[str, ...] = CONTEXTS) -> str:
    """One module with every algorithm of ``sigs`` (the sql context uses ``scalar``'s)."""
    parts = [HEADER]
    for sig in sigs:
        for context in contexts:
            if context != "sql":
                parts.append(source(context, sig) + "\n")
        if "scalar" in contexts and sig.t == "float":
            parts.append(source("scalar", sig, optional=True) + "\n")
    return "\n".join(parts)


def context_row(context: str, args: tuple, i: int, c: bool = True) -> tuple:
    """The input row of ``args`` in a context (``i``: the row's group key; ``c``: the
    guard's condition)."""
    if context == "guard":
        return (c, *args)
    if context == "group":
        return (i, *args)
    if context == "fold":
        return (i, 0, *args)
    return args
