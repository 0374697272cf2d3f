"""Funnel: how far each user got through view -> cart -> purchase, in order."""
from looplift import RowStream, dataflow, group_by

STEPS = ("view", "cart", "purchase")


@dataflow(columns=("user_id", "reached"))
def funnel(events: RowStream[int, str, int]):
    for uid, g in group_by(0, events, order_by=2):
        step = 0
        for _u, kind, _ts in g:
            if step < len(STEPS) and kind == STEPS[step]:
                step += 1
        yield uid, step
