"""The builtins of SPEC §2: abs, min, max, round, int, float, str, bool, len."""

from looplift import dataflow


@dataflow
def builtins_int(a: int, b: int, c: int) -> tuple[int, int, int, int, float, str, bool, bool]:
    return abs(a), min(a, b), max(a, b, c), min(b, c, a), float(a), str(b), bool(c), bool(a - a)


@dataflow
def rounding(x: float) -> tuple[int, float, float, float, int]:
    return round(x), round(x, 1), round(x, 2), round(x, 0), int(x)


@dataflow
def text_len(s: str, t: str) -> tuple[int, int, str]:
    return len(s), len(s + t), str(len(t)) + "!"


EXAMPLES = {
    "builtins_int": [(-3, 4, 0), (5, 2, 9)],
    "rounding": [(2.5,), (-2.5,), (3.5,), (0.25,), (-2.7,), (2.675,)],
    "text_len": [("abc", "de"), ("", "")],
}

EXPECTED = {
    "builtins_int": [(3, -3, 4, -3, -3.0, "4", False, False),
                     (5, 2, 9, 2, 5.0, "2", True, False)],
    # banker's rounding: round(2.5) = 2, round(3.5) = 4, round(0.25, 1) = 0.2;
    # 2.675 is stored as 2.67499999... so round(2.675, 2) = 2.67; int() truncates toward 0
    "rounding": [(2, 2.5, 2.5, 2.0, 2), (-2, -2.5, -2.5, -2.0, -2), (4, 3.5, 3.5, 4.0, 3),
                 (0, 0.2, 0.25, 0.0, 0), (-3, -2.7, -2.7, -3.0, -2), (3, 2.7, 2.67, 3.0, 2)],
    "text_len": [(3, 5, "2!"), (0, 0, "0!")],
}
