"""Scalar algorithms calling scalar algorithms (inlined), a tuple-returning
scalar unpacked at the call site, nested calls."""

from looplift import dataflow


@dataflow
def square(x: int) -> int:
    return x * x


@dataflow
def divmod_floor(a: int, b: int) -> tuple[int, int]:
    return a // b, a % b


@dataflow
def clamp(x: int, lo: int, hi: int) -> int:
    return max(lo, min(x, hi))


@dataflow
def combined(a: int, b: int) -> tuple[int, int, int]:
    q, r = divmod_floor(a, b)
    return square(q) + r, clamp(square(a), 0, 50), square(clamp(b, -3, 3))


EXAMPLES = {
    "square": [(-4,)],
    "divmod_floor": [(-7, 2)],
    "clamp": [(99, 0, 50), (-1, 0, 50)],
    "combined": [(17, 5), (-7, 2), (3, -4)],
}

EXPECTED = {
    "square": [16],
    "divmod_floor": [(-4, 1)],
    "clamp": [50, 0],
    # (17, 5): q 3 r 2 -> 11; 289 -> 50; b 5 -> 3 -> 9
    # (-7, 2): q -4 r 1 -> 17; 49; 2 -> 4
    # (3, -4): q -1 r -1 -> 0; 9; -4 -> -3 -> 9
    "combined": [(11, 50, 9), (17, 49, 4), (0, 9, 9)],
}
