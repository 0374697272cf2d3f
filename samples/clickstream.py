"""Clickstream analysis: the running example of SPEC §2 and of the thesis.

For every user, the average number of clicks between a visit to the start
page (page type 0) and the next visit to the end page (page type 1). The
per-user state is an ``IntervalSequence``: start pages open an interval, end
pages close it, every other click is an item of the interval it falls in.
Because the state is reversible and order-insensitive, the clicks may arrive
in any order and may be deleted again.

Shows: a library state with several actions chosen by ``if/elif/else``, an
aggregate (``avg_path``) inlined into a table algorithm (``clickstream``)
with a projected substream, and ``group_by`` on a field index.

>>> clickstream([(1, 0, 10), (1, 5, 11), (1, 1, 12)])
[(1, 1.0)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import IntervalSequence


@dataflow
def avg_path(clicks: RowStream[int, int]) -> float:
    """Average number of clicks between a start page (0) and an end page (1)."""
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
