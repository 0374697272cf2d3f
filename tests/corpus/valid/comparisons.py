"""Every comparison operator on ints, floats and strings inside loops, and
comparisons mixing int and float."""

from looplift import RowStream, dataflow


@dataflow
def compare_counts(rows: RowStream[int, float, str]) -> tuple[int, int, int, int, int, int]:
    lt = 0
    le = 0
    gt = 0
    ge = 0
    eq = 0
    ne = 0
    for i, f, s in rows:
        if i < f:
            lt += 1
        if i <= f:
            le += 1
        if s > "m":
            gt += 1
        if s >= "m":
            ge += 1
        if i == f:
            eq += 1
        if s != "":
            ne += 1
    return lt, le, gt, ge, eq, ne


EXAMPLES = {
    "compare_counts": [([(1, 1.0, "m"), (2, 2.5, "z"), (3, 2.0, ""), (0, -0.0, "a")],)],
}

EXPECTED = {
    # i < f: only 2 < 2.5; i <= f: 1 <= 1.0, 2 <= 2.5, 0 <= -0.0; s > "m": "z";
    # s >= "m": "m", "z"; i == f: 1 == 1.0, 0 == -0.0; non-empty: 3
    "compare_counts": [(1, 3, 1, 2, 2, 3)],
}
