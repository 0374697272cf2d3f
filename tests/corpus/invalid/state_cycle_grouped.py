# expect: 15:13 cycl
"""Per group, a Max and a Sum state that feed each other inside one loop."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Max, Sum


@dataflow(columns=("k", "hi", "total"))
def feedback(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        hi = Max()
        total = Sum()
        for _k, v in g:
            hi.add(v + total.value())
            total.add(hi.value())
        yield k, hi.value(), total.value()
