"""Latest value first: running max from the newest event backwards."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "ts", "peak_after"))
def peaks(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows, order_by=-1):
        best = None
        for _k, ts, v in g:
            best = v if best is None else max(best, v)
            yield k, ts, best
