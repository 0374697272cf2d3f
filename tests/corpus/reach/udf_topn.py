"""Top 3 products by revenue per category."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("category", "product", "revenue", "rank"))
def top3(sales: RowStream[str, str, float]):
    for cat, g in group_by(0, sales):
        for i, row in enumerate(sorted(g, key=lambda r: r[2], reverse=True)[:3]):
            yield cat, row[1], row[2], i + 1
