# expect: 13:5 while
# expect: 21:5 try
# expect: 36:13 break
"""Three algorithms, each with a control-flow construct looplift rejects:
`while`, `try` and `break`. All three are reported."""

from looplift import RowStream, dataflow


@dataflow
def digits(n: int) -> int:
    count = 1
    while n >= 10:
        n //= 10
        count += 1
    return count


@dataflow
def ratio_or_zero(a: int, b: int) -> int:
    try:
        v = a // b
    except ZeroDivisionError:
        v = 0
    finally:
        b = 1
    return v + b


@dataflow
def has_big(xs: RowStream[int]) -> int:
    found = 0
    for (x,) in xs:
        if x > 100:
            found += 1
            break
    return found
