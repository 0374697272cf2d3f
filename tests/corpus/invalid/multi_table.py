# expect: 20:19 scope
# expect: 26:5 with
# expect: 37:13 return
"""A table algorithm with a `with` block, a state read in a second group loop
although it belongs to the first, and a return from inside a loop."""

import contextlib

from looplift import RowStream, dataflow, group_by
from looplift.states import Sum


@dataflow(columns=("k", "total"))
def totals_twice(rows: RowStream[int, int, int]):
    for _k, g in group_by(0, rows):
        s = Sum()
        for _a, _b, c in g:
            s.add(c)
    for k2, _g2 in group_by(1, rows):
        yield k2, s.value()


@dataflow
def guarded_sum(rows: RowStream[int, int, int]) -> int:
    total = 0
    with contextlib.nullcontext():
        for a, _b, _c in rows:
            total += a
    return total


@dataflow(columns=("k", "c"))
def first_match(rows: RowStream[int, int, int], wanted: int):
    for k, b, c in rows:
        if b == wanted:
            yield k, c
            return
