"""Scalar parameters of every type (int, float, str, bool) next to a RowStream,
used in filters of a table and an aggregate."""

from looplift import RowStream, dataflow


@dataflow(columns=("id", "value"))
def select_rows(rows: RowStream[int, float, str], min_value: float, tag: str,
                keep_untagged: bool):
    for i, v, t in rows:
        if v >= min_value and (t == tag or (keep_untagged and t == "")):
            yield i, v


@dataflow
def count_over(rows: RowStream[int, float, str], limit: int) -> int:
    n = 0
    for _i, v, _t in rows:
        if v > limit:
            n += 1
    return n


ROWS = [(1, 5.0, "x"), (2, 1.0, "x"), (3, 7.5, ""), (4, 9.0, "y")]

EXAMPLES = {
    "select_rows": [(ROWS, 2.0, "x", True), (ROWS, 2.0, "x", False), (ROWS, 0.0, "y", False)],
    "count_over": [(ROWS, 5), (ROWS, 0)],
}

EXPECTED = {
    "select_rows": [[(1, 5.0), (3, 7.5)], [(1, 5.0)], [(4, 9.0)]],
    "count_over": [2, 4],
}
