# expect: 11:9 order
"""Keeping the "last" value of an unordered loop."""

from looplift import RowStream, dataflow


@dataflow
def last_value(xs: RowStream[int, int]) -> int:
    last = 0
    for _ts, v in xs:
        last = v
    return last
