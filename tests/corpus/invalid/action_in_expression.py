# expect: 15:12 action
# expect: 17:18 action
"""State actions used inside expressions: as a condition and as an operand."""

from looplift import RowStream, dataflow
from looplift.states import Count, Distinct


@dataflow
def new_values(xs: RowStream[int]) -> int:
    seen = Distinct()
    c = Count()
    fresh = 0
    for (x,) in xs:
        if seen.add(x):
            fresh += 1
        fresh += c.add()
    return fresh
