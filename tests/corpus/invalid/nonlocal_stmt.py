# expect: 13:5 def
# expect: 14:9 nonlocal
"""A closure updating a counter with `nonlocal` (two violations: the nested
def and the nonlocal inside it)."""

from looplift import RowStream, dataflow


@dataflow
def count_big(xs: RowStream[int], limit: int) -> int:
    n = 0

    def bump(v):
        nonlocal n
        if v > limit:
            n += 1

    for (x,) in xs:
        bump(x)
    return n
