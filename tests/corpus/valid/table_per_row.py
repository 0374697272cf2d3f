"""Per-row table algorithms: filter and map, a single-value yield, a
conditional expression in a yield, a scalar call per row."""

from looplift import RowStream, dataflow


@dataflow
def half(x: int) -> int:
    return x // 2


@dataflow(columns=("a", "b_half"))
def filter_map(rows: RowStream[int, int]):
    for a, b in rows:
        if a > 0:
            yield a, half(b)


@dataflow
def products(rows: RowStream[int, int]):
    for a, b in rows:
        yield a * b


@dataflow(columns=("a", "kind"))
def labelled(rows: RowStream[int, int]):
    for a, b in rows:
        yield a, "big" if b > 100 else "small"


ROWS = [(1, 10), (-1, 5), (2, -3), (0, 200)]

EXAMPLES = {
    "half": [(-3,)],
    "filter_map": [(ROWS,), ([],)],
    "products": [(ROWS,)],
    "labelled": [(ROWS,)],
}

EXPECTED = {
    "half": [-2],
    # -3 // 2 = -2
    "filter_map": [[(1, 5), (2, -2)], []],
    # a single yielded value becomes a one-field row
    "products": [[(10,), (-5,), (-6,), (0,)]],
    "labelled": [[(1, "small"), (-1, "small"), (2, "small"), (0, "big")]],
}
