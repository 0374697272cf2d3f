"""`statistics` over a container's values after the loop: `mean` and `median` of floats,
`fmean` of ints, `median_low` / `median_high` (an element, so of any type), imported as
the module or by name."""

import statistics
from statistics import median_high

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "mean", "median", "fmean", "low", "high"))
def spread(rows: RowStream[int, float, int]):
    for k, g in group_by(0, rows):
        xs = []
        ns = []
        for _, x, n in g:
            xs.append(x)
            ns.append(n)
        yield (
            k,
            statistics.mean(xs),
            statistics.median(xs),
            statistics.fmean(ns),
            statistics.median_low(ns),
            median_high(ns),
        )


EXAMPLES = {
    "spread": [([(1, 1.5, 3), (1, 2.5, 1), (1, 4.0, 2), (1, 0.5, 8), (2, 3.0, 5)],)],
}

EXPECTED = {
    # k 1: xs 1.5 2.5 4.0 0.5 -> mean 2.125, median (1.5 + 2.5) / 2 = 2.0; ns 3 1 2 8 ->
    #   fmean 3.5, sorted 1 2 3 8: low 2, high 3; k 2: one value each
    "spread": [[(1, 2.125, 2.0, 3.5, 2, 3), (2, 3.0, 3.0, 5.0, 5, 5)]],
}
