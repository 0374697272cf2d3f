"""Favourite pages: a user-defined state with an explicit undo.

``Mode`` keeps a multiset of values (a dict of counts) and reads back the
most frequent one, the smallest on ties. Its ``add`` is not additive (it
writes a dict entry), so it declares its inverse with ``@add.undo``: undo
decrements the count and forgets values whose count drops to zero. With
that, the state obeys the laws of SPEC §3 (order-insensitive, undo
reverts, fresh state is the identity) and can follow deletions.

>>> favourite_page([(1, 3, 10), (1, 4, 11), (1, 3, 12), (2, 9, 10)])
[(1, 3, 2), (2, 9, 1)]
"""

from looplift import RowStream, State, action, dataflow, group_by


class Mode(State):
    """The most frequent value added (smallest on ties), and how often it was added."""

    def __init__(self):
        self.counts = {}

    @action
    def add(self, x):
        self.counts[x] = self.counts.get(x, 0) + 1

    @add.undo
    def add(self, x):
        left = self.counts[x] - 1
        if left > 0:
            self.counts[x] = left
        else:
            del self.counts[x]

    def value(self):
        """The most frequent value, or None when empty."""
        if not self.counts:
            return None
        top = max(self.counts.values())
        return min(v for v, c in self.counts.items() if c == top)

    def frequency(self):
        """How often the most frequent value occurs (0 when empty)."""
        return max(self.counts.values(), default=0)


@dataflow(columns=("user_id", "page", "clicks"))
def favourite_page(clicks: RowStream[int, int, int]):
    """Per user: the page type clicked most often and how many clicks it got."""
    for uid, user_clicks in group_by(0, clicks):
        m = Mode()
        for _uid, pagetype, _ts in user_clicks:
            m.add(pagetype)
        yield uid, m.value(), m.frequency()
