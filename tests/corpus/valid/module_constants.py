"""Module-level constants (an int and a str) read by name inside algorithms."""

from looplift import RowStream, dataflow

LIMIT = 30
LABEL = "over"


@dataflow(columns=("k", "label"))
def over_limit(rows: RowStream[int, int]):
    for k, v in rows:
        if v > LIMIT:
            yield k, LABEL + ":" + str(v - LIMIT)


@dataflow
def share_over(rows: RowStream[int, int]) -> float:
    n = 0
    over = 0
    for _k, v in rows:
        n += 1
        if v > LIMIT:
            over += 1
    return over / n if n > 0 else 0.0


ROWS = [(1, 10), (2, 31), (3, 45), (4, 30)]

EXAMPLES = {
    "over_limit": [(ROWS,)],
    "share_over": [(ROWS,)],
}

EXPECTED = {
    "over_limit": [[(2, "over:1"), (3, "over:15")]],
    "share_over": [0.5],
}
