from looplift import RowStream, dataflow
from looplift.states import Max, Sum


@dataflow
def tangled(rows: RowStream[int]) -> int:
    a = Sum()
    b = Sum()
    m = Max()
    for (x,) in rows:
        a.add(b.value())
        b.add(a.value())
        m.add(x)
        if m.value() > 3:
            pass
    return a.value()
