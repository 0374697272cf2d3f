"""Per user: did they ever buy, and how many distinct days were they active."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "bought", "days"))
def activity(events: RowStream[int, int, str]):
    for uid, g in group_by(0, events):
        bought = False
        days = set()
        for _u, day, kind in g:
            if kind == "purchase":
                bought = True
            days.add(day)
        yield uid, bought, len(days)
