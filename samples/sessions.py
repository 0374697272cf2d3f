"""Sessionization: ordered loops and order-dependent code.

A session is a run of events in which no two consecutive events are more
than a gap apart. Counting sessions needs the *previous* timestamp, a
loop-carried local that is neither a sum, a count, a min nor a max: its
value depends on the order of the rows. Such code is only allowed in an
ordered loop, here ``group_by(0, events, order_by=1)``, which iterates each
user's events sorted by timestamp.

``sessions`` works on integer timestamps with a fixed gap of 30;
``session_stats`` works on ``datetime`` timestamps with the gap (in seconds)
as a scalar parameter, and measures time in whole seconds,
``int((b - a).total_seconds())``.

Both loops compile to one native fold per user (``--explain``): the carried
locals are the fields of a struct accumulator, the loop body its step
function over the user's events sorted by timestamp; no Python runs.

>>> sessions([(7, 100), (7, 10), (7, 20), (7, 95)])
[(7, 2)]
"""

import datetime

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "sessions"))
def sessions(events: RowStream[int, int]):
    """Per user, the number of sessions (a gap of more than 30 starts a new one)."""
    for uid, user_events in group_by(0, events, order_by=1):
        n = 0
        prev = None
        for _uid, ts in user_events:
            if prev is None or ts - prev > 30:
                n += 1
            prev = ts
        yield uid, n


@dataflow(columns=("user_id", "sessions", "longest_s", "first_seen"))
def session_stats(events: RowStream[int, datetime.datetime], max_gap: int):
    """Per user: sessions, the longest session in seconds, and the first event."""
    for uid, user_events in group_by(0, events, order_by=1):
        n = 0
        longest = 0
        first = None
        start = None
        prev = None
        for _uid, ts in user_events:
            if first is None:
                first = ts
            if prev is None or int((ts - prev).total_seconds()) > max_gap:
                n += 1
                start = ts
            longest = max(longest, int((ts - start).total_seconds()))
            prev = ts
        yield uid, n, longest, first
