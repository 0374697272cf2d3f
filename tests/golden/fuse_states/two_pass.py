from looplift import RowStream, dataflow
from looplift.states import Average, Count


@dataflow
def above_mean(rows: RowStream[float]) -> int:
    mean = Average()
    for (x,) in rows:
        mean.add(x)
    m = mean.value()
    above = Count()
    for (x,) in rows:
        if m is not None and x > m:
            above.add()
    return above.value()
