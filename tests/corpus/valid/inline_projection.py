"""Inlined @dataflow calls on projected substreams: fields reordered
(`g.project(2, 1)`), a single field, the same group projected three ways."""

from looplift import RowStream, dataflow, group_by


@dataflow
def weighted_sum(pairs: RowStream[float, int]) -> float:
    total = 0.0
    for value, weight in pairs:
        total += value * weight
    return total


@dataflow
def count_rows(rows: RowStream[int]) -> int:
    n = 0
    for (_x,) in rows:
        n += 1
    return n


@dataflow
def weight_total(weights: RowStream[int]) -> int:
    total = 0
    for (w,) in weights:
        total += w
    return total


@dataflow(columns=("group", "wsum", "rows", "wavg"))
def per_group(rows: RowStream[str, int, float]):
    for grp, g in group_by(0, rows):
        ws = weighted_sum(g.project(2, 1))
        n = count_rows(g.project(1))
        w = weight_total(g.project(1))
        yield grp, ws, n, ws / w if w != 0 else 0.0


EXAMPLES = {
    "weighted_sum": [([(1.5, 2), (3.0, 1)],)],
    "count_rows": [([(1,), (1,)],)],
    "weight_total": [([(2,), (1,)],)],
    "per_group": [([("a", 2, 1.5), ("a", 1, 3.0), ("b", 0, 4.0)],)],
}

EXPECTED = {
    "weighted_sum": [6.0],
    "count_rows": [2],
    "weight_total": [3],
    # a: 1.5 * 2 + 3.0 * 1 = 6.0 over weight 3; b: weight 0 -> 0.0
    "per_group": [[("a", 6.0, 2, 2.0), ("b", 0.0, 1, 0.0)]],
}
