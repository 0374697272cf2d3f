"""Order dates given as text, parsed with ``datetime.strptime`` and a constant format, as a
scalar UDF and inside a per-customer loop (the week of each order, the latest order)."""
import datetime
from datetime import datetime as dt

from looplift import RowStream, dataflow, group_by


@dataflow
def order_week(text: str) -> str:
    d = dt.strptime(text.strip(), "%d/%m/%Y")
    return d.strftime("%Y-W%W")


@dataflow(columns=("customer", "latest", "orders"))
def latest_order(orders: RowStream[int, str]):
    for customer, g in group_by(0, orders):
        latest = datetime.datetime(1, 1, 1)
        n = 0
        for _c, text in g:
            latest = max(latest, datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S"))
            n += 1
        yield customer, latest.strftime("%Y-%m-%d"), n
