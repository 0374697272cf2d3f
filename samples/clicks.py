"""Clickstream sessionization: a session number for every event.

Each click is ``(user, ts, page)`` with a ``datetime`` timestamp. A user's
clicks in time order (``group_by(0, clicks, order_by=1)``) fall into sessions:
a pause of more than ``gap_s`` seconds since the previous click starts the
next one. ``session_ids`` numbers them 1, 2, ... per user and yields every
click with its session number and the seconds since the previous click
(``None`` for a user's first click), e.g. to join clicks to sessions.

>>> t = datetime.datetime(2024, 5, 1, 9, 0)
>>> later = t + datetime.timedelta(minutes=45)
>>> [(r[2], r[3], r[4]) for r in session_ids([(1, later, "/cart"), (1, t, "/")], 1800)]
[('/', 1, None), ('/cart', 2, 2700.0)]
"""

import datetime

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "ts", "page", "session", "since_prev_s"))
def session_ids(clicks: RowStream[int, datetime.datetime, str], gap_s: int):
    """Per click: its user's session number (a pause over ``gap_s`` seconds starts one)."""
    for uid, user_clicks in group_by(0, clicks, order_by=1):
        session = 0
        prev = None
        for _uid, ts, page in user_clicks:
            since = None
            if prev is not None:
                since = (ts - prev).total_seconds()
            if since is None or since > gap_s:
                session += 1
            prev = ts
            yield uid, ts, page, session, since
