"""Algorithms the benchmarks need that the samples do not have (a Variance aggregate).

Compiled by the benchmarks like the samples: imported by path, then called on
DataFrames. ``Variance`` is additive (count, sum, sum of squares), so both should
compile to native sums with no Python and no join (issue 3).

>>> variance([(1, 1), (1, 2), (2, 3), (2, 4)])
1.25
>>> variance_by_key([(1, 1), (1, 3), (2, 5)])
[(1, 1.0), (2, 0.0)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Variance


@dataflow
def variance(rows: RowStream[int, int]) -> float:
    """Population variance of the second field (None for no rows)."""
    var = Variance()
    for _, v in rows:
        var.add(v)
    return var.value()


@dataflow(columns=("k", "var"))
def variance_by_key(rows: RowStream[int, int]):
    """Per key (first field): the population variance of the second field."""
    for k, g in group_by(0, rows):
        yield k, variance(g)
