"""Ordered loops with an int carry reset under a condition, then summed on every row
(issue 27: a running total with reset), for tests/spark/test_reset_window.py: each
yields on every row, so it is not a boundary-position fold, and compiles to the
``reset`` window form (``WindowForm.RESET``: a segment count, the value after the last
reset, a running ``sum`` per segment)."""

from looplift import RowStream, dataflow, group_by, sorted_by


@dataflow(columns=("acct", "t", "before", "after"))
def read_before(rows: RowStream[str, int, int, int]):
    """The balance before each row's update (at a reset row: the previous segment's last
    value) and after it; a reset to the row's time, then a subtraction."""
    for acct, g in group_by(0, rows, order_by=1):
        bal = 5
        for _a, t, marker, amount in g:
            before = bal
            if marker == 1:
                bal = t
            bal -= amount
            yield acct, t, before, bal


@dataflow(columns=("k", "t", "bal", "prev"))
def reset_to_lag(rows: RowStream[int, int, int, int]):
    """A reset to another carry's value (the previous row's amount), and two addends."""
    for k, g in group_by(0, rows, order_by=(1, 3)):
        prev = 0
        bal = 0
        for _k, t, marker, amount in g:
            if marker != 0:
                bal = prev
            bal += amount
            bal += 1
            prev = amount
            yield k, t, bal, prev


@dataflow(columns=("t", "bal"))
def global_reset(rows: RowStream[int, int, int]):
    """One scope over all rows (no key): a running total from 100, reset to -3 at each
    marked row (the value before the first reset is not the reset's)."""
    bal = 100
    for t, marker, amount in sorted_by(rows, 0):
        if marker == 1:
            bal = -3
        bal += amount
        yield t, bal
