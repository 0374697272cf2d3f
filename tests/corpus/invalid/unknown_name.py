# expect: 14:12 unknown
"""A typo in a variable name."""

from looplift import RowStream, dataflow


@dataflow
def average(rows: RowStream[int, float]) -> float:
    total = 0.0
    n = 0
    for _k, v in rows:
        total += v
        n += 1
    return totl / n if n else 0.0
