"""A safe divide and a conversion rate: `try` around a division (ZeroDivisionError), a
log of a ratio (ValueError of math.log), a share of a total in a group loop."""

import math

from looplift import RowStream, dataflow, group_by


@dataflow
def safe_divide(a: float, b: float) -> float:
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


@dataflow
def log_ratio(a: float, b: float) -> float:
    try:
        return math.log(a / b)
    except (ValueError, ZeroDivisionError):
        return float("nan")


@dataflow(columns=("page", "rate"))
def conversion(events: RowStream[str, int, int]):
    for page, g in group_by(0, events):
        views = 0
        buys = 0
        for _, v, b in g:
            views += v
            buys += b
        try:
            rate = buys / views
        except ArithmeticError:
            rate = 0.0
        yield page, rate
