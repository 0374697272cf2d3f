"""Per sensor: the median reading by a quickselect helper, the readings sorted in place
and the latest path of states joined (a list passed to a helper, ``lst.sort()``, a list
used as a value)."""
from looplift import RowStream, dataflow, group_by


def quickselect(xs: list, k: int) -> float:
    pivot = xs[len(xs) // 2]
    lows = [x for x in xs if x < pivot]
    highs = [x for x in xs if x > pivot]
    pivots = [x for x in xs if x == pivot]
    if k < len(lows):
        return quickselect(lows, k)
    if k < len(lows) + len(pivots):
        return pivot
    return quickselect(highs, k - len(lows) - len(pivots))


def median(xs: list) -> float:
    return quickselect(xs, len(xs) // 2)


@dataflow(columns=("sensor", "median", "max", "path"))
def readings(events: RowStream[int, int, str, float]):
    for sensor, g in group_by(0, events, order_by=1):
        values = []
        states = []
        for _s, _ts, state, value in g:
            values.append(value)
            if not states or states[-1] != state:
                states.append(state)
        values.sort(reverse=True)
        path = " > ".join(states) if states else ""
        yield sensor, median(values), values[0], path
