"""Days since the start of the month."""
import datetime

from looplift import dataflow


@dataflow
def days_into_month(ts: datetime.datetime) -> int:
    start = datetime.datetime(ts.year, ts.month, 1)
    return (ts - start).days
