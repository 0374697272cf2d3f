# expect: 14:9 while
"""A `while` loop inside a group loop, halving a per-group total."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "halvings"))
def halvings(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        total = 0
        for _k, v in g:
            total += v
        h = 0
        while total > 1:
            total //= 2
            h += 1
        yield k, h
