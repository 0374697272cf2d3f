"""Keep the newest row per key."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("id", "ts", "value"))
def latest(rows: RowStream[int, int, float]):
    for key, g in group_by(0, rows):
        best_ts = None
        best = None
        for _k, ts, v in g:
            if best_ts is None or ts > best_ts:
                best_ts, best = ts, v
        yield key, best_ts, best
