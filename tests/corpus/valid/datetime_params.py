"""Scalar parameters of datetime types, and a tuple indexed by a computed index."""

import datetime

from looplift import RowStream, dataflow

DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataflow
def days_into_month(ts: datetime.datetime) -> int:
    start = datetime.datetime(ts.year, ts.month, 1)
    return (ts - start).days


@dataflow
def weekday_name(d: datetime.date) -> str:
    return ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[d.weekday()]


@dataflow(columns=("id", "late_seconds"))
def late(rows: RowStream[int, datetime.datetime], cutoff: datetime.datetime):
    for i, ts in rows:
        if ts > cutoff:
            yield i, (ts - cutoff).total_seconds()


EXAMPLES = {
    "days_into_month": [
        (datetime.datetime(2024, 3, 15, 10),),
        (datetime.datetime(2024, 2, 29, 23, 59),),
    ],
    "weekday_name": [(datetime.date(2024, 3, 15),), (datetime.date(1999, 12, 31),)],
    "late": [
        (
            [(1, datetime.datetime(2024, 3, 15, 10)), (2, datetime.datetime(2024, 2, 29, 23))],
            datetime.datetime(2024, 3, 1),
        ),
    ],
}
