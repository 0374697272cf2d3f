"""Fund returns: ``math.*``, ``**`` and ``round`` in aggregates.

Monthly returns compound, so their average is geometric: the mean of
``math.log(1 + r)``, exponentiated. The sum of logs is a loop-carried
``+=`` (a Sum), so the loop is order-free and fully native. ``round``
follows Python (banker's rounding of the decimal representation), which
the compiled plan must reproduce.

>>> geometric_mean([(0.1,), (-0.5,), (1.0,)])
0.03228
"""

import math

from looplift import RowStream, dataflow, group_by


@dataflow
def geometric_mean(returns: RowStream[float]) -> float:
    """Geometric mean of the returns (0.0 without rows), rounded to 5 digits."""
    n = 0
    logs = 0.0
    for (r,) in returns:
        n += 1
        logs += math.log(1.0 + r)
    if n == 0:
        return 0.0
    return round(math.exp(logs / n) - 1.0, 5)


@dataflow(columns=("fund", "months", "monthly", "yearly", "worst_pct"))
def fund_report(returns: RowStream[str, float]):
    """Per fund: months, geometric mean monthly return, its yearly equivalent, worst month in %."""
    for fund, fund_returns in group_by(0, returns):
        monthly = geometric_mean(fund_returns.project(1))
        worst = 0.0
        months = 0
        for _fund, r in fund_returns:
            months += 1
            worst = min(worst, r)
        yearly = round((1.0 + monthly) ** 12 - 1.0, 4)
        yield fund, months, monthly, yearly, math.floor(worst * 100)
