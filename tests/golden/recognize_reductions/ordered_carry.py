from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user", "sessions"))
def sessions(clicks: RowStream[int, int]):
    for user, g in group_by(0, clicks, order_by=1):
        prev = -1000
        count = 0
        for _u, ts in g:
            if ts - prev > 30:
                count += 1
            prev = ts
        yield user, count
