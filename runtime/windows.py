"""Time windows: plain Python functions that compiled plans match exactly (SPEC §2, "Windows").

A window is named by its start. Windows are half-open, ``[start, start + size)``, and
aligned to the epoch (1970-01-01 00:00, like Spark's ``window()``) plus an optional
``offset``: the starts are ``epoch + offset + k * step`` for every integer ``k``.

Timestamps are either

- ``datetime.datetime`` values (naive values are UTC, as everywhere in looplift; an aware
  value is converted to naive UTC first), with durations as ``datetime.timedelta`` (or,
  for :func:`tumble`, keyword durations ``minutes=5``); a window start is a naive
  datetime, or
- ``int`` values (epoch units of the caller's choosing: seconds, milliseconds, ...), with
  ``int`` durations in the same units; a window start is an int.

Arithmetic is exact (microseconds for datetimes): a timestamp before the epoch belongs to
the window that starts at or before it (floor, not truncation toward zero). A window
start before ``datetime.min`` raises OverflowError ("date value out of range"), as
datetime arithmetic does.

>>> import datetime as d
>>> t = d.datetime(2024, 5, 1, 9, 7, 30)
>>> tumble(t, minutes=5)
datetime.datetime(2024, 5, 1, 9, 5)
>>> " ".join(w.strftime("%H:%M") for w in hop(t, size=d.timedelta(minutes=10), slide=d.timedelta(minutes=5)))
'09:00 09:05'
>>> tumble(-1, size=10), hop(7, size=10, slide=5)
(-10, [0, 5])
>>> session_windows([0, 3, 20, 21], gap=5)
[(0, 8), (20, 26)]

Session windows as group keys: ``session(ts, gap=...)`` in a key function puts the row in
the group of its gap-based session among the rows that share the key's other parts
(``group_by(lambda c: (c.user_id, session(c.ts, gap=GAP)), clicks)``, as Spark's
``groupBy("user_id", session_window("ts", "30 minutes"))``). The session is named by its
start (the time of its first row), like the other windows; its end is the last row's time
plus the gap (``max(ts) + gap`` in the loop body, or :func:`session_windows`). The rule is
:func:`session_windows`': over the rows of one key ordered by time, a time at or beyond
``previous time + gap`` starts the next session (equal times are one session).

>>> keys = [(1, session(t, gap=5)) for t in (0, 3, 20, 8)]
>>> group_rows(keys)  # 8 - 3 >= 5: 8 starts a session
{(1, 0): [0, 1], (1, 8): [3], (1, 20): [2]}
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterable
from typing import Any

__all__ = ["EPOCH", "Session", "Windows", "group_keys", "group_rows", "hop", "session",
           "session_starts", "session_windows", "tumble"]  # fmt: skip

EPOCH = datetime.datetime(1970, 1, 1)
_US = datetime.timedelta(microseconds=1)


class Windows(list):  # type: ignore[type-arg]
    """What :func:`hop` returns: a list of window starts that, as a group key (or a part of
    one), puts the row in the group of each window (``group_by(lambda c: hop(c.ts, ...),
    clicks)``: a row in no window is in no group)."""


def group_keys(key: Any) -> list[Any]:
    """The groups a row whose key function returned ``key`` belongs to: ``key`` itself,
    or one key per window of each :class:`Windows` part (all combinations, in order).

    >>> group_keys((1, Windows([5, 10])))
    [(1, 5), (1, 10)]
    """
    if isinstance(key, Windows):
        return list(key)
    if isinstance(key, tuple) and any(isinstance(p, Windows) for p in key):
        parts = [p if isinstance(p, Windows) else [p] for p in key]
        return [tuple(c) for c in itertools.product(*parts)]
    return [key]


class Session:
    """What :func:`session` returns: a row's timestamp and gap, which as a group key (or a
    part of one) puts the row in the group of its session (:func:`group_rows`). Only
    meaningful as a key part: it is neither a time nor a window by itself."""

    __slots__ = ("gap", "ts")

    def __init__(self, ts: Any, gap: Any) -> None:
        self.ts, self.gap = ts, gap

    def __repr__(self) -> str:
        return f"session({self.ts!r}, gap={self.gap!r})"


def session(ts: Any, gap: Any) -> Session:
    """A gap-based session window as a group key part: the row goes to the group of its
    session among the rows with the same other key parts, named by the session's start.
    ``gap`` is a ``timedelta`` for a datetime ``ts``, an ``int`` for an int ``ts``; aware
    datetimes are converted to naive UTC, as by :func:`tumble`.

    Raises TypeError for a ``ts`` that is neither a datetime nor an int (None, a float) or
    a gap of the other kind, and ValueError for a gap that is not positive, when called.

    >>> list(group_rows([session(t, gap=10) for t in (5, 30, 14, 0)]))
    [0, 30]
    """
    if isinstance(ts, datetime.datetime) and ts.tzinfo is not None and ts.utcoffset() is not None:
        ts = ts.astimezone(datetime.UTC).replace(tzinfo=None)
    elif isinstance(ts, datetime.datetime):
        ts = ts.replace(tzinfo=None)
    elif not _is_int(ts):
        raise TypeError(f"session() timestamp must be datetime.datetime or int, "
                        f"not {type(ts).__name__}")  # fmt: skip
    _positive("session", "gap", _length("session", ts, gap))
    return Session(ts, gap)


def group_rows(keys: Iterable[Any]) -> dict[Any, list[int]]:
    """The groups of rows whose key function returned ``keys`` (one per row, in order):
    each group's key value and its rows' positions, ascending.

    A key is the group's value itself, or holds :class:`Windows` parts (:func:`group_keys`:
    a group per window) or one :class:`Session` part: such rows are grouped by the key's
    other parts, each of those groups is cut into sessions in time order (ties by
    position) by :func:`session_starts`' rule, and the session part's value is the
    session's start. Groups come in order of their first row, session groups after the
    others (ordered by their other parts' first row, then start).

    Raises ValueError for a key with more than one ``session(...)`` part.

    >>> group_rows([(1, session(0, gap=5)), (2, 3), (1, session(5, gap=5))])
    {(2, 3): [1], (1, 0): [0], (1, 5): [2]}
    """
    groups: dict[Any, list[int]] = {}
    cut: dict[Any, list[tuple[Any, int, Any, int]]] = {}  # (pos, other parts) -> rows
    for j, key in enumerate(keys):
        for k in group_keys(key):
            pos = _session_pos(k)
            if pos is None:
                groups.setdefault(k, []).append(j)
                continue
            s = k[pos] if pos >= 0 else k
            rest = (*k[:pos], None, *k[pos + 1 :]) if pos >= 0 else None
            cut.setdefault((pos, rest), []).append((s.ts, j, s.gap, pos))
    for (_pos, rest), members in cut.items():
        members.sort(key=lambda m: (m[0], m[1]))
        start = prev = None
        sessions: dict[Any, list[int]] = {}
        for t, j, gap, pos in members:
            if prev is None or t - prev >= gap:
                start = t
            prev = t
            k = start if pos < 0 else (*rest[:pos], start, *rest[pos + 1 :])
            sessions.setdefault(k, []).append(j)
        for k, js in sessions.items():
            groups.setdefault(k, []).extend(js)
            groups[k].sort()
    return groups


def _session_pos(key: Any) -> int | None:
    """Where the :class:`Session` part of a key is: -1 for the whole key, None for none."""
    if isinstance(key, Session):
        return -1
    if not isinstance(key, tuple):
        return None
    found = [i for i, p in enumerate(key) if isinstance(p, Session)]
    if len(found) > 1:
        raise ValueError("a group key holds at most one session(...)")
    return found[0] if found else None


def tumble(
    ts: Any,
    size: Any = None,
    *,
    weeks: int = 0,
    days: int = 0,
    hours: int = 0,
    minutes: int = 0,
    seconds: int = 0,
    milliseconds: int = 0,
    microseconds: int = 0,
    offset: Any = None,
) -> Any:
    """The start of the tumbling window of length ``size`` that contains ``ts``.

    The length is ``size`` (a ``timedelta`` for a datetime ``ts``, an ``int`` for an int
    ``ts``) or, for a datetime ``ts``, the keyword durations (``minutes=5``), not both.
    ``offset`` shifts the windows (a ``timedelta``, or an int for an int ``ts``).

    Raises TypeError for a ``ts`` that is neither a datetime nor an int (None, a float)
    or durations of the wrong kind, and ValueError for a length that is not positive.

    >>> tumble(datetime.datetime(1969, 12, 31, 23, 59, 59, 999999), hours=1)
    datetime.datetime(1969, 12, 31, 23, 0)
    >>> tumble(7, size=5, offset=1)
    6
    """
    parts = (weeks, days, hours, minutes, seconds, milliseconds, microseconds)
    if size is None:
        if isinstance(ts, int) and not isinstance(ts, bool) and not any(parts):
            raise TypeError("tumble() needs size= for an int timestamp")
        size = datetime.timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes,
                                  seconds=seconds, milliseconds=milliseconds,
                                  microseconds=microseconds)  # fmt: skip
    elif any(parts):
        raise TypeError("tumble() takes size= or keyword durations, not both")
    t, step, off, make = _units("tumble", ts, size, offset)
    _positive("tumble", "size", step)
    return make(_start(t, step, off))


def hop(ts: Any, size: Any, slide: Any, *, offset: Any = None) -> Windows:
    """The starts of the sliding windows of length ``size`` (one starting every
    ``slide``) that contain ``ts``, ascending; empty where ``size < slide`` leaves ``ts``
    in a gap between windows. Durations as for :func:`tumble` (``timedelta`` or ``int``).
    The list is a :class:`Windows`: as a group key it puts the row in each window's group.

    >>> hop(datetime.datetime(2024, 1, 1, 0, 30), size=datetime.timedelta(hours=1),
    ...     slide=datetime.timedelta(minutes=20))
    [datetime.datetime(2023, 12, 31, 23, 40), datetime.datetime(2024, 1, 1, 0, 0), datetime.datetime(2024, 1, 1, 0, 20)]
    >>> hop(-3, size=2, slide=5), hop(-5, size=2, slide=5)
    ([], [-5])
    """
    t, step, off, make = _units("hop", ts, slide, offset)
    length = _length("hop", ts, size)
    _positive("hop", "size", length)
    _positive("hop", "slide", step)
    last = _start(t, step, off)
    n = -((last - t + length) // -step)  # how many windows: ceil((size - (t - last)) / slide)
    return Windows(make(last - j * step) for j in range(n - 1, -1, -1))


def session_windows(times: Iterable[Any], *, gap: Any) -> list[tuple[Any, Any]]:
    """Gap-based session windows over ``times`` in ascending order (a group's rows under
    ``order_by=``): ``(start, end)`` per session, half-open ``[first, last + gap)``, as
    Spark's ``session_window``: a time at or beyond the open session's end starts the next
    session. ``gap`` is a ``timedelta`` for datetimes, an ``int`` for ints.

    In a ``@dataflow`` function a session is an ordered loop (``group_by(...,
    order_by=...)``) that compares each time with the previous one
    (``if prev is None or ts - prev >= gap: start = ts``): a native fold per group.

    >>> session_windows([], gap=1)
    []
    """
    out: list[list[Any]] = []
    for t in times:
        if out and t < out[-1][1]:
            out[-1][1] = max(out[-1][1], t + gap)
        else:
            out.append([t, t + gap])
    return [(a, b) for a, b in out]


def session_starts(times: Iterable[Any], *, gap: Any) -> list[Any]:
    """Each time's session start (times in ascending order), per :func:`session_windows`.

    >>> session_starts([0, 3, 8, 9], gap=5)
    [0, 0, 8, 8]
    """
    out: list[Any] = []
    start = prev = None
    for t in times:
        if prev is None or t - prev >= gap:
            start = t
        out.append(start)
        prev = t
    return out


# -- helpers -------------------------------------------------------------------------------


def _start(t: int, step: int, off: int) -> int:
    """The largest ``off + k * step`` at or before ``t`` (Python's ``%`` floors)."""
    return t - (t - off) % step


def _positive(fn: str, what: str, v: int) -> None:
    if v <= 0:
        raise ValueError(f"{fn}() {what} must be positive")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _length(fn: str, ts: Any, d: Any) -> int:
    """A duration in the timestamp's units (microseconds for a datetime)."""
    if isinstance(ts, datetime.datetime):
        if not isinstance(d, datetime.timedelta):
            raise TypeError(f"{fn}() durations must be timedelta for a datetime timestamp, "
                            f"not {type(d).__name__}")  # fmt: skip
        return d // _US
    if not _is_int(d):
        raise TypeError(f"{fn}() durations must be int for an int timestamp, "
                        f"not {type(d).__name__}")  # fmt: skip
    return d


def _units(fn: str, ts: Any, step: Any, offset: Any) -> tuple[int, int, int, Any]:
    """``ts``, the step and the offset in one unit, and the conversion of a start back."""
    if isinstance(ts, datetime.datetime):
        if ts.tzinfo is not None and ts.utcoffset() is not None:
            ts = ts.astimezone(datetime.UTC).replace(tzinfo=None)
        t = (ts.replace(tzinfo=None) - EPOCH) // _US
        off = 0 if offset is None else _length(fn, ts, offset)
        return t, _length(fn, ts, step), off, _to_datetime
    if not _is_int(ts):
        raise TypeError(f"{fn}() timestamp must be datetime.datetime or int, "
                        f"not {type(ts).__name__}")  # fmt: skip
    off = 0 if offset is None else _length(fn, ts, offset)
    return ts, _length(fn, ts, step), off, int


def _to_datetime(us: int) -> datetime.datetime:
    if not -62135596800000000 <= us <= 253402300799999999:  # datetime.min .. datetime.max
        raise OverflowError("date value out of range")
    return EPOCH + datetime.timedelta(microseconds=us)


# -- the compiler's primitives ---------------------------------------------------------------
# ``win.tumble(ts, size, offset, kind)`` and ``win.hop(ts, size, slide, offset, kind)``: the
# calls with their durations as constant ints, in microseconds where ``kind`` is "td"
# (timedeltas) and as they are where it is "int"; the references of the compiler's table
# entries (``compiler/primitives/windows.py``) and what plans call where they run Python.


def _durations(kind: str, *xs: int) -> list[Any]:
    return [x * _US for x in xs] if kind == "td" else list(xs)


def tumble_prim(ts: Any, size: int, offset: int, kind: str) -> Any:
    """``tumble(ts, size=..., offset=...)`` of constant durations."""
    size_, off = _durations(kind, size, offset)
    return tumble(ts, size=size_, offset=off)


def session_prim(ts: Any, gap: int, kind: str) -> Session:
    """``session(ts, gap=...)`` of a constant gap."""
    (gap_,) = _durations(kind, gap)
    return session(ts, gap=gap_)


def hop_prim(ts: Any, size: int, slide: int, offset: int, kind: str) -> list[Any]:
    """``hop(ts, size=..., slide=..., offset=...)`` of constant durations."""
    size_, slide_, off = _durations(kind, size, slide, offset)
    return hop(ts, size=size_, slide=slide_, offset=off)
