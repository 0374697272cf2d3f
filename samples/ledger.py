"""Running balances: a running total per row in an ordered loop.

Each transaction is ``(account, day, seq, amount)``: ``seq`` numbers the
bookings of one day. ``running_balance`` walks every account's bookings in
booking order (``group_by(0, txns, order_by=(1, 2))``: by day, then by
sequence number) and yields each booking with the balance after it. A pending
booking has no amount yet (``None``): it is listed with the balance unchanged.
The balance is a plain ``+=`` on a Python int, so a balance beyond 64 bits is
an error on Spark (SPEC §4), never a wrapped value.

>>> running_balance([("a", 2, 1, -30), ("a", 1, 1, 100), ("a", 1, 2, None), ("b", 1, 1, 5)])
[('a', 1, 1, 100), ('a', 1, 2, 100), ('a', 2, 1, 70), ('b', 1, 1, 5)]
"""

from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("account", "day", "seq", "balance"))
def running_balance(txns: RowStream[str, int, int, Optional[int]]):  # noqa: UP045
    """Per account and booking: the balance after it (pending bookings change nothing)."""
    for account, bookings in group_by(0, txns, order_by=(1, 2)):
        balance = 0
        for _account, day, seq, amount in bookings:
            if amount is not None:
                balance += amount
            yield account, day, seq, balance
