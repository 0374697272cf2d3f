"""A `while` loop inside a group loop, halving a per-group total: a Python island per group
(issue 25) after the native sum."""

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


EXAMPLES = {"halvings": [([(1, 5), (1, 4), (2, 1), (3, 0), (3, -7), (4, 1024)],), ([],)]}
