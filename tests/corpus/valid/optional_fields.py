"""Optional fields: `is None` / `is not None` tests, null counting, defaults by
conditional expression; both spellings `Optional[T]` and `T | None`."""

from typing import Optional

from looplift import RowStream, dataflow


@dataflow
def null_stats(rows: RowStream[int, Optional[int], Optional[str]]) -> tuple[int, int, int, int]:
    nulls = 0
    total = 0
    named = 0
    chars = 0
    for _k, x, name in rows:
        if x is None:
            nulls += 1
        else:
            total += x
        if name is not None:
            named += 1
            chars += len(name)
    return nulls, total, named, chars


@dataflow(columns=("k", "value", "label"))
def fill_defaults(rows: RowStream[int, float | None, str | None]):
    for k, x, name in rows:
        v = x if x is not None else 0.0
        label = name if name is not None else "anon"
        yield k, v * 2, label + "#" + str(k)


EXAMPLES = {
    "null_stats": [([(1, 5, "ab"), (2, None, None), (3, -2, "xyz"), (4, None, "")],)],
    "fill_defaults": [([(1, 1.5, "a"), (2, None, None), (3, -0.5, None)],)],
}

EXPECTED = {
    # nulls: rows 2, 4; total 5 - 2; names "ab", "xyz", "" (empty is not null): 3, 5 chars
    "null_stats": [(2, 3, 3, 5)],
    "fill_defaults": [[(1, 3.0, "a#1"), (2, 0.0, "anon#2"), (3, -1.0, "anon#3")]],
}
