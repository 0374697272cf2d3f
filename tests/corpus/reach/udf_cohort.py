"""Cohort counts: active users per signup month, with a dict."""
from looplift import RowStream, dataflow


@dataflow(columns=("month", "users"))
def cohorts(users: RowStream[int, int]):
    counts = {}
    for _uid, month in users:
        counts[month] = counts.get(month, 0) + 1
    for month, n in sorted(counts.items()):
        yield month, n
