from looplift import RowStream, dataflow, group_by
from looplift.states import Sum


@dataflow
def bad(rows: RowStream[int, int]) -> int:
    s = Sum()
    seen = []
    while True:
        pass
    for a, b, c in rows:
        s.add(a)
    for k, g in group_by(0, rows):
        t = Sum()
        for a, b in g:
            seen.append(a)
            x = s.add(b)
    return t.value() + missing
