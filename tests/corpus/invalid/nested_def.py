# expect: 9:5 def
"""A helper defined inside the algorithm instead of as its own @dataflow function."""

from looplift import RowStream, dataflow


@dataflow
def scaled_total(xs: RowStream[int], factor: int) -> int:
    def scale(v):
        return v * factor

    total = 0
    for (x,) in xs:
        total += scale(x)
    return total
