# expect: 15:9 append
"""Collecting values into a Python list (mutation of a non-state object)."""

from looplift import RowStream, dataflow


def new_list():
    return []


@dataflow
def collect(xs: RowStream[int]) -> int:
    seen = new_list()
    for (x,) in xs:
        seen.append(x)
    return len(seen)
