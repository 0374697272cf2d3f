"""`try`/`except ValueError` around `int()` and `float()` conversions, the parsing idiom:
a default in the handler, `continue` in it, `except (ValueError, TypeError)` taking a
None as a failure, nested conversions (`int(float(s))`), string methods in the body."""

from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "total", "bad"))
def parse_sum(rows: RowStream[int, Optional[str]]):  # noqa: UP045
    for k, g in group_by(0, rows):
        total = 0.0
        bad = 0
        for _, s in g:
            try:
                v = float(s)
            except (ValueError, TypeError):
                bad += 1
                continue
            total += v
        yield k, total, bad


@dataflow(columns=("k", "n", "m"))
def to_int(rows: RowStream[int, str]):
    for k, s in rows:
        try:
            n = int(float(s.strip().replace(",", "")))
        except ValueError:
            n = -1
        try:
            m = int(s) * 2
        except ValueError:
            m = None
        yield k, n, m


EXAMPLES = {
    "parse_sum": [([(1, " 2.5"), (1, "x"), (1, None), (2, "1e3"), (2, "1_0"), (3, "-inf")],)],
    "to_int": [([(1, " 2.5"), (1, "x"), (2, "1,000"), (2, "nan"), (3, "-7"), (4, "1_000")],)],
}

EXPECTED = {
    # k 1: 2.5 (x and None fail); k 2: 1000 + 10 (underscores parse); k 3: -inf parses
    "parse_sum": [[(1, 2.5, 2), (2, 1010.0, 0), (3, float("-inf"), 0)]],
    # " 2.5" -> 2 and int(" 2.5") fails; "1,000" -> 1000, int fails; nan -> int(nan) fails;
    # "-7" both; "1_000" both (underscores are Python's grammar)
    "to_int": [[(1, 2, None), (1, -1, None), (2, 1000, None), (2, -1, None), (3, -7, -14), (4, 1000, 2000)]],
}
