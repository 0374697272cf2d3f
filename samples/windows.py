"""Time windows over clicks: tumbling, sliding (hopping) and session windows.

Each click is ``(user_id, ts)`` with a ``datetime`` timestamp. ``looplift.windows``
has plain Python functions that name a window by its start: ``tumble(ts, minutes=5)`` is the start of the 5-minute window that holds ``ts``
(windows aligned to the epoch, half-open ``[start, start + 5 min)``), and
``hop(ts, size=HOUR, slide=STEP)`` the starts of every 1-hour window, one starting
each 5 minutes, that holds it. Used in a group key, a ``hop`` puts the click in the
group of each of its windows.

- ``clicks_per_window``: clicks per user per 5-minute tumbling window;
- ``sliding_counts``: clicks per 1-hour window sliding every 5 minutes;
- ``session_summary``: per user and event-time session (a pause of 30 minutes or more
  starts the next one, as Spark's ``session_window``): its start, its end (the last
  click plus the gap) and its clicks, from an ordered loop over the user's clicks.

All three compile to native plans (``--explain``): the window starts are native
expressions (``unix_micros``, ``pmod``, ``timestamp_micros``; ``explode(sequence(...))``
for ``hop``), the session loop a native fold per user.

>>> t = datetime.datetime(2024, 5, 1, 9, 0)
>>> clicks = [(1, t), (1, t + 4 * MINUTE), (1, t + 5 * MINUTE), (2, t)]
>>> sorted(clicks_per_window(clicks))
[(1, datetime.datetime(2024, 5, 1, 9, 0), 2), (1, datetime.datetime(2024, 5, 1, 9, 5), 1), (2, datetime.datetime(2024, 5, 1, 9, 0), 1)]
>>> len(sliding_counts(clicks)), max(n for _, n in sliding_counts(clicks))
(13, 4)
>>> session_summary([(1, t), (1, t + 29 * MINUTE), (1, t + 59 * MINUTE)])
[(1, datetime.datetime(2024, 5, 1, 9, 0), datetime.datetime(2024, 5, 1, 9, 59), 2), (1, datetime.datetime(2024, 5, 1, 9, 59), datetime.datetime(2024, 5, 1, 10, 29), 1)]
"""

import datetime

from looplift import RowStream, dataflow, group_by, hop, tumble

MINUTE = datetime.timedelta(minutes=1)
HOUR = datetime.timedelta(hours=1)
STEP = datetime.timedelta(minutes=5)
GAP = datetime.timedelta(minutes=30)


@dataflow(columns=("user_id", "window", "clicks"))
def clicks_per_window(clicks: RowStream[int, datetime.datetime]):
    """Clicks per user per 5-minute tumbling window."""
    for (user, window), g in group_by(lambda c: (c[0], tumble(c[1], minutes=5)), clicks):
        n = 0
        for _c in g:
            n += 1
        yield user, window, n


@dataflow(columns=("window", "clicks"))
def sliding_counts(clicks: RowStream[int, datetime.datetime]):
    """Clicks per 1-hour window, one window starting every 5 minutes."""
    for window, g in group_by(lambda c: hop(c[1], size=HOUR, slide=STEP), clicks):
        n = 0
        for _c in g:
            n += 1
        yield window, n


@dataflow(columns=("user_id", "start", "end", "clicks"))
def session_summary(clicks: RowStream[int, datetime.datetime]):
    """Per user and session: its first click, its end (last click + GAP) and its clicks."""
    for user, g in group_by(0, clicks, order_by=1):
        start = None
        prev = None
        n = 0
        for _user, ts in g:
            if prev is not None and ts - prev >= GAP:
                yield user, start, prev + GAP, n
                start = None
            if start is None:
                start = ts
                n = 0
            n += 1
            prev = ts
        yield user, start, prev + GAP, n
