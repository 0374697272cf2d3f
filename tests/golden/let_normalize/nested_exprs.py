import math

from looplift import dataflow


@dataflow
def score(a: int, b: float) -> float:
    x = abs(a * 2 - 1) + math.sqrt(b * b + 1.0)
    x = x // 3 % 7
    return round(x, 2) if a > 0 or b > 0 else -x
