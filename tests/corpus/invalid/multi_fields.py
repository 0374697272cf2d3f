# expect: 15:13 field
# expect: 18:13 order
# expect: 26:13 field
"""Field-count mismatches on a group and on a projection, and an
order-dependent update in another unordered loop."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "total", "last"))
def per_key(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        total = 0
        last = 0
        for a, b in g:
            total += a + b
        for (x,) in g.project(2):
            last = x
        yield k, total, last


@dataflow(columns=("k", "pairs"))
def pairs(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        n = 0
        for x, y in g.project(2):
            n += x * y
        yield k, n
