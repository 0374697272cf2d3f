# expect: 14:5 try
"""Guarding a division with try/except instead of a condition."""

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
