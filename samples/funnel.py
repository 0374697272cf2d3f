"""Funnel: how far each user gets through view → cart → purchase, in time order.

A funnel counts a step only when it follows the previous one: a purchase
before any cart does not convert, and after a purchase the funnel starts over
at view. That makes the loop order-dependent (``stage`` is neither a sum, a
count, a min nor a max), so it is an ordered loop: each user's events are
iterated by timestamp (``order_by=(1, 2)``: field 1, ties broken by field 2,
then by the remaining fields).

``funnel`` yields, per user, the number of completed funnels (conversions)
and the stage reached in the current one (0 nothing, 1 viewed, 2 in cart).

>>> funnel([(1, 10, "view"), (1, 12, "cart"), (1, 15, "purchase"), (1, 20, "view"),
...         (2, 5, "purchase"), (2, 7, "view")])
[(1, 1, 1), (2, 0, 1)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "conversions", "stage"))
def funnel(events: RowStream[int, int, str]):
    """Per user: completed view → cart → purchase funnels, and the open funnel's stage."""
    for uid, user_events in group_by(0, events, order_by=(1, 2)):
        stage = 0
        conversions = 0
        for _uid, _ts, kind in user_events:
            if stage == 0 and kind == "view":
                stage = 1
            elif stage == 1 and kind == "cart":
                stage = 2
            elif stage == 2 and kind == "purchase":
                stage = 0
                conversions += 1
        yield uid, conversions, stage
