"""Tuple unpacking: swapping parameters, unpacking an inlined aggregate's
tuple result, nested targets."""

from looplift import RowStream, dataflow, group_by


@dataflow
def swap_sort(a: int, b: int) -> tuple[int, int]:
    if a > b:
        a, b = b, a
    return a, b


@dataflow
def min_max(xs: RowStream[int]) -> tuple[int, int]:
    lo = 1000000
    hi = -1000000
    for (x,) in xs:
        lo = min(lo, x)
        hi = max(hi, x)
    return lo, hi


@dataflow
def range_info(xs: RowStream[int]) -> tuple[int, int, int]:
    lo, hi = min_max(xs)
    (first, last), width = (lo, hi), hi - lo
    return first, last, width


@dataflow(columns=("k", "lo", "hi"))
def per_key_range(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        lo, hi = min_max(g.project(1))
        yield k, lo, hi


EXAMPLES = {
    "swap_sort": [(5, 2), (1, 3)],
    "min_max": [([(4,), (-1,), (9,)],)],
    "range_info": [([(4,), (-1,), (9,)],)],
    "per_key_range": [([(1, 4), (1, -2), (2, 7)],)],
}

EXPECTED = {
    "swap_sort": [(2, 5), (1, 3)],
    "min_max": [(-1, 9)],
    "range_info": [(-1, 9, 10)],
    "per_key_range": [[(1, -2, 4), (2, 7, 7)]],
}
