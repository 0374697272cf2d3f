"""Page classes: a scalar algorithm and actions chosen by ``if/elif/else``.

``page_class`` maps a raw page type to a coarse class. It has no RowStream
parameter, so it is a *scalar* algorithm: it compiles to one native ``CASE``
expression that Spark can fold and push down like a built-in
(``df.select(page_class(df.pagetype))``).

``funnel`` is a table algorithm: per user, a ``Funnel`` state counts the
clicks of each class. Which action runs depends on the class, computed by
the inlined ``page_class``. Every action of ``Funnel`` only does
``self.f += 1``, so the state is *additive*: the undo of each action is
derived, and the whole state compiles to native ``sum`` aggregates.

>>> page_class(0), page_class(1), page_class(7), page_class(42)
(0, 1, 2, 3)
>>> funnel([(1, 0, 10), (1, 4, 11), (1, 1, 12), (1, 0, 13)])
[(1, 2, 1, 1, 0, 0.5)]
"""

from looplift import RowStream, State, action, dataflow, group_by


@dataflow
def page_class(pagetype: int) -> int:
    """0 = start page, 1 = end page, 2 = product page (types 2-9), 3 = anything else."""
    if pagetype == 0:
        return 0
    elif pagetype == 1:
        return 1
    elif 2 <= pagetype <= 9:
        return 2
    else:
        return 3


class Funnel(State):
    """Clicks per page class (additive: the undos are derived by negation)."""

    def __init__(self):
        self.entries = 0
        self.exits = 0
        self.views = 0
        self.other = 0

    @action
    def enter(self):
        self.entries += 1

    @action
    def leave(self):
        self.exits += 1

    @action
    def view(self):
        self.views += 1

    @action
    def misc(self):
        self.other += 1

    def entry_count(self):
        return self.entries

    def exit_count(self):
        return self.exits

    def view_count(self):
        return self.views

    def other_count(self):
        return self.other

    def conversion(self):
        """Fraction of entries that reached the end page (0.0 without entries)."""
        return self.exits / self.entries if self.entries > 0 else 0.0


@dataflow(columns=("user_id", "entries", "views", "exits", "other", "conversion"))
def funnel(clicks: RowStream[int, int, int]):
    """Per user: clicks on start, product, end and other pages, and the conversion rate."""
    for uid, user_clicks in group_by(0, clicks):
        f = Funnel()
        for _uid, pagetype, _ts in user_clicks:
            cls = page_class(pagetype)
            if cls == 0:
                f.enter()
            elif cls == 1:
                f.leave()
            elif cls == 2:
                f.view()
            else:
                f.misc()
        yield (
            uid,
            f.entry_count(),
            f.view_count(),
            f.exit_count(),
            f.other_count(),
            f.conversion(),
        )
