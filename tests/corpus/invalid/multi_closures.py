# expect: 15:5 global
# expect: 18:13 return
# expect: 28:20 recursion
"""Python features with no meaning in a parallel plan: a `global` declaration, a `return`
inside a loop over rows in no order, and a recursive aggregate. (A lambda passed to a host
function is a Python island now: valid/island_lambdas.py.)"""

from looplift import RowStream, dataflow

THRESHOLD = 10


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
