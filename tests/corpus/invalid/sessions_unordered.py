# expect: 15:13 order
"""Sessionization in a group loop that forgot `order_by=1`."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "sessions"))
def sessions(events: RowStream[int, int]):
    for uid, user_events in group_by(0, events):
        n = 0
        prev = None
        for _uid, ts in user_events:
            if prev is None or ts - prev > 30:
                n += 1
            prev = ts
        yield uid, n
