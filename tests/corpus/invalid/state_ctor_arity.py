# expect: 12:15 argument
# expect: 13:13 argument
"""State constructors called with the wrong number of arguments."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, TopK


@dataflow(columns=("k", "top", "n"))
def leaders(rows: RowStream[str, int]):
    for k, g in group_by(0, rows):
        top = TopK()
        n = Count(0)
        for _k, v in g:
            top.add(v)
            n.add()
        yield k, top.values(), n.value()
