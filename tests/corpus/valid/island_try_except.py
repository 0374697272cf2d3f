"""Guarding a division with try/except instead of a condition: the `try` statement is a
Python island (issue 25) fed by the native sums."""

from looplift import RowStream, dataflow


@dataflow
def safe_ratio(rows: RowStream[int, int]) -> float:
    a = 0
    b = 0
    for x, y in rows:
        a += x
        b += y
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


EXAMPLES = {"safe_ratio": [([(1, 2), (3, 4)],), ([(1, 0), (2, 0)],), ([],), ([(5, -5), (1, 5)],)]}
