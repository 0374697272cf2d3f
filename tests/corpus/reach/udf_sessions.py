"""Sessionization: split each user's clicks into sessions with a 30-minute gap."""
from looplift import RowStream, dataflow, group_by

GAP = 30 * 60


@dataflow(columns=("user_id", "sessions", "longest"))
def sessions(clicks: RowStream[int, int]):
    for uid, g in group_by(0, clicks, order_by=1):
        n = 0
        last = None
        start = 0
        longest = 0
        for _u, ts in g:
            if last is None or ts - last > GAP:
                n += 1
                start = ts
            longest = max(longest, ts - start)
            last = ts
        yield uid, n, longest
