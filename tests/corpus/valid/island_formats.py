"""A `%` conversion with no native lowering (a width: `%5d`) is the returned value's Python
island (issue 25)."""

from looplift import dataflow


@dataflow
def padded(x: int) -> str:
    return "n=%5d" % x


EXAMPLES = {"padded": [(0,), (42,), (-123456,), (9223372036854775807,)]}
