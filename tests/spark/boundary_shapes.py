"""Ordered loops whose carries reset at boundaries (issue 27 item 1), for
tests/spark/test_boundary_fold.py: each compiles to the boundary-position fold
(``compiler/backend/boundary.py``) or, where noted, is the near miss that must not."""

from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "t", "run", "pos", "since", "first"))
def runs_per_row(rows: RowStream[int, int, int], gap: int):
    """Per row: its run number (a step of more than ``gap`` starts one), its position in
    the run, the run's start value and the rows since the start (counted from 5)."""
    for k, g in group_by(0, rows, order_by=1):
        run = 0
        pos = 0
        since = 5
        first = 0
        prev = None
        for _k, t, _x in g:
            if prev is None or t - prev > gap:
                run += 1
                pos = 0
                first = t
            pos += 1
            since += 1
            prev = t
            yield k, t, run, pos, since, first


@dataflow(columns=("k", "start", "end", "n", "total", "peak_start"))
def run_totals(rows: RowStream[int, int, Optional[int]], gap: int):  # noqa: UP045
    """Per run (a step of more than ``gap`` ends one): start, end, rows and the sum of a
    field since the run's start (a reset sum of row values; None counts as 0)."""
    for k, g in group_by(0, rows, order_by=1):
        start = 0
        n = 0
        total = 0
        prev = None
        for _k, t, x in g:
            if prev is not None and t - prev > gap:
                yield k, start, prev, n, total, start * 2
                prev = None
            if prev is None:
                start = t
                n = 0
                total = 0
            n += 1
            total += 0 if x is None else x
            prev = t
        if prev is not None:
            yield k, start, prev, n, total, start * 2


@dataflow(columns=("acct", "t", "balance", "resets"))
def reset_counts(rows: RowStream[str, int, int]):
    """Per row: a count since the last row whose marker is 1 (the first row is not a
    boundary unless marked), and the number of markers before: B never reads a carry."""
    for acct, g in group_by(0, rows, order_by=(1, 2)):
        balance = 10
        resets = 0
        for _a, t, marker in g:
            if marker == 1:
                balance = 0
                resets += 2
            balance += 1
            yield acct, t, balance, resets


@dataflow(columns=("acct", "t", "amount", "balance"))
def reset_balance(rows: RowStream[str, int, int, Optional[int]]):  # noqa: UP045
    """Per row: a running balance that restarts at 0 on a row marked 1 (a sum of row
    values since the marker, per row: not a boundary-position fold)."""
    for acct, g in group_by(0, rows, order_by=(1, 2)):
        balance = 0
        for _a, t, marker, amount in g:
            if marker == 1:
                balance = 0
            if amount is not None:
                balance += amount
            yield acct, t, amount, balance


@dataflow(columns=("acct", "upto", "n", "total"))
def marked_totals(rows: RowStream[str, int, int, int]):
    """At each marked row, the rows and the sum of amounts since the previous mark (or
    the start), then once for the rest: yields at boundaries only, the first row a
    boundary only when marked, and a reset sum of row values."""
    for acct, g in group_by(0, rows, order_by=(1, 2)):
        n = 0
        total = 0
        for _a, t, marker, amount in g:
            if marker == 1:
                yield acct, t, n, total
                n = 0
                total = 0
            n += 1
            total += amount
        yield acct, -1, n, total
