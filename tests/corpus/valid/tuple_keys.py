"""group_by on tuple keys: a nested tuple target, a key unpacked by
assignment, and a key whose fields are listed in reverse order."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("a", "b", "n", "total"))
def by_pair(rows: RowStream[int, int, float]):
    for (a, b), g in group_by((0, 1), rows):
        n = 0
        total = 0.0
        for _a, _b, v in g:
            n += 1
            total += v
        yield a, b, n, total


@dataflow(columns=("key", "n"))
def by_reversed_pair(rows: RowStream[int, int, float]):
    for key, g in group_by((1, 0), rows):
        second, first = key
        n = 0
        for _a, _b, _v in g:
            n += 1
        yield str(second) + ":" + str(first), n


ROWS = [(1, 2, 0.5), (1, 2, 1.5), (1, 3, 2.0), (2, 2, 4.0)]

EXAMPLES = {
    "by_pair": [(ROWS,)],
    "by_reversed_pair": [(ROWS,)],
}

EXPECTED = {
    "by_pair": [[(1, 2, 2, 2.0), (1, 3, 1, 2.0), (2, 2, 1, 4.0)]],
    # the key is (field 1, field 0)
    "by_reversed_pair": [[("2:1", 2), ("3:1", 1), ("2:2", 1)]],
}
