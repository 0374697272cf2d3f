"""Event-time sessions: per user, the sessions of its clicks (a stream's sample).

``sessions_per_user`` groups by the session itself, as Spark's ``groupBy("user_id",
session_window("ts", "30 minutes"))``: ``session(ts, gap=GAP)`` in the group key puts a
click in the group of its session (a pause of 30 minutes or more starts the next one),
named by the session's start. In batch the session starts are two native window passes
over the clicks ordered per user (``lag`` and a running ``max``); its event-time stream
is Spark's streaming ``session_window`` aggregation (append mode, no Python).

``daily_sessions`` is the same summary as an ordered loop, per user and day.

``clicks_per_window`` and ``sliding_counts`` (``samples/windows.py``) count in windows:
additive states, which ``f.stream(df, event_time="ts", watermark="10 minutes")`` runs as
Spark's own windowed aggregation. A session summary is an ordered loop, so its event-time
stream runs per window in Python (``transformWithStateInPandas``). A stream can only
emit rows that no later row changes; here the window is the day (UTC) of the group key,
``tumble(ts, days=1)``: once the watermark passes midnight, the day's sessions are final,
emitted once, and the day's rows leave the state. (A session is cut at midnight: the
next day starts a new one.)

>>> t = datetime.datetime(2024, 5, 1, 23, 40)
>>> sessions_per_user([(1, t), (1, t + 10 * MINUTE), (1, t + 50 * MINUTE)])
[(1, datetime.datetime(2024, 5, 1, 23, 40), 2), (1, datetime.datetime(2024, 5, 2, 0, 30), 1)]
>>> daily_sessions([(1, t), (1, t + 10 * MINUTE), (1, t + 50 * MINUTE)])
[(1, datetime.datetime(2024, 5, 1, 0, 0), datetime.datetime(2024, 5, 1, 23, 40), datetime.datetime(2024, 5, 2, 0, 20), 2), (1, datetime.datetime(2024, 5, 2, 0, 0), datetime.datetime(2024, 5, 2, 0, 30), datetime.datetime(2024, 5, 2, 1, 0), 1)]
"""

import datetime

from looplift import RowStream, dataflow, group_by, session, tumble

MINUTE = datetime.timedelta(minutes=1)
GAP = datetime.timedelta(minutes=30)


@dataflow(columns=("user_id", "day", "start", "end", "clicks"))
def daily_sessions(clicks: RowStream[int, datetime.datetime]):
    """Per user and day: each session's first click, its end (last click + GAP) and clicks."""
    for (user, day), g in group_by(lambda c: (c[0], tumble(c[1], days=1)), clicks, order_by=1):
        start = None
        prev = None
        n = 0
        for _user, ts in g:
            if prev is not None and ts - prev >= GAP:
                yield user, day, start, prev + GAP, n
                start = None
            if start is None:
                start = ts
                n = 0
            n += 1
            prev = ts
        yield user, day, start, prev + GAP, n


@dataflow(columns=("user_id", "start", "clicks"))
def sessions_per_user(clicks: RowStream[int, datetime.datetime]):
    """Per user and session (a pause of GAP or more starts the next): its start and clicks."""
    for (user, start), g in group_by(lambda c: (c[0], session(c[1], gap=GAP)), clicks):
        n = 0
        for _c in g:
            n += 1
        yield user, start, n
