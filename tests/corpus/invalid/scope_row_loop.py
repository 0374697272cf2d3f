# expect: 13:12 scope
"""A state created inside the loop over rows (one per row) and read after it."""

from looplift import RowStream, dataflow
from looplift.states import Max


@dataflow
def biggest(rows: RowStream[int, int]) -> int:
    for _k, v in rows:
        m = Max()
        m.add(v)
    return m.value()
