"""Programs that passed ``uda-compile --check`` and then failed to build or ran wrong
(issue 24, item 2), fixed: ``tests/spark/test_agreement_fixes.py`` runs them on Spark
against CPython, and ``tests/compiler/test_check_agreement.py`` checks that ``--check``
and the build agree on them.

>>> fmt(7), fmt_mixed(2.5, "x"), fmt_flags(True, None)
('n=7', 'x: 2.50 (2%) 2.500000 2', 'True/1|None')
>>> tags([(1, 5), (1, 2), (2, 9)])
[(1, '1_1'), (1, '1_2'), (2, '2_1')]
>>> first_last([(1, 3, 10), (1, 1, 30), (1, 2, 20)])
[(1, 30, 10, '30,20,10')]
"""

from typing import Optional

from looplift import RowStream, dataflow, group_by, sorted_by

PAIR = "%s/%d"


@dataflow
def fmt(x: int) -> str:
    """``%d`` of an int: ``str(x)``."""
    return "n=%d" % x  # noqa: UP031 - the form under test


@dataflow
def fmt_mixed(x: float, s: str) -> str:
    """``%s``, ``%.2f``, ``%d`` of a float (truncated), ``%%``, ``%f``, ``%i``."""
    return "%s: %.2f (%d%%) %f %i" % (s, x, x, x, x)  # noqa: UP031


@dataflow
def fmt_flags(b: bool, y: Optional[int]) -> str:  # noqa: UP045
    """A module-level format; ``%d`` of a bool is 1 or 0, ``%s`` of None is 'None'."""
    return PAIR % (b, b) + "|%s" % y  # noqa: UP031


@dataflow(columns=("k", "s"))
def fmt_rows(rows: RowStream[int, float]):
    """``%`` formatting per row."""
    for k, g in group_by(0, rows):
        for _, v in g:
            yield k, "%d:%.1f" % (k, v)  # noqa: UP031


@dataflow(columns=("k", "tag"))
def tags(rows: RowStream[int, int]):
    """``str(k)`` of the group key inside an ordered loop that yields (its plan recursed)."""
    for k, g in group_by(0, rows, order_by=1):
        n = 0
        for _, _v in g:
            n += 1
            yield k, str(k) + "_" + str(n)


@dataflow(columns=("k", "first", "last", "all"))
def first_last(rows: RowStream[int, int, int]):
    """A list filled in an ordered loop, read after it in the loop's order (it was sorted
    by value)."""
    for k, g in group_by(0, rows, order_by=1):
        seen = []
        for _, _t, v in g:
            seen.append(v)
        yield k, seen[0], seen[-1], ",".join([str(v) for v in seen])


@dataflow(columns=("k", "i", "v", "step"))
def steps(rows: RowStream[int, int, int]):
    """A loop over a list filled in an ordered loop (descending), with a carried previous
    value, and guarded appends."""
    for k, g in group_by(0, rows, order_by=-1):
        seen = []
        for _, _t, v in g:
            if v % 3 != 0:
                seen.append(v)
        prev = 0
        for i, v in enumerate(seen):
            yield k, i, v, v - prev
            prev = v


@dataflow(columns=("k", "key", "last", "total"))
def latest_and_total(rows: RowStream[int, int, int]):
    """Dicts filled in an ordered loop: the last value per key, and a running total per
    key; both in the order the keys first appear."""
    for k, g in group_by(0, rows, order_by=1):
        last = {}
        total = {}
        for _, t, v in g:
            last[v % 3] = t
            total[v % 3] = total.get(v % 3, 0) + t
        for key, t in last.items():
            yield k, key, t, total[key]


@dataflow(columns=("k", "n"))
def distinct_after(rows: RowStream[int, int, int]):
    """A set filled in an ordered loop: its distinct elements (it kept duplicates)."""
    for k, g in group_by(0, rows, order_by=1):
        s = set()
        for _, _t, v in g:
            s.add(v % 4)
        yield k, ",".join([str(x) for x in sorted(s)])


@dataflow(columns=("k", "n", "members"))
def kept_members(rows: RowStream[int, int, int]):
    """A set filled with ``add`` and ``discard`` in an ordered loop: what the last update of
    each element left."""
    for k, g in group_by(0, rows, order_by=1):
        s = set()
        for _, t, v in g:
            s.add(v % 5)
            s.discard(t % 5)
        yield k, len(s), ",".join([str(x) for x in sorted(s)])


@dataflow(columns=("i", "v"))
def whole_input(rows: RowStream[int, int]):
    """A list filled in a loop over the whole input in order (``sorted_by``)."""
    seen = []
    for _t, v in sorted_by(rows, 0):
        seen.append(v)
    for i, v in enumerate(seen):
        yield i, v
