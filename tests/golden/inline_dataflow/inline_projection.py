from looplift import RowStream, dataflow, group_by
from looplift.states import Max


@dataflow
def peak(vals: RowStream[int]) -> int:
    m = Max()
    for (v,) in vals:
        m.add(v)
    return m.value()


@dataflow
def clamp(x: int, lo: int) -> int:
    return x if x > lo else lo


@dataflow(columns=("key", "peak"))
def peaks(rows: RowStream[int, int, int]):
    for key, g in group_by(0, rows):
        yield key, clamp(peak(g.project(2)), 0)
