# expect: 15:12 scope
"""A per-group state read after the group loop: there is one per group, so
which one would it be?"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Count


@dataflow
def last_group_count(rows: RowStream[int, int]) -> int:
    for _k, g in group_by(0, rows):
        c = Count()
        for _a, _b in g:
            c.add()
    return c.value()
