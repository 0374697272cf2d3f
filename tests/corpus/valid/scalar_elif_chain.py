"""Scalar algorithms with long elif chains, nested ifs, early returns and pass."""

from looplift import dataflow


@dataflow
def grade(score: int) -> str:
    if score >= 90:
        g = "A"
    elif score >= 80:
        g = "B"
    elif score >= 70:
        g = "C"
    elif score >= 60:
        g = "D"
    else:
        g = "F"
    return g


@dataflow
def bucket(x: float) -> int:
    if x < 0.0:
        if x < -10.0:
            return -2
        return -1
    elif x == 0.0:
        return 0
    else:
        if x > 10.0:
            return 2
        else:
            pass
    return 1


EXAMPLES = {
    "grade": [(95,), (80,), (79,), (60,), (12,)],
    "bucket": [(-20.0,), (-0.5,), (0.0,), (3.0,), (11.0,)],
}

EXPECTED = {
    "grade": ["A", "B", "C", "D", "F"],
    "bucket": [-2, -1, 0, 1, 2],
}
