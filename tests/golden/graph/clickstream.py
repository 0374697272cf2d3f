from looplift import RowStream, dataflow, group_by
from looplift.states import IntervalSequence


@dataflow
def avg_path(clicks: RowStream[int, int]) -> float:
    seq = IntervalSequence()
    for category, ts in clicks:
        if category == 0:
            seq.open(ts)
        elif category == 1:
            seq.close(ts)
        else:
            seq.insert(ts)
    return seq.average_closed_size()


@dataflow(columns=("user_id", "avg_clicks"))
def clickstream(clicks: RowStream[int, int, int]):
    for uid, user_clicks in group_by(0, clicks):
        yield uid, avg_path(user_clicks.project(1, 2))
