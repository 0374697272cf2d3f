# expect: 14:9 order
# expect: 15:9 order
"""Updates of loop-carried locals that are not Sum/Count/Min/Max reductions,
in an unordered loop: a product and a Horner-style accumulation."""

from looplift import RowStream, dataflow


@dataflow
def product_and_code(digits: RowStream[int]) -> tuple[int, int]:
    p = 1
    code = 0
    for (d,) in digits:
        p *= d
        code = code * 10 + d
    return p, code
