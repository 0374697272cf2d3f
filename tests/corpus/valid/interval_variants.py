"""IntervalSequence with datetime timestamps, actions chosen through a scalar
algorithm over string codes, and the list-valued reader closed_sizes()."""

import datetime

from looplift import RowStream, dataflow, group_by
from looplift.states import IntervalSequence


@dataflow
def kind_of(code: str) -> int:
    if code == "login":
        return 0
    elif code == "logout":
        return 1
    return 2


@dataflow(columns=("user", "sessions", "sizes", "avg"))
def activity(events: RowStream[int, str, datetime.datetime]):
    for user, g in group_by(0, events):
        seq = IntervalSequence()
        for _u, code, ts in g:
            k = kind_of(code)
            if k == 0:
                seq.open(ts)
            elif k == 1:
                seq.close(ts)
            else:
                seq.insert(ts)
        sizes = seq.closed_sizes()
        yield user, len(sizes), sizes, seq.average_closed_size()


def _t(h: int, m: int) -> datetime.datetime:
    return datetime.datetime(2024, 6, 1, h, m)


EVENTS = [
    (1, "click", _t(9, 5)), (1, "logout", _t(9, 30)), (1, "login", _t(9, 0)),
    (1, "click", _t(9, 10)), (1, "click", _t(10, 0)), (1, "login", _t(11, 0)),
    (1, "logout", _t(11, 5)), (2, "click", _t(8, 0)),
]

EXAMPLES = {
    "kind_of": [("login",), ("logout",), ("view",)],
    "activity": [(EVENTS,)],
}

EXPECTED = {
    "kind_of": [0, 1, 2],
    # user 1: [9:00, 9:30) holds 9:05 and 9:10; 10:00 is outside any interval;
    #   [11:00, 11:05) is empty -> sizes [2, 0], average 1.0
    # user 2: nothing closed -> [] and None
    "activity": [[(1, 2, [2, 0], 1.0), (2, 0, [], None)]],
}
