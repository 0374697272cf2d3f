"""Compound growth per fund: the product of (1 + daily return), as a running product in a
group loop (the shape of a geometric-mean UDF)."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("fund", "growth", "days"))
def growth(returns: RowStream[str, float]):
    for fund, g in group_by(0, returns):
        factor = 1.0
        days = 0
        for _f, r in g:
            factor *= 1.0 + r
            days += 1
        yield fund, factor ** (1.0 / days) - 1.0, days
