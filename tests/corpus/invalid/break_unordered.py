# expect: 15:17 break
# expect: 24:9 break
"""`break` where what it skips depends on an order that does not exist: in a loop
over the rows of a group without `order_by=`, and in a loop over groups."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "seen"))
def first_negative(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        seen = 0
        for _k, x in g:
            if x < 0:
                break
            seen += 1
        yield k, seen


@dataflow(columns=("k",))
def one_group(rows: RowStream[int, int]):
    for k, _g in group_by(0, rows):
        yield (k,)
        break
