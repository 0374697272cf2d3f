"""First and last time seen and the largest order per customer, folded with ``min`` /
``max`` from None, the way a pandas grouped-map reducer is often written (issue 25)."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("customer", "first_seen", "last_seen", "largest"))
def seen_range(orders: RowStream[str, int, float]):
    for cust, g in group_by(0, orders):
        first_seen = None
        last_seen = None
        largest = None
        for _c, ts, amount in g:
            first_seen = ts if first_seen is None else min(first_seen, ts)
            if last_seen is None:
                last_seen = ts
            else:
                last_seen = max(last_seen, ts)
            if largest is None or amount > largest:
                largest = amount
        yield cust, first_seen, last_seen, largest
