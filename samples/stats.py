"""Price statistics: the library's multiset and additive states together.

Per product, one pass over the sales feeds seven states: ``Count``,
``Distinct`` (buyers), ``Min``, ``Median``, ``Max``, ``Variance`` and
``TopK(3)``. The additive ones (Count, Variance) compile to native sums;
the multiset-backed ones are reversible because they keep value counts, so
deleting a sale takes back exactly its contribution.

``market`` reads states created outside any loop: one global instance
for the whole input, returned as a tuple.

>>> price_stats([(1, 7, 3.0), (1, 8, 1.0), (1, 7, 2.0)])
[(1, 3, 2, 1.0, 2.0, 3.0, 0.816, [3.0, 2.0, 1.0])]
>>> market([(1, 7, 3.0), (2, 7, 1.0), (1, 8, 5.0), (3, 9, 1.0)])
(3, 3, 2.0)
"""

import math

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Distinct, Max, Median, Min, TopK, Variance


@dataflow(columns=("product", "sales", "buyers", "low", "median", "high", "stddev", "top3"))
def price_stats(sales: RowStream[int, int, float]):
    """Per product (field 0) over (customer, price): counts, price quantiles and spread."""
    for product, product_sales in group_by(0, sales):
        n = Count()
        buyers = Distinct()
        lo = Min()
        med = Median()
        hi = Max()
        var = Variance()
        top = TopK(3)
        for _product, customer, price in product_sales:
            n.add()
            buyers.add(customer)
            lo.add(price)
            med.add(price)
            hi.add(price)
            var.add(price)
            top.add(price)
        yield (
            product,
            n.value(),
            buyers.count(),
            lo.value(),
            med.value(),
            hi.value(),
            round(math.sqrt(var.value()), 3),
            top.values(),
        )


@dataflow
def market(sales: RowStream[int, int, float]) -> tuple[int, int, float]:
    """(distinct products, distinct customers, median price) over all sales."""
    products = Distinct()
    customers = Distinct()
    prices = Median()
    for product, customer, price in sales:
        products.add(product)
        customers.add(customer)
        prices.add(price)
    return products.count(), customers.count(), prices.value()
