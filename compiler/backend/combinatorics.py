"""``itertools.combinations`` / ``permutations`` / ``product`` of arrays as Spark SQL: the
rules of the table's ``c_combinations``, ``c_permutations`` and ``c_product``
(``primitives/combinatorics.py``).

Nested ``transform``s, one per position of the tuple, flattened; itertools' order is
the nesting order (the first position varies slowest):

- ``combinations(x, 2)``: over the positions ``p`` of ``x``, ``flatten(transform(p, i0 ->
  transform(filter(p, i1 -> i1 > i0), i1 -> named_struct('_1', x[i0], '_2', x[i1]))))``;
- ``permutations(x, 2)``: the same with ``i1 != i0`` (the positions not taken yet);
- ``product(x, y)``: every element of ``y`` per element of ``x``.

>>> class R:
...     depth = 0
>>> combinations_sql(R(), "x", 1)
"transform(transform(x, (_e, _i) -> _i), _k0i0 -> named_struct('_1', element_at(x, _k0i0 + 1)))"
"""

from __future__ import annotations

from typing import Any

from ..ir.nodes import Expr, Lit
from .rules import Emitter, rule

__all__ = ["combinatorics_sql", "combinations_sql", "permutations_sql", "product_sql"]


@rule("c_combinations", "c_permutations", "c_product")
def combinatorics_sql(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    if op == "c_product":
        return product_sql(r, x)
    k = args[1]
    assert isinstance(k, Lit) and isinstance(k.value, int)
    if op == "c_combinations":
        return combinations_sql(r, x[0], k.value)
    return permutations_sql(r, x[0], k.value)


def _row(names: list[str]) -> str:
    return "named_struct(" + ", ".join(f"'_{j + 1}', {n}" for j, n in enumerate(names)) + ")"


def combinations_sql(r: Any, x: str, k: int) -> str:
    return _positions(r, x, k, ">")


def _positions(r: Any, x: str, k: int, cmp: str) -> str:
    """Tuples of ``k`` elements of ``x`` by their positions: each later position ``cmp``
    (``>``: after the previous one, for combinations; ``!=``: not taken yet, for
    permutations) the ones before it, in ascending order."""
    p = f"_k{r.depth}"
    idx = f"transform({x}, (_e, _i) -> _i)"

    def level(j: int) -> str:
        i = f"{p}i{j}"
        if cmp == ">":
            taken = f"{i} > {p}i{j - 1}"
        else:
            taken = " AND ".join(f"{i} != {p}i{m}" for m in range(j))
        src = f"filter({idx}, {i} -> {taken})" if j else idx
        if j == k - 1:
            row = _row([f"element_at({x}, {p}i{m} + 1)" for m in range(k)])
            return f"transform({src}, {i} -> {row})"
        return f"flatten(transform({src}, {i} -> {level(j + 1)}))"

    return level(0)


def permutations_sql(r: Any, x: str, k: int) -> str:
    return _positions(r, x, k, "!=")


def product_sql(r: Any, xs: list[str]) -> str:
    p = f"_k{r.depth}"

    def level(j: int) -> str:
        a = f"{p}a{j}"
        if j == len(xs) - 1:
            return f"transform({xs[j]}, {a} -> {_row([f'{p}a{m}' for m in range(len(xs))])})"
        return f"flatten(transform({xs[j]}, {a} -> {level(j + 1)}))"

    return level(0)
