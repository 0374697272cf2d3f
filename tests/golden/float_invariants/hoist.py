from looplift import RowStream, dataflow
from looplift.states import Sum


@dataflow
def weighted(rows: RowStream[int, int], factor: int) -> int:
    s = Sum()
    for a, b in rows:
        scale = factor * 2 + 1
        ratio = 100 // factor
        s.add(a * scale + ratio)
    return s.value()
