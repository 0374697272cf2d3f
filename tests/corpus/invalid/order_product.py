# expect: 13:9 order
"""An update of a loop-carried local that is no reduction, in an unordered loop: a
Horner-style accumulation (the product that was here, ``p *= d``, is a Product reduction
now: tests/corpus/valid/agg_loop_locals.py)."""

from looplift import RowStream, dataflow


@dataflow
def product_and_code(digits: RowStream[int]) -> tuple[int, int]:
    code = 0
    for (d,) in digits:
        code = code * 10 + d
    return code, code
