"""Guarding a division with try/except instead of a condition (once refused: a `try`
around something other than int()/float()); the division's ZeroDivisionError is tested
natively from the table of primitives' partiality."""

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


EXAMPLES = {
    "safe_ratio": [([(1, 2), (3, 4)],), ([(1, 1), (2, -1)],), ([],)],
}
