# expect: 15:13 field
# expect: 17:13 field
# expect: 18:13 order
"""Field-count mismatches on a stream and on a projection, plus an
order-dependent update in the same unordered loop."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "total", "last"))
def per_key(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        total = 0
        last = 0
        for a, b in g:
            total += a + b
        for x, y in g.project(2):
            last = x + y
        yield k, total, last
