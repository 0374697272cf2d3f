"""A lambda passed to a host function, in a yielded value: the value is a Python island
(issue 25); the host function's annotation gives the island's column type."""

from looplift import RowStream, dataflow


def apply_twice(f, x) -> int:
    return f(f(x))


def apply(f, x) -> int:
    return f(x)


@dataflow(columns=("k", "v"))
def boosted(rows: RowStream[int, int]):
    for k, v in rows:
        yield k, apply_twice(lambda y: y * 2, v)


@dataflow(columns=("k", "v"))
def transformed(rows: RowStream[int, int]):
    for k, v in rows:
        yield k, apply(lambda y: y + 1, v)


EXAMPLES = {
    "boosted": [([(1, 2), (2, -3), (3, 0)],), ([],)],
    "transformed": [([(1, 2), (2, -3)],), ([],)],
}
