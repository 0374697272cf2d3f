"""Aggregates calling aggregates on projections of the same stream (inlined;
their results meet in one scope), with Min/Max library states."""

from looplift import RowStream, dataflow
from looplift.states import Max, Min


@dataflow
def largest(xs: RowStream[int]) -> int:
    m = Max()
    for (x,) in xs:
        m.add(x)
    return m.value()


@dataflow
def smallest(xs: RowStream[int]) -> int:
    m = Min()
    for (x,) in xs:
        m.add(x)
    return m.value()


@dataflow
def spread(rows: RowStream[str, int]) -> int:
    return largest(rows.project(1)) - smallest(rows.project(1))


@dataflow
def summary(rows: RowStream[str, int]) -> tuple[int, int, int]:
    lo = smallest(rows.project(1))
    hi = largest(rows.project(1))
    return lo, hi, spread(rows)


ROWS = [("a", 4), ("b", -2), ("a", 9)]

EXAMPLES = {
    "largest": [([(4,), (9,)],), ([],)],
    "smallest": [([(4,), (9,)],)],
    "spread": [(ROWS,)],
    "summary": [(ROWS,)],
}

EXPECTED = {
    "largest": [9, None],
    "smallest": [4],
    "spread": [11],
    "summary": [(-2, 9, 11)],
}
