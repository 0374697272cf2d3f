"""Three nested group_by levels; each level's total is used in the innermost
scope (joins on the scope-key prefixes)."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("region", "store", "product", "qty", "store_qty", "region_qty"))
def three_levels(sales: RowStream[str, int, str, int]):
    for region, rg in group_by(0, sales):
        region_qty = 0
        for _r, _s, _p, q in rg:
            region_qty += q
        for store, sg in group_by(1, rg):
            store_qty = 0
            for _r, _s, _p, q in sg:
                store_qty += q
            for product, pg in group_by(2, sg):
                qty = 0
                for _r, _s, _p, q in pg:
                    qty += q
                yield region, store, product, qty, store_qty, region_qty


EXAMPLES = {
    "three_levels": [
        ([("n", 1, "a", 2), ("n", 1, "a", 3), ("n", 1, "b", 1), ("n", 2, "a", 4),
          ("s", 3, "c", 5)],),
    ],
}

EXPECTED = {
    # region n: 10; store 1: 6 (a 5, b 1); store 2: 4 (a 4). region s: store 3: c 5
    "three_levels": [[("n", 1, "a", 5, 6, 10), ("n", 1, "b", 1, 6, 10),
                      ("n", 2, "a", 4, 4, 10), ("s", 3, "c", 5, 5, 5)]],
}
