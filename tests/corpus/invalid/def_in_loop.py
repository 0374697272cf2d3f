# expect: 10:9 def
"""A helper function defined inside a group loop."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "score"))
def scores(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        def weight(v):
            return v * 2 if v > 0 else v

        total = 0
        for _k, v in g:
            total += weight(v)
        yield k, total
