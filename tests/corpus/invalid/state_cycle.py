# expect: 14:9 cycl
"""Two states that read each other while being updated in the same loop."""

from looplift import RowStream, dataflow
from looplift.states import Sum


@dataflow
def entangled(xs: RowStream[int]) -> tuple[int, int]:
    a = Sum()
    b = Sum()
    for (x,) in xs:
        a.add(b.value() + x)
        b.add(a.value() - x)
    return a.value(), b.value()
