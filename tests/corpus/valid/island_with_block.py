"""A `with` block around a computation: a Python island (issue 25)."""

import warnings

from looplift import dataflow


@dataflow
def ratio(a: int, b: int) -> float:
    r = 0.0
    with warnings.catch_warnings():
        r = a / (b + 1)
    return r


EXAMPLES = {"ratio": [(1, 1), (7, 0), (-3, 4), (0, 2)]}
