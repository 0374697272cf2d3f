from looplift import RowStream, dataflow


@dataflow
def summary(rows: RowStream[int, float]) -> tuple:
    n = 0
    total = 10.0
    debt = 0
    hi = 0.0
    lo = 100.0
    for k, v in rows:
        n += 1
        total += v
        debt -= k
        hi = max(hi, v)
        if k > 0:
            lo = min(v, lo)
    return n, total, debt, hi, lo
