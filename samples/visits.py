"""Session summaries: one row per session, from an ordered loop.

Each event is ``(user, ts, kind)`` with integer timestamps (seconds). A gap
of more than 30 minutes between two of a user's events (in time order,
``group_by(0, events, order_by=1)``) ends a session. ``visit_summary``
yields one row per session: when it ends, inside the loop (the event that
starts the next one closes it), and the user's last session after the loop.
A row has the session's start, end, number of events and number of
purchases (``kind == "buy"``).

>>> visit_summary([(1, 0, "view"), (1, 600, "buy"), (1, 9000, "view"), (2, 50, "view")])
[(1, 0, 600, 2, 1), (1, 9000, 9000, 1, 0), (2, 50, 50, 1, 0)]
"""

from looplift import RowStream, dataflow, group_by

GAP = 30 * 60


@dataflow(columns=("user_id", "start", "end", "events", "purchases"))
def visit_summary(events: RowStream[int, int, str]):
    """Per user and session: start, end, events and purchases (a gap over 30 min splits)."""
    for uid, user_events in group_by(0, events, order_by=1):
        start = None
        end = None
        n = 0
        buys = 0
        for _uid, ts, kind in user_events:
            if end is not None and ts - end > GAP:
                yield uid, start, end, n, buys
                start = None
                n = 0
                buys = 0
            if start is None:
                start = ts
            end = ts
            n += 1
            if kind == "buy":
                buys += 1
        if start is not None:
            yield uid, start, end, n, buys
