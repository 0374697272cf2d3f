"""Ordered loops whose output depends on the order: a running balance yielded
per row, and deltas against the previous reading (a loop-carried `prev`)."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("account", "ts", "balance"))
def running_balance(tx: RowStream[int, int, int]):
    for account, atx in group_by(0, tx, order_by=1):
        balance = 0
        for _a, ts, amount in atx:
            balance += amount
            yield account, ts, balance


@dataflow(columns=("sensor", "ts", "delta"))
def deltas(readings: RowStream[int, int, float]):
    for sensor, rs in group_by(0, readings, order_by=1):
        prev = None
        for _s, ts, v in rs:
            if prev is not None:
                yield sensor, ts, v - prev
            prev = v


EXAMPLES = {
    "running_balance": [([(1, 3, -20), (1, 1, 100), (2, 5, 7), (1, 2, 50)],)],
    "deltas": [([(1, 20, 2.5), (1, 10, 1.0), (1, 30, 2.0), (2, 1, 9.0)],)],
}

EXPECTED = {
    # account 1 by ts: 100, 150, 130
    "running_balance": [[(1, 1, 100), (1, 2, 150), (1, 3, 130), (2, 5, 7)]],
    # sensor 1 by ts: 1.0, 2.5 (+1.5), 2.0 (-0.5); sensor 2 has no previous reading
    "deltas": [[(1, 20, 1.5), (1, 30, -0.5)]],
}
