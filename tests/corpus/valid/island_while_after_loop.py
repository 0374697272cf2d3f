"""A `while` loop after the aggregation: a Python island (issue 25) between native code
(the total's count of decimal digits: a loop that ends quickly for any 64-bit total)."""

from looplift import RowStream, dataflow


@dataflow
def steps_to_zero(xs: RowStream[int]) -> int:
    total = 0
    for (x,) in xs:
        total += x
    steps = 0
    while total > 0:
        total //= 10
        steps += 1
    return steps


EXAMPLES = {"steps_to_zero": [([(5,), (17,)],), ([],), ([(-3,)],), ([(10,), (10,)],)]}
