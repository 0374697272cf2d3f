"""Where SQL and Python differ (SPEC §4): floor division and modulo on
negative ints and floats, banker's rounding, int() truncation, true
division of ints, floor division inside a reduction."""

from looplift import RowStream, dataflow


@dataflow
def floor_ops(a: int, b: int) -> tuple[int, int, float, float]:
    return a // b, a % b, float(a) // b, float(a) % b


@dataflow
def bankers(x: float) -> tuple[int, int]:
    return round(x), round(-x)


@dataflow
def truncate(x: float) -> tuple[int, int]:
    return int(x), int(-x)


@dataflow
def true_div(a: int, b: int) -> float:
    return a / b


@dataflow
def bucket_sums(xs: RowStream[int]) -> tuple[int, int]:
    q = 0
    r = 0
    for (x,) in xs:
        q += x // 10
        r += x % 10
    return q, r


EXAMPLES = {
    "floor_ops": [(-7, 2), (7, -2), (-7, -2), (6, 3)],
    "bankers": [(0.5,), (1.5,), (2.5,), (2.4,)],
    "truncate": [(2.9,), (-0.5,)],
    "true_div": [(7, 2), (-1, 4), (6, 3)],
    "bucket_sums": [([(-15,), (25,), (-1,)],)],
}

EXPECTED = {
    "floor_ops": [(-4, 1, -4.0, 1.0), (-4, -1, -4.0, -1.0), (3, -1, 3.0, -1.0),
                  (2, 0, 2.0, 0.0)],
    # halves round to the even neighbour
    "bankers": [(0, 0), (2, -2), (2, -2), (2, -2)],
    "truncate": [(2, -2), (0, 0)],
    "true_div": [3.5, -0.25, 2.0],
    # -15 // 10 = -2, 25 // 10 = 2, -1 // 10 = -1; -15 % 10 = 5, 5, 9
    "bucket_sums": [(-1, 19)],
}
