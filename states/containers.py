"""The states behind local containers used as accumulators (SPEC §2 "Containers").

The compiler turns ``d = {}`` / ``d[k] = d.get(k, 0) + v``, ``lst = []`` /
``lst.append(x)`` and ``s = set()`` / ``s.add(x)`` inside a loop over rows into
one of these reversible states; the code after the loop reads the container's
value (``value()``), an ordered list the plan handles natively (Spark arrays).

- :class:`KeyedSums` — a dict of sums: ``add(k, v)`` adds ``v`` to key ``k``
  (``add(k, 0)`` creates the key). A key exists while at least one ``add`` of
  it is applied, exactly like Python's ``d[k] = d.get(k, 0) + v``.
  ``value()``: the ``(key, sum)`` pairs in ascending key order.
- :class:`Bag` — a list built by ``append`` in an unordered loop: a multiset;
  ``value()`` lists the elements in ascending order.
- :class:`ValueSet` — a set: ``value()`` lists the distinct elements in
  ascending order.

>>> d = KeyedSums(); d.add("b", 2); d.add("a", 1); d.add("b", 3); d.value()
[('a', 1), ('b', 5)]
>>> d.add.undo("a", 1); d.value()
[('b', 5)]
>>> s = ValueSet(); s.add(3); s.add(1); s.add(3); s.value()
[1, 3]
>>> b = Bag(); b.add(3); b.add(1); b.add(3); b.value()
[1, 3, 3]
"""

from __future__ import annotations

from typing import Any

from looplift import action, merge

from ._base import LibraryState, count_in, count_out, expand, merge_counts, sorted_items
from .multiset import MultisetState

__all__ = [
    "Bag",
    "InsertionDict",
    "KeyedMax",
    "KeyedMin",
    "KeyedSums",
    "PySet",
    "Seq",
    "ValueSet",
    "CONTAINER_STATES",
    "ORDERED_CONTAINER_STATES",
]


class KeyedSums(LibraryState):
    """A dict of sums per key, reversible (a key lives while its adds are applied)."""

    def __init__(self) -> None:
        self.counts: dict[Any, int] = {}
        self.sums: dict[Any, Any] = {}

    @action
    def add(self, k: Any, v: Any) -> None:
        count_in(self.counts, k)
        self.sums[k] = self.sums.get(k, 0) + v

    @add.undo
    def add(self, k: Any, v: Any) -> None:
        count_out(self.counts, k, f"KeyedSums.add.undo({k!r}, {v!r})")
        if k in self.counts:
            self.sums[k] = self.sums[k] - v
        else:
            del self.sums[k]

    @merge
    def merge(self, other: KeyedSums) -> None:
        """Add ``other``'s keys and sums to this dict's (a key lives in either)."""
        merge_counts(self.counts, other.counts)
        for k, v in other.sums.items():
            self.sums[k] = self.sums.get(k, 0) + v

    def value(self) -> list[tuple[Any, Any]]:
        """The ``(key, sum)`` pairs, ascending by key."""
        return [(k, self.sums[k]) for k, _ in sorted_items(self.counts)]


class KeyedMax(LibraryState):
    """A dict of maxima per key (``d[k] = max(d.get(k, v), v)``), reversible: each key keeps
    the multiset of its values."""

    def __init__(self) -> None:
        self.values: dict[Any, dict[Any, int]] = {}

    @action
    def add(self, k: Any, v: Any) -> None:
        count_in(self.values.setdefault(k, {}), v)

    @add.undo
    def add(self, k: Any, v: Any) -> None:
        counts = self.values.get(k, {})
        count_out(counts, v, f"{type(self).__name__}.add.undo({k!r}, {v!r})")
        if not counts:
            del self.values[k]

    @merge
    def merge(self, other: KeyedMax) -> None:
        """Add ``other``'s values per key to this dict's multisets."""
        for k, counts in other.values.items():
            merge_counts(self.values.setdefault(k, {}), counts)

    def value(self) -> list[tuple[Any, Any]]:
        """The ``(key, maximum)`` pairs, ascending by key."""
        return [(k, max(self.values[k])) for k in sorted(self.values)]


class KeyedMin(KeyedMax):
    """A dict of minima per key (``d[k] = min(d.get(k, v), v)``)."""

    def value(self) -> list[tuple[Any, Any]]:
        """The ``(key, minimum)`` pairs, ascending by key."""
        return [(k, min(self.values[k])) for k in sorted(self.values)]


class Bag(MultisetState):
    """A list appended to in an unordered loop: its elements as a multiset."""

    def value(self) -> list[Any]:
        """The elements in ascending order (with repetitions)."""
        return expand(sorted_items(self.counts))


class ValueSet(MultisetState):
    """A set: the distinct elements added and not undone."""

    def value(self) -> list[Any]:
        """The distinct elements in ascending order."""
        return [v for v, _ in sorted_items(self.counts)]


# -- containers filled in an ordered loop (run in Python per scope key, in row order) --------


def _no_undo(what: str) -> None:
    raise NotImplementedError(
        f"{what} is filled in an ordered loop, which is recomputed per scope key, never undone"
    )


class Seq(LibraryState):
    """A list filled in an ordered loop: ``append``, ``pop(0)``, ``pop()`` in row order."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    @action
    def append(self, x: Any) -> None:
        self.items.append(x)

    @append.undo
    def append(self, x: Any) -> None:
        _no_undo("a list")

    @action
    def pop_first(self) -> None:
        self.items.pop(0)

    @pop_first.undo
    def pop_first(self) -> None:
        _no_undo("a list")

    @action
    def pop_last(self) -> None:
        self.items.pop()

    @pop_last.undo
    def pop_last(self) -> None:
        _no_undo("a list")

    def value(self) -> list[Any]:
        """The elements in the order they were appended."""
        return list(self.items)


class InsertionDict(LibraryState):
    """A dict filled in an ordered loop: ``d[k] = v`` and ``d[k] = d.get(k, 0) + v``."""

    def __init__(self) -> None:
        self.entries: dict[Any, Any] = {}

    @action
    def set(self, k: Any, v: Any) -> None:
        self.entries[k] = v

    @set.undo
    def set(self, k: Any, v: Any) -> None:
        _no_undo("a dict")

    @action
    def add(self, k: Any, v: Any) -> None:
        self.entries[k] = self.entries.get(k, 0) + v

    @add.undo
    def add(self, k: Any, v: Any) -> None:
        _no_undo("a dict")

    def value(self) -> list[tuple[Any, Any]]:
        """The ``(key, value)`` pairs in insertion order (Python's dict order)."""
        return list(self.entries.items())


class PySet(LibraryState):
    """A set filled in an ordered loop: ``add`` and ``discard`` in row order."""

    def __init__(self) -> None:
        self.members: set[Any] = set()

    @action
    def add(self, x: Any) -> None:
        self.members.add(x)

    @add.undo
    def add(self, x: Any) -> None:
        _no_undo("a set")

    @action
    def discard(self, x: Any) -> None:
        self.members.discard(x)

    @discard.undo
    def discard(self, x: Any) -> None:
        _no_undo("a set")

    def value(self) -> list[Any]:
        """The elements in ascending order."""
        return sorted(self.members)


# the Python container each state stands for: filled in an unordered loop / an ordered one
CONTAINER_STATES = {"dict": KeyedSums, "list": Bag, "set": ValueSet}
ORDERED_CONTAINER_STATES = {"dict": InsertionDict, "list": Seq, "set": PySet}
