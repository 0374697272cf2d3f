"""Multiset-backed reversible states: Min, Max, Distinct, Median, TopK.

Each keeps a value->count dict of everything added and not undone (the
retractable MIN/MAX of OctoSQL): ``add(x)`` increments the count of ``x``,
``add.undo(x)`` decrements it and drops the entry at zero, so every reader
is a function of the multiset alone — the order of arrival never matters.
Undoing a value that is not in the multiset raises ValueError.

>>> m = Max(); m.add(3); m.add(7); m.add(7); m.add.undo(7); m.value()
7
>>> m.add.undo(7); m.value()
3
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar, Self

from looplift import action, merge

from ._base import LibraryState, batch_counts, count_in, count_out, merge_counts, sorted_items

__all__ = ["BitAnd", "BitOr", "BitXor", "Distinct", "Max", "Median", "Min", "MultisetState",
           "Product", "TopK"]


class MultisetState(LibraryState):
    """A multiset of values with one reversible action, ``add(x)``.

    Subclass it and add readers over ``self.counts`` (value -> count > 0) to
    build your own multiset-backed state; the library's Min, Max, Distinct,
    Median and TopK do exactly that. Values must be hashable; readers that
    order them need them mutually comparable.
    """

    action_codes: ClassVar[tuple[str, ...]] = ("add",)

    def __init__(self) -> None:
        self.counts: dict[Any, int] = {}

    @action
    def add(self, x: Hashable) -> None:
        count_in(self.counts, x)

    @add.undo
    def add(self, x: Hashable) -> None:
        count_out(self.counts, x, f"{type(self).__name__}.add.undo({x!r})")

    @merge
    def merge(self, other: Self) -> None:
        """Add ``other``'s multiset to this one (the counts of each value add up)."""
        _same_args(self, other)
        merge_counts(self.counts, other.counts)

    @classmethod
    def batch_apply(
        cls,
        codes: Sequence[int | str],
        args: Sequence[Any],
        signs: Sequence[int] | None = None,
        *,
        state: Self | None = None,
        ctor_args: tuple[Any, ...] = (),
    ) -> Self:
        """Apply a batch of signed ``add`` actions at once (numpy-counted).

        Same contract as :meth:`LibraryState.batch_apply`; the batch is netted
        per value first, and a value whose count would go negative raises
        ValueError before the state changes.

        >>> Median.batch_apply([0, 0, 0, 0, 0], [5, 1, 9, 7, 9], [1, 1, 1, 1, -1]).value()
        5
        """
        target = cls(*ctor_args) if state is None else state
        batch_counts(cls, target, {0: ("add", target.counts)}, codes, args, signs)
        return target


def _same_args(state: Any, other: Any) -> None:
    """A merge combines states of one scope, built alike (TopK's ``k``)."""
    mine = {k: v for k, v in vars(state).items() if k != "counts"}
    theirs = {k: v for k, v in vars(other).items() if k != "counts"}
    if mine != theirs:
        raise ValueError(
            f"{type(state).__name__}.merge: the states were built differently ({mine} and {theirs})"
        )


class Min(MultisetState):
    """The smallest value of the multiset.

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Reader: ``value()`` — the
    minimum, None when empty.

    >>> m = Min(); m.add(4); m.add(-2); m.value()
    -2
    """

    def value(self) -> Any:
        """The minimum, or None when the multiset is empty."""
        return min(self.counts) if self.counts else None


class Max(MultisetState):
    """The largest value of the multiset.

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Reader: ``value()`` — the
    maximum, None when empty.

    >>> m = Max(); m.add(4); m.add(-2); m.value()
    4
    """

    def value(self) -> Any:
        """The maximum, or None when the multiset is empty."""
        return max(self.counts) if self.counts else None


class Product(MultisetState):
    """The product of the multiset (a running ``p *= x`` in an unordered loop).

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Reader: ``value()`` — the product, 1 when
    empty. Of ints it is exact (Python's unbounded ints, whatever the order); of floats it
    is the product in ascending order of the factors, which may round differently from
    another order, as a float sum does (and an intermediate overflow to inf, then a
    factor 0, is order-dependent, as ``1e308 + 1e308 - 1e308`` is for a sum).

    >>> p = Product(); p.add(3); p.add(-2); p.add(2**62); p.value() == -6 * 2**62
    True
    """

    def value(self) -> Any:
        """The product of the values with their multiplicity; 1 when empty."""
        out: Any = 1
        for v, n in sorted_items(self.counts):
            for _ in range(n):
                out = out * v
        return out


class BitOr(MultisetState):
    """``|`` of the multiset's values (a running ``bits |= x`` in an unordered loop): of
    ints an int, of bools a bool, as Python's ``|`` gives.

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Reader: ``value()`` — None when empty.

    >>> b = BitOr(); b.add(4); b.add(1); b.add(4); b.value()
    5
    """

    def value(self) -> Any:
        """The values or-ed together, or None when the multiset is empty."""
        return _fold(self.counts, operator.or_, odd=False)


class BitAnd(MultisetState):
    """``&`` of the multiset's values (``mask &= x``). Reader: ``value()`` — None when
    empty.

    >>> b = BitAnd(); b.add(6); b.add(3); b.value()
    2
    """

    def value(self) -> Any:
        """The values and-ed together, or None when the multiset is empty."""
        return _fold(self.counts, operator.and_, odd=False)


class BitXor(MultisetState):
    """``^`` of the multiset's values (``parity ^= x``): a value added twice cancels.
    Reader: ``value()`` — None when empty.

    >>> b = BitXor(); b.add(6); b.add(3); b.add(3); b.value()
    6
    """

    def value(self) -> Any:
        """The values xor-ed together (with multiplicity), or None when empty."""
        if not self.counts:
            return None
        zero = False if all(type(v) is bool for v in self.counts) else 0
        return _fold({v: n for v, n in self.counts.items() if n % 2}, operator.xor, odd=True,
                     zero=zero)  # fmt: skip


def _fold(counts: dict[Any, int], op: Any, odd: bool, zero: Any = None) -> Any:
    """``op`` over the values of ``counts`` (each once: ``|`` and ``&`` are idempotent;
    ``odd``: the caller kept the values of odd multiplicity), ``zero`` when none."""
    out: Any = None
    for v, _n in sorted_items(counts):
        out = v if out is None else op(out, v)
    return zero if out is None else out


class Distinct(MultisetState):
    """The distinct values of the multiset.

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Readers: ``count()`` — the
    number of distinct values (0 when empty); ``values()`` — them, sorted
    ascending ([] when empty).

    >>> d = Distinct(); d.add(3); d.add(1); d.add(3); (d.count(), d.values())
    (2, [1, 3])
    """

    def count(self) -> int:
        """Number of distinct values (0 when empty)."""
        return len(self.counts)

    def values(self) -> list[Any]:
        """The distinct values in ascending order ([] when empty)."""
        return sorted(self.counts)


class Median(MultisetState):
    """The median of the multiset, as :func:`statistics.median` computes it.

    Actions: ``add(x)`` (undo: ``add.undo(x)``). Reader: ``value()`` — for an
    odd count the middle value itself, for an even count the mean of the two
    middle values as a float; None when empty.

    >>> m = Median(); m.add(1); m.add(10); m.add(3); m.value()
    3
    >>> m.add(4); m.value()
    3.5
    """

    def value(self) -> Any:
        """The median, or None when the multiset is empty."""
        if not self.counts:
            return None
        n = sum(self.counts.values())
        lo_rank, hi_rank = (n - 1) // 2, n // 2  # 0-based ranks of the middle values
        lo = hi = None
        seen = 0
        for v, c in sorted_items(self.counts):
            if lo is None and seen + c > lo_rank:
                lo = v
            if seen + c > hi_rank:
                hi = v
                break
            seen += c
        if lo_rank == hi_rank:
            return lo
        return (lo + hi) / 2


class TopK(MultisetState):
    """The ``k`` largest values of the multiset.

    Constructor: ``TopK(k)`` with ``k >= 0``. Actions: ``add(x)`` (undo:
    ``add.undo(x)``). Reader: ``values()`` — the k largest values in
    descending order, duplicates kept; fewer when the multiset holds fewer
    than k values ([] when empty).

    >>> t = TopK(3); t.add(5); t.add(9); t.add(5); t.add(1); t.add(7); t.values()
    [9, 7, 5]
    """

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"TopK(k) needs an integer k >= 0, got {k!r}")
        super().__init__()
        self.k = k

    def values(self) -> list[Any]:
        """The k largest values, descending, with duplicates ([] when empty)."""
        out: list[Any] = []
        for v in heapq.nlargest(self.k, self.counts):
            out.extend([v] * min(self.counts[v], self.k - len(out)))
            if len(out) >= self.k:
                break
        return out
