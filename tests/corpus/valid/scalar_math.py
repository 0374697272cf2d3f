"""math.* in scalar algorithms: sqrt, floor, ceil, log (one and two arguments),
log10, exp, and the constant pi."""

import math

from looplift import dataflow


@dataflow
def hypot2(x: float, y: float) -> float:
    return math.sqrt(x * x + y * y)


@dataflow
def floors(x: float) -> tuple[int, int]:
    return math.floor(x), math.ceil(x)


@dataflow
def logs(x: float) -> tuple[float, float, float, float]:
    return math.log(x), math.log(x, 2), math.log10(x), math.exp(math.log(x))


@dataflow
def circle_area(r: float) -> float:
    return round(math.pi * r**2, 4)


EXAMPLES = {
    "hypot2": [(3.0, 4.0), (0.0, 0.0)],
    "floors": [(2.5,), (-2.5,), (3.0,)],
    "logs": [(1.0,), (8.0,)],
    "circle_area": [(1.0,), (2.0,)],
}

EXPECTED = {
    "hypot2": [5.0, 0.0],
    "floors": [(2, 3), (-3, -2), (3, 3)],
    # ln 8 = 3 ln 2 = 2.0794415416798357; log2 8 = 3; log10 8 = 0.9030899869919435
    "logs": [(0.0, 0.0, 0.0, 1.0), (2.0794415416798357, 3.0, 0.9030899869919435, 8.0)],
    # pi = 3.14159... -> 3.1416; 4 pi = 12.56637... -> 12.5664
    "circle_area": [3.1416, 12.5664],
}
