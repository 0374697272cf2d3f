"""Scalar algorithms: every arithmetic operator, unary minus, int and float literals."""

from looplift import dataflow


@dataflow
def arith(a: int, b: int) -> tuple[int, int, int, float, int, int, int, int]:
    return a + b, a - b, a * b, a / b, a // b, a % b, a**2, -a


@dataflow
def poly(x: float) -> float:
    return 3.0 * x**2 - 2 * x + 0.5


@dataflow
def mixed(a: int, f: float) -> float:
    return (a + f) * (a - f) / 2 + a % 3 - f // 1.5


EXAMPLES = {
    "arith": [(7, 2), (-7, 2), (7, -2)],
    "poly": [(2.0,), (-1.5,), (0.0,)],
    "mixed": [(4, 1.0), (-5, 2.5)],
}

EXPECTED = {
    # 7 // 2 = 3, 7 % 2 = 1; -7 // 2 = -4 (floor), -7 % 2 = 1; 7 // -2 = -4, 7 % -2 = -1
    "arith": [(9, 5, 14, 3.5, 3, 1, 49, -7), (-5, -9, -14, -3.5, -4, 1, 49, 7),
              (5, 9, -14, -3.5, -4, -1, 49, -7)],
    # 3*4 - 4 + .5; 3*2.25 + 3 + .5; .5
    "poly": [8.5, 10.25, 0.5],
    # 5*3/2 + 1 - 0.0 = 8.5;  (-2.5)(-7.5)/2 + (-5 % 3 = 1) - (2.5 // 1.5 = 1.0) = 9.375
    "mixed": [8.5, 9.375],
}
