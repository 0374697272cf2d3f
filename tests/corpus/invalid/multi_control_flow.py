# expect: 15:13 break
"""A control-flow construct with no meaning in parallel: `break` in a loop over rows in no
order (which rows it skips depends on their order). `while` and `try`, which run the same
in any order, are Python islands now (valid/island_control_flow.py)."""

from looplift import RowStream, dataflow


@dataflow
def has_big(xs: RowStream[int]) -> int:
    found = 0
    for (x,) in xs:
        if x > 100:
            found += 1
            break
    return found
