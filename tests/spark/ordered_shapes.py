"""Small ordered-loop shapes (issue 11) next to the samples' algorithms, for
tests/spark/test_ordered_native.py: comparisons with the previous and the next row,
conditional running sums, flags, several carries updated in branches, a carry read
before and after its update in one iteration, string and timestamp carries, a
descending order and a whole-input order; `continue`, `break` and `enumerate` of an
ordered group."""

import datetime
from typing import Optional

from looplift import RowStream, dataflow, group_by, sorted_by


@dataflow(columns=("k", "t", "v", "rising", "to_next"))
def prev_next(rows: RowStream[int, int, int]):
    """Each row with a flag (up from the previous row) and the step to the next row,
    yielded one row late; ``rising`` is read before its update."""
    for k, g in group_by(0, rows, order_by=1):
        prev_t = None
        prev_v = None
        rising = False
        for _k, t, v in g:
            if prev_v is not None:
                yield k, prev_t, prev_v, rising, v - prev_v
            rising = prev_v is not None and v > prev_v
            prev_t = t
            prev_v = v
        if prev_v is not None:
            yield k, prev_t, prev_v, rising, None


@dataflow(columns=("k", "t", "pos", "neg", "streak", "best"))
def branch_sums(rows: RowStream[str, int, Optional[float]]):  # noqa: UP045
    """Conditional running sums and a streak, each carry updated in some branches."""
    for k, g in group_by(0, rows, order_by=1):
        pos = 0.0
        neg = 0.0
        streak = 0
        best = 0
        for _k, t, x in g:
            if x is None:
                streak = 0
            elif x >= 0:
                pos += x
                streak += 1
                best = max(best, streak)
            else:
                neg -= x
                if neg > pos:
                    streak = 0
            yield k, t, pos, neg, streak, best


@dataflow(columns=("k", "t", "before", "after", "peak"))
def before_after(rows: RowStream[int, int, int]):
    """A carry read before and after its update in one iteration; newest row first."""
    for k, g in group_by(0, rows, order_by=1, desc=True):
        acc = 0
        peak = 0
        for _k, t, x in g:
            before = acc
            if x > 0:
                acc = acc * 2 + x
            else:
                acc = acc + x
            if acc > peak:
                peak = acc
            yield k, t, before, acc, peak


@dataflow(columns=("k", "path", "changes", "last"))
def label_path(rows: RowStream[int, int, str]):
    """String carries: the labels a key went through (changes only), bounded."""
    for k, g in group_by(0, rows, order_by=(1, 2)):
        last = None
        path = ""
        changes = 0
        for _k, _t, s in g:
            if s != last:
                changes += 1
                if len(path) < 12:
                    path = path + s + ";"
            last = s
        yield k, path, changes, last


@dataflow(columns=("k", "first", "last", "longest_idle_s", "idle_gaps"))
def idle_gaps(rows: RowStream[int, datetime.datetime], idle_s: int):
    """Timestamp carries: first and last event, longest pause, pauses over ``idle_s``."""
    for k, g in group_by(0, rows, order_by=1):
        first = None
        last = None
        longest = 0.0
        gaps = 0
        for _k, ts in g:
            if first is None:
                first = ts
            if last is not None:
                pause = (ts - last).total_seconds()
                longest = max(longest, pause)
                if pause > idle_s:
                    gaps += 1
            last = ts
        yield k, first, last, longest, gaps


@dataflow
def longest_run(rows: RowStream[int, int]) -> int:
    """The longest run of equal values over the whole input in time order."""
    best = 0
    run = 0
    prev = None
    for _t, x in sorted_by(rows, 0):
        if prev is not None and x == prev:
            run += 1
        else:
            run = 1
        best = max(best, run)
        prev = x
    return best


@dataflow(columns=("k", "t", "total", "streak"))
def skip_and_stop(rows: RowStream[int, int, Optional[int]], limit: int):  # noqa: UP045
    """``continue`` (a None skips the row, nested in an ``if``) and ``break`` (a total over
    ``limit`` stops the group after yielding the row that crossed it)."""
    for k, g in group_by(0, rows, order_by=(1, 2)):
        total = 0
        streak = 0
        for _k, t, x in g:
            if x is None:
                streak = 0
                continue
            if x < 0:
                if streak > 1:
                    continue
                streak = 0
            else:
                streak += 1
            total += x
            yield k, t, total, streak
            if total > limit:
                break


@dataflow(columns=("k", "i", "t", "x", "first_big"))
def numbered(rows: RowStream[str, int, int]):
    """``enumerate`` of an ordered group, from 1; the position of the first row over 2 is
    kept with a ``break`` in a second loop over the same group."""
    for k, g in group_by(0, rows, order_by=1, desc=True):
        for i, (_k, t, x) in enumerate(g, 1):
            if i > 4:
                break
            yield k, i, t, x, None
        first_big = None
        for j, row in enumerate(g):
            if row[2] > 2:
                first_big = j
                break
        yield k, -1, 0, 0, first_big
