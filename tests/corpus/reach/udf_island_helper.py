"""Helpers with a `while` loop, called per group (Python islands inlined into the caller's
plan, issue 25)."""
from looplift import RowStream, dataflow, group_by


@dataflow
def digit_root(n: int) -> int:
    n = abs(n)
    while n >= 10:
        s = 0
        while n:
            s += n % 10
            n //= 10
        n = s
    return n


@dataflow
def reduced(num: int, den: int) -> str:
    a = abs(num)
    b = abs(den)
    while b:
        a, b = b, a % b
    g = a or 1
    return f"{num // g}/{den // g}"


@dataflow(columns=("k", "root", "ratio"))
def group_roots(rows: RowStream[str, int]):
    for k, g in group_by(0, rows):
        total = 0
        n = 0
        for _k, v in g:
            total += v
            n += 1
        yield k, digit_root(total), reduced(total, n)
