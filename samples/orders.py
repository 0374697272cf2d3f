"""Orders: scalar parameters, timestamps, ``//`` and ``%``, and/or/not.

Amounts are integer cents; a refund is a negative amount. ``order_report``
takes the "big order" threshold as a scalar parameter (a SQL literal at
the call), classifies orders with ``and``/``or``/``not`` over the hour of
the order (the host function ``hour_of`` reads it from the timestamp), and
formats the net revenue with ``//`` and ``%``. ``size_buckets`` puts each
order in the bucket ``cents // 1000``: Python floors, so a refund of 50
cents lands in bucket -1 with rest 950, and the compiled plan must agree.

``revenue_share`` first sums all orders (outside any group), then divides
each customer's revenue by that total inside the group loop.

>>> t = datetime.datetime(2024, 5, 1, 12, 0)
>>> size_buckets([(1, t, 250), (2, t, -50), (3, t, 1999)])
[(1, 0, 250), (2, -1, 950), (3, 1, 999)]
>>> euros(1234), euros(-5)
('12.34', '-0.05')
"""

import datetime

from hostlib import hour_of
from looplift import RowStream, dataflow, group_by


@dataflow
def euros(cents: int) -> str:
    """Format cents as a decimal amount: 1234 -> "12.34", -5 -> "-0.05"."""
    sign = "-" if cents < 0 else ""
    a = abs(cents)
    return sign + str(a // 100) + "." + str(a % 100 // 10) + str(a % 10)


@dataflow(columns=("customer", "orders", "big", "night", "net"))
def order_report(orders: RowStream[int, datetime.datetime, int], threshold: int):
    """Per customer: orders, big orders (>= threshold, not refunds), night orders, net revenue."""
    for customer, cust_orders in group_by(0, orders):
        n = 0
        big = 0
        night = 0
        net = 0
        for _customer, ts, cents in cust_orders:
            n += 1
            net += cents
            if cents >= threshold and not cents < 0:
                big += 1
            h = hour_of(ts)
            if h < 6 or h >= 22:
                night += 1
        yield customer, n, big, night, euros(net)


@dataflow(columns=("customer", "bucket", "rest"))
def size_buckets(orders: RowStream[int, datetime.datetime, int]):
    """Per order: its size bucket of 10 euros (``cents // 1000``) and the rest (``cents % 1000``)."""
    for customer, _ts, cents in orders:
        yield customer, cents // 1000, cents % 1000


@dataflow(columns=("customer", "revenue", "share"))
def revenue_share(orders: RowStream[int, datetime.datetime, int]):
    """Per customer: net revenue and its share of the net revenue of all customers."""
    grand = 0
    for _customer, _ts, cents in orders:
        grand += cents
    for customer, cust_orders in group_by(0, orders):
        revenue = 0
        for _customer, _ts, cents in cust_orders:
            revenue += cents
        yield customer, revenue, revenue / grand if grand != 0 else 0.0
