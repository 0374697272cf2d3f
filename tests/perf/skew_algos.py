"""The programs of the skew benchmark (tests/perf/skew.py): a TopK, a Distinct and a
keyed sum per key, over ``t(k, c, v)``.

>>> top3([(1, 0, 5), (1, 0, 9), (2, 0, 1), (1, 0, 7), (1, 0, 2)])
[(1, [9, 7, 5]), (2, [1])]
>>> distinct_count([(1, 0, 5), (1, 0, 5), (2, 0, 1)])
[(1, 1), (2, 1)]
>>> sorted(keyed_sums([(1, 0, 5), (1, 0, 5), (1, 3, 1)]))
[(1, 0, 10), (1, 3, 1)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Distinct, TopK


@dataflow(columns=("k", "top"))
def top3(rows: RowStream[int, int, int]):
    """Per key, the three largest values (TopK: Spark's max_by(v, v, 3))."""
    for k, g in group_by(0, rows):
        t = TopK(3)
        for _k, _c, v in g:
            t.add(v)
        yield k, t.values()


@dataflow(columns=("k", "n"))
def distinct_count(rows: RowStream[int, int, int]):
    """Per key, the number of distinct values (Distinct: collect_set)."""
    for k, g in group_by(0, rows):
        d = Distinct()
        for _k, _c, v in g:
            d.add(v)
        yield k, d.count()


@dataflow(columns=("k", "c", "total"))
def keyed_sums(rows: RowStream[int, int, int]):
    """Per key, a dict of sums per category (KeyedSums: sums per (key, category))."""
    for k, g in group_by(0, rows):
        d = {}
        for _k, c, v in g:
            d[c] = d.get(c, 0) + v
        for c, s in d.items():
            yield k, c, s
