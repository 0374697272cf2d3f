"""Weekly revenue per store: a computed group key and a state with a written-out undo.

``weekly_revenue`` groups sales by store and week, where the week is computed
from the day number (``group_by(lambda r: (r[0], r[1] // 7), sales)``): the
group key is the computed pair, and the group's rows keep all their fields.

``Revenue`` is how many people write an accumulator with deletions in mind:
each action spells out its undo. Every undo here is exactly the negation of
its action (``+=`` against ``-=`` on the same fields), so the state is still
additive and runs as Spark's native sums, no Python reducer.

>>> weekly_revenue([(1, 0, "sale", 10.0), (1, 3, "refund", 4.0), (1, 8, "sale", 5.0), (2, 1, "sale", 7.5)])
[(1, 0, 6.0, 2), (1, 1, 5.0, 1), (2, 0, 7.5, 1)]
"""

from looplift import RowStream, State, action, dataflow, group_by


class Revenue(State):
    """Net revenue and the number of transactions."""

    def __init__(self):
        self.net = 0.0
        self.count = 0

    @action
    def sale(self, amount):
        self.net += amount
        self.count += 1

    @sale.undo
    def sale(self, amount):
        self.net -= amount
        self.count -= 1

    @action
    def refund(self, amount):
        self.net -= amount
        self.count += 1

    @refund.undo
    def refund(self, amount):
        self.count -= 1
        self.net += amount

    def value(self) -> float:
        return self.net

    def transactions(self) -> int:
        return self.count


@dataflow(columns=("store", "week", "revenue", "transactions"))
def weekly_revenue(sales: RowStream[int, int, str, float]):
    """Per store and week (day // 7): net revenue (sales minus refunds) and transactions."""
    for (store, week), g in group_by(lambda r: (r[0], r[1] // 7), sales):
        rev = Revenue()
        for _store, _day, kind, amount in g:
            if kind == "refund":
                rev.refund(amount)
            else:
                rev.sale(amount)
        yield store, week, rev.value(), rev.transactions()
