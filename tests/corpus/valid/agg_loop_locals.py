"""Loop-carried locals recognized as reductions (SPEC §2): `total += x`,
`n += 1`, `best = max(best, x)`, `lo = min(lo, x)`, `p *= x`, also under conditions."""

from looplift import RowStream, dataflow


@dataflow
def reductions(xs: RowStream[int]) -> tuple[int, int, int, int]:
    total = 0
    n = 0
    best = -1000
    lo = 1000
    for (x,) in xs:
        total += x
        n += 1
        best = max(best, x)
        lo = min(lo, x)
    return total, n, best, lo


@dataflow
def conditional_reductions(xs: RowStream[int]) -> tuple[int, int, int, float]:
    evens = 0
    odd_sum = 0
    big = 0
    scaled = 0.0
    for (x,) in xs:
        if x % 2 == 0:
            evens += 1
        else:
            odd_sum += x
        if x > 10:
            big = max(big, x * 2)
        scaled += x / 4
    return evens, odd_sum, big, scaled


@dataflow
def products(xs: RowStream[int]) -> tuple[int, float]:
    p = 1
    half = 0.5
    for (x,) in xs:
        p *= x
        if x > 0:
            half = half * x
    return p, half


XS = [(3,), (12,), (-5,), (8,)]

EXAMPLES = {
    "reductions": [(XS,), ([],)],
    "conditional_reductions": [(XS,), ([],)],
    "products": [(XS,), ([],)],
}

EXPECTED = {
    "reductions": [(18, 4, 12, -5), (0, 0, -1000, 1000)],
    # evens 12, 8; odd 3 + -5 (-5 % 2 == 1); big 2 * 12; 18 / 4
    "conditional_reductions": [(2, -2, 24, 4.5), (0, 0, 0, 0.0)],
    # 3 * 12 * -5 * 8 = -1440; 0.5 * 3 * 12 * 8 = 144.0; no rows: the start values
    "products": [(-1440, 144.0), (1, 0.5)],
}
