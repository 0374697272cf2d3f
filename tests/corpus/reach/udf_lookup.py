"""Currency conversion with a module-level rates table."""
from looplift import RowStream, dataflow, group_by

RATES = {"EUR": 1.1, "USD": 1.0, "GBP": 1.3}


@dataflow(columns=("customer", "usd"))
def spend(orders: RowStream[int, str, float]):
    for cust, g in group_by(0, orders):
        total = 0.0
        for _c, cur, amount in g:
            if cur not in RATES:
                raise ValueError("unknown currency " + cur)
            total += amount * RATES[cur]
        yield cust, total
