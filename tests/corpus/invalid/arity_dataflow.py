# expect: 22:18 argument
"""Calling a @dataflow function with too few arguments."""

from looplift import RowStream, dataflow, group_by


@dataflow
def div_not_zero(n: int, total: int) -> float:
    if n == 0:
        return 0.0
    return total / n


@dataflow(columns=("k", "avg"))
def average(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        n = 0
        s = 0
        for _k, v in g:
            n += 1
            s += v
        yield k, div_not_zero(n)
