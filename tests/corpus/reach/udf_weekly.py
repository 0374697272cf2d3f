"""Weekly totals with a computed key."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("store", "week", "total"))
def weekly(sales: RowStream[int, int, float]):
    for (store, week), g in group_by(lambda r: (r[0], r[1] // 7), sales):
        total = 0.0
        for _s, _d, amount in g:
            total += amount
        yield store, week, total
