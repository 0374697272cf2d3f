"""First and last event per user (arg-min / arg-max without order_by)."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "first_page", "last_page"))
def first_last(clicks: RowStream[int, int, str]):
    for uid, g in group_by(0, clicks):
        first_ts = None
        last_ts = None
        first = None
        last = None
        for _u, ts, page in g:
            if first_ts is None or ts < first_ts:
                first_ts, first = ts, page
            if last_ts is None or ts > last_ts:
                last_ts, last = ts, page
        yield uid, first, last
