# expect: 10:5 class
"""A state class declared inside the algorithm instead of at module level."""

from looplift import RowStream, dataflow
from looplift.states import Sum


@dataflow
def tally(xs: RowStream[int]) -> int:
    class Tally(Sum):
        """A local alias of Sum."""

    acc = Tally()
    for (x,) in xs:
        acc.add(x)
    return acc.value()
