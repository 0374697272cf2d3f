"""Tiny algorithms that construct values, for ``test_values.py`` (issue 10 item 6):
``raise``, module-level lookup tables, tuples as values, ``datetime``
construction and arithmetic.

The compiler reads source files, so the algorithms live here rather than in
the test module.
"""

from looplift import RowStream, dataflow, group_by

# -- raise -------------------------------------------------------------------------


@dataflow
def checked_ratio(a: int, b: int) -> float:
    """A guard that raises; the message is built from values."""
    if b < 0:
        raise ValueError("negative divisor " + str(b))
    elif a > 100:
        raise KeyError("too big")
    return a / (b + 1)


@dataflow(columns=("k", "v"))
def rows_checked(rows: RowStream[int, int]):
    """A check in a loop body: the row's yield carries it."""
    for k, v in rows:
        if v < 0:
            raise ValueError("negative value " + str(v))
        yield k, v * 2


@dataflow
def total_checked(rows: RowStream[int, int]) -> int:
    """A check before a reduction: its argument carries it."""
    total = 0
    for k, v in rows:
        if k == 0:
            raise KeyError("key 0")
        total += v
    return total


@dataflow(columns=("k", "n"))
def groups_checked(rows: RowStream[int, int]):
    """A check in the row loop of a group, before a count."""
    for k, g in group_by(0, rows):
        n = 0
        for _k, v in g:
            if v > 100:
                raise OverflowError("too big")
            n += 1
        yield k, n


# -- module-level lookup tables ----------------------------------------------------

RATES = {"EUR": 1.1, "USD": 1, "GBP": 1.25, "it's": 2.5}
STEPS = ("view", "cart", "buy")
CODES = {1: ("one", 1.0), 2: ("two", 2.0), -3: ("minus three", -3.0)}


@dataflow
def convert(amount: float, cur: str) -> float:
    return amount * RATES[cur]


@dataflow
def lookups(cur: str, i: int, step: str) -> tuple:
    known = cur in RATES and step not in STEPS
    return (
        RATES.get(cur, 0),
        STEPS[i],
        STEPS[-1],
        STEPS.index(step),
        known,
        CODES.get(i, ("?", 0.0)),
    )


# -- tuples as values --------------------------------------------------------------


@dataflow
def tuple_values(a: int, b: int, s: str) -> tuple:
    """Build, compare, index and unpack tuples; ``map`` over a fixed tuple."""
    p = (a, b)
    q = (b, a)
    x, y = p
    lo, mid, hi = map(float, (a, b, x + y))
    n, m = map(abs, (x, -y))
    labels = tuple(map(len, STEPS))
    return p == q, p < q, (a, s) >= (b, s), p[0] + q[-1], lo + mid + hi, n, m, (a, (b, s)), labels


# -- datetime ------------------------------------------------------------------------

import datetime  # noqa: E402

GAP = datetime.timedelta(minutes=30)


@dataflow(columns=("k", "start", "day", "next", "hours", "days", "secs", "wd", "when"))
def periods(rows: RowStream[int, datetime.datetime, datetime.datetime, int]):
    """Billing periods from datetime construction and timedelta arithmetic."""
    for k, t, p, m in rows:
        start = datetime.datetime(t.year, m, 1)
        day = datetime.date(t.year, t.month, t.day)
        hours = (t - p).total_seconds() / 3600
        d = t - p
        yield (k, start, day, day + datetime.timedelta(days=1, hours=-1), hours, d.days,
               d.seconds, t.weekday(), t + GAP + datetime.timedelta(hours=m, seconds=1))  # fmt: skip
