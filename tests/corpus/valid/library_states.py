"""The multiset-backed library states (TopK with k from a scalar parameter,
Distinct, Median, Min, Max) and the additive Average and Variance."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Average, Distinct, Max, Median, Min, TopK, Variance


@dataflow(columns=("key", "top", "distinct", "median", "range"))
def summary(rows: RowStream[str, int], k: int):
    for key, g in group_by(0, rows):
        top = TopK(k)
        d = Distinct()
        med = Median()
        lo = Min()
        hi = Max()
        for _key, v in g:
            top.add(v)
            d.add(v)
            med.add(v)
            lo.add(v)
            hi.add(v)
        yield key, top.values(), d.values(), med.value(), hi.value() - lo.value()


@dataflow
def spread_stats(xs: RowStream[float]) -> tuple[float, float, float]:
    a = Average()
    v = Variance()
    for (x,) in xs:
        a.add(x)
        v.add(x)
    return a.value(), v.value(), v.sample()


EXAMPLES = {
    "summary": [([("a", 5), ("a", 1), ("a", 5), ("a", 3), ("b", 2)], 2)],
    "spread_stats": [([(1.0,), (2.0,), (3.0,), (4.0,)],)],
}

EXPECTED = {
    # a: two largest 5 5; distinct 1 3 5; median of 1 3 5 5 = 4.0; range 5 - 1
    "summary": [[("a", [5, 5], [1, 3, 5], 4.0, 4), ("b", [2], [2], 2, 0)]],
    # mean 2.5; population variance 5 / 4; sample variance 5 / 3
    "spread_stats": [(2.5, 1.25, 1.6666666666666667)],
}
