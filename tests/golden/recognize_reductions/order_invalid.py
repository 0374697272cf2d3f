from looplift import RowStream, dataflow


@dataflow
def last_gap(rows: RowStream[int]) -> int:
    prev = 0
    gap = 0
    for (t,) in rows:
        gap = t - prev
        prev = t
    return gap
