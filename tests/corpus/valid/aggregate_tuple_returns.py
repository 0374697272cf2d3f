"""An aggregate returning a tuple, unpacked per group after inlining; a
conditional expression guarding an empty input."""

from looplift import RowStream, dataflow, group_by


@dataflow
def stats3(xs: RowStream[int]) -> tuple[int, int, float]:
    n = 0
    s = 0
    for (x,) in xs:
        n += 1
        s += x
    return n, s, s / n if n else 0.0


@dataflow(columns=("k", "n", "sum", "mean"))
def per_key(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        n, s, mean = stats3(g.project(1))
        yield k, n, s, mean


EXAMPLES = {
    "stats3": [([(2,), (4,)],), ([],)],
    "per_key": [([(1, 2), (1, 4), (2, -3)],)],
}

EXPECTED = {
    "stats3": [(2, 6, 3.0), (0, 0, 0.0)],
    "per_key": [[(1, 2, 6, 3.0), (2, 1, -3, -3.0)]],
}
