"""datetime.date and datetime.datetime fields: a date group key, Min/Max
states over timestamps, timestamp comparisons in a loop ordered by another
field."""

import datetime

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Max, Min


@dataflow(columns=("day", "first", "last", "events"))
def per_day(events: RowStream[datetime.date, datetime.datetime, int]):
    for day, g in group_by(0, events):
        first = Min()
        last = Max()
        n = Count()
        for _d, ts, _seq in g:
            first.add(ts)
            last.add(ts)
            n.add()
        yield day, first.value(), last.value(), n.value()


@dataflow(columns=("day", "late"))
def out_of_order(events: RowStream[datetime.date, datetime.datetime, int]):
    """Per day, events stamped earlier than some event with a smaller sequence number."""
    for day, g in group_by(0, events, order_by=2):
        late = 0
        latest = None
        for _d, ts, _seq in g:
            if latest is not None and ts < latest:
                late += 1
            if latest is None or ts > latest:
                latest = ts
        yield day, late


D1 = datetime.date(2024, 3, 1)
D2 = datetime.date(2024, 3, 2)
EVENTS = [
    (D1, datetime.datetime(2024, 3, 1, 10, 0), 1),
    (D1, datetime.datetime(2024, 3, 1, 9, 0), 2),
    (D2, datetime.datetime(2024, 3, 2, 8, 0), 1),
    (D1, datetime.datetime(2024, 3, 1, 11, 0), 3),
    (D1, datetime.datetime(2024, 3, 1, 10, 30), 4),
]

EXAMPLES = {
    "per_day": [(EVENTS,)],
    "out_of_order": [(EVENTS,)],
}

EXPECTED = {
    "per_day": [[(D1, datetime.datetime(2024, 3, 1, 9, 0), datetime.datetime(2024, 3, 1, 11, 0), 4),
                 (D2, datetime.datetime(2024, 3, 2, 8, 0), datetime.datetime(2024, 3, 2, 8, 0), 1)]],
    # D1 by sequence: 10:00, 9:00 (late), 11:00, 10:30 (late) -> 2
    "out_of_order": [[(D1, 2), (D2, 0)]],
}
