# expect: 14:9 argument
# expect: 15:9 argument
"""State methods called with the wrong number of arguments."""

from looplift import RowStream, dataflow
from looplift.states import Count, Sum


@dataflow
def totals(rows: RowStream[int, int]) -> tuple[int, int]:
    s = Sum()
    c = Count()
    for k, v in rows:
        s.add(k, v)
        c.add(v)
    return s.value(), c.value()
