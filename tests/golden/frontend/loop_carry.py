from looplift import RowStream, dataflow


@dataflow
def stats(xs: RowStream[int, float]) -> tuple:
    n = 0
    total = 0.0
    best = 0.0
    for k, v in xs:
        n += 1
        if k > 0:
            total += v
        best = max(best, v)
    return n, total, best
