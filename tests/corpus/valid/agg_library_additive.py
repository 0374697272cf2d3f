"""Aggregates over the library's additive states: Sum, Count and Average, an
action under a condition, and a reader result tested against None."""

from looplift import RowStream, dataflow
from looplift.states import Average, Count, Sum


@dataflow
def total_and_count(rows: RowStream[int, float]) -> tuple[float, int]:
    s = Sum()
    c = Count()
    for _k, v in rows:
        s.add(v)
        c.add()
    return s.value(), c.value()


@dataflow
def weighted(rows: RowStream[int, float]) -> float:
    s = Sum()
    for k, v in rows:
        s.add(k * v)
    return s.value()


@dataflow
def positive_average(rows: RowStream[int, float]) -> float:
    avg = Average()
    for _k, v in rows:
        if v > 0:
            avg.add(v)
    r = avg.value()
    return r if r is not None else 0.0


ROWS = [(1, 2.5), (2, -1.0), (3, 4.5)]

EXAMPLES = {
    "total_and_count": [(ROWS,), ([],)],
    "weighted": [(ROWS,), ([],)],
    "positive_average": [(ROWS,), ([],)],
}

EXPECTED = {
    # 2.5 - 1.0 + 4.5; an empty Sum is the int 0
    "total_and_count": [(6.0, 3), (0, 0)],
    # 1*2.5 + 2*(-1.0) + 3*4.5 = 14.0
    "weighted": [14.0, 0],
    # (2.5 + 4.5) / 2; no positive value -> None -> 0.0
    "positive_average": [3.5, 0.0],
}
