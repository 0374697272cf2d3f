# expect: 11:13 field
"""Rows of a group keep all three fields; unpacking four names is an error."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "n"))
def counts(rows: RowStream[int, str, float]):
    for k, g in group_by(0, rows):
        n = 0
        for _k, _name, _v, _extra in g:
            n += 1
        yield k, n
