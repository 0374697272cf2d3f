# expect: 19:24 lambda
# expect: 19:50 list comprehension
# expect: 20:21 operator `&`
# expect: 20:26 operator `|`
# expect: 20:28 bytes
"""Several problems in one statement: each one is reported, not only the first."""

from looplift import RowStream, dataflow


def apply(f, x):
    return f(x)


@dataflow
def mixed(rows: RowStream[int, int]) -> int:
    total = 0
    for a, b in rows:
        total += apply(lambda y: y + 1, a) + len([c for c in (a, b)])
        total += (a & b) | b"ab"
    return total
