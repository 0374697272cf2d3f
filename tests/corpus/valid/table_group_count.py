"""Per-group table algorithms: a Count state next to a loop-carried sum, and
a Sum state; reader results combined after the loop."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Sum


@dataflow(columns=("key", "rows", "total", "avg"))
def per_key(rows: RowStream[str, int]):
    for key, g in group_by(0, rows):
        c = Count()
        total = 0
        for _key, v in g:
            c.add()
            total += v
        yield key, c.value(), total, total / c.value()


@dataflow(columns=("key", "squares"))
def per_key_squares(rows: RowStream[str, int]):
    for key, g in group_by(0, rows):
        s = Sum()
        for _key, v in g:
            s.add(v * v)
        yield key, s.value()


ROWS = [("x", 3), ("y", 4), ("x", 5)]

EXAMPLES = {
    "per_key": [(ROWS,), ([],)],
    "per_key_squares": [(ROWS,)],
}

EXPECTED = {
    "per_key": [[("x", 2, 8, 4.0), ("y", 1, 4, 4.0)], []],
    "per_key_squares": [[("x", 34), ("y", 16)]],
}
