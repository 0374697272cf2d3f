# expect: 10:9 field
"""Unpacking two-field rows into three names."""

from looplift import RowStream, dataflow


@dataflow
def total(rows: RowStream[int, int]) -> int:
    t = 0
    for a, b, c in rows:
        t += a + b + c
    return t
