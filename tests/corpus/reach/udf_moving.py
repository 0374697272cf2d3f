"""Moving average over the last 3 readings per sensor."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("sensor", "ts", "avg3"))
def moving(readings: RowStream[int, int, float]):
    for sensor, g in group_by(0, readings, order_by=1):
        window = []
        for _s, ts, v in g:
            window.append(v)
            if len(window) > 3:
                window.pop(0)
            yield sensor, ts, sum(window) / len(window)
