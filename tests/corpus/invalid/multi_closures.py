# expect: 20:24 lambda
# expect: 25:5 global
# expect: 28:13 return
# expect: 38:20 recursion
"""Python features outside the language: a lambda, a `global` declaration, a
`return` inside a loop, and a recursive aggregate."""

from looplift import RowStream, dataflow

THRESHOLD = 10


def apply(f, x):
    return f(x)


@dataflow(columns=("k", "v"))
def transformed(rows: RowStream[int, int]):
    for k, v in rows:
        yield k, apply(lambda y: y + 1, v)


@dataflow
def first_over(xs: RowStream[int]) -> int:
    global THRESHOLD
    for (x,) in xs:
        if x > THRESHOLD:
            return x
    return -1


@dataflow
def depth(rows: RowStream[int, int]) -> int:
    n = 0
    for _a, _b in rows:
        n += 1
    if n > 1:
        return 1 + depth(rows.project(1, 0))
    return n
