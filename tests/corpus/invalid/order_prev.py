# expect: 15:9 order
"""Sessionization without `order_by`: the previous timestamp depends on the
row order."""

from looplift import RowStream, dataflow


@dataflow
def gaps(events: RowStream[int, int]) -> int:
    n = 0
    prev = 0
    for _user, ts in events:
        if ts - prev > 30:
            n += 1
        prev = ts
    return n
