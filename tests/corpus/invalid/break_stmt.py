# expect: 12:13 break
"""Stopping early with `break`: rows have no order, so there is no "first" negative."""

from looplift import RowStream, dataflow


@dataflow
def sum_until_negative(xs: RowStream[int]) -> int:
    total = 0
    for (x,) in xs:
        if x < 0:
            break
        total += x
    return total
