from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Sum, Variance


@dataflow
def div_not_zero(n: int, total: int) -> float:
    if n == 0:
        return 0.0
    return total / n


@dataflow(columns=("k", "avg", "var"))
def average(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        n = Count()
        s = Sum()
        v = Variance()
        for _k, x in g:
            n.add()
            s.add(x)
            v.add(x)
        yield k, div_not_zero(n.value(), s.value()), v.value()
