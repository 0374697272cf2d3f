"""``itertools.combinations``, ``permutations`` and ``product`` of lists, as entries of the
table (their SQL is the rule of ``backend/combinatorics.py``).

``combinations(xs, r)`` and ``permutations(xs, r)`` take a constant ``r`` (1 to 4): the
result is a list of ``r``-tuples, ``("list", ("tuple", (T,) * r))``, in itertools' order
(lexicographic in the positions of the elements; equal elements are not merged);
``product(xs, ys, ...)`` the tuples of one element of each list, the last list varying
fastest. None of them raises on lists (an ``r`` larger than the list gives no tuples;
iterating None is the caller's TypeError).

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["c_combinations"].result_type([("list", "str"), "int"], [None, 2])
('list', ('tuple', ('str', 'str')))
>>> PRIMITIVES["c_permutations"].reference([1, 2, 3], 2)[:3]
[(1, 2), (1, 3), (2, 1)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from .base import Primitive
from .containers import element_type, lists_only

__all__ = ["COMBINATORICS"]

Type = Any
_LISTS = ([], [1], [1, 2], [1, 2, 3], [2, 1, 2], [None, 1], [1, 2, 3, 4, 5])


def _choose_type(ts: Sequence[Type], lits: Sequence[Any]) -> tuple[Type, bool]:
    r = lits[1] if len(lits) > 1 and isinstance(lits[1], int) else 2
    return ("list", ("tuple", (element_type(lists_only(ts[:1], "itertools")[0]),) * r)), False


def _product_type(ts: Sequence[Type], lits: Sequence[Any]) -> tuple[Type, bool]:
    return ("list", ("tuple", tuple(element_type(t) for t in lists_only(ts, "itertools.product")))), False


def _entry(name: str, arity: tuple[int, int], ref: Any, rule: Any, edges: tuple) -> Primitive:
    return Primitive(name, arity, "list", "list", ref, (), None, True, edges=edges,
                     type_at=rule, null_rule=lambda ts, nulls: False, lowering="rule",
                     domain="container")  # fmt: skip


COMBINATORICS: tuple[Primitive, ...] = (
    _entry("c_combinations", (2, 2), lambda xs, r: list(itertools.combinations(xs, r)),
           _choose_type, tuple((x, r) for x in _LISTS for r in (1, 2, 3))),
    _entry("c_permutations", (2, 2), lambda xs, r: list(itertools.permutations(xs, r)),
           _choose_type, tuple((x, r) for x in _LISTS for r in (1, 2, 3))),
    _entry("c_product", (1, 4), lambda *xs: list(itertools.product(*xs)), _product_type,
           tuple((x, y) for x in _LISTS[:4] for y in _LISTS[:4]) + (([1, 2], [3], [4, 5]),)),
)  # fmt: skip
