# expect: 17:13 arbitrary
# expect: 27:18 order
# expect: 36:25 inside
# expect: 50:13 order
# expect: 60:18 value
# expect: 66:10 constant
"""Local containers used where their value depends on row order, or not as accumulators."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("u", "n"))
def last_wins(rows: RowStream[int, int, int]):
    for u, g in group_by(0, rows):
        d = {}
        for _u, k, v in g:
            d[k] = v
        yield u, len(d)


@dataflow(columns=("u", "first"))
def first_appended(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        lst = []
        for _u, v in g:
            lst.append(v)
        yield u, lst[0]


@dataflow(columns=("u", "n"))
def read_while_filling(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        seen = set()
        n = 0
        for _u, v in g:
            if v not in seen:
                n += 1
            seen.add(v)
        yield u, n


@dataflow(columns=("u", "total"))
def reduce_in_values_loop(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        vals = []
        for _u, v in g:
            vals.append(v)
        last = 0
        for v in vals:
            last = v
        yield u, last


@dataflow(columns=("u", "vals"))
def container_as_value(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        vals = []
        for _u, v in g:
            vals.append(v)
        yield u, vals


@dataflow
def nonconstant_start(rows: RowStream[int]) -> int:
    first = 0
    d = {first: 1}
    for (v,) in rows:
        d[v] = d.get(v, 0) + 1
    return len(d)
