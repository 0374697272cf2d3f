"""Two loops over the same stream, the second using a value computed from the
first (the mean), and an early return between them."""

from looplift import RowStream, dataflow


@dataflow
def variance_two_pass(xs: RowStream[float]) -> float:
    n = 0
    s = 0.0
    for (x,) in xs:
        n += 1
        s += x
    if n == 0:
        return 0.0
    mean = s / n
    dev = 0.0
    for (x,) in xs:
        dev += (x - mean) ** 2
    return dev / n


@dataflow
def above_mean(rows: RowStream[int, float]) -> int:
    total = 0.0
    n = 0
    for _k, v in rows:
        total += v
        n += 1
    mean = total / n if n > 0 else 0.0
    above = 0
    for _k, v in rows:
        if v > mean:
            above += 1
    return above


EXAMPLES = {
    "variance_two_pass": [([(1.0,), (2.0,), (3.0,), (4.0,)],), ([],)],
    "above_mean": [([(1, 1.0), (2, 5.0), (3, 3.0)],), ([],)],
}

EXPECTED = {
    # mean 2.5, squared deviations 2.25 + .25 + .25 + 2.25 = 5, / 4
    "variance_two_pass": [1.25, 0.0],
    # mean 3.0: only 5.0 is above
    "above_mean": [1, 0],
}
