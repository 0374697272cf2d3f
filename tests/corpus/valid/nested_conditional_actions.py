"""Actions under nested conditions inside nested loops: a global state, a
per-group state, and a per-subgroup state, each updated in different
branches."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Distinct, Sum


@dataflow(columns=("country", "city", "big_orders", "small_total", "countries_seen"))
def orders_by_place(orders: RowStream[str, str, int]):
    """The last column is per country: how many distinct cities had a refund."""
    for country, cg in group_by(0, orders):
        refund_cities = Distinct()
        for city, g in group_by(1, cg):
            big = Count()
            small = Sum()
            for _country, _city, amount in g:
                if amount >= 100:
                    if amount >= 1000:
                        big.add()
                    else:
                        small.add(amount)
                elif amount < 0:
                    refund_cities.add(city)
                else:
                    small.add(amount)
            yield country, city, big.value(), small.value(), 0
        yield country, "*", 0, 0, refund_cities.count()


EXAMPLES = {
    "orders_by_place": [([("de", "berlin", 1500), ("de", "berlin", 150), ("de", "bonn", -20),
                          ("de", "bonn", 5), ("fr", "paris", -1), ("fr", "nice", -3)],)],
}

EXPECTED = {
    # berlin: 1500 is big, 150 is small; bonn: a refund, 5 is small; paris, nice: refunds
    "orders_by_place": [[("de", "berlin", 1, 150, 0), ("de", "bonn", 0, 5, 0), ("de", "*", 0, 0, 1),
                         ("fr", "paris", 0, 0, 0), ("fr", "nice", 0, 0, 0), ("fr", "*", 0, 0, 2)]],
}
