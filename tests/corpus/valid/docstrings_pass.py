"""Docstrings, comments and `pass` (in branches, as a whole loop body, as a
statement of its own) do not change an algorithm."""

from looplift import RowStream, dataflow


@dataflow
def positives(xs: RowStream[int]) -> int:
    """Counts the positive values; the other branches do nothing."""
    n = 0
    for (x,) in xs:
        if x > 0:
            n += 1
        elif x == 0:
            pass
        else:
            pass
    return n


@dataflow
def with_comments(x: int) -> int:
    """Docstring, comments and pass statements are ignored."""
    # a comment on its own line
    pass
    y = x + 1  # a trailing comment
    return y


@dataflow
def constant(xs: RowStream[int]) -> int:
    """Ignores its input entirely."""
    for (_x,) in xs:
        pass
    return 42


EXAMPLES = {
    "positives": [([(1,), (0,), (-3,), (7,)],)],
    "with_comments": [(1,)],
    "constant": [([(1,)],), ([],)],
}

EXPECTED = {
    "positives": [2],
    "with_comments": [2],
    "constant": [42, 42],
}
