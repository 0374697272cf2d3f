"""A scalar algorithm called per row decides, through an elif chain, which of
three library states (Count, Sum, Max) receives the row."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Max, Sum


@dataflow
def tier(amount: int) -> str:
    if amount >= 1000:
        return "gold"
    elif amount >= 100:
        return "silver"
    else:
        return "bronze"


@dataflow(columns=("shop", "gold", "silver_total", "bronze_max"))
def tiers(sales: RowStream[str, int]):
    for shop, g in group_by(0, sales):
        gold = Count()
        silver = Sum()
        bronze = Max()
        for _s, amount in g:
            t = tier(amount)
            if t == "gold":
                gold.add()
            elif t == "silver":
                silver.add(amount)
            else:
                bronze.add(amount)
        yield shop, gold.value(), silver.value(), bronze.value()


EXAMPLES = {
    "tier": [(1000,), (99,)],
    "tiers": [([("a", 1500), ("a", 150), ("a", 20), ("a", 300), ("b", 5), ("b", 7)],)],
}

EXPECTED = {
    "tier": ["gold", "bronze"],
    # a: gold 1500; silver 150 + 300; bronze 20. b: only bronze, max 7
    "tiers": [[("a", 1, 450, 20), ("b", 0, 0, 7)]],
}
