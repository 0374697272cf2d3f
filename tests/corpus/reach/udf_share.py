"""Each category's share of the total revenue (a dict, then a loop over it)."""
from looplift import RowStream, dataflow


@dataflow(columns=("category", "share"))
def shares(sales: RowStream[str, float]):
    by_cat = {}
    total = 0.0
    for cat, amount in sales:
        by_cat[cat] = by_cat.get(cat, 0.0) + amount
        total += amount
    for cat, amount in by_cat.items():
        yield cat, amount / total if total else 0.0
