"""Loops inside if/else branches, states global to nested groups, an outer
carried local updated in inner and outer loops, actions outside any loop,
ordered per-row yields, string annotations (from __future__), calls of
aggregates on projections of groups."""

from __future__ import annotations

import datetime

from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Max, Median, Sum


@dataflow
def cond_loop(rows: RowStream[int], flag: bool) -> int:
    n = 0
    if flag:
        for (x,) in rows:
            n += x
    else:
        for (x,) in rows.project(0):
            n -= 1
    return n


@dataflow
def top_rev(rows: RowStream[int, int, int]) -> tuple:
    total = Sum()
    best = Max()
    for _k, g in group_by(0, rows.project(1, 2)):
        for (_a, _b), h in group_by((0, 1), g):
            n = Count()
            for _x, y in h:
                n.add()
                total.add(y)
            best.add(n.value())
    return total.value(), best.value()


@dataflow
def nested_carry(rows: RowStream[int, int]) -> int:
    total = 0
    for _k, g in group_by(0, rows):
        for _a, b in g:
            total += b
        total += 1
    return total


@dataflow
def two_loops_ret(rows: RowStream[int]) -> tuple:
    lo = 1000
    for (x,) in rows:
        lo = min(lo, x)
    if lo == 1000:
        return (0, 0)
    m = Median()
    for (x,) in rows:
        if x > lo:
            m.add(x)
    return (lo, m.value())


@dataflow
def top_action(rows: RowStream[int]) -> int:
    s = Sum()
    s.add(10)
    for (x,) in rows:
        s.add(x)
    return s.value()


@dataflow
def gaps(rows: RowStream[int, int]):
    for k, g in group_by(0, rows, order_by=1):
        prev = None
        for _k, t in g:
            if prev is not None:
                yield k, t - prev
            prev = t


@dataflow
def total(xs: RowStream[int, float]) -> float:
    s = Sum()
    for _k, v in xs:
        s.add(v)
    return s.value()


@dataflow(columns=("k", "t", "n"))
def per_key(rows: RowStream[int, float, datetime.datetime]):
    for k, g in group_by(0, rows):
        c = Count()
        for _a, _b, _when in g:
            c.add()
        yield k, total(g.project(0, 1)), c.value()


T0 = datetime.datetime(2026, 1, 1)
ROWS3 = [(1, 5, 7), (1, 5, 8), (2, 6, 7), (1, 7, 7)]
EXAMPLES = {
    "cond_loop": [([(1,), (2,), (3,)], True), ([(1,), (2,), (3,)], False), ([], True)],
    "top_rev": [(ROWS3,), ([],)],
    "nested_carry": [([(1, 2), (1, 3), (2, 4)],), ([],)],
    "two_loops_ret": [([(3,), (1,), (4,), (5,)],), ([],), ([(2,), (2,)],)],
    "top_action": [([(1,), (2,)],), ([],)],
    "gaps": [([(1, 10), (1, 4), (2, 3), (1, 7)],), ([],)],
    "total": [([(1, 1.5), (2, 2.5)],), ([],)],
    "per_key": [([(1, 1.0, T0), (1, 2.0, T0), (2, 0.5, T0)],), ([],)],
}
EXPECTED = {
    # True: 1 + 2 + 3; False: -1 per row; empty: 0
    "cond_loop": [6, -3, 0],
    # groups of (1, 2) fields: (5,7) x2 rows... keys (5,7):2 rows? rows by field 1:
    # 5 -> (5,7),(5,8); 6 -> (6,7); 7 -> (7,7); inner keys all distinct -> each count 1,
    # except none repeat, so best = 1; total = 7 + 8 + 7 + 7 = 29
    "top_rev": [(29, 1), (0, None)],
    # 2 + 3 + 4 + one per group (2 groups)
    "nested_carry": [11, 0],
    # lo = 1; median of (3, 4, 5) = 4; empty: (0, 0); lo = 2, nothing above: None
    "two_loops_ret": [(1, 4), (0, 0), (2, None)],
    "top_action": [13, 10],
    # key 1 ordered 4, 7, 10 -> gaps 3, 3; key 2 single row -> nothing
    "gaps": [[(1, 3), (1, 3)], []],
    "total": [4.0, 0],
    "per_key": [[(1, 3.0, 2), (2, 0.5, 1)], []],
}
