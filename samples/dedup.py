"""Deduplication: keep the newest version of every record.

Change feeds and append-only logs hold several versions of one record; a
reader wants the latest. Written as a data engineer writes it in Python — a
loop that remembers the newest row so far — the loop looks order-dependent,
but the compiler recognizes the shape ``if ts > newest: newest, x = ts, ...``
as an arg-max reduction (an ``ArgBest`` state per carried name), so no
``order_by`` is needed. Ties (two versions with the same timestamp) go to the
first row in the canonical row order, the smallest, as CPython's loop does.

``latest`` binds whole rows (``for row in versions``, ``row[i]``).

>>> latest([(1, 100, "new", 9.5), (1, 200, "shipped", 9.5), (2, 150, "new", 20.0),
...         (1, 150, "paid", 9.5)])
[(1, 200, 'shipped', 9.5), (2, 150, 'new', 20.0)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("order_id", "updated_at", "status", "amount"))
def latest(versions: RowStream[int, int, str, float]):
    """Per order: the newest version's timestamp, status and amount."""
    for order_id, rows in group_by(0, versions):
        newest = None
        status = None
        amount = 0.0
        for row in rows:
            if newest is None or row[1] > newest:
                newest, status, amount = row[1], row[2], row[3]
        yield order_id, newest, status, amount
