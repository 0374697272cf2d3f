# expect: 11:16 recursion
"""A recursive scalar algorithm: calls are inlined, so recursion cannot be compiled."""

from looplift import dataflow


@dataflow
def factorial(n: int) -> int:
    if n <= 1:
        return 1
    return n * factorial(n - 1)
