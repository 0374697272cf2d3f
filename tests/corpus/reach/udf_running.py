"""Running balance that resets to zero on a 'reset' event."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("account", "ts", "balance"))
def running(tx: RowStream[int, int, str, float]):
    for acct, g in group_by(0, tx, order_by=1):
        bal = 0.0
        for _a, ts, kind, amount in g:
            if kind == "reset":
                bal = 0.0
            else:
                bal += amount
            yield acct, ts, bal
