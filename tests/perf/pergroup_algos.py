"""Group values used per row (issue 27, item 2): the programs of tests/perf/pergroup.py.

Each loops over a group twice: first it accumulates a group-level value, then it yields
one row per row of the group that reads it.

>>> centered([(1, 10, 1.0), (1, 11, 3.0), (2, 12, 5.0)])
[(1, 10, -1.0), (1, 11, 1.0), (2, 12, 0.0)]
>>> share([(1, 10, 1), (1, 11, 3), (2, 12, 5)])
[(1, 10, 0.25), (1, 11, 0.75), (2, 12, 1.0)]
>>> centered_avg([(1, 10, 1.0), (1, 11, 3.0)])
[(1, 10, -1.0), (1, 11, 1.0)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Average


@dataflow(columns=("k", "id", "centered"))
def centered(rows: RowStream[int, int, float]):
    """Per key: each value minus the key's mean (plain carries)."""
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
    """Per key: each value's share of the key's total."""
    for k, grp in group_by(0, rows):
        total = 0
        for _k, _i, v in grp:
            total += v
        for _k, i, v in grp:
            yield k, i, v / total


@dataflow(columns=("k", "id", "centered"))
def centered_avg(rows: RowStream[int, int, float]):
    """Per key: each value minus the key's mean (an ``Average`` state)."""
    for k, grp in group_by(0, rows):
        avg = Average()
        for _k, _i, v in grp:
            avg.add(v)
        for _k, i, v in grp:
            yield k, i, v - avg.value()
