"""Change detection: emit a row whenever a device's status changes."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("device", "ts", "old", "new"))
def changes(status: RowStream[int, int, str]):
    for dev, g in group_by(0, status, order_by=1):
        prev = None
        for _d, ts, s in g:
            if prev is not None and s != prev:
                yield dev, ts, prev, s
            prev = s
