"""Additive states: Sum, Count, Average, Variance.

These are written in the restricted form the compiler turns into Spark's
native aggregates (SPEC §3): ``__init__`` only assigns numeric literals to
fields; every action only does ``self.f += <expression over its parameters>``
and has no explicit undo (the runtime derives it by negation); every reader
is a single ``return`` of an expression over the fields. Keep it that way
when editing this file. Each merges (``@merge``) by adding the fields.

Integer inputs are summed exactly (Python ints), so readers over integers do
not depend on the order of the actions at all. Undoing more than was applied
is not detected (the fields just go negative).

>>> s = Sum(); s.add(3); s.add(4); s.add.undo(3); s.value()
4
"""

from __future__ import annotations

from looplift import action, merge

from ._base import LibraryState

__all__ = ["Average", "Count", "Sum", "Variance"]


class Sum(LibraryState):
    """The sum of the added values.

    Action: ``add(x)`` (derived undo ``add.undo(x)``). Reader: ``value()`` —
    the sum, 0 when empty.

    >>> s = Sum(); s.add(2); s.add(-5); s.value()
    -3
    """

    def __init__(self) -> None:
        self.total = 0

    @action
    def add(self, x: float) -> None:
        self.total += x

    @merge
    def merge(self, other: Sum) -> None:
        """Add ``other``'s total to this state's."""
        self.total += other.total

    def value(self) -> float:
        """The sum (0 when empty)."""
        return self.total


class Count(LibraryState):
    """The number of rows seen.

    Action: ``add()`` counts one row (derived undo ``add.undo()``). Reader:
    ``value()`` — the count, 0 when empty.

    >>> c = Count(); c.add(); c.add(); c.add.undo(); c.value()
    1
    """

    def __init__(self) -> None:
        self.n = 0

    @action
    def add(self) -> None:
        self.n += 1

    @merge
    def merge(self, other: Count) -> None:
        """Add ``other``'s n to this state's."""
        self.n += other.n

    def value(self) -> int:
        """The number of rows (0 when empty)."""
        return self.n


class Average(LibraryState):
    """The arithmetic mean of the added values.

    Action: ``add(x)`` (derived undo). Reader: ``value()`` — ``s / n`` as a
    float, None when empty.

    >>> a = Average(); a.add(1); a.add(2); a.value()
    1.5
    """

    def __init__(self) -> None:
        self.n = 0
        self.s = 0

    @action
    def add(self, x: float) -> None:
        self.n += 1
        self.s += x

    @merge
    def merge(self, other: Average) -> None:
        """Add ``other``'s n, s to this state's."""
        self.n += other.n
        self.s += other.s

    def value(self) -> float | None:
        """The mean as a float, or None when no value was added."""
        return self.s / self.n if self.n != 0 else None


class Variance(LibraryState):
    """The variance of the added values, from the count, sum and sum of squares.

    Action: ``add(x)`` (derived undo). Readers: ``value()`` — the population
    variance ``(ss - s*s/n) / n`` (like :func:`statistics.pvariance`), None
    when empty; ``sample()`` — the sample variance ``(ss - s*s/n) / (n - 1)``
    (like :func:`statistics.variance`), None with fewer than two values.
    Both are clamped at 0.0 against negative rounding error. Being computed
    from sums, they lose precision when the variance is tiny compared with
    the squared mean of floats.

    >>> v = Variance(); v.add(1); v.add(2); v.add(3); v.add(4); (v.value(), v.sample())
    (1.25, 1.6666666666666667)
    """

    def __init__(self) -> None:
        self.n = 0
        self.s = 0
        self.ss = 0

    @action
    def add(self, x: float) -> None:
        self.n += 1
        self.s += x
        self.ss += x * x

    @merge
    def merge(self, other: Variance) -> None:
        """Add ``other``'s n, s, ss to this state's."""
        self.n += other.n
        self.s += other.s
        self.ss += other.ss

    def value(self) -> float | None:
        """Population variance as a float, or None when empty."""
        return max((self.ss - self.s * self.s / self.n) / self.n, 0.0) if self.n > 0 else None

    def sample(self) -> float | None:
        """Sample variance as a float, or None with fewer than two values."""
        return max((self.ss - self.s * self.s / self.n) / (self.n - 1), 0.0) if self.n > 1 else None
