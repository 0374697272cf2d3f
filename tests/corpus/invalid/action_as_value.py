# expect: 12:14 action
"""Using the result of a state action (actions return nothing)."""

from looplift import RowStream, dataflow
from looplift.states import Sum


@dataflow
def running(xs: RowStream[int]) -> int:
    s = Sum()
    for (x,) in xs:
        ok = s.add(x)
    return s.value()
