"""Billing: a currency table, billing periods built with ``datetime``, and ``raise``.

Usage rows are ``(customer, plan, currency, amount, ts)``. ``to_eur``
converts an amount with the module-level ``RATES`` table (a native
``CASE``) and raises ValueError on an unknown currency; ``plan_fee`` looks
the monthly fee up in ``PLANS`` and raises ValueError on an unknown plan
(one error class, so whichever bad row Spark meets first, it is Python's). ``invoice_lines`` gives, per usage row, the
billing period (from the first of the month to the first of the next one,
built with ``datetime.datetime(y, m, 1)``), the hours left in the period,
the plan fee and the amount in euros. Everything runs natively: the
errors surface on Spark as the same Python exception classes.

>>> to_eur(25.0, "USD"), plan_fee("pro")
(23.0, 29.0)
>>> t = datetime.datetime(2024, 12, 30, 12, 0)
>>> invoice_lines([(7, "basic", "GBP", 2.0, t)])
[(7, datetime.datetime(2024, 12, 1, 0, 0), datetime.datetime(2025, 1, 1, 0, 0), 36.0, 9.0, 2.34)]
"""

import datetime

from looplift import RowStream, dataflow

RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.04}
PLANS = {"free": 0.0, "basic": 9.0, "pro": 29.0}


@dataflow
def to_eur(amount: float, currency: str) -> float:
    """``amount`` in euros; ValueError on a currency missing from ``RATES``."""
    if currency not in RATES:
        raise ValueError("unknown currency " + currency)
    return amount * RATES[currency]


@dataflow
def plan_fee(plan: str) -> float:
    """The monthly fee of ``plan``; ValueError on an unknown plan."""
    if plan not in PLANS:
        raise ValueError("unknown plan " + plan)
    return PLANS[plan]


@dataflow(columns=("customer", "period_start", "period_end", "hours_left", "fee", "eur"))
def invoice_lines(usage: RowStream[int, str, str, float, datetime.datetime]):
    """One invoice line per usage row, in the billing period of its timestamp."""
    for customer, plan, currency, amount, ts in usage:
        start = datetime.datetime(ts.year, ts.month, 1)
        end = datetime.datetime(ts.year + ts.month // 12, ts.month % 12 + 1, 1)
        hours_left = (end - ts).total_seconds() / 3600
        yield customer, start, end, hours_left, plan_fee(plan), to_eur(amount, currency)
