"""Algorithms the benchmarks need that the samples do not have.

Compiled by the benchmarks like the samples: imported by path, then called on
DataFrames. ``Variance`` is additive (count, sum, sum of squares), so both should
compile to native sums with no Python and no join (issue 3). ``session_ids`` and
``session_summaries`` are ordered loops (issue 11, tests/perf/sessions.py): a
gap-based session number per event, and one summary row per session;
``reset_balances`` a running total that restarts at a marked row (issue 27).

>>> variance([(1, 1), (1, 2), (2, 3), (2, 4)])
1.25
>>> variance_by_key([(1, 1), (1, 3), (2, 5)])
[(1, 1.0), (2, 0.0)]
>>> session_ids([(7, 100), (7, 10), (7, 20), (7, 95)], 30)
[(7, 10, 1), (7, 20, 1), (7, 95, 2), (7, 100, 2)]
>>> session_summaries([(7, 100), (7, 10), (7, 20), (7, 95)], 30)
[(7, 1, 10, 20, 2), (7, 2, 95, 100, 2)]
>>> reset_balances([(1, 3, 0, 5), (1, 1, 0, 7), (1, 2, 1, -2), (2, 1, 0, 4)])
[(1, 1, 7), (1, 2, -2), (1, 3, 3), (2, 1, 4)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Variance


@dataflow
def variance(rows: RowStream[int, int]) -> float:
    """Population variance of the second field (None for no rows)."""
    var = Variance()
    for _, v in rows:
        var.add(v)
    return var.value()


@dataflow(columns=("k", "var"))
def variance_by_key(rows: RowStream[int, int]):
    """Per key (first field): the population variance of the second field."""
    for k, g in group_by(0, rows):
        yield k, variance(g)


@dataflow(columns=("user_id", "ts", "session_no"))
def session_ids(events: RowStream[int, int], gap: int):
    """Per event: its user's session number (1, 2, ...); a gap of more than ``gap`` starts one."""
    for uid, user_events in group_by(0, events, order_by=1):
        n = 0
        prev = None
        for _uid, ts in user_events:
            if prev is None or ts - prev > gap:
                n += 1
            prev = ts
            yield uid, ts, n


@dataflow(columns=("user_id", "session_no", "start", "end", "events"))
def session_summaries(events: RowStream[int, int], gap: int):
    """Per session: its number, first and last timestamp and number of events."""
    for uid, user_events in group_by(0, events, order_by=1):
        n = 0
        start = 0
        prev = None
        count = 0
        for _uid, ts in user_events:
            if prev is not None and ts - prev > gap:
                yield uid, n, start, prev, count
                prev = None
            if prev is None:
                n += 1
                start = ts
                count = 0
            count += 1
            prev = ts
        if prev is not None:
            yield uid, n, start, prev, count


@dataflow(columns=("acct", "ts", "balance"))
def reset_balances(txns: RowStream[int, int, int, int]):
    """Per booking ``(acct, ts, marker, amount)``: the account's balance after it, which
    restarts from 0 at a booking marked 1 (a statement closing, say)."""
    for acct, bookings in group_by(0, txns, order_by=1):
        balance = 0
        for _acct, ts, marker, amount in bookings:
            if marker == 1:
                balance = 0
            balance += amount
            yield acct, ts, balance
