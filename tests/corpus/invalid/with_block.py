# expect: 12:5 with
"""A `with` block around a computation."""

import warnings

from looplift import dataflow


@dataflow
def ratio(a: int, b: int) -> float:
    r = 0.0
    with warnings.catch_warnings():
        r = a / (b + 1)
    return r
