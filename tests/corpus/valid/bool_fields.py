"""bool fields: used as conditions directly, with `not`, compared, and
converted with int()."""

from looplift import RowStream, dataflow


@dataflow
def flags(rows: RowStream[int, bool, bool]) -> tuple[int, int, int, int]:
    active = 0
    both = 0
    neither = 0
    trues = 0
    for _k, a, b in rows:
        if a:
            active += 1
        if a and b:
            both += 1
        if not a and not b:
            neither += 1
        trues += int(b)
    return active, both, neither, trues


@dataflow(columns=("k", "differ", "score"))
def flag_score(rows: RowStream[int, bool, bool]):
    for k, a, b in rows:
        yield k, a != b, int(a) * 2 + int(b)


ROWS = [(1, True, True), (2, True, False), (3, False, False), (4, False, True)]

EXAMPLES = {
    "flags": [(ROWS,)],
    "flag_score": [(ROWS,)],
}

EXPECTED = {
    "flags": [(2, 1, 1, 2)],
    "flag_score": [[(1, False, 3), (2, True, 2), (3, False, 0), (4, True, 1)]],
}
