"""Whole-row binding: count rows and sum a field."""
from looplift import RowStream, dataflow


@dataflow
def stats(rows: RowStream[int, float]) -> tuple:
    n = 0
    total = 0.0
    for row in rows:
        n += 1
        total += row[1]
    return n, total
