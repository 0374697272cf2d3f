"""Several yields per input row: in sequence, in branches, after an if/elif
with a `pass` branch."""

from looplift import RowStream, dataflow


@dataflow(columns=("id", "part"))
def explode_pairs(rows: RowStream[int, str, str]):
    for i, first, second in rows:
        yield i, first
        if second != "":
            yield i, second


@dataflow(columns=("id", "sign", "value"))
def split_signs(rows: RowStream[int, int]):
    for i, v in rows:
        if v > 0:
            yield i, 1, v
        elif v < 0:
            yield i, -1, -v
        else:
            pass
        yield i, 0, abs(v)


EXAMPLES = {
    "explode_pairs": [([(1, "a", "b"), (2, "c", ""), (3, "d", "d")],)],
    "split_signs": [([(1, 5), (2, -3), (3, 0)],)],
}

EXPECTED = {
    # duplicates are kept: (3, "d") twice
    "explode_pairs": [[(1, "a"), (1, "b"), (2, "c"), (3, "d"), (3, "d")]],
    "split_signs": [[(1, 1, 5), (1, 0, 5), (2, -1, 3), (2, 0, 3), (3, 0, 0)]],
}
