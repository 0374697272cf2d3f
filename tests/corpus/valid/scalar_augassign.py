"""Augmented assignment with every arithmetic operator, in scalar code and on
row-local variables (assigned afresh in each iteration, so not loop-carried)."""

from looplift import RowStream, dataflow


@dataflow
def churn(x: int) -> tuple[int, float]:
    y = x
    y += 10
    y -= 3
    y *= 4
    y //= 3
    y %= 50
    y **= 2
    z = float(y)
    z /= 8
    z += 0.25
    return y, z


@dataflow(columns=("a", "b", "v"))
def per_row(rows: RowStream[int, int]):
    for a, b in rows:
        v = a
        v *= b
        v -= 1
        v //= 2
        v %= 10
        yield a, b, v


EXAMPLES = {
    "churn": [(5,), (-20,), (40,)],
    "per_row": [([(3, 4), (-3, 5), (0, 7)],), ([],)],
}

EXPECTED = {
    # 5: 15, 12, 48, 16, 16, 256; 256/8 + .25
    # -20: -10, -13, -52, -18 (floor), 32 (mod 50), 1024; 128 + .25
    # 40: 50, 47, 188, 62, 12, 144; 18 + .25
    "churn": [(256, 32.25), (1024, 128.25), (144, 18.25)],
    # (3,4): 12 -> 11 -> 5 -> 5; (-3,5): -15 -> -16 -> -8 -> 2; (0,7): 0 -> -1 -> -1 -> 9
    "per_row": [[(3, 4, 5), (-3, 5, 2), (0, 7, 9)], []],
}
