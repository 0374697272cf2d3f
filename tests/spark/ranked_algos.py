"""Ranked streams (``sorted(g, ...)[:n]``, issue 27; ``test_ranked.py``): a
``row_number()`` window per scope key whose order leaves out the scope keys (they
break no tie), the remaining fields ascending as Python's stable sort over the
canonical order.

>>> top_two([("a", "x", 3), ("a", "y", 5), ("a", "z", 5), ("b", "w", 1)])
[('a', 1, 'y', 5), ('a', 2, 'z', 5), ('b', 1, 'w', 1)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("category", "rank", "product", "units"))
def top_two(sales: RowStream[str, str, int]):
    """The sample's shape: ties on units by product ascending."""
    for category, items in group_by(0, sales):
        for i, row in enumerate(sorted(items, key=lambda r: r[2], reverse=True)[:2]):
            yield category, i + 1, row[1], row[2]


@dataflow(columns=("k", "rank", "k2"))
def by_key_only(rows: RowStream[int, int]):
    """Ordered by the scope key itself: every row ties, so the other field decides."""
    for k, g in group_by(0, rows):
        for i, row in enumerate(sorted(g, key=lambda r: r[0])[:3]):
            yield k, i, row[1]


@dataflow(columns=("k", "rank"))
def only_key(rows: RowStream[int]):
    """One field, the scope key: the window has nothing left to order by."""
    for k, g in group_by(0, rows):
        for i, _row in enumerate(sorted(g, key=lambda r: r[0], reverse=True)[:2]):
            yield k, i
