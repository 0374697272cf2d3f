# expect: 11:5 global
"""A `global` declaration for a module constant that is only read."""

from looplift import RowStream, dataflow

SCALE = 3


@dataflow
def scaled(xs: RowStream[int]) -> int:
    global SCALE
    total = 0
    for (x,) in xs:
        total += x * SCALE
    return total
