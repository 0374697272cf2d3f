# expect: 20:13 order
# expect: 22:12 scope
# expect: 31:20 unknown
"""Per-user sessionization gone wrong three ways: a per-user state read after
the loop, `prev` updated in an unordered loop, and a misspelled name."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Max


@dataflow
def longest_session_anywhere(events: RowStream[int, int]) -> int:
    for _uid, user_events in group_by(0, events):
        longest = Max()
        n = 0
        prev = None
        for _u, ts in user_events:
            if prev is None or ts - prev > 30:
                n += 1
            prev = ts
        longest.add(n)
    return longest.value()


@dataflow(columns=("user_id", "events"))
def events_per_user(events: RowStream[int, int]):
    for uid, user_events in group_by(0, events):
        n = 0
        for _u, _ts in user_events:
            n += 1
        yield uid, n_events
