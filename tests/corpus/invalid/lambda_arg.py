# expect: 14:30 lambda
"""A lambda passed to a host function."""

from looplift import RowStream, dataflow


def apply_twice(f, x):
    return f(f(x))


@dataflow(columns=("k", "v"))
def boosted(rows: RowStream[int, int]):
    for k, v in rows:
        yield k, apply_twice(lambda y: y * 2, v)
