"""Shared helpers of the incremental tests: the sample algorithms, the reference on a
net table, multisets of output rows and of signed changes."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from tests.helpers import SAMPLES, import_path
from tests.spark.harness import Case, cases_of, kind_of, run_reference


def sample_cases() -> list[Case]:
    """Every table and aggregate algorithm of samples/."""
    out: list[Case] = []
    for path in sorted(SAMPLES.glob("*.py")):
        out.extend(c for c in cases_of(path, import_path(path)) if c.kind != "scalar")
    return out


def case_named(name: str) -> Case:
    """``"clickstream"`` or ``"samples/stats::price_stats"``."""
    for c in sample_cases():
        if c.id == name or c.algo.name == name:
            return c
    raise KeyError(name)


def reference_rows(algo: Any, rows: Sequence[tuple], scalars: Sequence[Any] = ()) -> list[tuple]:
    """The from-scratch reference on a net table, as output rows (an aggregate's value
    is its one row). Raises where the reference raises (ints beyond 64 bits too)."""
    value = run_reference(algo, list(rows), tuple(scalars))
    return [tuple(r) for r in value] if kind_of(algo) == "table" else [(value,)]


def freeze(v: Any) -> Any:
    """A hashable, exact stand-in for an output value (lists and tuples alike; NaN == NaN)."""
    if isinstance(v, list | tuple):
        return tuple(freeze(x) for x in v)
    if isinstance(v, float) and math.isnan(v):
        return ("nan",)
    return v


def multiset(rows: Iterable[Sequence[Any]]) -> Counter:
    return Counter(freeze(tuple(r)) for r in rows)


def add_changes(before: Counter, changes: Iterable[Sequence[Any]]) -> Counter:
    """``before`` with signed change rows (values..., ±1) summed on. Every retraction
    must take back a row that is there (exactly as it was emitted)."""
    out = Counter(before)
    for c in changes:
        row, sign = freeze(tuple(c[:-1])), c[-1]
        assert sign in (1, -1) and not isinstance(sign, bool), f"bad sign in change {c!r}"
        out[row] += sign
        assert out[row] >= 0, f"retraction of a row that is not in the result: {c!r}"
    return +out
