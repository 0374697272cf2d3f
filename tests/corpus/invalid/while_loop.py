# expect: 13:5 while
"""A `while` loop after the aggregation: only `for` over streams is allowed."""

from looplift import RowStream, dataflow


@dataflow
def steps_to_zero(xs: RowStream[int]) -> int:
    total = 0
    for (x,) in xs:
        total += x
    steps = 0
    while total > 0:
        total -= 10
        steps += 1
    return steps
