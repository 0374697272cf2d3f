"""Group values used per row (issue 27, item 2; ``test_pergroup.py``): a group loop that
sums over its group, then loops over the group again reading the sums per row. Additive
sums read only per row compile to ``sum(...) OVER (PARTITION BY key)`` on the rows; the
rest (a row per key too, a non-additive state of the scope) keep the aggregate + join.

>>> centered([(1, 10, 1.0), (1, 11, 3.0), (2, 12, 5.0)])
[(1, 10, -1.0), (1, 11, 1.0), (2, 12, 0.0)]
>>> share([(1, 10, 1), (1, 11, 3)])
[(1, 10, 0.25), (1, 11, 0.75)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Average, Count, Max, Min, Sum


@dataflow(columns=("k", "id", "centered"))
def centered(rows: RowStream[int, int, float]):
    """Plain carries: ``v - total / n``."""
    for k, grp in group_by(0, rows):
        total = 0.0
        n = 0
        for _k, _i, v in grp:
            total += v
            n += 1
        mean = total / n
        for _k, i, v in grp:
            yield k, i, v - mean


@dataflow(columns=("k", "id", "share"))
def share(rows: RowStream[int, int, int]):
    """An int total (ZeroDivisionError at 0; beyond 64 bits Spark must fail, not wrap)."""
    for k, grp in group_by(0, rows):
        total = 0
        for _k, _i, v in grp:
            total += v
        for _k, i, v in grp:
            yield k, i, v / total


@dataflow(columns=("k", "id", "centered"))
def centered_avg(rows: RowStream[str | None, int, float | None]):
    """An ``Average`` state over an optional value (``None`` raises in ``add``), string
    keys (``None`` a key of its own)."""
    for k, grp in group_by(0, rows):
        avg = Average()
        for _k, _i, v in grp:
            avg.add(v)
        for _k, i, v in grp:
            yield k, i, v - avg.value()


@dataflow(columns=("k", "id", "above", "n", "total"))
def guarded(rows: RowStream[str, int, int]):
    """Guarded actions and yields; ``Sum`` and ``Count`` states; a group value compared
    per row (ties: ``v * n == total``)."""
    for k, grp in group_by(0, rows):
        total = Sum()
        n = Count()
        for _k, _i, v in grp:
            if v > 0:
                total.add(v)
                n.add()
        for _k, i, v in grp:
            if v * n.value() >= total.value():
                yield k, i, v * n.value() - total.value(), n.value(), total.value()


@dataflow(columns=("a", "b", "id", "share"))
def nested(rows: RowStream[int, str | None, int, float]):
    """Centering in the inner group of two nested ``group_by`` loops (the outer key's
    total read per row too)."""
    for a, outer in group_by(0, rows):
        all_n = 0
        for _a, _b, _i, _v in outer:
            all_n += 1
        for b, inner in group_by(1, outer):
            total = 0.0
            for _a, _b, _i, v in inner:
                total += v
            for _a, _b, i, v in inner:
                yield a, b, i, v - total / all_n


@dataflow(columns=("k", "id", "centered"))
def float_keys(rows: RowStream[float, int, float]):
    """A float key: NaN is a group per row (a distinct object in Python), -0.0 is 0.0."""
    for k, grp in group_by(0, rows):
        total = 0.0
        n = 0
        for _k, _i, v in grp:
            total += v
            n += 1
        for _k, i, v in grp:
            yield k, i, v - total / n


@dataflow(columns=("k", "id", "rest", "top"))
def with_max(rows: RowStream[int, int, int]):
    """A ``Max`` beside a sum of the same scope: ``max(v) OVER (PARTITION BY k)``."""
    for k, grp in group_by(0, rows):
        total = 0
        best = Max()
        for _k, _i, v in grp:
            total += v
            best.add(v)
        for _k, i, v in grp:
            yield k, i, total - v, best.value()


@dataflow(columns=("k", "id", "share"))
def per_key_too(rows: RowStream[int, int, int]):
    """The group's total yielded per key as well as per row: aggregate + join."""
    for k, grp in group_by(0, rows):
        total = 0
        for _k, _i, v in grp:
            total += v
        yield k, -1, total
        for _k, i, v in grp:
            yield k, i, total - v


@dataflow(columns=("k", "id", "rank", "share"))
def rank_share(rows: RowStream[int, int, int]):
    """Rank within the group (an ordered loop: a running count, ties by id) beside a share
    of the group total: both windows over the rows, no join."""
    for k, grp in group_by(0, rows, order_by=2):
        total = 0
        for _k, _i, v in grp:
            total += v
        r = 0
        for _k, i, v in grp:
            r += 1
            yield k, i, r, v / total


@dataflow(columns=("k", "id", "rank", "last"))
def rank_then_last(rows: RowStream[int, int, int]):
    """The ordered loop's state is read after the loop (per key): aggregate + join."""
    for k, grp in group_by(0, rows, order_by=2):
        total = 0
        for _k, _i, v in grp:
            total += v
        r = 0
        for _k, i, v in grp:
            r += v
            yield k, i, r, total
        yield k, -1, r, total


@dataflow(columns=("k", "id", "centered"))
def big_groups_only(rows: RowStream[int, int, float]):
    """The per-row loop under a condition on the group's values (groups of 2 rows or more)."""
    for k, grp in group_by(0, rows):
        total = 0.0
        n = 0
        for _k, _i, v in grp:
            total += v
            n += 1
        if n >= 2:
            for _k, i, v in grp:
                yield k, i, v - total / n


@dataflow(columns=("k", "id", "from_low", "to_high", "first"))
def spread(rows: RowStream[str, int, str]):
    """``Min`` states (ints and strings) and a carried ``max`` read per row: windows, no
    join; ties, Unicode ordered by code point."""
    for k, grp in group_by(0, rows):
        low = Min()
        high = 0
        first = Min()
        for _k, i, name in grp:
            low.add(i)
            high = max(high, i)
            first.add(name)
        for _k, i, _name in grp:
            yield k, i, i - low.value(), high - i, first.value()
