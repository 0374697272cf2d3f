"""Generator expressions and comprehensions over a stream or a group: `sum(... for ...)`
(with a start), `sum(1 for ...)`, `len(list(g))`, `any`/`all`, `max`/`min` (with
`default=`, and the ValueError of an empty one), list and set comprehensions with
`if` clauses, a comprehension as another call's argument (`sorted(...)`, `"".join`)."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "total", "n", "rows", "hi", "lo", "neg", "pos"))
def group_summary(rows: RowStream[int, int, float]):
    for k, g in group_by(0, rows):
        total = sum(v for _, _, v in g)
        n = sum(1 for _k, t, _v in g if t > 1)
        hi = max(t for _, t, _ in g)
        lo = min((v for _, _, v in g if v > 100), default=-1.0)
        yield (
            k,
            total,
            n,
            len(list(g)),
            hi,
            lo,
            any(v < 0 for _, _, v in g),
            all(v > 0 for _, _, v in g),
        )


@dataflow(columns=("k", "kinds", "big", "tags"))
def collected(rows: RowStream[int, str, int]):
    for k, g in group_by(0, rows):
        kinds = {c for _, c, _ in g}
        big = [v for _, _, v in g if v >= 10]
        yield k, len(kinds), sum(big), "-".join(sorted(c for _, c, v in g if v > 0))


@dataflow
def positive_total(xs: RowStream[int]) -> int:
    return sum((x for (x,) in xs if x > 0), 10)


@dataflow
def largest(xs: RowStream[int]) -> int:
    return max(x for (x,) in xs)


EXAMPLES = {
    "group_summary": [
        ([(1, 1, 2.5), (1, 2, -1.0), (1, 3, 150.0), (2, 5, 0.5)],),
        ([],),
    ],
    "collected": [([(1, "a", 10), (1, "b", 12), (1, "a", -3), (2, "c", 1)],)],
    "positive_total": [([(3,), (-2,), (5,)],), ([],)],
    "largest": [([(3,), (9,), (-2,)],)],
}

EXPECTED = {
    # k 1: total 151.5, two rows after t 1, 3 rows, hi 3, lo 150.0, a negative, not all > 0
    # k 2: 0.5, 1, 1, 5, no v > 100 -> -1.0, none negative, all positive
    "group_summary": [
        [(1, 151.5, 2, 3, 3, 150.0, True, False), (2, 0.5, 1, 1, 5, -1.0, False, True)],
        [],
    ],
    # k 1: kinds {a, b}, big 10 + 12, tags of v > 0 sorted: a, b; k 2: c
    "collected": [[(1, 2, 22, "a-b"), (2, 1, 0, "c")]],
    # 10 + 3 + 5; the start alone
    "positive_total": [18, 10],
    # 9 (max() of no rows raises ValueError, as the generated inputs check)
    "largest": [9],
}
