"""Algorithms with time windows (``test_windows.py``): ``tumble`` and ``hop`` of
``looplift.windows`` in scalars, in loops (a row per window: explode), and as group keys
(``hop``: a group per window, ``session``: a group per session), on datetimes and on ints."""

from __future__ import annotations

import datetime
from typing import NamedTuple

from looplift import RowStream, dataflow, group_by, hop, session, tumble
from looplift import windows as W

HOUR = datetime.timedelta(hours=1)
STEP = datetime.timedelta(minutes=5)
QUARTER = 15


def _text(w: datetime.datetime) -> str:  # noqa: D401 - (not compiled: for the reference)
    return f"{w.year}-{w.month}-{w.day} {w.hour}:{w.minute}:{w.second}.{w.microsecond}"


# -- scalars -----------------------------------------------------------------------------


@dataflow
def start5(ts: datetime.datetime) -> datetime.datetime:
    return tumble(ts, minutes=5)


@dataflow
def starts(ts: datetime.datetime):
    """Several sizes and offsets: odd microseconds, an hour shifted back 15 minutes, a day
    shifted by a module constant, a week (the epoch was a Thursday)."""
    a = tumble(ts, microseconds=7)
    b = tumble(ts, size=HOUR, offset=datetime.timedelta(minutes=-QUARTER))
    c = W.tumble(ts, days=1, offset=STEP * 3)
    d = tumble(ts, hours=1, minutes=30, seconds=1, milliseconds=1)
    return a, b, c, d


@dataflow
def week_text(ts: datetime.datetime) -> str:
    """A week's start as text (years near 1 do not collect as datetimes); before
    0001-01-01 it is OverflowError."""
    w = tumble(ts, weeks=1)
    return (str(w.year) + "-" + str(w.month) + "-" + str(w.day) + " " + str(w.hour) + ":"
            + str(w.minute) + "." + str(w.microsecond))  # fmt: skip


@dataflow
def maybe_start(ts: datetime.datetime | None) -> datetime.datetime:
    return tumble(ts, minutes=5)


@dataflow
def int_starts(t: int):
    return tumble(t, size=10, offset=3), tumble(t, size=2**40), tumble(t, size=7, offset=-100)


@dataflow
def maybe_int(t: int | None) -> int:
    return tumble(t, size=10)


@dataflow
def hop_summary(ts: datetime.datetime):
    """The windows of a 1-hour hop every 5 minutes: how many, the first and the last; and
    of 12 minutes every 5, shifted 7 seconds back (2 or 3 windows)."""
    n = 0
    first = None
    last = None
    for w in hop(ts, size=HOUR, slide=STEP):
        n += 1
        if first is None:
            first = w
        last = w
    odd = 0
    for w in hop(ts, size=datetime.timedelta(minutes=12), slide=STEP,
                 offset=datetime.timedelta(seconds=-7)):  # fmt: skip
        odd = odd * 10 + w.minute % 10
    return n, first, last, odd


@dataflow
def int_hop_summary(t: int):
    """Windows of 2 every 5 (gaps: a time in no window), and of 7 every 3."""
    gaps = 0
    for _w in hop(t, size=2, slide=5):
        gaps += 1
    total = 0
    for w in hop(t, size=7, slide=3, offset=1):
        total += w
    return gaps, total


# -- tables ------------------------------------------------------------------------------


@dataflow(columns=("id", "window"))
def row_per_window(rows: RowStream[int, datetime.datetime]):
    for i, ts in rows:
        for w in hop(ts, size=datetime.timedelta(minutes=10), slide=STEP):
            yield i, w


@dataflow(columns=("window", "n", "latest"))
def int_sliding(rows: RowStream[int, int]):
    """A hop key over ints, size 7 every 3 (rows in several groups)."""
    for w, g in group_by(lambda r: hop(r[1], size=7, slide=3), rows):
        n = 0
        latest = -(2**62)
        for _k, t in g:
            n += 1
            latest = max(latest, t)
        yield w, n, latest


@dataflow(columns=("key", "window", "n"))
def keyed_sliding(rows: RowStream[int, datetime.datetime]):
    """A key of a field and a hop."""
    for (k, w), g in group_by(lambda r: (r[0] % 2, hop(r[1], size=HOUR, slide=STEP * 4)), rows):
        n = 0
        for _r in g:
            n += 1
        yield k, w, n


@dataflow(columns=("window", "n"))
def int_tumbling(rows: RowStream[int, int]):
    for w, g in group_by(lambda r: tumble(r[1], size=60, offset=-7), rows):
        n = 0
        for _r in g:
            n += 1
        yield w, n


# -- calls without a native lowering: the reference in Python, the same answers ------------


@dataflow
def computed_size(ts: datetime.datetime, m: int) -> datetime.datetime:
    """A duration computed per row: a Python island."""
    return tumble(ts, minutes=m)


@dataflow
def wrong_kind(t: int) -> int:
    """Timedelta durations for an int: TypeError on every row, as in Python."""
    return tumble(t, minutes=5)


@dataflow(columns=("window", "n"))
def two_loops(rows: RowStream[int, int]):
    """A hop key multiplies the rows: another loop over them cannot share the frame."""
    total = 0
    for _k, _t in rows:
        total += 1
    for w, g in group_by(lambda r: hop(r[1], size=7, slide=3), rows):
        n = 0
        for _r in g:
            n += 1
        yield w, n * 100 + total


# -- named rows (the form) -----------------------------------------------------------


class Click(NamedTuple):
    user_id: int
    ts: datetime.datetime


@dataflow(columns=("user_id", "window", "clicks", "last"))
def named_per_window(clicks: RowStream[Click]):
    """Clicks per user per 5-minute window, and the last click of each, in order."""
    for (user, w), g in group_by(lambda c: (c.user_id, tumble(c.ts, minutes=5)), clicks,
                                 order_by="ts"):  # fmt: skip
        n = 0
        last = None
        for c in g:
            n += 1
            last = c.ts
        yield user, w, n, last


@dataflow(columns=("window", "users", "first"))
def named_sliding(clicks: RowStream[Click]):
    """Per 1-hour window every 5 minutes: distinct users, and the first click in order."""
    for w, g in group_by(lambda c: hop(c.ts, size=HOUR, slide=STEP), clicks, order_by="ts"):
        users = set()
        first = None
        for c in g:
            users.add(c.user_id)
            if first is None:
                first = c.ts
        yield w, len(users), first


@dataflow(columns=("user_id", "minutes", "first_window"))
def windows_seen(clicks: RowStream[Click]):
    """Window starts computed in a loop body that runs as Python (an ordered reducer over
    a set): the reference called from the generated Python."""
    for user, g in group_by("user_id", clicks, order_by="ts"):
        seen = set()
        first = None
        for c in g:
            seen.add(tumble(c.ts, minutes=1))
            if first is None:
                first = hop(c.ts, size=HOUR, slide=STEP)[0]
        yield user, len(seen), first


# -- session windows as group keys ----------------------------------------------------------

GAP = datetime.timedelta(minutes=30)


@dataflow(columns=("user", "day", "start", "n", "last", "first_id"))
def session_rows(rows: RowStream[int, datetime.datetime, int]):
    """Per user, day (a computed key part: sessions cut at midnight) and session: its
    start, clicks, last time and the first row's id in time order (the rows read in order
    inside the session group)."""
    for (user, day, start), g in group_by(lambda r: (r[0], tumble(r[1], days=1), session(r[1], gap=GAP)),
                                          rows, order_by=(1, 2)):  # fmt: skip
        n = 0
        last = None
        first = None
        for _u, ts, i in g:
            n += 1
            last = ts
            if first is None:
                first = i
        yield user, day, start, n, last, first


@dataflow(columns=("start", "n"))
def int_sessions(rows: RowStream[int, int]):
    """Sessions of all rows (the whole key is the session) of computed int times, gap 5."""
    for start, g in group_by(lambda r: session(r[1] // 1, gap=5), rows):
        n = 0
        for _r in g:
            n += 1
        yield start, n


@dataflow(columns=("key", "start", "n"))
def shifted_sessions(rows: RowStream[float, int | None]):
    """A nullable int time after a float key part (NaN: a group per row)."""
    for (k, start), g in group_by(lambda r: (r[0], session(r[1], gap=7)), rows):
        n = 0
        for _r in g:
            n += 1
        yield k, start, n
